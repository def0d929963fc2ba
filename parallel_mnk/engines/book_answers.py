"""A solve answered by an opening book (:func:`book_result`): the book's score, its
move, and the perfect line, from the book while it covers the positions of the
line and by search after its last ply.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

from ..api.options import SolveOptions
from ..api.results import SolveResult, WorkerStats
from ..api.settings import current
from ..game.moves import Move, moves_of
from ..game.position import Position
from ..game.rules import value_of_score
from ..runtime.ttable import transposition_table
from .exact.search import Search
from .serial import solve_serial
from .books.base import Book, BookAnswer


def book_result(position: Position, book: Book, opts: SolveOptions, load: Callable[[], float],
                ready: Callable[[], bool] = lambda: True) -> Optional[SolveResult]:
    """The answer of ``book`` for ``position`` (None when it does not cover it),
    ``proof`` ``"book"``: the line follows the book, then (``opts.pv``) goes on from
    its last position by the solver's search when its kernels are ``ready()``
    (compiled), else by the book's own search where it has one
    (:meth:`Book.line_past`: a first answer compiles no solver), else by the
    solver's search. ``load()`` makes the solver's kernels ready before its search
    and returns the seconds that call took (0 once they are): they are left out of
    ``time_s``."""
    started = time.perf_counter()
    answer = book.answer(position)
    nodes = 0
    loading = 0.0
    if answer is None:   # the book may know the score but not its children's (its last ply)
        known = book.score(position)
        if known is None:
            return None
        loading += load()
        answer, nodes = _move_by_search(position, known, opts, book.name)
    line: list[int] = []
    walk = position.copy()
    step: Optional[BookAnswer] = answer
    while step is not None and not walk.is_game_over():
        move = step.best_move
        line.append(move)
        walk.push(move)
        step = book.answer(walk) if opts.pv else None
    if opts.pv and not walk.is_game_over():
        before = book.nodes
        last_score = answer.score if len(line) % 2 == 0 else -answer.score   # (a perfect line keeps it)
        past = None if ready() else book.line_past(walk, last_score)
        if past is not None:
            line += past
            nodes += book.nodes - before
        else:
            loading += load()
            tail = solve_serial(walk, SolveOptions(tt_bits=opts.tt_bits, progress=False))
            line += tail.pv
            nodes += tail.nodes
    score = answer.score
    return SolveResult(position.spec, value_of_score(score), None if opts.weak else score,
                       Move(position.spec, line[0]), moves_of(position.spec, line if opts.pv else line[:1]), nodes,
                       time.perf_counter() - started - loading, [WorkerStats(0, nodes=nodes)], proof="book")


def _move_by_search(position: Position, score: int, opts: SolveOptions, name: str) -> tuple[BookAnswer, int]:
    """A move that keeps the book's ``score`` of ``position``, found by null-window
    searches of its moves (:meth:`Search.best_cell`); and the nodes they took (the
    kernels loaded)."""
    search = Search(position.spec, transposition_table(min(opts.tt_bits, current().MOVE_SEARCH_TT_BITS)))
    own, opp = position.stones()
    cell = search.best_cell(own, opp, position.ply, score, weak=False)
    return BookAnswer(score, position.move_of_cell(cell), name), search.nodes
