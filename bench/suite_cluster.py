"""The Ray backend against the process pool: the same positions (those of the
scaling suite), the same number of workers, the same table size, on this machine; wall time of each (median of
``repeat`` runs, the two backends taking turns) and their ratio, with nodes, tasks and the Ray overhead per task.

Ray's start (a local instance) and the warm-up of its workers are timed apart and
never counted in the solves, as the pool's fork is not. Skipped with a message
when Ray (the ``cluster`` extra) is not installed.
"""
from __future__ import annotations

import statistics
import time

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_coordinator, shutdown_backends
from parallel_mnk import Options

from .suite_scaling import hard_positions

TT_BITS = 22
WORKERS = 2


def _run(positions: list[Position], backend: str) -> tuple[float, int, int, list]:
    """Wall seconds, nodes, pool tasks and the answers, for the positions in a row."""
    get_coordinator(backend, WORKERS, TT_BITS).backend.tt[:] = 0  # every page of the table faulted in before timing
    t = time.perf_counter()
    nodes = tasks = 0
    answers = []
    for p in positions:
        r = solve(p, options=Options(workers=WORKERS, tt_size=8 << TT_BITS, pv=False, progress=False, backend=backend))
        nodes += r.nodes
        tasks += sum(w.tasks for w in r.workers[1:])
        answers.append(r.score)
    return time.perf_counter() - t, nodes, tasks, answers


def run(quick: bool = False, repeat: int = 3, log=print) -> list[dict]:
    try:
        import ray  # noqa: F401
    except ImportError:
        log("cluster: skipped: Ray is not installed (pip install -e '.[cluster]')")
        return []

    if quick:
        repeat = 1
    rows = []
    solve(Position(GameSpec(3, 3, 3)))  # compile before timing
    t = time.perf_counter()
    cluster = get_coordinator("ray", WORKERS, TT_BITS).backend
    total = time.perf_counter() - t
    rows.append({"suite": "cluster", "case": "ray start", "workers": WORKERS, "time_s": total,
                 "ray_init_s": cluster.init_s, "warm_s": cluster.warm_s})
    log(f"cluster: local Ray with {WORKERS} CPUs started in {total:.2f} s "
        f"(ray.init {cluster.init_s:.2f} s, worker warm-up {cluster.warm_s:.2f} s)")
    try:
        for name, positions in hard_positions(quick):  # the positions of the scaling suite
            pool_runs, ray_runs, watches = [], [], 0
            for _ in range(repeat):  # interleaved, so that a busy neighbour slows both alike
                pool_runs.append(_run(positions, "process"))
                watches0 = get_coordinator("ray", WORKERS, TT_BITS).backend.board_stats()["watches"]
                ray_runs.append(_run(positions, "ray"))
                watches += get_coordinator("ray", WORKERS, TT_BITS).backend.board_stats()["watches"] - watches0
            pool_wall = statistics.median(r[0] for r in pool_runs)
            ray_wall = statistics.median(r[0] for r in ray_runs)
            same = all(r[3] == pool_runs[0][3] for r in pool_runs + ray_runs)
            ray_tasks = statistics.median(r[2] for r in ray_runs)
            row = {"suite": "cluster", "case": name, "workers": WORKERS, "positions": len(positions),
                   "pool_time_s": pool_wall, "ray_time_s": ray_wall, "ratio": ray_wall / pool_wall,
                   "pool_times": [round(r[0], 3) for r in pool_runs], "ray_times": [round(r[0], 3) for r in ray_runs],
                   "pool_nodes": pool_runs[0][1], "ray_nodes": ray_runs[0][1],
                   "pool_tasks": pool_runs[0][2], "ray_tasks": ray_tasks,
                   "overhead_per_task_ms": (ray_wall - pool_wall) / ray_tasks * 1e3 if ray_tasks else None,
                   "watches_per_task": watches / sum(r[2] for r in ray_runs) if ray_tasks else None,
                   "same_scores": same}
            rows.append(row)
            log(f"cluster: {name}: pool {pool_wall:.2f} s, ray {ray_wall:.2f} s (x{row['ratio']:.2f}), "
                f"{ray_tasks:.0f} Ray tasks, nodes {row['pool_nodes']:,} / {row['ray_nodes']:,}, "
                f"{'same scores' if same else 'SCORES DIFFER'}; runs pool {row['pool_times']} ray {row['ray_times']}")
    finally:
        shutdown_backends()
    return rows
