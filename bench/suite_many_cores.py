"""Many cores: the empty Connect Four board (7x6), weak and exact, as whole
``parallel-mnk solve`` processes at 1, 2, 4, 8, 16 workers (those the machine
has) on both pools, the peers' threads, the machine's ceiling, and each row's
speed-up split into its three factors. Made for a 16-core machine: about 5
minutes there with c4 at 1-16 threads as peers.

Each row's search-time speed-up over one worker is exactly the product

    speed-up = W x busy share x rate / overhead

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

from .peers import Peer, on_empty_7x6

WORKERS = (1, 2, 4, 8, 16)
POOLS = ("process", "thread")
CEILING_BOARD = ["--cols", "6", "--rows", "6", "--k", "4", "--gravity"]


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


def factors(answer: dict, base: dict, workers: int) -> dict:
    """The three factors of a parallel answer's speed-up over the one-worker ``base``
    (module docstring); their product is the search-time speed-up."""
    speedup = base["time_s"] / answer["time_s"]
    par = answer.get("parallel")
    overhead = answer["nodes"] / base["nodes"]
    if not par or not par["busy_s"]:
        return {"speedup": speedup, "overhead": overhead}
    busy_share = par["busy_s"] / (workers * answer["time_s"])
    rate = (answer["nodes"] / par["busy_s"]) / (base["nodes"] / base["time_s"])
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
        log=print) -> list[dict]:
    """The suite's rows (module docstring): ours, the peers', the ceiling."""
    cpus = usable_cpus()
    counts = sorted({w for w in workers_list if w <= cpus} | {1})
    log(f"many-cores: {cpus} usable CPUs; workers {counts}; table {tt_size or 'the default'}")
    rows: list[dict] = []
    for weak in (True, False):
        case = "empty 7x6 " + ("weak" if weak else "exact")
        peer_rows = _peer_rows(peers or [], weak, case, log)
        rows += peer_rows
        peer_time = {r["workers"]: r for r in peer_rows}
        wall1, base = solve(["--game", "connect4"], 1, weak, "process", tt_size)
        for workers in counts:
            for pool in (("process",) if workers == 1 else POOLS):
                wall, answer = (wall1, base) if workers == 1 else solve(["--game", "connect4"], workers, weak, pool,
                                                                        tt_size)
                row = {"suite": "many-cores", "case": case, "pool": pool, "workers": workers,
                       "time_s": answer["time_s"], "process_s": wall, "process_speedup": wall1 / wall,
                       "nodes": answer["nodes"], **factors(answer, base, workers)}
                if workers in peer_time:
                    row["vs_peer"] = answer["time_s"] / peer_time[workers]["time_s"]
                    row["vs_peer_process"] = wall / peer_time[workers]["process_s"]
                rows.append(row)
                log(f"many-cores: {case}, {pool} pool, {workers} workers: {answer['time_s']:.2f} s search "
                    f"({wall:.2f} s whole), {answer['nodes'] / 1e6:.1f} M nodes, speed-up {row['speedup']:.2f} = "
                    + (f"{workers} x busy {row['busy_share']:.2f} x rate {row['rate']:.2f} / overhead "
                       f"{row['overhead']:.2f}" if "rate" in row else "1")
                    + (f"; {row['vs_peer']:.2f}x the peer's search time" if "vs_peer" in row else ""))
    # (the best of two: a first solve alone may pay what the copies then share, as the page cache)
    alone = min(solve(CEILING_BOARD, 1, False, "process", tt_size)[1]["time_s"] for _ in range(2))
    for copies in counts[1:]:
        mean, slowest = ceiling(copies, alone, tt_size)
        rows.append({"suite": "many-cores-ceiling", "case": "empty 6x6 exact, independent solves",
                     "workers": copies, "ceiling": mean, "ceiling_slowest": slowest})
        log(f"many-cores: ceiling at {copies}: {mean:.1f}x (mean), {slowest:.1f}x (slowest)")
    return rows


def machine_profile(rows: list[dict], facts: dict) -> dict:
    """The busy rates of ``rows`` by pool and workers, weak and exact averaged: the
    model's machine profile (``bench/scaling_model.py``)."""
    rates: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.get("suite") == "many-cores" and "rate" in r:
            rates.setdefault(r["pool"], {}).setdefault(str(r["workers"]), []).append(r["rate"])
    return {"machine": f"{facts.get('cpu_model')}, {facts.get('usable_cpus')} CPUs",
            "rate": {pool: {w: round(statistics.mean(v), 4) for w, v in by.items()} for pool, by in rates.items()}}
