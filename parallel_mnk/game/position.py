"""Position: a board of an (m,n,k)-game with push/pop, legal moves and outcome().

Modelled on python-chess' ``Board``: moves are :class:`~parallel_mnk.game.moves.Move`
(ints that print as the CLI writes them: ``b2``, or ``4`` for a column with
gravity), ``push`` takes a move, its text or its index and validates it, ``pop``
undoes, ``outcome()`` says whether and how the game ended.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Union

from .geometry import board_mask, has_line
from .moves import Move, Side
from .rules import (GameSpec, IllegalMoveError, InvalidPositionError, MnkError, cell_index, format_board_text, format_move, format_move_list, parse_board_text, parse_move, parse_move_list)

X, O = Side.X, Side.O  # players: X moves first


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` is :class:`Side` ``X`` or ``O``, or None for a draw."""

    winner: Optional[Side]
    ply: int  # stones on the board when it ended

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2`` as in chess notation."""
        return {X: "1-0", O: "0-1", None: "1/2-1/2"}[self.winner]


def _has_line(spec: GameSpec, stones: int) -> bool:
    return has_line(stones, spec.rows, spec.cols, spec.k)


class Position:
    """A position: stones of each player, the side to move, the moves that led here.

    Build with ``Position(spec)``, :meth:`from_moves` or :meth:`from_board`.
    Two positions are equal when they have the same game and stones (how they
    were reached does not matter); ``repr`` gives an expression that builds an
    equal position.
    """

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.x = 0  # bitboard of X's stones (bit = row * cols + col, row 0 at top)
        self.o = 0
        self.move_stack: list[Move] = []  # moves pushed since construction
        self._cell_stack: list[int] = []

    # ------------------------------------------------------------ construction
    @classmethod
    def from_moves(cls, spec: GameSpec, moves: Iterable[Union[Move, str, int]] | str) -> "Position":
        """Play ``moves`` (a move list in the notation of docs/design.md, or moves as
        :meth:`push` takes them) from the empty board."""
        pos = cls(spec)
        if isinstance(moves, str):
            moves = parse_move_list(spec, moves)
        for i, move in enumerate(moves):
            try:
                pos.push(move)
            except MnkError as e:
                raise type(e)(f"move {i + 1}: {e}") from None
        return pos

    @classmethod
    def from_board(cls, spec: GameSpec, text: str) -> "Position":
        """A position from board text (``x.o/.x./...``, rows top to bottom).

        The side to move follows from the stone counts. Impossible boards are
        refused: wrong counts, floating stones with gravity, both players with a
        line, or a line the last stone could not have completed.
        """
        x, o = parse_board_text(spec, text)
        pos = cls(spec)
        pos.x, pos.o = x, o
        pos._validate_board()
        return pos

    def _validate_board(self) -> None:
        spec = self.spec
        nx, no = bin(self.x).count("1"), bin(self.o).count("1")
        if nx not in (no, no + 1):
            raise InvalidPositionError(f"impossible stone counts: x has {nx}, o has {no} (x moves first, so x = o or o + 1)")
        if spec.gravity:
            for c in range(spec.cols):
                seen_empty = False
                for r in range(spec.rows - 1, -1, -1):
                    bit = 1 << cell_index(spec, r, c)
                    if (self.x | self.o) & bit:
                        if seen_empty:
                            raise InvalidPositionError(f"column {c + 1} has a stone above an empty cell (gravity)")
                    else:
                        seen_empty = True
        x_line, o_line = _has_line(spec, self.x), _has_line(spec, self.o)
        if x_line and o_line:
            raise InvalidPositionError("impossible position: both players have k in a row")
        for stones, has, last_mover_count in ((self.x, x_line, nx == no + 1), (self.o, o_line, nx == no)):
            if not has:
                continue
            if not last_mover_count:
                raise InvalidPositionError("impossible position: the player with k in a row did not make the last move")
            if not any(not _has_line(spec, stones & ~(1 << cell)) for cell in self._removable(stones)):
                raise InvalidPositionError("impossible position: no single last stone could have made all the lines on the board")

    def _removable(self, stones: int) -> list[int]:
        """Cells of ``stones`` that could have been the last stone played."""
        cells = [c for c in range(self.spec.cells) if stones >> c & 1]
        if not self.spec.gravity:
            return cells
        mask = self.x | self.o
        cols = self.spec.cols
        return [c for c in cells if c < cols or not mask >> (c - cols) & 1]

    def copy(self) -> "Position":
        """An independent copy (the move stack included)."""
        pos = Position(self.spec)
        pos.x, pos.o = self.x, self.o
        pos.move_stack = list(self.move_stack)
        pos._cell_stack = list(self._cell_stack)
        return pos

    # ------------------------------------------------------------ state
    @property
    def ply(self) -> int:
        """Stones on the board."""
        return bin(self.x | self.o).count("1")

    @property
    def turn(self) -> Side:
        """The side to move: ``Side.X`` (1) or ``Side.O`` (2)."""
        return X if self.ply % 2 == 0 else O

    def stones(self) -> tuple[int, int]:
        """``(own, opp)`` bitboards from the side to move's point of view."""
        return (self.x, self.o) if self.turn == X else (self.o, self.x)

    def cell_of_move(self, move: int) -> int:
        """The cell a legal move puts its stone on."""
        spec = self.spec
        if not spec.gravity:
            return move
        mask = self.x | self.o
        for r in range(spec.rows - 1, -1, -1):
            cell = cell_index(spec, r, move)
            if not mask >> cell & 1:
                return cell
        raise IllegalMoveError(f"column {move + 1} is full")

    def move_of_cell(self, cell: int) -> Move:
        """The move that puts a stone on ``cell`` (its column with gravity)."""
        return Move(self.spec, cell % self.spec.cols if self.spec.gravity else cell)

    def outcome(self) -> Optional[Outcome]:
        """None while the game goes on; else who won (or a draw) and on which ply."""
        ply = self.ply
        if _has_line(self.spec, self.x):
            return Outcome(X, ply)
        if _has_line(self.spec, self.o):
            return Outcome(O, ply)
        if (self.x | self.o) == board_mask(self.spec):
            return Outcome(None, ply)
        return None

    def is_game_over(self) -> bool:
        """True when someone has k in a row or the board is full."""
        return self.outcome() is not None

    def legal_moves(self) -> list[Move]:
        """Moves in increasing order of their index; empty when the game is over."""
        if self.is_game_over():
            return []
        mask, spec = self.x | self.o, self.spec
        return [Move(spec, c) for c in range(spec.cols if spec.gravity else spec.cells) if not mask >> c & 1]

    # ------------------------------------------------------------ moves
    def push(self, move: Union[Move, str, int]) -> None:
        """Play ``move`` for the side to move: a :class:`Move`, its text as the CLI
        writes it (``"b2"``, ``"4"`` for a column with gravity) or its index (the
        column - 1 with gravity, the cell from the top-left otherwise); raises
        :class:`MnkError` if it is not a legal move."""
        spec = self.spec
        if isinstance(move, str):
            try:
                move = parse_move(spec, move)
            except MnkError as e:
                raise IllegalMoveError(f"{move!r} is not a move on this board: {e}") from None
        limit = spec.cols if spec.gravity else spec.cells
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < limit or \
                (isinstance(move, Move) and move.spec != spec):
            raise IllegalMoveError(f"{move!r} is not a move on this board")
        move = Move(spec, move)
        if self.is_game_over():
            raise IllegalMoveError(f"{format_move(spec, move)} is played after the game ended")
        mask = self.x | self.o
        if spec.gravity:
            cell = self.cell_of_move(move)
        else:
            cell = int(move)
            if mask >> cell & 1:
                raise IllegalMoveError(f"cell {format_move(spec, move)} is already taken")
        if self.turn == X:
            self.x |= 1 << cell
        else:
            self.o |= 1 << cell
        self.move_stack.append(move)
        self._cell_stack.append(cell)

    def peek(self) -> Move:
        """The last pushed move; raises :class:`MnkError` when none was pushed."""
        if not self.move_stack:
            raise IllegalMoveError("no move has been played")
        return self.move_stack[-1]

    def pop(self) -> Move:
        """Undo the last pushed move and return it."""
        if not self.move_stack:
            raise IllegalMoveError("no move to undo")
        cell = self._cell_stack.pop()
        move = self.move_stack.pop()
        bit = 1 << cell
        if self.x & bit:
            self.x &= ~bit
        else:
            self.o &= ~bit
        return move

    # ------------------------------------------------------------ text
    def board_text(self) -> str:
        """Board text ``x.o/...`` (rows top to bottom)."""
        return format_board_text(self.spec, self.x, self.o)

    def __str__(self) -> str:
        """The board drawn with coordinates (row 1 at the bottom)."""
        spec = self.spec
        lines = []
        width = len(str(spec.rows))
        for r in range(spec.rows):
            row = []
            for c in range(spec.cols):
                bit = 1 << cell_index(spec, r, c)
                row.append("X" if self.x & bit else "O" if self.o & bit else ".")
            lines.append(f"{spec.rows - r:>{width}} " + " ".join(row))
        if spec.gravity:
            footer = " ".join(str((c + 1) % 10) for c in range(spec.cols))
        else:
            footer = " ".join(chr(ord("a") + c) for c in range(spec.cols))
        lines.append(" " * (width + 1) + footer)
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.spec, self.x, self.o) == (other.spec, other.x, other.o)

    __hash__ = None  # type: ignore[assignment]  # mutable, like python-chess' Board

    def __repr__(self) -> str:
        """``Position.from_moves(GameSpec(...), '...')`` when the pushed moves make the
        whole board, else ``Position.from_board(GameSpec(...), '...')``: both build
        an equal position (with ``from parallel_mnk import GameSpec, Position``)."""
        if len(self.move_stack) == self.ply:
            moves = format_move_list(self.spec, self.move_stack)
            return f"Position.from_moves({self.spec!r}, {moves!r})"
        return f"Position.from_board({self.spec!r}, {self.board_text()!r})"
