"""The NMK assignment's stdin/stdout protocol (``parallel-mnk nmk``).

Input: whitespace-separated tokens (line breaks mean nothing). Each query is a
header ``COMMAND N M K P`` followed by the ``N * M`` cells of the board in
row-major order from the top-left: ``0`` empty, ``1`` first player, ``2``
second player. ``N`` is the number of rows, ``M`` of columns, ``K`` the run
that wins, ``P`` (1 or 2) the player to move. ``P`` is taken as given, never
inferred from the stone counts. The game is free placement (no gravity).

Commands and output (LF, no trailing spaces, no blank lines):

* ``GEN_ALL_POS_MOV``: the number of boards, then each board (``N`` lines of
  ``M`` space-separated cells) with ``P``'s stone put on one empty cell, in
  row-major order of that cell.
* ``GEN_ALL_POS_MOV_CUT_IF_GAME_OVER``: the same, except that if one of those
  boards ends the game (``P`` now has ``K`` in a row, or the board is full),
  ``1`` and only the first such board.
* Both GEN commands print ``0`` alone for a board that is already over
  (``K`` in a row for either player, or full).
* ``SOLVE_GAME_STATE``: ``FIRST_PLAYER_WINS``, ``SECOND_PLAYER_WINS`` or
  ``BOTH_PLAYERS_TIE`` with perfect play, ``P`` to move; with a time limit (a
  :class:`Session`'s, per query), ``UNKNOWN`` for a query not solved in time (not
  one of the protocol's answers: never a guess). A board already won
  gives its winner, a full board with no line a tie, a board on which both
  players have a line is refused. Answers are memoised per board. Where
  ``solve --weak`` asks the proof-number prover (``PN_AUTO_MIN_CELLS``, 50 cells, and
  more) so does a query whose stone counts a game reaches with ``P`` to move (in
  either colouring: ``P`` = 2 on equal counts, or ``P`` = 1 a stone short, reads the
  stones the other way round; the prover's own tables, not ``--tt-bits``'s);
  the rest are solved by :class:`parallel_mnk.engines.exact.search.Search` (weak
  solve: win/draw/loss) with one transposition table for all queries, past 64 cells
  (up to 676 cells, a side of at most 26) by
  :class:`parallel_mnk.engines.exact.big.BigSearch`, one per shape.

The GEN commands are plain Python on bitboards held in Python ints, so they
work on boards of any size.

Inside, cell ``row * M + col`` (row 0 at the top) is bit ``row * M + col`` of
a bitboard: the protocol's row-major order is the project's cell index.
"""
from __future__ import annotations

import re
from typing import NamedTuple, Optional

from .. import entrance
from ..api.options import Limit, Options, SolveOptions
from ..api.settings import current
from ..engines.exact.big import BigSearch, table_bits
from ..engines.exact.search import Search
from ..game.geometry import has_line, winning_cells
from ..game.position import Position
from ..game.rules import MAX_CELLS, MAX_SIDE, GameSpec, MnkError, UnsupportedError, Value, format_board_text
from ..kernels.core.layout import CTL_ABORT
from ..runtime.running import run_abortable
from ..runtime.ttable import transposition_table

GEN = "GEN_ALL_POS_MOV"
GEN_CUT = "GEN_ALL_POS_MOV_CUT_IF_GAME_OVER"
SOLVE = "SOLVE_GAME_STATE"
COMMANDS = (GEN, GEN_CUT, SOLVE)

FIRST_WINS = "FIRST_PLAYER_WINS"
SECOND_WINS = "SECOND_PLAYER_WINS"
TIE = "BOTH_PLAYERS_TIE"
NOT_SOLVED = "UNKNOWN"   # a SOLVE query the time limit stopped (ours, not the protocol's)

# A SOLVE query with more empty cells than this runs its search in a helper thread,
# so that Ctrl-C can stop it (the thread costs ~0.1 ms: too much for small queries).
ABORTABLE_EMPTY_CELLS = 20

_INT_RE = re.compile(r"-?[0-9]+")
_ONLY_X = str.maketrans("2", "0")         # '1' stays 1: bits of the first player
_ONLY_O = str.maketrans("12", "01")       # '2' becomes 1: bits of the second player


class Query(NamedTuple):
    """One query: ``cells`` holds the ``rows * cols`` cells as characters ``0``/``1``/``2``, row-major."""

    command: str
    rows: int
    cols: int
    k: int
    player: int
    cells: str

    def stones(self) -> tuple[int, int]:
        """``(first, second)``: the players' bitboards (bit = row * cols + col)."""
        rev = self.cells[::-1]  # int(..., 2) reads the most significant bit first
        return int(rev.translate(_ONLY_X), 2), int(rev.translate(_ONLY_O), 2)


# ------------------------------------------------------------------ parsing
def _line_of_token(text: str, index: int) -> int:
    """The line (from 1) of the ``index``-th whitespace token of ``text`` (error messages only)."""
    for i, m in enumerate(re.finditer(r"\S+", text)):
        if i == index:
            return text.count("\n", 0, m.start()) + 1
    return text.count("\n") + 1


def _header(tokens: tuple[str, ...], fail) -> tuple[str, int, int, int, int]:
    """``(command, rows, cols, k, player)`` from the 5 header tokens; ``fail(offset, message)`` on errors."""
    command = tokens[0]
    if command not in COMMANDS:
        fail(0, f"unknown command {command[:40]!r} (expected {', '.join(COMMANDS)})")
    if len(tokens) < 5:
        fail(0, f"the header needs 4 numbers after {command} (N M K P), found {len(tokens) - 1}")
    values = []
    for j, name in enumerate(("N (rows)", "M (columns)", "K", "P (player to move)")):
        token = tokens[1 + j]
        if not _INT_RE.fullmatch(token):
            fail(1 + j, f"{name} must be an integer, got {token[:40]!r}")
        values.append(int(token))
    rows, cols, k, player = values
    if rows < 1 or cols < 1:
        fail(1, f"the board must have at least one row and one column, got N={rows} M={cols}")
    if k < 1:
        fail(3, f"K must be at least 1, got {k}")
    if player not in (1, 2):
        fail(4, f"P (player to move) must be 1 or 2, got {player}")
    if command == SOLVE:
        try:
            _check_solvable(rows, cols)
        except MnkError as e:
            fail(1, str(e))
    return command, rows, cols, k, player


def _check_solvable(rows: int, cols: int) -> None:
    if rows * cols > MAX_SIDE * MAX_SIDE or min(rows, cols) > MAX_SIDE:
        raise UnsupportedError(f"{SOLVE} handles boards of at most {MAX_SIDE * MAX_SIDE} cells with a side of at "
                               f"most {MAX_SIDE}, N={rows} M={cols} has {rows * cols}")


def parse(text: str) -> list[Query]:
    """All queries of a protocol input; raises :class:`MnkError` (naming the line
    and the query) on the first malformed one."""
    tokens = text.split()
    queries: list[Query] = []
    headers: dict[tuple[str, ...], tuple[str, int, int, int, int]] = {}  # files repeat one header
    i, n_tokens = 0, len(tokens)

    def fail(at: int, message: str):
        raise MnkError(f"line {_line_of_token(text, at)}, query {len(queries) + 1}: {message}")

    while i < n_tokens:
        head = tuple(tokens[i:i + 5])
        header = headers.get(head)
        if header is None:
            header = headers[head] = _header(head, lambda offset, message: fail(i + offset, message))
        command, rows, cols, k, player = header
        n = rows * cols
        start = i + 5
        if start + n > n_tokens:
            fail(i, f"a {rows}x{cols} board needs {n} cells after the header, found {n_tokens - start}")
        cells = "".join(tokens[start:start + n])
        if len(cells) != n or cells.strip("012"):
            for j in range(n):
                token = tokens[start + j]
                if token not in ("0", "1", "2"):
                    r, c = divmod(j, cols)
                    fail(start + j, f"cell {j + 1} (row {r + 1}, column {c + 1}) is {token[:40]!r}, expected 0, 1 or 2")
        queries.append(Query(command, rows, cols, k, player, cells))
        i = start + n
    return queries


# ------------------------------------------------------------------ answers
def _board_lines(cells: str, cols: int) -> list[str]:
    return [" ".join(cells[r:r + cols]) for r in range(0, len(cells), cols)]


def generate(query: Query) -> str:
    """The output of a GEN query (lines joined by LF, no final newline)."""
    rows, cols, k, n = query.rows, query.cols, query.k, query.rows * query.cols
    x, o = query.stones()
    filled = x | o
    full = (1 << n) - 1
    if filled == full or has_line(x, rows, cols, k) or has_line(o, rows, cols, k):
        return "0"
    empty = full & ~filled
    lines = _board_lines(query.cells, cols)
    stone = "1" if query.player == 1 else "2"

    def board(cell: int) -> str:
        r, c = divmod(cell, cols)
        row = lines[r]
        return "\n".join(lines[:r] + [row[:2 * c] + stone + row[2 * c + 1:]] + lines[r + 1:])

    if query.command == GEN_CUT:
        own = x if query.player == 1 else o
        ends = empty if empty & (empty - 1) == 0 else winning_cells(own, empty, rows, cols, k)
        if ends:
            return "1\n" + board((ends & -ends).bit_length() - 1)
    cells = [j for j, ch in enumerate(query.cells) if ch == "0"]
    return "\n".join([str(len(cells))] + [board(j) for j in cells])


class Session:
    """Answers the queries of one input: one :class:`Search` per board shape (all
    on one transposition table), and answers memoised per query (files repeat boards).
    ``time_limit``: seconds a SOLVE query may search (None: no limit); a query
    stopped by it answers ``UNKNOWN`` and is counted in :attr:`unknown`. ``tt_bits``
    None: the setting ``DEFAULT_TT_BITS``."""

    def __init__(self, tt_bits: Optional[int] = None, time_limit: Optional[float] = None) -> None:
        self.tt_bits = current().DEFAULT_TT_BITS if tt_bits is None else tt_bits
        self.time_limit = time_limit
        self.unknown = 0
        self._searches: dict[tuple[int, int, int], tuple[Search, bool]] = {}
        self._answers: dict[Query, str] = {}  # e.g. NMKSolver16: 52,318 queries, 9,704 distinct
        self._big: dict[tuple[int, int, int], tuple[BigSearch, bool]] = {}   # past 64 cells
        self._pn_options = SolveOptions(weak=True)   # (whether solve --weak asks the pn prover)

    def _search(self, rows: int, cols: int, k: int) -> tuple[Search, bool]:
        """The search for a shape, and whether it is on the transposed board.

        Transposing maps lines onto lines, so the value is the same; it lets
        boards wider than :class:`GameSpec`'s 26 columns (at most 2 rows, since
        at most 64 cells) be solved.
        """
        k = min(k, max(rows, cols) + 1)   # a K longer than every side is the same game (no line): one K for all
        key = (rows, cols, k)
        if key not in self._searches:
            transpose = cols > 26 >= rows
            spec = GameSpec(cols=rows, rows=cols, k=k) if transpose else GameSpec(cols=cols, rows=rows, k=k)
            self._searches[key] = (Search(spec, transposition_table(self.tt_bits)), transpose)
        return self._searches[key]

    def solve(self, query: Query) -> str:
        """The answer of a SOLVE query."""
        rows, cols, k = query.rows, query.cols, query.k
        x, o = query.stones()
        x_line, o_line = has_line(x, rows, cols, k), has_line(o, rows, cols, k)
        n = rows * cols
        if x_line and o_line:
            raise MnkError("both players have K in a row: no game reaches this board")
        if x_line:
            return FIRST_WINS
        if o_line:
            return SECOND_WINS
        if x | o == (1 << n) - 1:
            return TIE
        return self._search_value(query, x, o)

    def _search_value(self, query: Query, x: int, o: int) -> str:
        n = query.rows * query.cols
        _check_solvable(query.rows, query.cols)
        position = self._pn_position(query, x, o)
        if position is not None:
            return self._pn_value(query, position)
        if n > MAX_CELLS:
            return self._big_value(query, x, o)
        search, transpose = self._search(query.rows, query.cols, query.k)
        own, opp = (x, o) if query.player == 1 else (o, x)
        if transpose:
            own, opp = _transpose(own, query.rows, query.cols), _transpose(opp, query.rows, query.cols)
        ply = (x | o).bit_count()
        if n - ply > ABORTABLE_EMPTY_CELLS or self.time_limit is not None:
            found, stopped = run_abortable(lambda: search.score(own, opp, ply, True), search.ctl, self.time_limit)
            if stopped or found is None or search.aborted:
                search.ctl[CTL_ABORT] = 0
                search.set_node_limit(None)   # (clears the search's abort flag for the next query)
                return self._not_solved()
            value = found
        else:
            value = search.score(own, opp, ply, True)
        if value == 0:
            return TIE
        return FIRST_WINS if (value > 0) == (query.player == 1) else SECOND_WINS

    def _pn_position(self, query: Query, x: int, o: int) -> Optional[tuple[Position, bool]]:
        """The query as a :class:`Position` (and whether its colours are swapped) where
        ``solve --weak`` would ask the proof-number prover
        (:meth:`~parallel_mnk.api.options.SolveOptions.pn_first`: from ``PN_AUTO_MIN_CELLS``
        cells), else None: smaller boards, or stone counts no game reaches with ``P`` to
        move in either colouring (the searches below take ``P`` as given). Swapped: ``P``
        = 2 on equal counts or ``P`` = 1 a stone short, where the other player's stones
        read as x's."""
        rows, cols = query.rows, query.cols
        if rows * cols < self._pn_options.settings_in_force.PN_AUTO_MIN_CELLS:
            return None
        spec, transpose = _big_spec(rows, cols, min(query.k, max(rows, cols) + 1))
        if transpose:
            x, o = _transpose(x, rows, cols), _transpose(o, rows, cols)
        nx, no = x.bit_count(), o.bit_count()
        # (swapped: the other player's stones are x's, who moved first: P = 2 on equal counts, P = 1 a stone short)
        swapped = (query.player, no) in ((2, nx), (1, nx + 1))
        if not swapped and (nx, query.player) not in ((no, 1), (no + 1, 2)):
            return None
        first, second = (o, x) if swapped else (x, o)
        position = Position.from_board(spec, format_board_text(spec, first, second))
        return (position, swapped) if self._pn_options.pn_first(position) else None

    def _pn_value(self, query: Query, found: tuple[Position, bool]) -> str:
        """A SOLVE by the proof-number prover (one process, the query's time limit)."""
        position, swapped = found
        limit = Limit(time=self.time_limit)
        value = entrance.solve(position, limit, weak=True, options=Options(workers=1, progress=False)).value
        if not value.known:
            return self._not_solved()
        if value is Value.DRAW:
            return TIE
        return FIRST_WINS if (value is Value.WIN) == (query.player == 1) else SECOND_WINS

    def _big_value(self, query: Query, x: int, o: int) -> str:
        """A SOLVE past 64 cells: the big-board search (one per shape), weak, ``P`` to move."""
        rows, cols = query.rows, query.cols
        key = (rows, cols, min(query.k, max(rows, cols) + 1))
        if key not in self._big:
            spec, transpose = _big_spec(rows, cols, key[2])
            self._big[key] = (BigSearch(spec, table_bits(self.tt_bits)), transpose)
        search, transpose = self._big[key]
        if transpose:
            x, o = _transpose(x, rows, cols), _transpose(o, rows, cols)
        found, stopped = run_abortable(lambda: search.score(x, o, True, query.player), search.ctl, self.time_limit)
        if stopped or found is None or search.aborted:
            search.ctl[CTL_ABORT] = 0
            search.aborted = False
            return self._not_solved()
        if found == 0:
            return TIE
        return FIRST_WINS if (found > 0) == (query.player == 1) else SECOND_WINS

    def _not_solved(self) -> str:
        """The answer of a query the time limit stopped."""
        self.unknown += 1
        return NOT_SOLVED

    def answer(self, query: Query) -> str:
        """The output of one query (lines joined by LF, no final newline); memoised."""
        answer = self._answers.get(query)
        if answer is None:
            answer = self.solve(query) if query.command == SOLVE else generate(query)
            self._answers[query] = answer
        return answer

    def run(self, queries: list[Query]) -> str:
        """The whole output for ``queries``: each answer followed by LF.

        Errors name the query: ``query 7: ...``.
        """
        out = []
        for i, query in enumerate(queries):
            try:
                out.append(self.answer(query))
            except MnkError as e:
                raise MnkError(f"query {i + 1}: {e}") from None
        return "\n".join(out) + "\n" if out else ""


def _big_spec(rows: int, cols: int, k: int) -> tuple[GameSpec, bool]:
    """The game of a ``rows`` x ``cols`` board with ``k``, and whether it is the board
    turned a quarter (wider than ``MAX_SIDE`` columns: lines stay lines)."""
    transpose = cols > MAX_SIDE
    return (GameSpec(cols=rows, rows=cols, k=k) if transpose else GameSpec(cols=cols, rows=rows, k=k)), transpose


def _transpose(stones: int, rows: int, cols: int) -> int:
    """Bitboard of the transposed board (cell (r, c) -> (c, r), ``rows`` columns)."""
    result = 0
    while stones:
        low = stones & -stones
        r, c = divmod(low.bit_length() - 1, cols)
        result |= 1 << (c * rows + r)
        stones ^= low
    return result


def needs_solver(queries: list[Query]) -> bool:
    """Whether some query needs the search kernels (so the caller may load them first)."""
    return any(q.command == SOLVE for q in queries)


def run(text: str, tt_bits: Optional[int] = None, session: Optional[Session] = None) -> str:
    """Protocol output for protocol input ``text``."""
    return (session or Session(tt_bits)).run(parse(text))
