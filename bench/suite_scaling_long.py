"""The scaling suite's long cases: the empty Connect Four board (7x6), weak and
exact, as whole ``parallel-mnk solve`` processes (what a user waits for), with
the machine's ceiling and the peers' threads in the same run; then the node
overhead, span and speed-up bound at many workers (node counts, in this process).

* whole processes: 1 and W workers (on the process pool and on the thread pool)
  take turns ``repeat`` times (the speed-up is the median of the paired ratios);
  the ceiling is W one-worker processes at
  once over one alone; each process's ``--json`` gives its nodes and its task
  log (span, where the workers' time went);
* peers (``--peer empty:CMD``, e.g. Steininger's c4 with 1 and 2 threads, built by
  ``bench/build_peers.sh``): the same board once each, whole process;
  each of our rows gets ``vs_<peer>``, our time over the peer's;
* at ``many`` workers (default 16; counted, not timed: the machine has fewer
  cores), in this process against a serial solve on the same table size: nodes
  over the serial nodes and the span bound at 16 and 64 workers;
* the model (:mod:`.scaling_model`): at 16 and 64 workers on each pool, the
  speed-up predicted for as many cores, with the busy rates of a machine
  profile (default the 16-core Xeon's, ``bench/machines/xeon16.json``); and for
  the many-cores suite's free boards, empty (4,9,4) and (9,6,5) weak at 2 and 16
  workers on the process pool (:func:`free_model_rows`).
"""
from __future__ import annotations

import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import time
from typing import Optional

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_coordinator
from parallel_mnk.parallel.scheduling.tasklog import speedup_bound
from parallel_mnk import Options

from . import scaling_model
from .peers import Peer, on_empty_7x6

CONNECT4 = GameSpec(7, 6, 4, True)
BACKENDS = ("process", "thread")   # the pools timed at more than one worker
TT_BITS = 24   # the in-process runs (whole processes use the CLI's default table)
BOARD_ARGS = ["--game", "connect4"]   # the board of the whole processes (CONNECT4)
MACHINE = "xeon16"   # the machine profile the model predicts for (bench/machines/)


def solve_process(workers: int, weak: bool, backend: str = "process") -> tuple[float, dict]:
    """Wall seconds and the ``--json`` answer of a whole ``parallel-mnk solve`` of the
    empty 7x6 board (no opening book: the search itself) on ``backend``'s workers."""
    args = [sys.executable, "-m", "parallel_mnk", "solve", *BOARD_ARGS, "--moves", "", "--book", "none",
            "--workers", str(workers), "--no-progress", "--json"] + (["--weak"] if weak else [])
    args += ["--backend", backend] if workers > 1 else []
    t = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, json.loads(out)


def _in_child(weak: bool, start, out) -> None:
    start.wait()
    out.put(solve_process(1, weak)[0])


def process_ceiling(weak: bool, copies: int, alone: float) -> float:
    """``copies`` one-worker processes at once: ``copies * alone / their time``."""
    ctx = mp.get_context("fork")
    out, start = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_in_child, args=(weak, start, out)) for _ in range(copies)]
    for p in procs:
        p.start()
    t = time.perf_counter()
    start.set()
    for p in procs:
        p.join()
    if any(p.exitcode != 0 for p in procs):
        raise RuntimeError("a one-worker solve process failed")
    return copies * alone / (time.perf_counter() - t)


def _peer_times(peers: list[Peer], weak: bool, log) -> dict[str, float]:
    """Each 7x6 peer's whole-process seconds on the empty board (``-w``: weak)."""
    times = {}
    for peer, answer, wall in on_empty_7x6(peers, weak, "scaling-long", log):
        times[peer.name] = wall
        log(f"scaling-long: empty 7x6{' weak' if weak else ''}, peer {peer.name}: {wall:.2f} s, "
            f"{answer.nodes / 1e6:.1f} M nodes")
    return times


def _process_rows(weak: bool, workers_list, repeat: int, peers: list[Peer], log) -> list[dict]:
    """Whole processes: 1 worker, then each larger count on the process and the thread pool, taking turns."""
    case = "empty 7x6 weak" if weak else "empty 7x6 exact"
    kinds = [(n, b) for n in workers_list for b in (("process",) if n == 1 else BACKENDS)]
    runs: dict[tuple[int, str], list[tuple[float, dict]]] = {k: [] for k in kinds}
    for _ in range(repeat):
        for n, b in kinds:
            runs[n, b].append(solve_process(n, weak, b))
    base = kinds[0]
    alone = statistics.median(t for t, _ in runs[base])
    peer_times = _peer_times(peers, weak, log)
    ceilings = {n: 1.0 if n == 1 else process_ceiling(weak, n, alone) for n in workers_list}
    rows = []
    for n, backend in kinds:
        ratios = [b[0] / r[0] for b, r in zip(runs[base], runs[n, backend])]
        speedup = statistics.median(ratios)
        ceiling = ceilings[n]
        wall = statistics.median(t for t, _ in runs[n, backend])
        answer = runs[n, backend][0][1]
        row = {"suite": "scaling-long", "case": case + ("" if n == 1 else f", {backend} pool"), "workers": n,
               "time_s": wall, "speedup": speedup,
               "speedup_runs": " ".join(f"{x:.2f}" for x in ratios), "ceiling": ceiling,
               "ceiling_fraction": speedup / ceiling, "nodes": answer["nodes"],
               "overhead": answer["nodes"] / runs[base][0][1]["nodes"], "backend": backend}
        par = answer.get("parallel")
        if par:
            busy = par["busy_s"]
            row.update(span=par["span_nodes"] / runs[base][0][1]["nodes"],
                       idle_share_log=1 - busy / (n * par["probe_s"]) if par["probe_s"] else None,
                       abandoned_share=par["abandoned_s"] / (n * par["probe_s"]) if par["probe_s"] else None,
                       outside_probes_s=par["wall_s"] - par["probe_s"])
        for name, t in peer_times.items():
            row[f"vs_{name}"] = wall / t
        rows.append(row)
        vs = ", ".join(f"{wall / t:.2f}x the time of {name}" for name, t in peer_times.items())
        log(f"scaling-long: {row['case']}, {n} worker(s), whole process: {wall:.2f} s, {answer['nodes'] / 1e6:.1f} M nodes, "
            f"speedup {speedup:.2f} (runs {row['speedup_runs']}), ceiling {ceiling:.2f}, fraction "
            f"{row['ceiling_fraction']:.2f}" + (f"; {vs}" if vs else ""))
    return rows


def _many_rows(weak: bool, many: int, log) -> list[dict]:
    """Nodes, span and bound of one in-process solve at ``many`` workers against a serial one."""
    case = "empty 7x6 weak" if weak else "empty 7x6 exact"
    pos = Position(CONNECT4)
    serial = solve(pos, weak=weak, options=Options(pv=False, tt_size=8 << TT_BITS, progress=False, book="none"))
    r = solve(pos, weak=weak, options=Options(workers=many, pv=False, tt_size=8 << TT_BITS, progress=False, book="none"))
    assert r.parallel is not None and r.value == serial.value and r.score == serial.score
    span = r.parallel["span_nodes"]
    row = {"suite": "overhead", "case": case, "workers": many, "nodes": r.nodes, "overhead": r.nodes / serial.nodes,
           "span": span / serial.nodes, "bound_16": speedup_bound(serial.nodes, r.nodes, span, 16),
           "bound_64": speedup_bound(serial.nodes, r.nodes, span, 64), "time_s": r.time_s}
    log(f"overhead: {case}, {many} workers: nodes x{row['overhead']:.2f} ({serial.nodes / 1e6:.1f} M serial), "
        f"span {row['span']:.3f} of the serial nodes: speed-up bound {row['bound_16']:.1f}x at 16 workers, "
        f"{row['bound_64']:.1f}x at 64")
    return [row]


def _model_rows(weak: bool, counts: tuple[int, ...], profile: Optional[dict], log) -> list[dict]:
    """The model's rows for the empty 7x6 board (:func:`model_rows`), both pools."""
    return model_rows("empty 7x6 " + ("weak" if weak else "exact"), Position(CONNECT4), weak, counts, profile, log)


def model_rows(case: str, pos: Position, weak: bool, counts: tuple[int, ...], profile: Optional[dict], log,
               pools: tuple[str, ...] = BACKENDS, free: bool = False) -> list[dict]:
    """The model's speed-up over one worker on as many cores as workers
    (``bench/scaling_model.py``): per pool and worker count, one solve in this process
    (time-shared here) gives the nodes and the task log's trace, replayed with the
    profile's busy rates (``free``: its free boards' rates, where it has them)."""
    serial = solve(pos, weak=weak, options=Options(pv=False, tt_size=8 << TT_BITS, progress=False, book="none"))
    serial_rate = serial.nodes / serial.time_s
    rows = []
    for pool in pools:
        for workers in counts:
            r = solve(pos, weak=weak, options=Options(workers=workers, backend=pool, pv=False, tt_size=8 << TT_BITS, progress=False, book="none"))
            assert r.parallel is not None and r.value == serial.value and r.score == serial.score
            trace = get_coordinator(pool, workers, TT_BITS).log.trace
            turn_s = r.parallel["coordinator_cpu_s"] / max(1, len(trace))
            rate = scaling_model.profile_rate(profile, pool, workers, free)
            pr = scaling_model.predict(trace, serial.nodes, r.parallel["coordinator_nodes"], workers, rate=rate,
                                       serial_rate=serial_rate, turn_s=turn_s)
            rows.append({"suite": "model", "case": case, "pool": pool, "workers": workers, "nodes": r.nodes,
                         "overhead": pr.overhead, "counted_overhead": r.nodes / serial.nodes,
                         "busy_share": pr.busy_share, "rate": rate, "speedup": pr.speedup,
                         "splits": r.parallel["splits"], "turn_s": turn_s})
            log(f"model: {case}, {pool} pool, {workers} workers on {workers} cores: speed-up {pr.speedup:.1f}x = "
                f"{workers} x busy {pr.busy_share:.2f} x rate {rate:.2f} / overhead {pr.overhead:.2f} "
                f"(counted here {r.nodes / serial.nodes:.2f}; {r.parallel['splits']} splits, "
                f"coordinator {turn_s * 1e6:.0f} us an answer)")
    return rows


# the free boards of the many-cores suite the model predicts (weak, process pool): (case, board, worker counts)
FREE_MODEL_CASES = (("empty (4,9,4) weak", GameSpec(4, 9, 4), (2, 16)),
                    ("empty (9,6,5) weak", GameSpec(9, 6, 5), (2, 16)))


def free_model_rows(profile: Optional[dict], log) -> list[dict]:
    """The model's rows for the free boards of the many-cores suite (:data:`FREE_MODEL_CASES`),
    with the 16-worker figure over 2 workers' beside each (the measure of (9,6,5))."""
    rows = []
    for case, spec, counts in FREE_MODEL_CASES:
        case_rows = model_rows(case, Position(spec), True, counts, profile, log, pools=("process",), free=True)
        two = next((r["speedup"] for r in case_rows if r["workers"] == 2), None)
        for r in case_rows:
            if two and r["workers"] > 2:
                r["speedup_over_2"] = r["speedup"] / two
                log(f"model: {case}, {r['workers']} workers over 2: {r['speedup_over_2']:.1f}x")
        rows += case_rows
    return rows


def run(workers_list=(1, 2), repeat: int = 3, peers: Optional[list[Peer]] = None, many: int = 16,
        log=print, profile: Optional[str] = MACHINE) -> list[dict]:
    """The long cases' rows (see the module docstring): whole processes, exact and weak;
    the model's prediction at 16 and 64 workers with the machine ``profile``
    (``bench/machines/<profile>.json``; rate 1 where it is absent)."""
    rows = []
    workers_list = sorted(set(workers_list) | {1})
    rates = scaling_model.machine_profile(profile) if profile else None
    if rates is None:
        log(f"model: no machine profile {profile!r}: busy rate 1 (ideal memory)")
    for weak in (True, False):
        rows += _process_rows(weak, workers_list, repeat, peers or [], log)
        rows += _many_rows(weak, many, log)
        rows += _model_rows(weak, (16, 64), rates, log)
    rows += free_model_rows(rates, log)
    return rows
