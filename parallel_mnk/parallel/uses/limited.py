"""Depth-limited search on the process pool: root splitting for big boards.

Each root move is one :class:`~.task.LimitedTask`, run by a pool worker with
the kernel of :mod:`parallel_mnk.kernels.grid.search`. Moves are handed out in the
engine's move order, and every task carries the best value known when it is
handed out (the shared alpha bound at dispatch), so later moves are searched
with narrower windows. A bound that improves while a task runs is not pushed
into it: the depth-limited kernel reads only the pool's stop word, which stops every
worker when the time limit passes. Iterative deepening happens here; a depth
cut short by a limit is thrown away, as in the serial engine.
"""
from __future__ import annotations

import itertools
import time
from typing import Optional

from ...api.results import LimitedResult
from ...engines.limited import LimitedSearch
from ...kernels.grid.layout import INF, MATE_ZONE, WIN
from ..scheduling import registry
from ..task import AnyResult, LimitedTaskResult, LimitedTask
from ...api.settings import current

_task_ids = itertools.count(1)


def _iteration(search: LimitedSearch, coordinator, order: list[int], depth: int) -> Optional[dict[int, int]]:
    """The value of every root move of ``order`` searched ``depth`` plies deep, or
    None when a limit cut the iteration short."""
    pos = search.position
    spec = pos.spec
    alpha = [-INF]
    results: dict[int, int] = {}
    pending = list(order)
    cut = [False]

    def next_task() -> Optional[LimitedTask]:
        if not pending or cut[0]:
            return None
        return LimitedTask(next(_task_ids), spec.cols, spec.rows, spec.k, spec.gravity, pos.x, pos.o, int(pos.turn),
                             pending.pop(0), depth, alpha[0], INF, search.flags, search.width)

    def on_result(r: AnyResult) -> None:
        assert isinstance(r, LimitedTaskResult)
        search.nodes += r.nodes
        if search.watch is not None:
            search.watch.count(search.nodes)
        if r.aborted:
            cut[0] = True
            return
        results[r.cell] = r.value
        alpha[0] = max(alpha[0], r.value)
        if search.limit.nodes is not None and search.nodes >= search.limit.nodes:
            cut[0] = True

    deadline = None
    if search.deadline is not None and depth > 1:   # depth 1 always completes
        deadline = time.monotonic() + max(0.0, search.deadline - time.perf_counter())
    stopped = coordinator.run_each(next_task, on_result, deadline, search.watch if depth > 1 else None)
    if stopped or cut[0] or len(results) < len(order):
        return None
    return results


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
