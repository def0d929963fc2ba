"""Depth-limited search on the process pool: root splitting for big boards.

Each root move is one :class:`HeuristicTask` (a small picklable record, like the
exact solver's :class:`~.split.Task`), run by a pool worker with the kernel of
:mod:`parallel_mnk.kernels.limited`. Moves are handed out in the engine's move
order, and every task carries the best value known when it is handed out (the
shared alpha bound at dispatch), so later moves are searched with narrower
windows. A bound that improves while a task runs is not pushed into it: the
heuristic kernel reads only the pool's abort word, which stops every worker
when the time limit passes. Iterative deepening happens here; a depth cut short
by the time limit is thrown away, as in the serial engine.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Optional

import numpy as np

from ..kernels import grid as G
from ..kernels import layout as L
from ..kernels.limited import INF, MATE_ZONE, WIN, negamax_limited
from ..position import Position
from ..rules import GameSpec, MnkError


@dataclass(frozen=True)
class HeuristicTask:
    """Search the position after root move ``cell`` to ``depth`` plies with the
    window ``(alpha, beta)`` from the root's view. ``x``/``o`` are the root's
    bitboards (Python ints: any board size), ``turn`` the side to move there."""

    task_id: int
    cols: int
    rows: int
    k: int
    gravity: bool
    x: int
    o: int
    turn: int
    cell: int
    depth: int
    alpha: int
    beta: int
    flags: int
    width: int


@dataclass(frozen=True)
class HeuristicResult:
    """The value of a root move from the root's view (a fail-soft bound when it is
    ``<= alpha``), or ``aborted``; plus the work it cost."""

    task_id: int
    worker: int
    cell: int
    value: int
    aborted: bool
    nodes: int
    cpu_s: float


def run_heuristic_task(task: HeuristicTask, worker: int, ctl: np.ndarray) -> HeuristicResult:
    """Worker side: play the root move and search the rest (``ctl[0]`` aborts)."""
    from ..limited import DEFAULT_TT_BITS, build_geometry, new_state, table

    spec = GameSpec(task.cols, task.rows, task.k, task.gravity)
    geo = build_geometry(spec)
    cells = range(spec.cells)
    st = new_state(spec, [c for c in cells if task.x >> c & 1], [c for c in cells if task.o >> c & 1], task.turn)
    tt = table(DEFAULT_TT_BITS)
    cpu = time.process_time()
    won = G.play(geo, st, task.cell)
    if won:
        value = WIN - 1
    elif st[G.S_PLY] == spec.cells:
        value = 0
    else:
        value = -negamax_limited(geo, st, tt.keys, tt.data, ctl, np.int64(task.depth - 1), np.int64(-task.beta),
                                 np.int64(-task.alpha), np.int64(task.flags), np.int64(task.width), np.int64(1))
    return HeuristicResult(task.task_id, worker, task.cell, int(value), bool(st[G.S_ABORTED]), int(st[G.S_NODES]) + 1,
                           time.process_time() - cpu)


def best_move_parallel(position: Position, workers: int, root_cells: list[int], flags: int, width: int,
                       max_depth: int, deadline: Optional[float]) -> tuple[Optional[tuple[int, int, int]], int, list]:
    """Iterative deepening over ``root_cells`` (best-ordered) on the pool.

    Returns ``((score, cell, depth) of the deepest completed iteration or None,
    total nodes, per-worker [index, tasks, nodes, cpu_s] lists)``.
    """
    from .pool import get_pool

    pool = get_pool(workers, 16)
    pool.ctl[L.CTL_ABORT] = 0
    spec = position.spec
    stats = {w.index: [w.index, 0, 0, 0.0] for w in pool.workers}
    best = None
    order = list(root_cells)
    task_id = 0
    for depth in range(1, max_depth + 1):
        alpha = -INF
        results: dict[int, int] = {}
        pending = list(order)
        running: dict = {}
        aborted = False
        while pending or running:
            for w in pool.workers:
                if pending and w not in running.values() and not aborted:
                    cell = pending.pop(0)
                    task_id += 1
                    task = HeuristicTask(task_id, spec.cols, spec.rows, spec.k, spec.gravity, position.x, position.o,
                                         position.turn, cell, depth, alpha, INF, flags, width)
                    try:
                        w.conn.send(task)
                    except (OSError, BrokenPipeError):
                        raise MnkError(f"worker {w.index} stopped; run again or use --workers 1") from None
                    running[w.conn] = w
            timeout = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.perf_counter()))
            for conn in wait(list(running), timeout):
                w = running.pop(conn)
                try:
                    r: HeuristicResult = conn.recv()
                except (EOFError, OSError):
                    raise MnkError(f"worker {w.index} stopped; run again or use --workers 1") from None
                s = stats[w.index]
                s[1] += 1
                s[2] += r.nodes
                s[3] += r.cpu_s
                if r.aborted:
                    aborted = True
                    continue
                results[r.cell] = r.value
                alpha = max(alpha, r.value)
            if deadline is not None and time.perf_counter() >= deadline and not aborted and depth > 1:
                pool.ctl[L.CTL_ABORT] = 1
                aborted = True
                pending.clear()
        pool.ctl[L.CTL_ABORT] = 0
        if aborted or len(results) < len(order):
            break
        score = max(results.values())
        cell = next(c for c in order if results[c] == score)   # earliest in move order among the best
        best = (score, cell, depth)
        order.sort(key=lambda c: -results[c])   # the next depth starts with the best moves
        if abs(score) > WIN - MATE_ZONE or (deadline is not None and time.perf_counter() >= deadline):
            break
    total = sum(s[2] for s in stats.values())
    return best, total, list(stats.values())
