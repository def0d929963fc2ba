"""Exact solves of boards past 64 cells on the process pool: root splitting.

Each root move is one :class:`~..task.BigTask`, proven by a pool worker with the
big-board search (:mod:`parallel_mnk.engines.exact.big`) on tables of its own
(the array board's entries are not the shared bitboard table's). Moves are handed
out in the search's static order, each with the best value known then as its
alpha (the shared bound at dispatch); a move's result above its alpha is exact and
comes with the line after it. A weak win, or an exact score that cannot be beaten,
stops every running task and hands out no more. Before the pool, the coordinator
settles what needs no split: a game over, a win in one, a forced reply, and (weak,
free placement) a win found by threat-space search.
"""
from __future__ import annotations

import itertools
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
from ..task import AnyResult, BigTask, BigTaskResult
from ...api.settings import current

_task_ids = itertools.count(1)


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
    pending = list(order)
    best: list = [lo - 1, None, ()]   # value, cell, line
    finished: set[int] = set()
    cut = [False]
    nodes = [coordinator_search.nodes]
    ceiling = hi

    def next_task() -> Optional[BigTask]:
        if not pending or cut[0]:
            return None
        budget = 0 if limit.nodes is None else max(1, limit.nodes - nodes[0])   # what the finished left
        return BigTask(next(_task_ids), spec.cols, spec.rows, spec.k, spec.gravity, x, o, pending.pop(0), opts.weak,
                       best[0], hi + 1, bits, opts.pv, budget)

    def on_result(r: AnyResult) -> None:
        assert isinstance(r, BigTaskResult)
        nodes[0] += r.nodes
        if opts.watch is not None:
            opts.watch.count(nodes[0])
        if r.aborted:
            if not cut[0]:
                cut[0] = True   # a stop that was not ours: the value is unknown
                finished.clear()
            return
        finished.add(r.cell)
        if r.value > best[0]:
            best[:] = [r.value, r.cell, r.line]
        if best[0] >= ceiling or (opts.limit.nodes is not None and nodes[0] >= opts.limit.nodes):
            cut[0] = True
            coordinator.backend.stop_all()

    remaining = left()
    deadline = None if remaining is None else time.monotonic() + remaining
    stopped = coordinator.run_each(next_task, on_result, deadline, opts.watch)
    elapsed = time.perf_counter() - started
    stats = [WorkerStats(0, 0, coordinator_search.nodes)] + list(coordinator.stats)
    decided = best[0] >= ceiling or len(finished) == len(order)
    split = {"split": "root", "root_moves": len(order), "root_moves_proved": len(finished)}
    if stopped or not decided or not best[2]:   # the best root move proved so far: its exact value a lower bound
        proved = best[1] is not None
        cell = best[1] if proved else coordinator_search.first_choice(x, o)
        return SolveResult(spec, Value.UNKNOWN, None, None if cell < 0 else position.move_of_cell(cell), [],
                           nodes[0], elapsed, stats, parallel=split, bounds=(best[0] if proved else lo, hi))
    value = value_of_score(best[0])
    line = list(best[2])
    return SolveResult(spec, value, None if opts.weak else best[0], Move(spec, line[0]), moves_of(spec, line),
                       nodes[0], elapsed, stats,
                       proof="search", parallel=split)
