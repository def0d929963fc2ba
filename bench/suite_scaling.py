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
from parallel_mnk.parallel.backends import get_pool
from parallel_mnk.parallel.backends import shutdown_backends as shutdown_pool
from parallel_mnk.parallel.procpool import ProcessPool
from parallel_mnk.ttable import transposition_table

from .common import connect4_set

CONNECT4 = GameSpec(7, 6, 4, True)
TT_BITS = 23


def hard_positions(quick: bool) -> list[tuple[str, list[Position]]]:
    """(name, positions): Pons' Test_L1_R2 head, empty 6x6 gravity, empty (4,8,4) (quick: 6x5
    gravity, (4,7,4); pairing certificates made (5,5,4) and (4,7,4) too small to split)."""
    cases = []
    path = connect4_set("Test_L1_R2")
    if path is not None:
        n = 10 if quick else 50
        lines = [ln.split()[0] for ln in path.read_text().split("\n") if ln.strip()][:n]
        cases.append((f"Test_L1_R2 first {n}", [Position.from_moves(CONNECT4, m) for m in lines]))
    if quick:
        cases.append(("empty 6x5 gravity k4", [Position(GameSpec(6, 5, 4, True))]))
        cases.append(("empty 4x7 k4", [Position(GameSpec(4, 7, 4))]))
    else:
        cases.append(("empty 6x6 gravity k4", [Position(GameSpec(6, 6, 4, True))]))
        cases.append(("empty 4x8 k4", [Position(GameSpec(4, 8, 4))]))
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


def _serial_in_child(positions: list[Position], out) -> None:
    out.put(_run(positions, 1)[0])


def machine_throughput(positions: list[Position]) -> tuple[float, float]:
    """What two cores give this workload here: the serial solve alone, then twice at
    once in two processes (each its own table). Returns ``(alone_s, both_s)``;
    ``2 * alone_s / both_s`` is the speed-up two perfectly split workers could reach
    on this machine at this time (a VM's share of its host drifts)."""
    import multiprocessing as mp

    alone = _run(positions, 1)[0]
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_serial_in_child, args=(positions, out)) for _ in range(2)]
    t = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    both = time.perf_counter() - t
    if any(p.exitcode != 0 for p in procs):
        raise RuntimeError("a serial solve in a child process failed")
    return alone, both


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
        pool = ProcessPool(n, 16)
        total = time.perf_counter() - t
        rows.append({"suite": "scaling", "case": "pool start", "workers": n, "time_s": total,
                     "per_worker_start_s": max(pool.start_times)})
        log(f"scaling: pool of {n}: {total:.3f} s in all, slowest worker fork {max(pool.start_times) * 1e3:.1f} ms")
        pool.close()
    for name, positions in hard_positions(quick):
        # worker counts take turns within each repetition, and the speedup is the
        # median of the ratios of the same repetition: the CPU this VM gives us
        # drifts over tens of seconds, and runs far apart would compare two machines
        runs = {n: [] for n in workers_list}
        for _ in range(repeat):
            for n in workers_list:
                runs[n].append(_run(positions, n))
        base = workers_list[0]
        serial = (statistics.median(r[0] for r in runs[base]), runs[base][0][1])
        for n in workers_list:
            wall = statistics.median(r[0] for r in runs[n])
            ratios = [b[0] / r[0] for b, r in zip(runs[base], runs[n])]
            nodes = runs[n][0][1]
            busiest = max(runs[n][0][2][1:]) if n > 1 else nodes   # 0: the coordinator solved it alone
            speedup = statistics.median(ratios)
            row = {"suite": "scaling", "case": name, "workers": n, "time_s": wall,
                   "speedup": speedup, "speedup_runs": " ".join(f"{x:.2f}" for x in ratios),
                   "efficiency": speedup / n, "nodes": nodes, "overhead": nodes / serial[1],
                   "node_speedup": serial[1] / busiest if busiest else None,
                   "per_worker_nodes": " ".join(map(str, runs[n][0][2]))}
            rows.append(row)
            log(f"scaling: {name}, {n} worker(s): {wall:.2f} s, speedup {speedup:.2f} (runs {row['speedup_runs']}), "
                f"efficiency {row['efficiency']:.2f}, nodes x{row['overhead']:.2f}, "
                f"node speedup {row['node_speedup'] or 0:.2f}")
        if not quick:
            alone, both = machine_throughput(positions)
            row = {"suite": "ceiling", "case": name, "workers": 2, "time_s": both, "speedup": 2 * alone / both}
            rows.append(row)
            log(f"ceiling: {name}: serial alone {alone:.2f} s, two at once {both:.2f} s: two cores give "
                f"x{row['speedup']:.2f} here now")
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
