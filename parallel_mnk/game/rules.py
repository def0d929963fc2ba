"""The rules of (m,n,k)-games: the game spec, notation at the edges, and scores.

Conventions (see docs/design.md):

* ``GameSpec(cols, rows, k, gravity)``; Connect Four is ``GameSpec(7, 6, 4, True)``.
* Inside the code a cell index is ``row * cols + col`` with row 0 at the **top**.
* On the outside, cells are algebraic: column letter then row number counted from
  the **bottom** (``a1`` is bottom-left). Gravity moves are column numbers from 1.
* A move's *index* is its cell index for free placement and its column index
  (0-based) with gravity, as the engines use it; the functions here turn indexes
  into text and back (:func:`move_name`, :func:`move_index`). The API's moves are
  :class:`parallel_mnk.game.moves.Move` (an index that knows its game).
* Scores are from the side to move: a win completed on ply ``p`` (stones on the
  board after the winning stone) is worth ``(cols*rows + 2 - p) // 2``; a draw 0;
  a loss is minus the opponent's worth. This module is the one home of the score
  and bound formulas on the Python side (the kernels repeat them in numba).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Optional, Sequence

MAX_CELLS = 64          # the exact solver's bitboards: one 64-bit word per player
MAX_SIDE = 26           # columns are letters a-z; the depth-limited engine takes up to 26x26


class MnkError(ValueError):
    """Bad input or a request that cannot be met; the message is one line meant
    for the user (the CLI prints it and exits with status 2)."""


class NotationError(MnkError):
    """Text that is not a move, a cell, a move list or board text."""


class IllegalMoveError(MnkError):
    """A move that is not legal in the position (taken cell, full column, game over)."""


class InvalidPositionError(MnkError):
    """A board no game reaches (stone counts, floating stones, both players with a line)."""


class UnsupportedError(MnkError):
    """A game, board size or option this solver does not take (with what to use instead)."""


class ResourceError(MnkError):
    """Not enough memory for what was asked (a table size), or workers that keep dying."""


class OptionError(MnkError):
    """An argument or option of the wrong type or out of its range (a ``Limit``, an
    ``Options`` field, what ``solve`` and the others are given)."""


@dataclass(frozen=True)
class GameSpec:
    """An (m,n,k)-game: ``cols`` x ``rows`` board, ``k`` in a row wins.

    With ``gravity`` a move names a column and the stone drops to the lowest
    empty cell (7x6, k=4, gravity is Connect Four).
    """

    cols: int
    rows: int
    k: int
    gravity: bool = False

    def __post_init__(self) -> None:
        for name in ("cols", "rows", "k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise MnkError(f"{name} must be an integer, got {value!r}")
        if self.cols < 1 or self.rows < 1:
            raise MnkError(f"the board must have at least one column and one row, got {self.cols}x{self.rows}")
        if self.k < 1:
            raise MnkError(f"k must be at least 1, got {self.k}")
        if self.k > MAX_SIDE * MAX_SIDE:   # no board has a longer side; beyond it k only overflows the kernels
            raise UnsupportedError(f"k must be at most {MAX_SIDE * MAX_SIDE} (the longest side a board may have), "
                                   f"got {self.k}")
        if self.cols > 26:
            raise UnsupportedError(f"at most 26 columns are supported (cell names use letters a-z), got {self.cols}")
        if self.cols * self.rows > MAX_SIDE * MAX_SIDE:
            raise UnsupportedError(f"boards of at most {MAX_SIDE * MAX_SIDE} cells are supported, "
                                   f"got {self.cols}x{self.rows}")

    @property
    def cells(self) -> int:
        """Number of cells on the board."""
        return self.cols * self.rows

    @property
    def exact_solvable(self) -> bool:
        """True if the exact solver takes this board (at most 64 cells)."""
        return self.cells <= MAX_CELLS

    def require_exact(self) -> None:
        """Raise :class:`MnkError` unless the exact solver takes this board."""
        if not self.exact_solvable:
            raise UnsupportedError(
                f"the exact solver handles boards of at most {MAX_CELLS} cells; "
                f"{self.cols}x{self.rows} has {self.cells} (use 'parallel-mnk best' for a strong move)"
            )

    def describe(self) -> str:
        """Short human name, e.g. ``7x6 k=4 gravity``."""
        return f"{self.cols}x{self.rows} k={self.k}" + (" gravity" if self.gravity else "")


PRESETS = {
    "connect4": GameSpec(7, 6, 4, True),
    "tictactoe": GameSpec(3, 3, 3, False),
}


# ---------------------------------------------------------------- values and scores
class Value(str, Enum):
    """The game-theoretic value of a position for the side to move.

    A ``str`` enum: ``Value.WIN == "win"`` and JSON writes ``"win"``. ``UNKNOWN``
    is the answer of a search stopped by its limit (never a guess).
    """

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @property
    def known(self) -> bool:
        """True for win, draw and loss."""
        return self is not Value.UNKNOWN

    @property
    def rank(self) -> int:
        """1 for a win, 0 for a draw, -1 for a loss (the weak score); ValueError when unknown."""
        if self is Value.UNKNOWN:
            raise ValueError("an unknown value has no rank")
        return {Value.WIN: 1, Value.DRAW: 0, Value.LOSS: -1}[self]

    def negated(self) -> "Value":
        """The value for the other side (unknown stays unknown)."""
        return {Value.WIN: Value.LOSS, Value.LOSS: Value.WIN}.get(self, self)


def value_of_score(score: int) -> Value:
    """The value of a score (or weak score -1/0/1) from the side to move."""
    return Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW


def win_score(spec: GameSpec, ply: int) -> int:
    """Worth of a win completed on ply ``ply`` (stones on the board after it)."""
    return (spec.cells + 2 - ply) // 2


def terminal_score(spec: GameSpec, ply: int, won: bool) -> int:
    """Score for the side to move of a finished game of ``ply`` stones: the last
    mover won (``won``), or the board is full (0)."""
    return -win_score(spec, ply) if won else 0


def generic_bounds(cells: int, ply: int) -> tuple[int, int]:
    """Bounds on the score of any position of ``ply`` stones that is not over: the
    side to move loses at the earliest on the opponent's next stone, and wins at
    best with its own next stone."""
    return -((cells - ply) // 2), (cells + 1 - ply) // 2


def ply_of_score(spec: GameSpec, score: int, stones: int) -> Optional[int]:
    """The ply on which a game with ``score`` (from the side to move at ``stones``
    stones) ends under perfect play, or None for a draw.

    A worth ``w`` is a win completed on ply ``cells + 1 - 2w`` or ``cells + 2 - 2w``;
    the one of the winner's parity (the side to move plays plies ``stones + 1``,
    ``stones + 3``, ...) is the answer.
    """
    if score == 0:
        return None
    worth = abs(score)
    mover_parity = (stones + 1) % 2 if score > 0 else stones % 2
    for ply in (spec.cells + 1 - 2 * worth, spec.cells + 2 - 2 * worth):
        if ply % 2 == mover_parity:
            return ply
    return None  # unreachable for a consistent score


# ---------------------------------------------------------------- cells
_CELL_RE = re.compile(r"^([a-z])([0-9]+)$")


def cell_index(spec: GameSpec, row_from_top: int, col: int) -> int:
    """Internal index of a cell."""
    return row_from_top * spec.cols + col


def cell_name(spec: GameSpec, cell: int) -> str:
    """Algebraic name of an internal cell index (``a1`` = bottom-left)."""
    row, col = divmod(cell, spec.cols)
    return f"{chr(ord('a') + col)}{spec.rows - row}"


def parse_cell(spec: GameSpec, text: str) -> int:
    """Internal index of an algebraic cell name such as ``c3``."""
    m = _CELL_RE.match(text.strip().lower())
    if not m:
        raise NotationError(f"{text!r} is not a cell name (expected a column letter and a row number, like b2)")
    col = ord(m.group(1)) - ord("a")
    row_from_bottom = int(m.group(2))
    if col >= spec.cols or not 1 <= row_from_bottom <= spec.rows:
        raise NotationError(f"cell {text!r} is off the {spec.cols}x{spec.rows} board")
    return cell_index(spec, spec.rows - row_from_bottom, col)


# ---------------------------------------------------------------- moves
def move_name(spec: GameSpec, move: int) -> str:
    """The text of the move of index ``move`` in the notation of docs/design.md:
    column number from 1 (gravity) or a cell name."""
    return str(move + 1) if spec.gravity else cell_name(spec, move)


def move_index(spec: GameSpec, text: str) -> int:
    """The index of one move token: a column number from 1 (gravity) or a cell name;
    :class:`NotationError` for another text."""
    token = text.strip()
    if spec.gravity:
        if not (token.isascii() and token.isdigit()):
            raise NotationError(f"{text!r} is not a column number (1..{spec.cols})")
        col = int(token)
        if not 1 <= col <= spec.cols:
            raise NotationError(f"column {col} is off the board (1..{spec.cols})")
        return col - 1
    return parse_cell(spec, token)


def move_list_indexes(spec: GameSpec, text: str) -> list[int]:
    """The indexes of a move list.

    Gravity: a digit string (``4453``, cols <= 9) or a comma/space separated list
    of column numbers. Free placement: comma/space separated cell names.
    The empty string is the empty list; an empty item of a comma list
    (``b2,,a1``, ``b2,``) is refused.
    """
    text = text.strip()
    if not text:
        return []
    items = text.split(",")
    for i, item in enumerate(items):
        if not item.strip():
            where = "at the start" if i == 0 else "at the end" if i == len(items) - 1 else \
                f"after {items[i - 1].split()[-1]!r}" if items[i - 1].split() else "between two commas"
            raise NotationError(f"empty move {where} of {text!r} (moves are separated by one comma or spaces)")
    tokens = [t for t in re.split(r"[,\s]+", text) if t]
    if spec.gravity and len(tokens) == 1 and spec.cols <= 9 and tokens[0].isascii() and tokens[0].isdigit():
        tokens = list(tokens[0])
    return [move_index(spec, t) for t in tokens]


def move_list_text(spec: GameSpec, moves: Sequence[int]) -> str:
    """Inverse of :func:`move_list_indexes` (digit string for gravity with cols <= 9)."""
    parts = [move_name(spec, m) for m in moves]
    if spec.gravity and spec.cols <= 9:
        return "".join(parts)
    return ",".join(parts)


# ---------------------------------------------------------------- board text
def parse_board_text(spec: GameSpec, text: str) -> tuple[int, int]:
    """Parse ``x.o/.x./...`` (rows top to bottom) into ``(x_bits, o_bits)``.

    Bit ``row * cols + col`` (row 0 at the top) is set for each stone. Only shape
    and characters are checked here; legality is :class:`Position`'s job.
    """
    rows = text.strip().split("/")
    if len(rows) != spec.rows:
        raise NotationError(f"board text has {len(rows)} rows, the game has {spec.rows}")
    x_bits = o_bits = 0
    for r, row in enumerate(rows):
        if len(row) != spec.cols:
            raise NotationError(f"board row {r + 1} from the top has {len(row)} cells, the game has {spec.cols} columns")
        for c, ch in enumerate(row.lower()):
            bit = 1 << cell_index(spec, r, c)
            if ch == "x":
                x_bits |= bit
            elif ch == "o":
                o_bits |= bit
            elif ch != ".":
                raise NotationError(f"unknown character {ch!r} in board text (use x, o and .)")
    return x_bits, o_bits


def format_board_text(spec: GameSpec, x_bits: int, o_bits: int) -> str:
    """Inverse of :func:`parse_board_text`."""
    out = []
    for r in range(spec.rows):
        row = ""
        for c in range(spec.cols):
            bit = 1 << cell_index(spec, r, c)
            row += "x" if x_bits & bit else "o" if o_bits & bit else "."
        out.append(row)
    return "/".join(out)
