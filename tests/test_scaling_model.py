"""bench/scaling_model.py and the many-cores suite's arithmetic (no solves here):

* the replay of a trace: a chain waits for each answer, independent tasks run at
  once on their places, a place runs its tasks one after the other, the
  coordinator's turns queue, a stopped task ends a poll after its stop; one core
  a place and no costs give the span of the recorded schedule;
* a prediction's factors multiply back to its speed-up; a machine profile's rate
  is the nearest measured worker count at or below;
* the many-cores suite: the three factors of a row multiply to its speed-up; the
  machine profile averages weak and exact; a peer's thread count is read from its name;
  the plot is written from such rows.
"""
from __future__ import annotations

import pytest

from bench import plots, scaling_model as M, suite_many_cores as MC
from bench.peers import Peer
from parallel_mnk.parallel.scheduling.tasklog import TaskRecord


def task(place, after, nodes, outcome="counted", probe=0, start=0.0, stopped_after=-1):
    return TaskRecord(probe, place, False, after, start, start + 1, nodes, outcome, stopped_after)


def test_replay_follows_the_recorded_dependencies():
    node = 1e-3   # a node a millisecond: nodes read as milliseconds
    chain = [task(1, -1, 10, start=0), task(1, 0, 20, start=1), task(2, 1, 5, start=2)]
    assert M.replay(chain, node, 0.0, 0.0) == (pytest.approx(0.035), pytest.approx(0.035))
    parallel = [task(1, -1, 10, start=0), task(2, -1, 30, start=0), task(3, -1, 20, start=0)]
    assert M.replay(parallel, node, 0.0, 0.0)[0] == pytest.approx(0.030)
    same_place = [task(1, -1, 10, start=0), task(1, -1, 30, start=1)]
    assert M.replay(same_place, node, 0.0, 0.0)[0] == pytest.approx(0.040)
    probes = [task(1, -1, 10, probe=0), task(1, -1, 10, probe=1)]   # probes follow one another
    assert M.replay(probes, node, 0.0, 0.0)[0] == pytest.approx(0.020)


def test_turns_queue_and_a_stopped_task_ends_a_poll_after_its_stop():
    node = 1e-6
    # three answers at once: the coordinator takes them one after the other
    three = [task(p, -1, 1000, start=0) for p in (1, 2, 3)]
    assert M.replay(three, node, turn_s=0.01, pipe_s=0.0)[0] == pytest.approx(0.001 + 0.03)
    # a task stopped after the first one's answer: it ends 512 nodes after that turn, whatever it recorded
    stopped = [task(1, -1, 1000, start=0), task(2, -1, 10**6, "abandoned", start=0, stopped_after=0)]
    seconds, busy = M.replay(stopped, node, turn_s=0.0, pipe_s=0.0)
    assert busy == pytest.approx(0.001 + 0.001 + 512e-6)
    # a stop that never comes: the recorded nodes
    orphan = [task(1, -1, 1000, "abandoned", stopped_after=7)]
    assert M.replay(orphan, node, 0.0, 0.0)[1] == pytest.approx(0.001)


def test_prediction_factors_multiply_to_the_speedup():
    trace = [task(p, -1, 1_000_000, start=0) for p in range(1, 5)] + [task(1, 0, 1_000_000, start=1)]
    pr = M.predict(trace, serial_nodes=4_000_000, coordinator_nodes=0, workers=4, rate=0.8, serial_rate=1e6,
                   turn_s=0.0, pipe_s=0.0)
    assert pr.overhead == pytest.approx(1.25)
    assert pr.speedup == pytest.approx(4 * pr.busy_share * pr.rate / pr.overhead)
    assert pr.speedup == pytest.approx(4.0 / (2 / 0.8))   # two rounds of 1 M nodes at 0.8 M/s


def test_machine_profile_rates():
    profile = {"rate": {"thread": {"2": 0.9, "8": 0.7, "16": 0.6}}}
    assert M.profile_rate(profile, "thread", 16) == 0.6 and M.profile_rate(profile, "thread", 64) == 0.6
    assert M.profile_rate(profile, "thread", 4) == 0.9 and M.profile_rate(profile, "thread", 1) == 1.0
    assert M.profile_rate(profile, "process", 16) == 1.0 and M.profile_rate(None, "thread", 16) == 1.0
    assert M.machine_profile("no such machine") is None
    xeon = M.machine_profile("xeon16")
    assert xeon is not None and set(xeon["rate"]) == {"process", "thread"}


def test_many_cores_factors_multiply_to_the_speedup():
    base = {"time_s": 20.0, "nodes": 80_000_000}
    answer = {"time_s": 2.5, "nodes": 120_000_000,
              "parallel": {"busy_s": 36.0, "probe_s": 2.4, "abandoned_s": 3.6, "splits": 200, "pool_start_s": 0.1}}
    f = MC.factors(answer, base, 16)
    assert f["speedup"] == pytest.approx(8.0) and f["overhead"] == pytest.approx(1.5)
    assert 16 * f["busy_share"] * f["rate"] / f["overhead"] == pytest.approx(f["speedup"])
    assert f["abandoned_share"] == pytest.approx(3.6 / (16 * 2.4))
    assert MC.factors({"time_s": 20.0, "nodes": 80_000_000}, base, 1) == {"speedup": 1.0, "overhead": 1.0}


def test_many_cores_profile_and_peer_threads(tmp_path):
    rows = [{"suite": "many-cores", "pool": "thread", "workers": 16, "rate": r, "case": c}
            for r, c in ((0.7, "empty 7x6 weak"), (0.5, "empty 7x6 exact"))]
    assert MC.machine_profile(rows, {"cpu_model": "X", "usable_cpus": 16})["rate"] == {"thread": {"16": 0.6}}
    assert MC.peer_threads(Peer.parse("empty:/x/c4_7x6_t16")) == 16
    assert MC.peer_threads(Peer.parse("empty:/x/c4_7x6")) == 1
    plt = plots._pyplot()
    if plt is None:
        pytest.skip("matplotlib is not installed (the bench extra)")
    rows = [{"suite": "many-cores", "case": "empty 7x6 weak", "pool": pool, "workers": w, "speedup": s}
            for pool in ("process", "thread") for w, s in ((1, 1.0), (2, 1.8), (16, 9.0))]
    rows += [{"suite": "many-cores-peer", "case": "empty 7x6 weak", "solver": "c4", "workers": w, "speedup": s}
             for w, s in ((1, 1.0), (16, 3.5))]
    rows += [{"suite": "many-cores-ceiling", "workers": 16, "ceiling": 14.0}]
    assert plots.plot_many_cores(plt, rows, tmp_path / "m.png") and (tmp_path / "m.png").stat().st_size > 1000


def test_free_rates_and_a_base_of_two_workers():
    profile = {"rate": {"process": {"16": 0.8}}, "rate_free": {"process": {"16": 0.6}}}
    assert M.profile_rate(profile, "process", 16, free=True) == 0.6
    assert M.profile_rate(profile, "process", 16) == 0.8
    assert M.profile_rate({"rate": {"process": {"16": 0.8}}}, "process", 16, free=True) == 0.8
    # a case whose fewest workers are 2 ((9,6,5)): the factors multiply to its speed-up over 2
    base = {"time_s": 40.0, "nodes": 18_000_000, "parallel": {"busy_s": 76.0, "probe_s": 39.0, "abandoned_s": 0.0}}
    answer = {"time_s": 8.0, "nodes": 22_000_000, "parallel": {"busy_s": 120.0, "probe_s": 7.5, "abandoned_s": 1.0}}
    f = MC.factors(answer, base, 16)
    base_share = 76.0 / (2 * 40.0)
    assert f["speedup"] == pytest.approx(5.0)
    assert 16 / 2 * f["busy_share"] / base_share * f["rate"] / f["overhead"] == pytest.approx(f["speedup"])


def test_many_cores_profile_keeps_the_families_and_the_machine_apart(tmp_path):
    rows = [{"suite": "many-cores-machine", "case": "the machine", "workers": 16, "cpu_mhz": 2400,
             "stream_gbs_1": 10.0, "peer_weak_1_to_16": 3.0},
            {"suite": "many-cores", "pool": "process", "workers": 16, "rate": 0.8, "case": "empty 7x6 weak",
             "base_workers": 1},
            {"suite": "many-cores", "pool": "process", "workers": 16, "rate": 0.6, "case": "empty (4,9,4) weak",
             "base_workers": 1},
            {"suite": "many-cores", "pool": "process", "workers": 16, "rate": 0.9, "case": "empty (9,6,5) weak",
             "base_workers": 2}]   # (a rate against 2 workers is not a rate over one: left out)
    profile = MC.machine_profile(rows, {"cpu_model": "X", "usable_cpus": 16})
    assert profile["rate"] == {"process": {"16": 0.8}} and profile["rate_free"] == {"process": {"16": 0.6}}
    assert profile["facts"] == {"workers": 16, "cpu_mhz": 2400, "stream_gbs_1": 10.0, "peer_weak_1_to_16": 3.0}
    peers = [{"workers": 1, "time_s": 21.0}, {"workers": 16, "time_s": 7.0}]
    assert MC._yardstick(peers, True) == {"peer_weak_1_to_16": 3.0} and MC._yardstick(peers[:1], False) == {}
    plt = plots._pyplot()
    if plt is None:
        pytest.skip("matplotlib is not installed (the bench extra)")
    free = [{"suite": "many-cores", "case": "empty (9,6,5) weak", "pool": "process", "workers": w, "speedup": s,
             "base_workers": 2} for w, s in ((2, 1.0), (16, 4.7))]
    single = [{"suite": "many-cores", "case": "empty (4,10,4) weak", "pool": "process", "workers": 16,
               "speedup": 1.0, "base_workers": 16}]
    assert plots.plot_many_cores(plt, free + single, tmp_path / "f.png") and (tmp_path / "f.png").stat().st_size > 1000
    assert not plots.plot_many_cores(plt, single, tmp_path / "s.png")   # (one worker count: no curve)


def test_machine_probe_reads_the_cpu_and_measures_memory(monkeypatch):
    from bench import machine_probe as P
    facts = P.cpu_facts()
    assert set(facts) == {"cpu_mhz", "cpu_max_mhz", "llc", "numa_nodes", "hypervisor"}
    monkeypatch.setattr(P, "STREAM_MIB", 4)
    monkeypatch.setattr(P, "TABLE_MIB", 8)
    monkeypatch.setattr(P, "READS", 1 << 14)
    fig = P.memory_figures(2)
    assert fig["stream_gbs_1"] > 0 and fig["random_mreads_all"] > 0
    assert fig["stream_scaling"] == pytest.approx(fig["stream_gbs_all"] / fig["stream_gbs_1"], rel=0.01)
