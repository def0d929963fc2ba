"""Depth-limited search on the process pool: root splitting for big boards.

Each root move is one :class:`~.task.LimitedTask`, run by a pool worker with
the kernel of :mod:`parallel_mnk.kernels.grid.search`. Moves are handed out in the
engine's move order, and every task carries the best value known when it is
handed out (the shared alpha bound at dispatch), so later moves are searched
with narrower windows. A bound that improves while a task runs is not pushed
into it: the depth-limited kernel reads only the pool's stop word, which stops every
worker when the time limit passes. The scheduler is the exact solver's
(:meth:`..scheduling.coordinator.Coordinator.search_tree` over a
:func:`..scheduling.tree_tasks.root_split` tree per depth): a worker lost
mid-task gets its move again on a fresh worker. Iterative deepening happens here;
a depth cut short by a limit is thrown away, as in the serial engine.
"""
from __future__ import annotations

import time
from typing import Optional

from ...api.results import LimitedResult
from ...engines.limited import LimitedSearch
from ...kernels.grid.layout import INF, MATE_ZONE, WIN
from ..scheduling import registry
from ..scheduling.coordinator import SearchTimeout
from ..scheduling.tree_tasks import RootMoveTasks, root_split
from ..task import LimitedTask
from ...api.settings import current


def _iteration(search: LimitedSearch, coordinator, order: list[int], depth: int) -> Optional[dict[int, int]]:
    """The value of every root move of ``order`` searched ``depth`` plies deep
    (fail-soft: at or below the alpha it was handed out with, an upper bound), or
    None when a limit cut the iteration short (depth 1 always completes)."""
    pos = search.position
    spec = pos.spec
    watch = search.watch if depth > 1 else None
    counted = search.nodes - sum(st.nodes for st in coordinator.stats)   # (the workers' count so far is in it)

    def make(cell: int, alpha: int, task_id: int) -> LimitedTask:
        return LimitedTask(task_id, spec.cols, spec.rows, spec.k, spec.gravity, pos.x, pos.o, int(pos.turn),
                           cell, depth, alpha, INF, search.flags, search.width)

    def count_nodes() -> None:
        search.nodes = counted + sum(st.nodes for st in coordinator.stats)
        if search.watch is not None:
            search.watch.count(search.nodes)

    def after_turn() -> None:
        count_nodes()
        if depth > 1 and (watch is not None and watch.stopped
                          or search.limit.nodes is not None and search.nodes >= search.limit.nodes):
            raise SearchTimeout()

    own, opp = pos.stones()
    tree = root_split(spec.cells, own, opp, pos.ply, order, -INF, INF)
    deadline = None
    if search.deadline is not None and depth > 1:
        deadline = time.monotonic() + max(0.0, search.deadline - time.perf_counter())
    try:
        coordinator.search_tree(tree, spec, 0, deadline, after_turn, tasks=RootMoveTasks(make))
    except SearchTimeout:
        return None
    finally:
        count_nodes()   # (with the tasks stopped at the end)
    return {c.cell: -c.lo for c in tree.root.children}


def best_move_parallel(search: LimitedSearch, workers: int) -> LimitedResult:
    """Iterative deepening of ``search`` with the root moves of each iteration
    searched on a pool of ``workers`` processes; the deepest completed iteration
    gives the move (its earliest best move in move order)."""
    coordinator = registry.get_coordinator("process", workers, current().SIDE_POOL_TT_BITS)
    coordinator.new_solve()
    order = search.root_moves()
    best = None
    for depth in range(1, search.max_depth + 1):
        results = _iteration(search, coordinator, order, depth)
        if results is None:
            break
        score = max(results.values())
        cell = next(c for c in order if results[c] == score)
        best = (score, cell, depth)
        order.sort(key=lambda c: -results[c])   # the next depth starts with the best moves
        if abs(score) > WIN - MATE_ZONE or search.out_of_budget():
            break
    assert best is not None, "depth 1 always completes"
    per_worker = [[st.worker, st.tasks, st.nodes, st.cpu_s] for st in coordinator.stats]
    score, cell, depth = best
    return LimitedResult(search.position.move_of_cell(cell), score, depth, search.nodes, search.evals,
                         time.perf_counter() - search.started, per_worker=per_worker)
