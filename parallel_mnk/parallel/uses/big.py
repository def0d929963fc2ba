"""Exact solves of boards past 64 cells on the process pool: root splitting.

Each root move is one :class:`~..task.BigTask`, proven by a pool worker with the
big-board search (:mod:`parallel_mnk.engines.exact.big`) on tables of its own
(the array board's entries are not the shared bitboard table's). Moves are handed
out in the search's static order, each with the best value known then as its
alpha (the shared bound at dispatch); a move's result above its alpha is exact and
comes with the line after it. A weak win, or an exact score that cannot be beaten,
stops every running task and hands out no more. The scheduler is the exact
solver's (:meth:`..scheduling.coordinator.Coordinator.search_tree` over a
:func:`..scheduling.tree_tasks.root_split` tree): a worker lost mid-task gets its
move again on a fresh worker. Before the pool, the coordinator
settles what needs no split: a game over, a win in one, a forced reply, and (weak,
free placement) a win found by threat-space search.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ...api.options import SolveOptions
from ...api.results import SolveResult, WorkerStats
from ...engines.exact.big import BigSearch, solve_big, table_bits, threat_budget
from ...game.moves import Move, moves_of
from ...game.position import Position
from ...game.rules import Value, value_of_score
from ...kernels.grid import layout as GL
from ...runtime import running
from ..scheduling import registry
from ..scheduling.coordinator import SearchTimeout
from ..scheduling.tree_tasks import RootMoveTasks, root_split
from ..task import BigTask, BigTaskResult
from ...api.settings import current


def worker_bits(tt_bits: int, workers: int) -> int:
    """Entries (log2) of each worker's tables: the bytes of ``2**tt_bits`` 8-byte
    entries shared out between the ``workers`` (:func:`.big.table_bits` each)."""
    return max(10, table_bits(tt_bits) - (workers - 1).bit_length())


def _root_order(search: BigSearch, position: Position) -> Optional[list[int]]:
    """The root cells in the search's static order, or None when the root needs no
    split (a win in one, the opponent's threat to answer)."""
    st = search.state(position.x, position.o)
    turn = int(st[GL.S_TURN])
    pair = np.zeros(2, dtype=np.int64)
    board, geo = search.board, search.geo
    if board.winning_cells(geo, st, turn, pair) > 0 or board.winning_cells(geo, st, 3 - turn, pair) > 0:
        return None
    cells = search.legal_cells(position.x, position.o)
    return sorted(cells, key=lambda c: -int(board.move_score(geo, st, c, turn)))   # stable: ties in natural order


def solve_big_parallel(position: Position, opts: SolveOptions) -> SolveResult:
    """:func:`parallel_mnk.solve` of a board past 64 cells on ``opts.workers``
    processes (module docstring); the same answer as :func:`.big.solve_big`."""
    started = time.perf_counter()
    coordinator_search = BigSearch(position.spec, table_bits(opts.tt_bits))
    order = None if position.is_game_over() else _root_order(coordinator_search, position)
    if order is None:
        return solve_big(position, opts)
    x, o = position.x, position.o
    limit = opts.limit

    def left() -> Optional[float]:
        return None if limit.time is None else max(1e-3, limit.time - (time.perf_counter() - started))

    if opts.weak:
        def threats() -> Optional[list[int]]:
            first = coordinator_search.threat_win(x, o, threat_budget(limit))
            return None if first is None else coordinator_search.line(position, 1, True, first, opts.pv)

        line, _ = running.run_abortable(threats, coordinator_search.ctl, left(), None, opts.watch)
        if line is not None:
            stats = [WorkerStats(0, 1, coordinator_search.nodes, vcf_wins=1)]
            return SolveResult(position.spec, Value.WIN, None, Move(position.spec, line[0]),
                               moves_of(position.spec, line), coordinator_search.nodes,
                               time.perf_counter() - started, stats, proof="threats")
    spec = position.spec
    lo, hi = coordinator_search.bounds(x, o, opts.weak)
    bits = worker_bits(opts.tt_bits, opts.workers)
    coordinator = registry.get_coordinator("process", opts.workers, current().SIDE_POOL_TT_BITS)
    coordinator.new_solve()

    def worker_nodes() -> int:
        return sum(st.nodes for st in coordinator.stats)

    def make(cell: int, alpha: int, task_id: int) -> BigTask:
        used = coordinator_search.nodes + worker_nodes()
        budget = 0 if limit.nodes is None else max(1, limit.nodes - used)   # what the finished left
        return BigTask(task_id, spec.cols, spec.rows, spec.k, spec.gravity, x, o, cell, opts.weak,
                       alpha, hi + 1, bits, opts.pv, budget)

    def after_turn() -> None:
        used = coordinator_search.nodes + worker_nodes()
        if opts.watch is not None:
            opts.watch.count(used)
            if opts.watch.stopped:
                raise SearchTimeout()
        if limit.nodes is not None and used >= limit.nodes:
            raise SearchTimeout()

    # lo - 1: the first move answered is proven exact (with its line) whatever its value
    own, opp = position.stones()
    tree = root_split(spec.cells, own, opp, position.ply, order, lo - 1, hi)
    tasks = RootMoveTasks(make)
    remaining = left()
    deadline = None if remaining is None else time.monotonic() + remaining
    try:
        coordinator.search_tree(tree, spec, 0, deadline, after_turn, tasks=tasks)
    except SearchTimeout:
        pass
    elapsed = time.perf_counter() - started
    nodes = coordinator_search.nodes + worker_nodes()
    stats = [WorkerStats(0, 0, coordinator_search.nodes)] + list(coordinator.stats)
    split = {"split": "root", "root_moves": len(order), "root_moves_proved": len(tasks.answers)}
    exact = [c for c in tree.root.children if c.lo == c.hi]
    best = max(exact, key=lambda c: -c.lo, default=None)   # (the first in move order among equals)
    answer = None if best is None else tasks.answers[best.cell]
    assert answer is None or isinstance(answer, BigTaskResult)
    if not tree.done or answer is None or not answer.line:   # the best move proved so far: a lower bound
        root = tree.root
        cell = best.cell if best is not None else coordinator_search.first_choice(x, o)
        low = root.lo if best is not None else lo
        return SolveResult(spec, Value.UNKNOWN, None, None if cell < 0 else position.move_of_cell(cell), [],
                           nodes, elapsed, stats, parallel=split, bounds=(low, root.hi))
    score = tree.result()
    line = list(answer.line)
    return SolveResult(spec, value_of_score(score), None if opts.weak else score, Move(spec, line[0]),
                       moves_of(spec, line), nodes, elapsed, stats, proof="search", parallel=split)
