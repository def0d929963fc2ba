"""Markus Thill's 12-ply Connect Four database with distances, as a :class:`Book`.

The database (``book_12ply_distances.dat`` of the MIT-licensed ``bitbully-databases``
package; ``pip install -e '.[books]'``) holds every 7x6 position of 12 stones in
which the side to move cannot win at once, one of each mirror pair: 5 bytes an
entry, sorted, a big-endian signed 32-bit Huffman code of the board and a signed
byte, 0 for a draw and +-(100 - d) for a win or loss of the side to move d plies
later. A position of at most 12 stones is scored by an exact search down to ply 12
with those entries as leaves (:mod:`parallel_mnk.kernels.book_search`); its table is
kept between positions, so a move's children share their work.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Callable, Optional, Union

import numpy as np

from ...game.moves import Move
from ...game.position import Position
from ...game.rules import GameSpec, MnkError, ResourceError, generic_bounds, win_score
from ...kernels.book_search import layout as BL
from ...runtime import families
from ..exact.probes import probe_score
from .base import Book

CONNECT_FOUR = GameSpec(7, 6, 4, True)
PLIES = 12
ENTRY = np.dtype([("key", ">i4"), ("value", "i1")])
TT_BITS = 21          # the search's table: 2 M words, 16 MiB
FILE_NAME = "book_12ply_distances.dat"


def installed_path() -> Optional[Path]:
    """The database file of the installed ``bitbully-databases`` package, or None
    when it is not installed."""
    try:
        from importlib.resources import files

        path = Path(str(files("bitbully_databases") / "assets" / FILE_NAME))
    except (ImportError, ModuleNotFoundError, TypeError):
        return None
    return path if path.is_file() else None


class ThillBook(Book):
    """Thill's database, read from ``path`` (default: the installed package's).
    Raises :class:`MnkError` for a file that is not such a database."""

    spec = CONNECT_FOUR
    plies = PLIES
    name = "thill-12ply"
    families = ("book_search",)

    def __init__(self, path: Union[str, Path, None] = None) -> None:
        path = installed_path() if path is None else Path(path)
        if path is None:
            raise ResourceError("the Connect Four opening book is not installed (pip install bitbully-databases)")
        self.path = path
        try:
            raw = np.fromfile(path, dtype=ENTRY)
            whole = path.stat().st_size % ENTRY.itemsize == 0
        except OSError as e:
            raise MnkError(f"cannot read the opening book {path}: {e.strerror}") from None
        keys = raw["key"].astype(np.int32)
        if not whole or len(keys) == 0 or not bool(np.all(keys[1:] > keys[:-1])):
            raise MnkError(f"{path} is not Thill's 12-ply database (entries of 5 bytes, sorted)")
        self.keys, self.values = keys, np.ascontiguousarray(raw["value"])
        self.keys.flags.writeable = self.values.flags.writeable = False
        self.entries = len(keys)
        self.st = _state(self.spec, self.plies)
        self.tt = np.zeros(1 << TT_BITS, dtype=np.uint64)
        self._loaded: Optional[ModuleType] = None

    @property
    def _kernels(self) -> ModuleType:
        """The search's kernels, loaded at the first lookup (a solve loads them beside
        its own first: :attr:`Book.families`)."""
        if self._loaded is None:
            self._loaded = families.book_search_kernels()
        return self._loaded

    @property
    def nodes(self) -> int:
        """Nodes the book's searches visited (cumulative)."""
        return int(self.st[BL.S_NODES])

    def score(self, position: Position) -> Optional[int]:
        """The exact score of a Connect Four position of at most 12 stones (not
        over); None for any other position, or one whose leaves the database lacks."""
        if position.spec != self.spec or position.ply > self.plies or position.is_game_over():
            return None
        return self._searched(position)

    def line_past(self, position: Position, score: int) -> Optional[list[int]]:
        """A perfect line from a Connect Four position (not over) of exact score
        ``score`` to the game's end, by the database's search (its entries the leaves
        at ply 12, none met past it): at each step the first move in column order
        that keeps the score, each tried by one null-window search. None for a
        position of another game, or when a leaf the database lacks is met."""
        if position.spec != self.spec or position.is_game_over():
            return None
        walk, line = position.copy(), []
        while not walk.is_game_over():
            move = self._keeping(walk, score)
            if move is None:
                return None
            line.append(move)
            walk.push(Move(self.spec, move))
            score = -score
        return line

    def _keeping(self, position: Position, score: int) -> Optional[int]:
        """The first of ``position``'s moves whose score (side to move) is ``score``,
        the position's exact score; None when a leaf is missing."""
        for move in position.legal_moves:
            position.push(Move(self.spec, move))
            try:
                outcome = position.outcome()
                if outcome is not None:
                    keeps: Optional[bool] = (0 if outcome.winner is None else win_score(self.spec, position.ply)) >= score
                else:
                    keeps = self._at_most(position, -score)   # the child's score <= -score: the move's >= score
            finally:
                position.pop()
            if keeps is None:
                return None
            if keeps:
                return move
        raise AssertionError(f"no move keeps the score {score} of {position}")   # (the score was not exact)

    def _at_most(self, position: Position, bound: int) -> Optional[bool]:
        """Whether the exact score of ``position`` (not over) is at most ``bound``, by
        one null-window search; None when a leaf is missing."""
        won, probe = self._prober(position)
        if won is not None:
            return won <= bound
        v = probe(bound)
        return None if v is None else v <= bound

    def _searched(self, position: Position) -> Optional[int]:
        """The exact score of ``position`` (of this game, not over) by the search, with
        the database's entries as its leaves at ply 12 (none met past it); None when
        a leaf is missing."""
        won, probe = self._prober(position)
        if won is not None:
            return won
        return probe_score(*generic_bounds(self.spec.cells, position.ply), lambda lo, hi, med: probe(med))

    def _prober(self, position: Position) -> tuple[Optional[int], Callable[[int], Optional[int]]]:
        """For ``position`` (not over): its score when the side to move wins at once
        (the search's contract excludes it), and ``probe(med)``, the search's fail-soft
        value in the window ``(med, med + 1)``, None when a leaf is missing."""
        cur, mask = (np.uint64(word) for word in _columns(position))
        k = self._kernels
        if k.wins_now(self.st, cur, mask):
            return win_score(self.spec, position.ply + 1), lambda med: None

        def probe(med: int) -> Optional[int]:
            self.st[BL.S_MISSING] = 0
            v = int(k.search(self.st, self.keys, self.values, self.tt, cur, mask, position.ply, med, med + 1))
            return None if self.st[BL.S_MISSING] else v

        return None, probe


def _state(spec: GameSpec, plies: int) -> np.ndarray:
    """The search's ``st`` words for ``spec`` (:mod:`parallel_mnk.kernels.book_search.layout`)."""
    st = np.zeros(BL.S_SIZE, dtype=np.uint64)
    h1 = spec.rows + 1
    st[BL.S_COLS], st[BL.S_ROWS], st[BL.S_BOOK_PLY] = spec.cols, spec.rows, plies
    st[BL.S_BOTTOM] = sum(1 << (c * h1) for c in range(spec.cols))
    st[BL.S_BOARD] = sum(((1 << spec.rows) - 1) << (c * h1) for c in range(spec.cols))
    centre_first = sorted(range(spec.cols), key=lambda c: (abs(2 * c - (spec.cols - 1)), c))
    st[BL.S_ORDER:BL.S_ORDER + spec.cols] = centre_first
    return st


def _columns(position: Position) -> tuple[int, int]:
    """``(cur, mask)`` of ``position`` in the book search's column layout."""
    spec = position.spec
    own, _ = position.stones()
    cur = mask = 0
    for c in range(spec.cols):
        for r in range(spec.rows):   # from the bottom
            cell = (spec.rows - 1 - r) * spec.cols + c
            bit = 1 << (c * (spec.rows + 1) + r)
            if (position.x | position.o) >> cell & 1:
                mask |= bit
                if own >> cell & 1:
                    cur |= bit
    return cur, mask
