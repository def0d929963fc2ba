"""Many cores: the empty Connect Four board (7x6), weak and exact, as whole
``parallel-mnk solve`` processes at 1, 2, 4, 8, 16 workers (those the machine
has) on both pools, the peers' threads, the machine's ceiling, and each row's
speed-up split into its three factors; then the free boards on the process pool
(:data:`FREE_CASES`: empty (4,9,4) weak at 1-16 workers, (9,6,5) weak at 2-16,
(4,10,4) weak at 16); and what tells machines apart (:mod:`.machine_probe`: the
clock, the cache, the memory's speed at one process and at all, the peer's own
1 -> 16 thread ratio). Made for a 16-core machine: about 8 minutes there with c4
at 1-16 threads as peers.

Each row's search-time speed-up over one worker is exactly the product

    speed-up = W x busy share x rate / overhead

(a case whose fewest workers B are more than one, as (9,6,5)'s 2: its speed-up is
over B workers, its overhead and rate are against B's, and the product reads
W / B x busy share / B's busy share x rate / overhead).

* ``overhead``: its nodes over the one-worker solve's;
* ``busy_share``: the workers' busy time (a task handed out, until its answer)
  over W x the search time (the rest: waiting for work, the coordinator's own
  searches before and after the probes);
* ``rate``: a busy worker's nodes a second over the one-worker solve's (memory:
  one table for all, its pages; shared cache lines).

The busy rates are also written as a machine profile (``machine_profile.json``,
the model's input: ``bench/scaling_model.py``). The ceiling: W one-worker solves
of the empty 6x6 board at once, as whole processes, against one alone (their
search seconds: mean and slowest). Peers (``--peer empty:PATH``, c4 built with N
threads named ``..._tN``): each once per mode, whole process; our row at W
workers gets ``vs_peer``, our search time over the peer's with W threads.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Optional

import psutil

from . import machine_probe
from .peers import Peer, on_empty_7x6

WORKERS = (1, 2, 4, 8, 16)
POOLS = ("process", "thread")
CEILING_BOARD = ["--cols", "6", "--rows", "6", "--k", "4", "--gravity"]
# free boards, weak, process pool: (case, board, worker counts; the fewest is the base)
FREE_CASES = (
    ("empty (4,9,4) weak", ["--cols", "4", "--rows", "9", "--k", "4"], (1, 2, 4, 8, 16)),
    ("empty (9,6,5) weak", ["--cols", "9", "--rows", "6", "--k", "5"], (2, 4, 8, 16)),
    ("empty (4,10,4) weak", ["--cols", "4", "--rows", "10", "--k", "4"], (16,)),
)


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover - not Linux
        return psutil.cpu_count() or 1


def solve(board: list[str], workers: int, weak: bool, backend: str, tt_size: Optional[str]) -> tuple[float, dict]:
    """Whole-process seconds and the ``--json`` answer of ``parallel-mnk solve`` of the
    empty ``board`` (no opening book)."""
    args = [sys.executable, "-m", "parallel_mnk", "solve", *board, "--moves", "", "--book", "none", "--workers",
            str(workers), "--no-progress", "--json"] + (["--weak"] if weak else [])
    args += ["--backend", backend] if workers > 1 else []
    args += ["--tt-size", tt_size] if tt_size else []
    t = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, json.loads(out)


def _busy_rate(answer: dict) -> float:
    """Nodes a second of one busy worker of ``answer`` (a serial one: all its time is busy)."""
    par = answer.get("parallel")
    return answer["nodes"] / (par["busy_s"] if par and par["busy_s"] else answer["time_s"])


def factors(answer: dict, base: dict, workers: int) -> dict:
    """The three factors of a parallel answer's speed-up over ``base`` (one worker,
    or the case's fewest: module docstring); their product is the search-time speed-up."""
    speedup = base["time_s"] / answer["time_s"]
    par = answer.get("parallel")
    overhead = answer["nodes"] / base["nodes"]
    if not par or not par["busy_s"]:
        return {"speedup": speedup, "overhead": overhead}
    busy_share = par["busy_s"] / (workers * answer["time_s"])
    rate = _busy_rate(answer) / _busy_rate(base)
    return {"speedup": speedup, "overhead": overhead, "busy_share": busy_share, "rate": rate,
            "splits": par.get("splits", 0), "pool_start_s": par.get("pool_start_s"),
            "abandoned_share": par["abandoned_s"] / (workers * par["probe_s"]) if par["probe_s"] else None}


def ceiling(copies: int, alone: float, tt_size: Optional[str]) -> tuple[float, float]:
    """``copies`` one-worker solves of the empty 6x6 board at once, whole processes:
    ``(mean, slowest)`` of ``alone`` over their search seconds, times ``copies``."""
    args = [sys.executable, "-m", "parallel_mnk", "solve", *CEILING_BOARD, "--moves", "", "--book", "none",
            "--workers", "1", "--no-progress", "--json"] + (["--tt-size", tt_size] if tt_size else [])
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(copies)]
    times = [json.loads(p.communicate()[0])["time_s"] for p in procs]
    return copies * alone / statistics.mean(times), copies * alone / max(times)


def peer_threads(peer: Peer) -> int:
    """The thread count in a peer's name (``c4_7x6_t16``: 16), 1 without one."""
    m = re.search(r"_t(\d+)$", peer.name)
    return int(m.group(1)) if m else 1


def _peer_rows(peers: list[Peer], weak: bool, case: str, log) -> list[dict]:
    rows = []
    for peer, answer, wall in on_empty_7x6(peers, weak, "many-cores", log):
        rows.append({"suite": "many-cores-peer", "case": case, "solver": peer.name, "workers": peer_threads(peer),
                     "time_s": answer.time_s, "process_s": wall, "nodes": answer.nodes})
        log(f"many-cores: {case}, {peer.name}: {answer.time_s:.2f} s search, {wall:.2f} s whole, "
            f"{answer.nodes / 1e6:.1f} M nodes")
    by_threads = {r["workers"]: r for r in rows}
    for r in rows:
        if 1 in by_threads:
            r["speedup"] = by_threads[1]["time_s"] / r["time_s"]
            r["overhead"] = r["nodes"] / by_threads[1]["nodes"]
    return rows


def run(workers_list=WORKERS, peers: Optional[list[Peer]] = None, tt_size: Optional[str] = None,
        log=print, free: bool = True, memory: bool = True) -> list[dict]:
    """The suite's rows (module docstring): ours, the peers', the ceiling, the free
    boards (``free``), the machine (``memory``: its memory figures too)."""
    cpus = usable_cpus()
    counts = sorted({w for w in workers_list if w <= cpus} | {1})
    log(f"many-cores: {cpus} usable CPUs; workers {counts}; table {tt_size or 'the default'}")
    machine = {"suite": "many-cores-machine", "case": "the machine", "workers": cpus, **machine_probe.cpu_facts()}
    if memory:
        machine.update(machine_probe.memory_figures(cpus))
    log("many-cores: the machine: " + ", ".join(f"{k} {v}" for k, v in machine.items() if k not in ("suite", "case")))
    rows: list[dict] = [machine]
    for weak in (True, False):
        case = "empty 7x6 " + ("weak" if weak else "exact")
        peer_rows = _peer_rows(peers or [], weak, case, log)
        rows += peer_rows
        machine.update(_yardstick(peer_rows, weak))
        peer_time = {r["workers"]: r for r in peer_rows}
        rows += _case_rows(case, ["--game", "connect4"], weak, counts, POOLS, tt_size, peer_time, log)
    # (the best of two: a first solve alone may pay what the copies then share, as the page cache)
    alone = min(solve(CEILING_BOARD, 1, False, "process", tt_size)[1]["time_s"] for _ in range(2))
    for copies in counts[1:]:
        mean, slowest = ceiling(copies, alone, tt_size)
        rows.append({"suite": "many-cores-ceiling", "case": "empty 6x6 exact, independent solves",
                     "workers": copies, "ceiling": mean, "ceiling_slowest": slowest})
        log(f"many-cores: ceiling at {copies}: {mean:.1f}x (mean), {slowest:.1f}x (slowest)")
    for case, board, case_counts in (FREE_CASES if free else ()):
        here = [w for w in case_counts if w in counts]
        if here:
            rows += _case_rows(case, board, True, here, ("process",), tt_size, {}, log)
    return rows


def _yardstick(peer_rows: list[dict], weak: bool) -> dict:
    """The peer's own speed-up from 1 thread to its most (a yardstick of the machine:
    c4's moved 8 % between two 16-core machines of one kind where ours moved 50 %)."""
    by = {r["workers"]: r for r in peer_rows}
    if 1 not in by or len(by) < 2:
        return {}
    top = max(by)
    return {f"peer_{'weak' if weak else 'exact'}_1_to_{top}": round(by[1]["time_s"] / by[top]["time_s"], 2)}


def _case_rows(case: str, board: list[str], weak: bool, counts: list[int], pools, tt_size: Optional[str],
               peer_time: dict, log) -> list[dict]:
    """One case's rows: a solve at each of ``counts`` workers on each of ``pools`` (one
    pool at the fewest), each against the fewest (module docstring)."""
    rows = []
    base_workers = counts[0]
    wall1, base = solve(board, base_workers, weak, "process", tt_size)
    for workers in counts:
        for pool in (("process",) if workers == base_workers else pools):
            wall, answer = (wall1, base) if workers == base_workers else solve(board, workers, weak, pool, tt_size)
            row = {"suite": "many-cores", "case": case, "pool": pool, "workers": workers, "base_workers": base_workers,
                   "time_s": answer["time_s"], "process_s": wall, "process_speedup": wall1 / wall,
                   "nodes": answer["nodes"], "value": answer.get("value"), **factors(answer, base, workers)}
            if workers in peer_time:
                row["vs_peer"] = answer["time_s"] / peer_time[workers]["time_s"]
                row["vs_peer_process"] = wall / peer_time[workers]["process_s"]
            rows.append(row)
            over, times = ("", f"{workers}") if base_workers == 1 else (f" over {base_workers}",
                                                                       f"{workers} / {base_workers}")
            base_share = "" if base_workers == 1 else f" / {rows[0].get('busy_share', 1.0):.2f}"
            log(f"many-cores: {case}, {pool} pool, {workers} workers: {answer['time_s']:.2f} s search "
                f"({wall:.2f} s whole), {answer['nodes'] / 1e6:.1f} M nodes, speed-up{over} {row['speedup']:.2f} = "
                + (f"{times} x busy {row['busy_share']:.2f}{base_share} x rate {row['rate']:.2f} / overhead "
                   f"{row['overhead']:.2f}" if "rate" in row and workers != base_workers else "1")
                + (f"; {row['vs_peer']:.2f}x the peer's search time" if "vs_peer" in row else ""))
    return rows


def machine_profile(rows: list[dict], facts: dict) -> dict:
    """The model's machine profile (``bench/scaling_model.py``): the busy rates of
    ``rows`` by pool and workers over one worker's, the empty 7x6 board's weak and
    exact averaged (``rate``) and the free boards' (``rate_free``), and the
    machine's row (``facts``: clock, cache, memory, the peer's yardstick)."""
    rates: dict[str, dict[str, dict[str, list[float]]]] = {"rate": {}, "rate_free": {}}
    for r in rows:
        if r.get("suite") == "many-cores" and "rate" in r and r.get("base_workers", 1) == 1:
            family = "rate" if r["case"].startswith("empty 7x6") else "rate_free"
            rates[family].setdefault(r["pool"], {}).setdefault(str(r["workers"]), []).append(r["rate"])
    machine = next((r for r in rows if r.get("suite") == "many-cores-machine"), {})
    profile = {"machine": f"{facts.get('cpu_model')}, {facts.get('usable_cpus')} CPUs",
               "facts": {k: v for k, v in machine.items() if k not in ("suite", "case")}}
    for family, by_pool in rates.items():
        profile[family] = {pool: {w: round(statistics.mean(v), 4) for w, v in by.items()} for pool, by in by_pool.items()}
    return profile
