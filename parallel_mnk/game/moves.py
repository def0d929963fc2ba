"""The sides and moves of the Python API, as the command line writes them.

:class:`Side` is ``X`` (first to move) or ``O``; an ``IntEnum`` equal to 1 and 2,
the numbers of the NMK protocol and of the kernels. :class:`Move` is an ``int``
(the move's index: the column - 1 with gravity, the cell ``row * cols + col``
from the top-left otherwise, as every engine uses it) that knows its game,
prints as the CLI writes it (``str(move) == "b2"`` on a free board, ``"4"`` with
gravity) and equals its text (``move == "b2"``).

One rule for every call that takes a move (``Position.push``, ``from_moves``,
``in position.legal_moves``, ``Analysis.get``, :func:`format_move`): a
:class:`Move` or its text. A bare ``int`` is refused with one line
(:func:`as_move`), since ``4`` could mean column 4, as the CLI writes it, or the
index 4, column 5: ``Move(spec, index)`` says the index in so many words.
"""
from __future__ import annotations

from enum import IntEnum
from numbers import Integral
from typing import Iterable, Optional, Union

from .rules import GameSpec, IllegalMoveError, NotationError, move_index, move_list_indexes, move_name

MoveLike = Union["Move", str]   # what the API takes as a move


class Side(IntEnum):
    """A player: ``X`` moves first. Prints as ``X`` / ``O``; equal to 1 / 2."""

    X = 1
    O = 2   # noqa: E741 - the player's name

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)

    @property
    def other(self) -> "Side":
        """The opponent."""
        return Side.O if self is Side.X else Side.X


class Move(int):
    """A move of ``spec``'s game: an ``int`` (its index) that prints in the CLI's
    notation and equals that text. ``Move(spec, 3)`` is column 4 with gravity (the
    index 3); :meth:`parse` reads ``"b2"`` or ``"4"``. Equal to its index and to
    its text (``Move.parse(c4, "4") == "4" == 3``), hashed as its index; pickles
    with its game."""

    spec: GameSpec

    def __new__(cls, spec: GameSpec, index: int) -> "Move":
        move = int.__new__(cls, index)
        move.spec = spec
        return move

    @classmethod
    def parse(cls, spec: GameSpec, text: str) -> "Move":
        """The move of one token in the CLI's notation (``b2``, ``4``); raises
        :class:`~parallel_mnk.game.rules.NotationError` for another text."""
        return cls(spec, move_index(spec, text))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                return int(self) == move_index(self.spec, other)
            except NotationError:
                return False
        return int(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = int.__hash__

    def __str__(self) -> str:
        return move_name(self.spec, int(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    def __reduce__(self):
        return Move, (self.spec, int(self))


def as_move(spec: GameSpec, move: object) -> Move:
    """``move`` (a :class:`Move` of ``spec``'s game, or its text as the CLI writes it)
    as a :class:`Move`. Raises :class:`NotationError` for text that is not a move of
    the board and for anything else, a bare ``int`` included (one line: a ``Move``
    says whether 4 is column 4 or the index 4), and :class:`IllegalMoveError` for a
    move of another game."""
    if isinstance(move, Move):
        if move.spec != spec:
            raise IllegalMoveError(f"{move} is a move of {move.spec.describe()}, not of {spec.describe()}")
        return move
    if isinstance(move, str):
        return Move.parse(spec, move)
    example = "'4'" if spec.gravity else "'b2'"
    if isinstance(move, Integral) and not isinstance(move, bool):   # numpy's ints too
        raise NotationError(f"a move is a Move or its text, like {example}, not the int {int(move)} "
                            f"(Move(spec, {move}) is the move of index {move})")
    raise NotationError(f"a move is a Move or its text, like {example}, not {type(move).__name__} {move!r}")


def parse_move(spec: GameSpec, text: str) -> Move:
    """The :class:`Move` of one token in the CLI's notation (``"4"``, ``"b2"``)."""
    if not isinstance(text, str):
        raise NotationError(f"parse_move reads text, like '4' or 'b2', not {type(text).__name__} {text!r}")
    return Move.parse(spec, text)


def parse_move_list(spec: GameSpec, text: str) -> list[Move]:
    """The :class:`Move`\\ s of a move list as the CLI takes it (``"4453"``, ``"4,4,5,3"``,
    ``"b2,a1 c3"``; ``""`` is none); :class:`NotationError` for other text."""
    if not isinstance(text, str):
        raise NotationError(f"parse_move_list reads text, like '4453' or 'b2,a1', not {type(text).__name__}")
    return moves_of(spec, move_list_indexes(spec, text))


def format_move(spec: GameSpec, move: MoveLike) -> str:
    """The text of ``move`` (a :class:`Move` or its text) as the CLI writes it."""
    return str(as_move(spec, move))


def format_move_list(spec: GameSpec, moves: Iterable[MoveLike]) -> str:
    """The move list of ``moves`` as the CLI takes it: a digit string with gravity on
    at most 9 columns (``4453``), else comma separated (``b2,a1``)."""
    parts = [str(as_move(spec, m)) for m in moves]
    return "".join(parts) if spec.gravity and spec.cols <= 9 else ",".join(parts)


def move_of(spec: GameSpec, index: Optional[int]) -> Optional[Move]:
    """The :class:`Move` of index ``index`` of ``spec`` (None stays None)."""
    return None if index is None else Move(spec, index)


def moves_of(spec: GameSpec, indexes: Iterable[int]) -> list[Move]:
    """The :class:`Move`\\ s of ``indexes`` of ``spec``."""
    return [Move(spec, i) for i in indexes]
