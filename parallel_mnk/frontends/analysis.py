"""analyze(position) -> Analysis: the value and exact score of every legal move.

Like Pascal Pons' Connect Four solver with ``-a``: the score of a move, from the
side to move's point of view, is the win score (:func:`parallel_mnk.game.rules.win_score`)
if the move wins at once, 0 if it fills the board, and otherwise minus the exact
score of the resulting position for the opponent. The best of them is the
position's own score.

Serial (``workers=1``): one :class:`parallel_mnk.engines.exact.search.Search`, hence one
transposition table with one salt, serves every child, so what one child's search
proved helps the next. With ``workers > 1`` each child is a :func:`solve` on the
process pool. A time limit covers the whole analysis: moves not solved in time
are ``unknown`` (never a guess).

Also the two text forms the CLI prints: :func:`render` (the board with each
move's score on it) and :func:`pons_line` (the input followed by one score per
column, or per cell, as Pons' ``-a`` output).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional, Union

from ..api.options import Limit, SolveOptions, Watch
from ..engines.books.base import Book
from ..engines.books.choose import open_book
from ..engines.exact.big import BigSearch, table_bits
from ..engines.exact.search import Search, terminal_result
from ..game.moves import Move
from ..game.position import Position
from ..kernels.core.layout import CTL_ABORT
from ..game.rules import GameSpec, MnkError, Value, format_move, ply_of_score, value_of_score, win_score
from ..runtime import running
from ..runtime.ttable import resolve_tt_bits, transposition_table
from .solver import KernelLoad, solve
from ..settings import BIG_FIRST_BUDGET

ILLEGAL = -1000  # the plain line's entry for a full column / taken cell (Pons' INVALID_MOVE)
UNKNOWN = "?"    # the plain line's (and the grid's) entry for a move not solved in time


@dataclass
class MoveAnalysis:
    """One legal move: ``value`` (``win``/``draw``/``loss``, ``unknown`` when the
    time ran out), ``score`` (exact, from the side to move; None when weak or
    unknown), ``at_once`` (the move ends the game: a win, or a draw on the last
    cell), and the nodes and seconds its search took."""

    spec: GameSpec
    move: Move
    value: Value
    score: Optional[int]
    nodes: int = 0
    time_s: float = 0.0
    at_once: bool = False
    book: bool = False   # the score came from an opening book

    def __post_init__(self) -> None:
        self.move = Move(self.spec, self.move)

    def __str__(self) -> str:
        """One line: ``b2: draw, score 0``."""
        return f"{self.move}: {self.value}" + ("" if self.score is None else f", score {self.score:+d}")

    @property
    def text(self) -> str:
        """The move in the notation of docs/design.md (column from 1, or a cell like ``b2``)."""
        return format_move(self.spec, self.move)

    def to_dict(self) -> dict:
        return {"move": self.text, "value": self.value.value, "score": self.score, "ends_game": self.at_once,
                "nodes": self.nodes, "time_s": round(self.time_s, 6), "proof": "book" if self.book else None}


@dataclass
class Analysis:
    """Every legal move of ``position`` with its value and score.

    ``moves`` is in move order (columns left to right, or cells in row-major
    order from the top-left). For a finished game ``terminal`` is true,
    ``moves`` is empty and ``value``/``score`` are the game's result for the
    side to move (as :func:`solve` gives them).
    """

    position: Position
    moves: list[MoveAnalysis]
    weak: bool
    nodes: int
    time_s: float
    terminal: bool = False
    terminal_score: Optional[int] = None
    workers: int = 1
    startup_s: float = field(default=0.0, repr=False)   # loading (compiling) the kernels first, not in time_s
    _by_move: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_move = {m.move: m for m in self.moves}

    def __str__(self) -> str:
        """One line: ``draw for X, score 0, best moves a1 c1 a3 c3 (9 moves, 1,234 nodes, 0.05 s)``."""
        head = f"{self.value} for {self.position.turn}" + ("" if self.score is None else f", score {self.score:+d}")
        if self.terminal:
            return f"{head}, the game is over"
        best = f", best moves {' '.join(map(str, self.best_moves))}" if self.best_moves else ""
        return f"{head}{best} ({len(self.moves)} moves, {self.nodes:,} nodes, {self.time_s:.2f} s)"

    @property
    def spec(self) -> GameSpec:
        return self.position.spec

    @property
    def complete(self) -> bool:
        """True when every move was solved (no ``unknown``)."""
        return all(m.value.known for m in self.moves)

    @property
    def value(self) -> Value:
        """The position's value: the best move's (``unknown`` if any move is)."""
        if self.terminal:
            assert self.terminal_score is not None
            return value_of_score(self.terminal_score)
        if not self.complete:
            return Value.UNKNOWN
        return max((m.value for m in self.moves), key=lambda v: v.rank)

    @property
    def score(self) -> Optional[int]:
        """The position's exact score: the best move's (None when weak or unknown)."""
        if self.terminal:
            return self.terminal_score
        if self.weak or not self.complete:
            return None
        return max(m.score for m in self.moves if m.score is not None)

    @property
    def best_moves(self) -> list[Move]:
        """Every move that keeps the position's score (value when weak); empty
        when the game is over or a move is unknown."""
        if self.terminal or not self.complete:
            return []
        if self.weak:
            value = self.value
            return [m.move for m in self.moves if m.value == value]
        score = self.score
        return [m.move for m in self.moves if m.score == score]

    @property
    def from_book(self) -> bool:
        """True when an opening book gave every move that does not end the game."""
        searched = [m for m in self.moves if not m.at_once]
        return bool(searched) and all(m.book for m in searched)

    def get(self, move: int) -> Optional[MoveAnalysis]:
        """The entry of ``move``, or None if it is not legal."""
        return self._by_move.get(move)

    def slots(self) -> list[Optional[MoveAnalysis]]:
        """One entry per column (gravity) or per cell in row-major order from the
        top-left (free placement, the order of board text); None where no move is."""
        n = self.spec.cols if self.spec.gravity else self.spec.cells
        return [self.get(i) for i in range(n)]

    def line_entries(self) -> list[str]:
        """The plain line's entries, one per slot: the exact score (``1``/``0``/``-1``
        for win/draw/loss when weak, as Pons' solver prints), ``-1000`` for no
        move, ``?`` for unknown."""
        out = []
        for m in self.slots():
            if m is None:
                out.append(str(ILLEGAL))
            elif not m.value.known:
                out.append(UNKNOWN)
            elif m.score is None:
                out.append(str(m.value.rank))
            else:
                out.append(str(m.score))
        return out

    def to_dict(self) -> dict:
        """The JSON form: position value/score, best moves, per-move entries, and
        ``scores`` (the plain line's numbers, null for no move or unknown)."""
        return {
            "value": self.value.value,
            "score": self.score,
            "to_move": "X" if self.position.turn == 1 else "O",
            "best_moves": [format_move(self.spec, m) for m in self.best_moves],
            "moves": [m.to_dict() for m in self.moves],
            "scores": [None if e in (str(ILLEGAL), UNKNOWN) else int(e) for e in self.line_entries()],
            "terminal": self.terminal,
            "proof": "book" if self.from_book else None,
            "nodes": self.nodes,
            "time_s": round(self.time_s, 6),
        }


# ------------------------------------------------------------------ search
def analyze(position: Position, limit: Optional[Limit] = None, *, workers: int = 1, weak: bool = False,
            tt_size: Union[int, str, None] = None, tt_bits: Optional[int] = None, split_depth: Optional[int] = None,
            progress: Optional[bool] = None, time_limit: Optional[float] = None,
            watch: Optional[Watch] = None, book: Union[Book, str, None] = None) -> Analysis:
    """Value and score of every legal move of ``position`` (see the module doc).

    ``limit``: ``Limit(time=S)`` for the whole analysis (or ``time_limit=S``):
    moves not solved by then are ``unknown``. ``workers``: 1 is the serial path
    (one table for all the children); more solves each child on the process pool
    (``split_depth`` as for :func:`solve`). ``weak``: win/draw/loss only.
    ``tt_size`` / ``tt_bits``: the table, as for :func:`solve`. ``progress``: a
    status line on stderr (default: when stderr is a terminal; serial path only).
    ``watch``: a :class:`Watch` another thread stops the analysis with (moves not
    solved by then are ``unknown``, as with a time limit) and reads its nodes from.
    ``book``: an opening book (or its name, as :func:`solve` takes it) that scores
    the moves whose positions it covers (``book`` set on their entries). Past 64
    cells the moves are proven in this process, whatever ``workers`` says
    (:func:`_search_big`).
    """
    spec = position.spec
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise MnkError(f"workers must be at least 1, got {workers!r}")
    limit = Limit.of(limit, time=time_limit)
    if limit.depth is not None or limit.nodes is not None:
        raise MnkError("analyze takes a time limit only (Limit(time=...))")
    tt_bits = resolve_tt_bits(tt_bits, tt_size, spec.cells, spec.gravity, workers)
    opened = open_book(spec, book) if book is None or isinstance(book, str) else book
    started = time.perf_counter()
    pos = position.copy()
    if pos.is_game_over():
        done = terminal_result(pos, started)
        return Analysis(pos, [], weak, 0, time.perf_counter() - started, terminal=True,
                        terminal_score=done.score, workers=workers)

    entries: dict[int, MoveAnalysis] = {}
    to_search: list[tuple[int, Position]] = []
    for move in pos.legal_moves():
        child = pos.copy()
        child.push(move)
        out = child.outcome()
        if out is None:
            to_search.append((move, child))
            continue
        score = 0 if out.winner is None else win_score(spec, child.ply)  # the mover made the line
        entries[move] = MoveAnalysis(spec, Move(spec, move), value_of_score(score), None if weak else score, at_once=True)
    if opened is not None:
        to_search = [(m, c) for m, c in to_search if not _from_book(opened, m, c, entries, weak)]
    startup = KernelLoad(position.spec, SolveOptions(workers=workers)).load() if to_search else 0.0
    started += startup   # the clock of the time limit, and time_s, leave out the kernels' start-up
    nodes = sum(e.nodes for e in entries.values())   # the book's searches
    if not to_search:
        pass
    elif not spec.exact_solvable:
        nodes += _search_big(pos, to_search, entries, weak, limit.time, tt_bits, progress, started, watch)
    elif workers == 1:
        nodes += _search_serial(pos, to_search, entries, weak, limit.time, tt_bits, progress, started, watch)
    else:
        nodes += _search_parallel(to_search, entries, weak, limit.time, tt_bits, workers, split_depth, started,
                                 watch)
    moves = [entries.get(m) or MoveAnalysis(spec, m, Value.UNKNOWN, None) for m in pos.legal_moves()]
    return Analysis(pos, moves, weak, nodes, time.perf_counter() - started, workers=workers, startup_s=startup)


def _from_book(book: Book, move: int, child: Position, entries: dict[int, MoveAnalysis], weak: bool) -> bool:
    """Score ``move`` (to ``child``) from ``book`` into ``entries``; False when it does not cover it."""
    t0, n0 = time.perf_counter(), book.nodes
    child_score = book.score(child)
    if child_score is None:
        return False
    entries[move] = MoveAnalysis(child.spec, Move(child.spec, move), value_of_score(-child_score), None if weak else -child_score,
                                 book.nodes - n0, time.perf_counter() - t0, book=True)
    return True


def _search_serial(pos: Position, to_search: list[tuple[int, Position]], entries: dict[int, MoveAnalysis],
                   weak: bool, time_limit: Optional[float], tt_bits: int, progress: Optional[bool],
                   started: float, watch: Optional[Watch]) -> int:
    """Each child in turn on one Search (one table, one salt); returns the nodes."""
    spec = pos.spec
    search = Search(spec, transposition_table(tt_bits))
    state = {"i": 0}

    def run() -> None:
        for i, (move, child) in enumerate(to_search):
            state["i"] = i
            n0, t0 = search.nodes, time.perf_counter()
            own, opp = child.stones()
            child_score = search.score(own, opp, child.ply, weak)
            if search.aborted:
                return
            value = value_of_score(child_score).negated()
            score = None if weak else -child_score
            entries[move] = MoveAnalysis(spec, Move(spec, move), value, score, search.nodes - n0, time.perf_counter() - t0)

    def status() -> str:
        move = format_move(spec, to_search[state["i"]][0])
        return (f"analysing: move {state['i'] + 1}/{len(to_search)} ({move}), "
                f"{search.nodes / 1e6:.1f} M nodes, {time.perf_counter() - started:.1f} s")

    running.run_with_status(run, search.ctl, time_limit, progress, status, watch, lambda: search.nodes)
    return search.nodes


def _search_big(pos: Position, to_search: list[tuple[int, Position]], entries: dict[int, MoveAnalysis],
                weak: bool, time_limit: Optional[float], tt_bits: int, progress: Optional[bool],
                started: float, watch: Optional[Watch]) -> int:
    """Past 64 cells (:class:`parallel_mnk.engines.exact.big.BigSearch`, one table for
    all): the children in passes of growing node budgets (:data:`BIG_FIRST_BUDGET`,
    then 8 times more each pass), so that a move hard to prove does not keep the
    others from being proved before the time limit; returns the nodes."""
    spec = pos.spec
    search = BigSearch(spec, table_bits(tt_bits))
    state = {"pass": 0, "open": len(to_search)}

    def run() -> None:
        budget = BIG_FIRST_BUDGET
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
                entries[move] = MoveAnalysis(spec, Move(spec, move), value_of_score(child_score).negated(), score,
                                             search.nodes - n0, time.perf_counter() - t0)
            budget *= 8
            state["pass"] += 1

    def status() -> str:
        return (f"analysing: pass {state['pass'] + 1}, {state['open']} moves open, "
                f"{search.nodes / 1e6:.1f} M nodes, {time.perf_counter() - started:.1f} s")

    running.run_with_status(run, search.ctl, time_limit, progress, status, watch, lambda: search.nodes)
    return search.nodes


def _search_parallel(to_search: list[tuple[int, Position]], entries: dict[int, MoveAnalysis], weak: bool,
                     time_limit: Optional[float], tt_bits: int, workers: int, split_depth: Optional[int],
                     started: float, watch: Optional[Watch]) -> int:
    """Each child as a parallel :func:`solve` within what is left of the time; returns the nodes."""
    nodes = 0
    deadline = None if time_limit is None else started + time_limit
    for move, child in to_search:
        left = None if deadline is None else deadline - time.perf_counter()
        if (left is not None and left <= 0) or (watch is not None and watch.stopped):
            break
        if watch is not None:
            watch.base = nodes
        t0 = time.perf_counter()
        r = solve(child, Limit(time=left), workers=workers, weak=weak, tt_bits=tt_bits, pv=False,
                  split_depth=split_depth, progress=False, watch=watch)
        nodes += r.nodes
        if not r.value.known:
            break
        score = None if weak or r.score is None else -r.score
        entries[move] = MoveAnalysis(child.spec, Move(child.spec, move), r.value.negated(), score, r.nodes, time.perf_counter() - t0)
    return nodes


# ------------------------------------------------------------------ text
def _mover(position: Position) -> str:
    return "X" if position.turn == 1 else "O"


def _token(m: MoveAnalysis) -> str:
    if not m.value.known:
        return UNKNOWN
    if m.score is None:
        return m.value
    return f"{m.score:+d}" if m.score else "0"


def describe_score(position: Position, score: int, terminal: bool = False) -> str:
    """``draw with best play``, ``X wins with its stone 5 (ply 9)``, ``X has won``."""
    end = ply_of_score(position.spec, score, position.ply)
    if end is None:
        return "draw with best play" if not terminal else "the board is full"
    mover = _mover(position)
    winner = mover if score > 0 else ("O" if mover == "X" else "X")
    if terminal:
        return f"{winner} has won"
    return f"{winner} wins with its stone {(end + 1) // 2} (ply {end})"


def grid_lines(analysis: Analysis) -> list[str]:
    """The board with the scores. Free placement: each empty cell shows its
    move's score, taken cells X/O. Gravity: the board, the column numbers, and
    under them each column's score (blank for a full column)."""
    pos, spec = analysis.position, analysis.spec
    tokens = [_token(m) for m in analysis.moves]
    width = max([1, len(str(spec.cols))] + [len(t) for t in tokens])
    label = len(str(spec.rows))
    lines = []
    for r in range(spec.rows):
        cells = []
        for c in range(spec.cols):
            bit = 1 << (r * spec.cols + c)
            if pos.x & bit:
                t = "X"
            elif pos.o & bit:
                t = "O"
            else:
                entry = None if spec.gravity else analysis.get(r * spec.cols + c)
                t = "." if entry is None else _token(entry)
            cells.append(f"{t:>{width}}")
        lines.append(f"{spec.rows - r:>{label}} " + " ".join(cells))
    names = [str(c + 1) if spec.gravity else chr(ord("a") + c) for c in range(spec.cols)]
    lines.append(" " * (label + 1) + " ".join(f"{n:>{width}}" for n in names))
    if spec.gravity:
        row = " ".join(f"{'' if m is None else _token(m):>{width}}" for m in analysis.slots())
        lines.append((" " * (label + 1) + row).rstrip())
    return lines


def render(analysis: Analysis) -> str:
    """The human form: header, the grid, the value, the best moves, nodes and time."""
    pos, spec = analysis.position, analysis.spec
    mover = _mover(pos)
    head = f"{spec.describe()}, {pos.ply} stone{'' if pos.ply == 1 else 's'}, {mover} to move"
    if analysis.terminal:
        assert analysis.terminal_score is not None
        return "\n".join([head, str(pos),
                          f"game over: {analysis.value} for {mover} "
                          f"({describe_score(pos, analysis.terminal_score, terminal=True)}); no move to analyse"]) + "\n"
    what = "value" if analysis.weak else "score"
    where = "under its column (blank: full column)" if spec.gravity else "on its cell"
    lines = [head, f"{what} of each move for {mover}, {where}:"]
    lines += grid_lines(analysis)
    solved = sum(m.value.known for m in analysis.moves)
    if not analysis.value.known:
        lines.append(f"value: unknown (stopped by the time limit: {solved} of {len(analysis.moves)} "
                     f"moves solved, '?' for the others)")
    else:
        score = "" if analysis.score is None else \
            f", score {analysis.score:+d} ({describe_score(pos, analysis.score)})"
        lines.append(f"value: {analysis.value} for {mover}{score}")
        best = [format_move(spec, m) for m in analysis.best_moves]
        lines.append(f"best move{'s' if len(best) > 1 else ''}: {' '.join(best)}")
    how = "1 process" if analysis.workers == 1 else f"{analysis.workers} workers"
    lines.append(f"nodes: {analysis.nodes:,}  time: {analysis.time_s:.3f} s  ({how})")
    return "\n".join(lines) + "\n"


def pons_line(text: str, analysis: Analysis) -> str:
    """``text`` followed by one entry per column (per cell, row-major from the
    top-left, when free), space separated: what Pons' solver prints with ``-a``
    (-1000 for a full column; ``?`` unknown)."""
    return " ".join([text, *analysis.line_entries()])
