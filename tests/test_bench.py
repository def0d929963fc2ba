"""run_bench.py --quick, end to end: the CSV, JSON and PNG files appear with the expected columns
(the startup suite on the smallest kernel family: every family cold takes about a minute)."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, "run_bench.py", "--quick", "--families", "expand", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out, proc.stdout


@pytest.mark.slow   # (about 25 s: the default test run stays under 5 minutes)
def test_quick_run_writes_csv_and_json(quick_run):
    out, stdout = quick_run
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    suites = {r["suite"] for r in rows}
    assert {"startup", "boards", "scaling", "seed1", "seed2"} <= suites
    startup = {(r["case"], r["cache"]): float(r["in_process_s"]) for r in rows if r["suite"] == "startup"}
    assert set(startup) == {("expand", "cold"), ("expand", "warm")}
    assert startup["expand", "warm"] < startup["expand", "cold"]   # the cold run compiled into the cache the warm one read
    assert {"suite", "case", "time_s", "nodes", "workers", "speedup", "overhead", "states", "published_states",
            "evals_per_search", "depth", "method"} <= set(rows[0])
    data = json.loads((out / "results.json").read_text())
    facts = data["machine"]
    for key in ("cpu_model", "physical_cores", "logical_cores", "memory_gib", "python", "numba"):
        assert facts[key] not in (None, "")
    assert len(data["rows"]) == len(rows)
    # the 3x3 rows of the first seed experiment, with the published counts reproduced
    seed1 = {r["method"]: r for r in data["rows"] if r["suite"] == "seed1" and r["case"] == "3x3 k3"}
    assert seed1["minimax"]["states"] == 549_945 and seed1["minimax"]["match"] is True
    assert seed1["alpha-beta"]["states"] == 18_296 and seed1["alpha-beta"]["match"] is True
    assert "| case |" in stdout   # the Markdown summary
    # the parallel rows carry the task log's span and the bound it gives
    parallel = [r for r in data["rows"] if r["suite"] in ("scaling", "overhead") and r.get("workers", 1) > 1
                and "case" in r and r["case"] != "pool start"]
    assert parallel and all(0 < r["span"] <= r["overhead"] for r in parallel)
    for r in parallel:
        assert r["bound_16"] <= r["bound_64"] + 1e-9 and r["bound_16"] <= 16 / r["overhead"] + 1e-9


@pytest.mark.slow
def test_quick_run_writes_the_plots(quick_run):
    pytest.importorskip("matplotlib", reason="the plots need the 'bench' extra (pip install -e '.[bench]')")
    out, _ = quick_run
    for name in ("speedup.png", "overhead.png", "nodes_per_worker.png", "time_per_suite.png",
                 "seed_evaluations.png"):
        path = out / name
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def test_machine_ceiling_runs_serial_solves_at_once(monkeypatch):
    """The scaling suite's ceiling: W serial solves at once in W processes (real ones,
    each must end well), W * alone over their time: the clock is a fake that says 2 s
    from the start to the end, so the figure is exact whatever the machine does."""
    import types

    import bench.suite_scaling as suite
    from parallel_mnk import GameSpec, Position

    positions = [Position(GameSpec(4, 4, 3)), Position(GameSpec(3, 3, 3))]
    ticks = iter([100.0, 102.0, 200.0, 202.0])
    monkeypatch.setattr(suite, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks),
                                                              sleep=lambda s: None))
    assert suite.machine_ceiling(positions, False, 1, 3.0) == 1.0
    assert suite.machine_ceiling(positions, False, 2, 3.0) == 2 * 3.0 / 2.0
    assert suite.machine_ceiling(positions, True, 3, 1.0) == 3 * 1.0 / 2.0


def test_span_columns_bound_the_speedup_by_work_and_span():
    """serial / max(work / P, span): 100 serial nodes, 120 done by 2 workers with a
    span of 10 give 1.67 at 2 workers... and 10 at 16 and 64 (the span binds);
    the phase shares come from the summed task-log figures."""
    from bench.suite_scaling import Run, add_figures, span_columns

    figures = {"workers": 2, "probe_s": 1.0, "busy_s": 1.5, "abandoned_s": 0.25, "helping_s": 0.0, "starved_s": 0.2,
               "tail_s": 0.1, "coordinator_nodes": 20, "span_nodes": 10, "abandoned_nodes": 15, "helping_nodes": 5}
    total = add_figures(add_figures(None, figures), figures)
    assert total["probe_s"] == 2.0 and total["span_nodes"] == 20 and "workers" not in total
    cols = span_columns(100, Run(1.0, 120, [], [], span=10, phases=figures), 2)
    assert cols["span"] == 0.1 and cols["bound_16"] == cols["bound_64"] == 10
    assert cols["idle_share_log"] == 0.25 and cols["abandoned_share"] == 0.125 and cols["starved_share"] == pytest.approx(0.15)
    assert cols["busy_rate"] == 100 / 1.5 and cols["wasted"] == 0.2


@pytest.mark.parametrize("args", [["--repeat", "0"], ["--workers", "0"], ["--workers", "1,x"],
                                  ["--split-depths", "auto,9"], ["--split-depths", "lazy"], ["--tt-size", "nonsense"],
                                  ["--tt-size", "0"]])
def test_bad_arguments_get_a_one_line_error(args, capsys):
    import run_bench

    with pytest.raises(SystemExit) as stop:
        run_bench.main(args + ["--suites", "scaling"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["--help"], ["free", "nofamily"], ["gravity@7x6"]])
def test_compile_profile_refuses_what_is_no_family_in_one_line(argv, capsys):
    from bench import compile_profile

    assert compile_profile.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "give kernel families" in err


def test_a_count_that_is_not_a_number_is_named_in_the_error(capsys):
    import run_bench

    with pytest.raises(SystemExit):
        run_bench.main(["--workers", "1,x", "--suites", "scaling"])
    assert "expected a whole number, got 'x'" in capsys.readouterr().err


def test_worker_counts_are_sorted_so_the_smallest_is_the_baseline():
    import run_bench

    assert run_bench._worker_counts("4,1,2,2") == [1, 2, 4]


def test_split_modes_are_named_in_the_rows():
    """--split-depths auto,0,2: the solver's own split, Lazy SMP, depth 2; each a case."""
    import run_bench
    from bench.suite_scaling import mode_name

    assert run_bench._split_depths("auto,0,2") == [None, 0, 2]
    assert [mode_name(d) for d in (None, 0, 2)] == ["", " lazy-smp", " split-depth 2"]


FAKE_PEER = r'''
import sys
for line in sys.stdin:
    moves = line.split(" ")[0].strip()
    score = {"4": -1, "44": 2}.get(moves, 0)
    print(f"{moves} {score} {10 * len(moves) + 1} 250")
'''


def test_a_peer_runs_on_the_same_lines_and_its_differences_are_named(tmp_path):
    """bench.peers: a peer answering 'line score nodes time_us' is read back line by
    line; wrong scores (against the expected ones) and the lines where it and we
    differ are counted; the empty line is the empty board."""
    from bench.peers import Peer, peer_rows, run_peer
    script = tmp_path / "peer.py"
    script.write_text(FAKE_PEER)
    peer = Peer.parse(f"{sys.executable} {script}")
    assert (peer.cols, peer.rows) == (7, 6) and peer.name == Path(sys.executable).name
    answers, _ = run_peer(peer, ["4", "", "44"])
    assert [(a.line, a.score, a.nodes, a.time_s) for a in answers] == [("4", -1, 11, 250e-6), ("", 0, 1, 250e-6),
                                                                      ("44", 2, 21, 250e-6)]
    rows = peer_rows(peer, "connect4", "test", ["4", "", "44"], [-1, 0, 3], [-1, 1, 3], log=lambda _: None)
    assert rows[0]["wrong"] == 1 and rows[0]["differ"] == 2 and rows[0]["differ_lines"] == "(empty) 44"
    assert rows[0]["nodes"] == 33


def test_a_peer_that_breaks_its_contract_gives_an_error_row(tmp_path):
    from bench.peers import Peer, peer_rows
    script = tmp_path / "bad.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print('nonsense')\n")
    rows = peer_rows(Peer.parse(f"6x6={sys.executable} {script}"), "gravity", "x", ["4"], [0], [0], log=lambda _: None)
    assert "cannot read 'nonsense'" in rows[0]["error"]
    rows = peer_rows(Peer.parse("/nonexistent/solver"), "gravity", "x", ["4"], [0], [0], log=lambda _: None)
    assert "peer solver" in rows[0]["error"]


def test_a_bad_peer_option_gets_a_one_line_error(capsys):
    import run_bench
    with pytest.raises(SystemExit) as e:
        run_bench.main(["--peer", "", "--suites", "gravity"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("error: argument --peer: empty peer command ''")


def test_an_empty_boards_peer_runs_only_on_empty_boards():
    from bench.peers import Peer
    peer = Peer.parse("empty:6x6=/opt/c4 --threads 2")
    assert (peer.name, peer.command, peer.cols, peer.rows, peer.empty_only) == ("c4", "/opt/c4 --threads 2", 6, 6, True)
    assert peer.runs_on(6, 6, [""]) and not peer.runs_on(6, 6, ["", "4"]) and not peer.runs_on(7, 6, [""])
    every = Peer.parse("/opt/c4")
    assert not every.empty_only and every.runs_on(7, 6, ["4", "44"]) and every.runs_on(7, 6, [""])


def test_the_free_profile_counts_every_node_once_and_zones_keep_the_value(tmp_path, capsys):
    """bench/free_profile.py: the kinds add up to the nodes (every node is counted where it
    ends), the value is the published one with reply zones on and off, zones close moves
    and save nodes on (7,7,5); a board without pairings is a one-line error."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import free_profile

    on = free_profile.profile(free_profile.GameSpec(7, 7, 5), "", 18, 0, True)
    off = free_profile.profile(free_profile.GameSpec(7, 7, 5), "", 18, 0, False)
    for r in (on, off):
        assert r["value"] == 0 and sum(r["kinds"].values()) == r["nodes"]
        assert sum(sum(row.values()) for row in r["per_ply"].values()) == r["nodes"]
    assert on["zone_skips"] > 0 and off["zone_skips"] == 0 and on["nodes"] < off["nodes"]
    assert free_profile.main(["--cols", "7", "--rows", "7", "--k", "5", "--tt-bits", "18", "--node-limit", "2000",
                              "--json", str(tmp_path / "p.json")]) == 0
    assert "value unknown" in capsys.readouterr().out
    assert json.loads((tmp_path / "p.json").read_text())["value"] is None
    assert free_profile.main(["--cols", "7", "--rows", "7", "--k", "2"]) == 2   # (no pairings for k < 3)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
