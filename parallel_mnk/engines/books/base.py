"""What an opening book is, and the positions it holds.

A book covers the positions of one game up to some ply: for those it gives the
exact score (docs/design.md's, from the side to move) and a best move without a full
search. Positions are keyed up to the board's symmetries (:func:`canonical`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from ...game.geometry import least_image, symmetries
from ...game.moves import Move
from ...game.position import Position
from ...game.rules import GameSpec, format_board_text, win_score


@dataclass(frozen=True)
class BookAnswer:
    """A book's answer for a position: the exact ``score`` (side to move), a move
    that keeps it (``best_move``, a :class:`Move`), and the book's ``name``."""

    score: int
    best_move: Move
    name: str


@dataclass(frozen=True)
class Canonical:
    """A position's key up to symmetry: ``key`` (the board text of the least of its
    images) and ``perm``, the cell map from the position to that image."""

    key: str
    perm: tuple[int, ...]

    def move_to_key(self, spec: GameSpec, move: int) -> int:
        """The position's ``move`` seen on the keyed image."""
        if spec.gravity:
            return self.perm[move] % spec.cols   # the top row maps to itself
        return self.perm[move]

    def move_from_key(self, spec: GameSpec, move: int) -> int:
        """The keyed image's ``move`` seen on the position."""
        if spec.gravity:
            return self.perm.index(move) % spec.cols
        return self.perm.index(move)


_symmetry_cache: dict[GameSpec, list[list[int]]] = {}


def canonical(position: Position) -> Canonical:
    """The key of ``position`` up to the board's symmetries (equal for every image)."""
    spec = position.spec
    perms = _symmetry_cache.get(spec)
    if perms is None:
        perms = _symmetry_cache[spec] = symmetries(spec)
    (x, o), perm = least_image(perms, position.x, position.o)
    return Canonical(format_board_text(spec, x, o), tuple(perm))


class Book(ABC):
    """A book of ``spec`` covering positions of at most ``plies`` stones."""

    spec: GameSpec
    plies: int
    name: str
    families: tuple[str, ...] = ()   # the kernel families its own searches run (loaded at the first)

    @abstractmethod
    def score(self, position: Position) -> Optional[int]:
        """The exact score of ``position`` (not over, of this book's game), or None
        when the book does not cover it."""

    def answer(self, position: Position) -> Optional[BookAnswer]:
        """Score and best move of ``position`` (None when not covered or over): by
        default the best of its moves, each scored from the book (a win at once and
        the last cell scored by the rules)."""
        if position.spec != self.spec or position.ply > self.plies or position.is_game_over():
            return None
        best = best_child(self.score, position)
        return None if best is None else BookAnswer(best[0], Move(position.spec, best[1]), self.name)

    def line_past(self, position: Position, score: int) -> Optional[list[int]]:
        """A perfect line (move indices) from ``position`` (not over: where the book's
        answers stop, at its last ply or past it), whose exact score is ``score``
        (the side to move's), to the game's end, by the book's own
        search; None when the book has none (a book that only reads) or cannot finish
        it: the caller searches. Each move keeps the position's exact score."""
        return None

    @property
    def nodes(self) -> int:
        """Nodes the book's own searches visited (cumulative; 0 for a book that only reads)."""
        return 0

    def covers(self, position: Position) -> bool:
        """Whether ``position`` is of this book's game and plies (it may still be absent)."""
        return position.spec == self.spec and position.ply <= self.plies

    def close(self) -> None:
        """Free what the book holds open (a file)."""


def child_score(score_of: Callable[[Position], Optional[int]], position: Position, move: int) -> Optional[int]:
    """The score, from ``position``'s side to move, of playing ``move`` (an index): a win at
    once or a full board by the rules, else minus ``score_of`` the child (a book's
    :meth:`Book.score`; None when it does not know the child)."""
    position.push(Move(position.spec, move))
    try:
        outcome = position.outcome()
        if outcome is not None:
            return 0 if outcome.winner is None else win_score(position.spec, position.ply)
        value = score_of(position)
        return None if value is None else -value
    finally:
        position.pop()


def best_child(score_of: Callable[[Position], Optional[int]], position: Position) -> Optional[tuple[int, int]]:
    """``(score, move)`` of ``position``'s best move (not over), each move scored by
    :func:`child_score`, the first of the best in ``legal_moves``' order; None when
    ``score_of`` does not know some child."""
    best: Optional[tuple[int, int]] = None
    for move in position.legal_moves:   # (a child it does not know: nor the position, as a whole)
        value = child_score(score_of, position, move)
        if value is None:
            return None
        if best is None or value > best[0]:
            best = (value, move)
    return best


def positions_by_ply(spec: GameSpec, plies: int) -> Iterator[tuple[int, list[Position]]]:
    """``(ply, positions)`` for ply 0..``plies``: every position reachable in that
    many stones whose game is not over, one per symmetry class (the first met)."""
    layer = [Position(spec)]
    for ply in range(plies + 1):
        yield ply, layer
        if ply == plies:
            return
        seen: dict[str, Position] = {}
        for pos in layer:
            for move in pos.legal_moves:
                child = pos.copy()
                child.push(move)
                if child.is_game_over():
                    continue
                key = canonical(child).key
                if key not in seen:
                    seen[key] = child
        layer = list(seen.values())
