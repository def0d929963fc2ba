"""The searches of an analysis in this process: the value and exact score of every
legal move (:func:`parallel_mnk.analyze`, :class:`~parallel_mnk.api.results.Analysis`).

Like Pascal Pons' Connect Four solver with ``-a``: the score of a move, from the
side to move's point of view, is the win score (:func:`parallel_mnk.game.rules.win_score`)
if the move wins at once, 0 if it fills the board, and otherwise minus the exact
score of the resulting position for the opponent. The best of them is the
position's own score.

:func:`first_entries` scores what needs no search (the moves that end the game,
those an opening book covers); :func:`search_serial` searches the others on one
:class:`~.exact.search.Search`, hence one table with one salt, so that what one
child's search proved helps the next; :func:`search_big` does the same past 64
cells in passes of growing budgets. A time limit covers the whole analysis: moves
not solved in time are left out (``unknown``, never a guess).
"""
from __future__ import annotations

import time
from typing import Optional

from ..api.options import SolveOptions
from ..api.results import MoveAnalysis
from ..api.settings import current
from ..game.moves import Move
from ..game.position import Position
from ..game.rules import Value, move_name, value_of_score, win_score
from ..kernels.core.layout import CTL_ABORT
from ..runtime import running
from ..runtime.ttable import transposition_table
from .books.base import Book
from .exact.big import BigSearch, table_bits
from .exact.search import Search
from .provers.big_draws import draw_answer

Entries = dict[int, MoveAnalysis]          # by move index
Children = list[tuple[Move, Position]]      # the moves left to search, with the position after each


def first_entries(position: Position, weak: bool, book: Optional[Book]) -> tuple[Entries, Children]:
    """The entries of the moves of ``position`` that need no search (a move that ends
    the game; one whose position ``book`` scores), and the moves left to search."""
    spec = position.spec
    entries: Entries = {}
    to_search: Children = []
    for move in position.legal_moves:
        child = position.copy()
        child.push(move)
        out = child.outcome()
        if out is None:
            if book is None or not _from_book(book, move, child, entries, weak):
                to_search.append((move, child))
            continue
        score = 0 if out.winner is None else win_score(spec, child.ply)  # the mover made the line
        entries[move] = MoveAnalysis(spec, move, value_of_score(score), None if weak else score, at_once=True)
    return entries, to_search


def _from_book(book: Book, move: Move, child: Position, entries: Entries, weak: bool) -> bool:
    """Score ``move`` (to ``child``) from ``book`` into ``entries``; False when it does not cover it."""
    t0, n0 = time.perf_counter(), book.nodes
    child_score = book.score(child)
    if child_score is None:
        return False
    entries[move] = MoveAnalysis(child.spec, move, value_of_score(-child_score), None if weak else -child_score,
                                 book.nodes - n0, time.perf_counter() - t0, book=True)
    return True


def search_serial(position: Position, to_search: Children, entries: Entries, opts: SolveOptions,
                  started: float) -> int:
    """Each child in turn on one Search (one table, one salt), within ``opts.limit.time``
    counted from ``started``; returns the nodes."""
    spec = position.spec
    search = Search(spec, transposition_table(opts.tt_bits))
    state = {"i": 0}

    def run() -> None:
        for i, (move, child) in enumerate(to_search):
            state["i"] = i
            n0, t0 = search.nodes, time.perf_counter()
            own, opp = child.stones()
            child_score = search.score(own, opp, child.ply, opts.weak)
            if search.aborted:
                return
            value = value_of_score(child_score).negated()
            score = None if opts.weak else -child_score
            entries[move] = MoveAnalysis(spec, move, value, score, search.nodes - n0, time.perf_counter() - t0)

    def status() -> str:
        move = move_name(spec, to_search[state["i"]][0])
        return (f"analysing: move {state['i'] + 1}/{len(to_search)} ({move}), "
                f"{search.nodes / 1e6:.1f} M nodes, {time.perf_counter() - started:.1f} s")

    running.run_with_status(run, search.ctl, _left(opts, started), opts.progress, status, opts.watch,
                            lambda: search.nodes)
    return search.nodes


def search_big(position: Position, to_search: Children, entries: Entries, opts: SolveOptions,
               started: float) -> int:
    """Past 64 cells (:class:`parallel_mnk.engines.exact.big.BigSearch`, one table for
    all): the children in passes of growing node budgets (the setting ``BIG_FIRST_BUDGET``,
    then 8 times more each pass), so that a move hard to prove does not keep the
    others from being proved before the time limit; returns the nodes. Where each side
    holds a pairing against the other every move keeps the draw, score 0
    (:mod:`.provers.big_draws`): no search."""
    spec = position.spec
    weak = opts.weak
    drawn = draw_answer(position, opts)
    if drawn is not None:
        for move, _ in to_search:
            entries.setdefault(move, MoveAnalysis(spec, move, Value.DRAW, None if weak else 0))
        return drawn.nodes
    search = BigSearch(spec, table_bits(opts.tt_bits))
    state = {"pass": 0, "open": len(to_search)}

    def run() -> None:
        budget = current().BIG_FIRST_BUDGET
        while True:
            open_moves = [(m, c) for m, c in to_search if m not in entries]
            state["open"] = len(open_moves)
            if not open_moves:
                return
            for move, child in open_moves:
                n0, t0 = search.nodes, time.perf_counter()
                search.node_limit = search.nodes + budget
                if weak and search.threat_win(child.x, child.o, budget) is not None:
                    child_score = 1   # the opponent wins by threats after the move
                else:
                    child_score = search.score(child.x, child.o, weak)
                if search.ctl[CTL_ABORT]:
                    return
                if search.aborted:   # this pass's budget: the move waits for the next pass
                    search.aborted = False
                    continue
                score = None if weak else -child_score
                entries[move] = MoveAnalysis(spec, move, value_of_score(child_score).negated(), score,
                                             search.nodes - n0, time.perf_counter() - t0)
            budget *= 8
            state["pass"] += 1

    def status() -> str:
        return (f"analysing: pass {state['pass'] + 1}, {state['open']} moves open, "
                f"{search.nodes / 1e6:.1f} M nodes, {time.perf_counter() - started:.1f} s")

    running.run_with_status(run, search.ctl, _left(opts, started), opts.progress, status, opts.watch,
                            lambda: search.nodes)
    return search.nodes


def _left(opts: SolveOptions, started: float) -> Optional[float]:
    """What is left of the time limit, counted from ``started`` (None: no limit)."""
    if opts.limit.time is None:
        return None
    return max(1e-3, opts.limit.time - (time.perf_counter() - started))
