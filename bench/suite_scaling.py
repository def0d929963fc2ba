"""Parallel scaling: wall time, speedup and efficiency of 1 vs N workers on hard
positions (ratios measured in the same run), search overhead (parallel nodes /
serial nodes) at 1..16 workers, and worker start-up time.

Node counts do not depend on how many real cores there are, so the overhead at
16 workers on this 2-core machine predicts the node side of scaling on a bigger
one; wall-clock speedup is only meaningful up to the physical core count.
"""
from __future__ import annotations

import statistics
import time

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.parallel.pool import WorkerPool, get_pool, shutdown_pool
from parallel_mnk.search import transposition_table

from .common import connect4_set

CONNECT4 = GameSpec(7, 6, 4, True)
TT_BITS = 23


def hard_positions(quick: bool) -> list[tuple[str, list[Position]]]:
    """(name, positions): Pons' Test_L1_R2 head, empty 6x6 gravity, empty (4,7,4)."""
    cases = []
    path = connect4_set("Test_L1_R2")
    if path is not None:
        n = 10 if quick else 50
        lines = [ln.split()[0] for ln in path.read_text().split("\n") if ln.strip()][:n]
        cases.append((f"Test_L1_R2 first {n}", [Position.from_moves(CONNECT4, m) for m in lines]))
    if quick:
        cases.append(("empty 6x5 gravity k4", [Position(GameSpec(6, 5, 4, True))]))
        cases.append(("empty 5x5 k4", [Position(GameSpec(5, 5, 4))]))
    else:
        cases.append(("empty 6x6 gravity k4", [Position(GameSpec(6, 6, 4, True))]))
        cases.append(("empty 4x7 k4", [Position(GameSpec(4, 7, 4))]))
    return cases


def _warm(workers: int) -> None:
    """Start the pool (or the serial table) and touch its pages before anything is timed."""
    tt = transposition_table(TT_BITS) if workers == 1 else get_pool(workers, TT_BITS).tt
    tt[:] = 0


def _run(positions: list[Position], workers: int, split_depth=None) -> tuple[float, int, list[int]]:
    """Wall seconds, total nodes, and per-process nodes (summed over positions)."""
    _warm(workers)
    t = time.perf_counter()
    nodes = 0
    per = None
    for p in positions:
        r = solve(p, workers=workers, pv=False, tt_bits=TT_BITS, split_depth=split_depth, progress=False,
                  serial_budget=None)
        nodes += r.nodes
        counts = [w.nodes for w in r.workers]
        per = counts if per is None else [a + b for a, b in zip(per, counts)]
    return time.perf_counter() - t, nodes, per or []


def run(quick: bool = False, workers_list=(1, 2), overhead_workers=(1, 2, 4, 8, 16), repeat: int = 3,
        log=print) -> list[dict]:
    """Rows: speedup per case and worker count; overhead per worker count; start-up."""
    rows = []
    solve(Position(GameSpec(3, 3, 3)))  # compile before timing
    if quick:
        overhead_workers = tuple(w for w in overhead_workers if w <= 4)
        repeat = 1
    # start-up of a pool (kernels already compiled in this process, then fork)
    for n in sorted(set(workers_list) | {2}):
        if n < 2:
            continue
        shutdown_pool()
        t = time.perf_counter()
        pool = WorkerPool(n, 16)
        total = time.perf_counter() - t
        rows.append({"suite": "scaling", "case": "pool start", "workers": n, "time_s": total,
                     "per_worker_start_s": max(pool.start_times)})
        log(f"scaling: pool of {n}: {total:.3f} s in all, slowest worker fork {max(pool.start_times) * 1e3:.1f} ms")
        pool.close()
    for name, positions in hard_positions(quick):
        serial = None
        for n in workers_list:
            runs = [_run(positions, n) for _ in range(repeat)]
            wall = statistics.median(r[0] for r in runs)
            nodes = runs[0][1]
            busiest = max(runs[0][2][1:]) if n > 1 else runs[0][1]
            if serial is None:
                serial = (wall, nodes)
            row = {"suite": "scaling", "case": name, "workers": n, "time_s": wall,
                   "speedup": serial[0] / wall, "efficiency": serial[0] / wall / n,
                   "nodes": nodes, "overhead": nodes / serial[1], "node_speedup": serial[1] / busiest,
                   "per_worker_nodes": " ".join(map(str, runs[0][2]))}
            rows.append(row)
            log(f"scaling: {name}, {n} worker(s): {wall:.2f} s, speedup {row['speedup']:.2f}, "
                f"efficiency {row['efficiency']:.2f}, nodes x{row['overhead']:.2f}")
        for n in overhead_workers:
            if n in workers_list:
                continue
            if n > 1 and name.startswith("Test_L1_R2") and quick:
                continue
            wall, nodes, per = _run(positions, n)
            row = {"suite": "overhead", "case": name, "workers": n, "nodes": nodes,
                   "overhead": nodes / serial[1], "node_speedup": serial[1] / max(per[1:] or [nodes]),
                   "time_s": wall, "per_worker_nodes": " ".join(map(str, per))}
            rows.append(row)
            log(f"overhead: {name}, {n} workers: nodes x{row['overhead']:.2f}, "
                f"serial nodes / busiest worker's {row['node_speedup']:.2f}")
    shutdown_pool()
    return rows
