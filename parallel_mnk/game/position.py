"""Position: a board of an (m,n,k)-game with push/pop, legal moves and outcome().

Modelled on python-chess' ``Board``: moves are :class:`~parallel_mnk.game.moves.Move`
(ints that print as the CLI writes them: ``b2``, or ``4`` for a column with
gravity, and equal that text), ``push`` takes a move or its text and validates it
(a bare ``int`` is refused: :func:`~parallel_mnk.game.moves.as_move`), ``pop``
undoes, ``legal_moves`` is a property to iterate or ask ``in``, ``outcome()`` says
whether and how the game ended.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence, Union, overload

from .geometry import board_mask, has_line
from .moves import Move, MoveLike, Side, as_move, moves_of
from .rules import (GameSpec, IllegalMoveError, InvalidPositionError, MnkError, NotationError, cell_index,
                    format_board_text, move_list_indexes, move_list_text, parse_board_text)

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


class LegalMoves:
    """The legal moves of a position, as python-chess' ``board.legal_moves``: iterate
    them (in increasing index: columns left to right, cells row by row from the
    top-left), ``len()``, ``bool()``, index them, and ask ``move in legal_moves``
    with a :class:`Move` or its text (text that is no move of the board is not in
    them; a bare ``int`` is refused, as everywhere). Equal to a list or tuple of the
    same moves. A snapshot: pushing a move later does not change it."""

    __slots__ = ("spec", "_moves")

    def __init__(self, spec: GameSpec, moves: Sequence[Move]) -> None:
        self.spec = spec
        self._moves = tuple(moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def __bool__(self) -> bool:
        return bool(self._moves)

    @overload
    def __getitem__(self, i: int) -> Move: ...

    @overload
    def __getitem__(self, i: slice) -> list[Move]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[Move, list[Move]]:
        return list(self._moves[i]) if isinstance(i, slice) else self._moves[i]

    def __contains__(self, move: object) -> bool:
        try:
            wanted = as_move(self.spec, move)
        except NotationError:
            if isinstance(move, str):
                return False   # no move of this board
            raise
        except IllegalMoveError:
            return False   # a move of another game
        return wanted in self._moves

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves):
            return self._moves == other._moves
        if isinstance(other, (list, tuple)):
            return list(self._moves) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalMoves({' '.join(map(str, self._moves))})"


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
    def from_moves(cls, spec: GameSpec, moves: Union[Iterable[MoveLike], str]) -> "Position":
        """Play ``moves`` (a move list as the CLI takes it, ``"4453"`` or ``"b2,a1"``,
        or moves as :meth:`push` takes them) from the empty board."""
        pos = cls(spec)
        if isinstance(moves, str):
            moves = moves_of(spec, move_list_indexes(spec, moves))
        elif not isinstance(moves, Iterable):
            raise NotationError(f"moves are a move list such as {'4453' if spec.gravity else 'b2,a1'!r} or moves "
                                f"as push takes them, not {type(moves).__name__} {moves!r}")
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
        """The cell a legal move (a :class:`Move`, or the index of one: the engines'
        word) puts its stone on."""
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

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves (:class:`LegalMoves`: iterate them, ``len()``, ``in``), in
        increasing order of their index; none when the game is over."""
        if self.is_game_over():
            return LegalMoves(self.spec, ())
        mask, spec = self.x | self.o, self.spec
        return LegalMoves(spec, [Move(spec, c) for c in range(spec.cols if spec.gravity else spec.cells)
                                 if not mask >> c & 1])

    # ------------------------------------------------------------ moves
    def push(self, move: MoveLike) -> None:
        """Play ``move`` for the side to move: a :class:`Move` or its text as the CLI
        writes it (``"b2"``, ``"4"`` for a column with gravity). Raises
        :class:`NotationError` for text that is no move of the board and for a bare
        ``int`` (:func:`~parallel_mnk.game.moves.as_move`: ``Move(spec, index)`` takes
        an index), :class:`IllegalMoveError` for a move that is not legal here."""
        spec = self.spec
        move = as_move(spec, move)
        if not 0 <= move < (spec.cols if spec.gravity else spec.cells):
            raise IllegalMoveError(f"{int(move)} is the index of no move on this board")
        if self.is_game_over():
            raise IllegalMoveError(f"{move} is played after the game ended")
        mask = self.x | self.o
        if spec.gravity:
            cell = self.cell_of_move(move)
        else:
            cell = int(move)
            if mask >> cell & 1:
                raise IllegalMoveError(f"cell {move} is already taken")
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
            moves = move_list_text(self.spec, self.move_stack)
            return f"Position.from_moves({self.spec!r}, {moves!r})"
        return f"Position.from_board({self.spec!r}, {self.board_text()!r})"
