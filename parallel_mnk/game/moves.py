"""The sides and moves of the Python API, as the command line writes them.

:class:`Side` is ``X`` (first to move) or ``O``; an ``IntEnum`` equal to 1 and 2,
the numbers of the NMK protocol and of the kernels. :class:`Move` is an ``int``
(the move's index: the column - 1 with gravity, the cell ``row * cols + col``
from the top-left otherwise, as every engine uses it) that knows its game and
prints as the CLI writes it: ``str(move) == "b2"`` on a free board, ``"4"`` with
gravity. ``Position.push`` takes a Move, its text or the index.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Optional

from .rules import GameSpec, format_move, parse_move


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
    notation. ``Move(spec, 3)`` is column 4 with gravity; :meth:`parse` reads
    ``"b2"`` or ``"4"``. Equal to (and hashed as) its index; pickles with its game."""

    spec: GameSpec

    def __new__(cls, spec: GameSpec, index: int) -> "Move":
        move = int.__new__(cls, index)
        move.spec = spec
        return move

    @classmethod
    def parse(cls, spec: GameSpec, text: str) -> "Move":
        """The move of one token in the CLI's notation (``b2``, ``4``); raises
        :class:`~parallel_mnk.game.rules.NotationError` for another text."""
        return cls(spec, parse_move(spec, text))

    def __str__(self) -> str:
        return format_move(self.spec, int(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    def __reduce__(self):
        return Move, (self.spec, int(self))


def move_of(spec: GameSpec, index: Optional[int]) -> Optional[Move]:
    """``index`` as a :class:`Move` of ``spec`` (None stays None)."""
    return None if index is None else Move(spec, index)


def moves_of(spec: GameSpec, indexes: Iterable[int]) -> list[Move]:
    """``indexes`` as :class:`Move` of ``spec``."""
    return [Move(spec, i) for i in indexes]
