"""Pairing strategies on boards of any size the array board takes: the defender's
proof that the attacker cannot win, for the proof-number prover past 64 cells
(:mod:`.big_threats`; docs/big-boards.md section 6).

A *pairing* of the defender is a set of disjoint pairs of empty cells such that
every line of ``k`` cells holding no defender stone (a *live* line of the
attacker, its own stones on it or not) contains both cells of one pair: the rule
of docs/proof-format.md section 7. The defender answers an attacker stone on a
pair's cell with the other cell and plays anything elsewhere (a stone never hurts
its owner without gravity), so no live line is ever completed, whoever is to move:
with the defender to move, its stone either lies outside every pair or kills every
line its pair covered (both cells of the pair are on them), and the rest of the
pairing stands. No live line at all is the empty pairing.

The search (:meth:`PairingFinder.find`) takes the uncovered live line with the
fewest free cells, tries each pair of them (the pair on most uncovered live lines
first), marks every live line holding both cells covered, and backtracks, within
bounds: more than ``max_nodes`` pairs tried and it gives up (None: not found,
which proves nothing). It does not search where no pairing can exist by counting
(a pair lies on at most ``k - 1`` lines, so the live lines must number at most
``k - 1`` times the empty cells' pairs), nor where the live lines outnumber
``max_lines`` once one such search has failed: on boards of large ``k`` the first
positions judged (a question's root) get one search past that bound, and the
rest of a proof pays nothing for it. For ``k >= 9`` such a search first tries the
tiling of Hales and Jewett (:func:`torus_tiling`), at each of its 64 placements:
its pairs with both cells empty, when they cover every live line.
"""
from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Optional

import numpy as np

from ...kernels.grid import layout as GL


def board_lines(geo: np.ndarray, k: int) -> np.ndarray:
    """Every line of ``k`` cells of the array board's geometry ``geo`` (its cell ids,
    one row a line)."""
    nlines, off = int(geo[GL.G_NLINES]), int(geo[GL.G_OFF_LINES])
    return geo[off:off + nlines * k].reshape(nlines, k).copy()


TILE = 8            # the side of the tiling's period
TILING_MIN_K = 9    # a window of 9 cells along a line holds one of its pairs whole


@cache
def torus_tiling() -> np.ndarray:
    """A pairing of the 8x8 torus's cells into 32 pairs of neighbours, one pair along
    each of its 8 rows, 8 columns, 8 diagonals and 8 anti-diagonals (Hales and
    Jewett): repeated over the plane, every 9 consecutive cells of a line hold one
    pair whole, so its pairs inside a board pair every line of 9 or more cells there.
    Found by a backtracking search; ``[y][x]`` is the partner's offset ``(dx, dy)``."""
    steps = [(1, 0), (0, 1), (1, 1), (1, -1)]
    offset = np.zeros((TILE, TILE, 2), dtype=np.int64)
    taken = np.zeros((TILE, TILE), dtype=bool)
    lines_paired: list[set[int]] = [set() for _ in steps]

    def line_of(d: int, x: int, y: int) -> int:
        return (y, x, (x - y) % TILE, (x + y) % TILE)[d]

    def place(i: int) -> bool:
        while i < TILE * TILE and taken[i // TILE, i % TILE]:
            i += 1
        if i == TILE * TILE:
            return True
        y, x = divmod(i, TILE)
        for d, (dx, dy) in enumerate(steps):
            for sign in (1, -1):
                x2, y2 = (x + sign * dx) % TILE, (y + sign * dy) % TILE
                if taken[y2, x2] or line_of(d, x, y) in lines_paired[d]:
                    continue
                taken[y, x] = taken[y2, x2] = True
                lines_paired[d].add(line_of(d, x, y))
                offset[y, x], offset[y2, x2] = (sign * dx, sign * dy), (-sign * dx, -sign * dy)
                if place(i + 1):
                    return True
                taken[y, x] = taken[y2, x2] = False
                lines_paired[d].discard(line_of(d, x, y))
        return False

    assert place(0), "the 8x8 torus has a tiling"
    return offset


class _OutOfNodes(Exception):
    """The search spent its nodes."""


class PairingFinder:
    """Finds pairings on one board: ``lines`` (an array of ``nlines`` x ``k`` cell
    ids, every line of ``k`` cells), ``max_lines`` live lines at most (0: never
    looks), ``max_nodes`` pairs tried at most a search. :attr:`nodes` counts the
    pairs tried, :attr:`found` the pairings found."""

    def __init__(self, lines: np.ndarray, max_lines: int, max_nodes: int, cols: int = 0) -> None:
        self.lines, self.max_lines, self.max_nodes = lines, max_lines, max_nodes
        self.nodes = self.found = 0
        self.past_bound = True   # a search past max_lines live lines may still run (none has failed there)
        self.cols = cols if lines.shape[1] >= TILING_MIN_K else 0   # the board's columns: the tiling's (0: none)

    def find_in(self, geo: np.ndarray, st: np.ndarray, defender: int) -> Optional[list[tuple[int, int]]]:
        """:meth:`find` on the array board's state ``st`` (geometry ``geo``, whose lines
        are :attr:`lines`), its per-line counts read for the live lines first."""
        at, counts = int(geo[GL.G_S_BOARD]), int(geo[GL.G_S_CNT])
        return self.find(st[at:at + int(geo[GL.G_CELLS])], defender,
                         st[counts + defender - 1:counts + 2 * len(self.lines):2])

    def find(self, board: np.ndarray, defender: int, defender_counts: Optional[np.ndarray] = None
             ) -> Optional[list[tuple[int, int]]]:
        """A pairing of ``defender`` (1 or 2) on ``board`` (one entry a cell: 0 empty,
        1 or 2 the player's stone), as pairs of cell ids, or None when none was found
        within the bounds (or none exists: a live line with fewer than two empty
        cells). ``defender_counts``: the defender's stones on each line, when the
        caller has them (the array board keeps them), read first."""
        if self.max_lines <= 0:
            return None
        if defender_counts is None:
            defender_counts = (board[self.lines] == defender).sum(axis=1)
        live = np.flatnonzero(defender_counts == 0)
        past = len(live) > self.max_lines
        if past and not self.past_bound:
            return None
        if len(live) > int(np.count_nonzero(board == 0)) // 2 * (self.lines.shape[1] - 1):
            return None
        on_lines = board[self.lines[live]]
        empties = [frozenset(int(c) for c in self.lines[i][on_lines[j] == 0]) for j, i in enumerate(live)]
        if any(len(e) < 2 for e in empties):
            return None
        pairs = self._tiled(board, live) if past and self.cols else None
        if pairs is not None:
            self.found += 1
        else:
            pairs = self._search(empties)
        if pairs is None and past:
            self.past_bound = False
        return pairs

    def _tiled(self, board: np.ndarray, live: np.ndarray) -> Optional[list[tuple[int, int]]]:
        """The pairs of :func:`torus_tiling` with both cells empty on ``board``, at the
        first of its 64 placements where they pair every line of ``live``; None when
        none does."""
        cells = np.arange(len(board))
        xs, ys = cells % self.cols, cells // self.cols
        rows = len(board) // self.cols
        lines = self.lines[live]
        tiling = torus_tiling()
        for shift in range(TILE * TILE):
            sy, sx = divmod(shift, TILE)
            step = tiling[(ys + sy) % TILE, (xs + sx) % TILE]
            x2, y2 = xs + step[:, 0], ys + step[:, 1]
            partner = np.where((x2 >= 0) & (x2 < self.cols) & (y2 >= 0) & (y2 < rows), y2 * self.cols + x2, -1)
            partner[board != 0] = -1
            partner[partner >= 0] = np.where(board[partner[partner >= 0]] == 0, partner[partner >= 0], -1)
            ends = partner[lines]   # (a cell's partner, -1 where it has none; a line pairs when one is on it)
            if ((ends[:, :, None] == lines[:, None, :]).any(axis=(1, 2))).all():
                return [(int(a), int(partner[a])) for a in cells if a < partner[a]]
        return None

    def _search(self, empties: list[frozenset[int]]) -> Optional[list[tuple[int, int]]]:
        """The backtracking search (module docstring) over the live lines' empty cells
        ``empties`` (each two or more), within ``max_nodes`` pairs tried."""
        through: dict[int, list[int]] = {}
        for w, cells in enumerate(empties):
            for c in cells:
                through.setdefault(c, []).append(w)
        covered = [False] * len(empties)
        used: set[int] = set()
        pairs: list[tuple[int, int]] = []

        def cover() -> bool:
            """Pairs for every live line not yet covered, beside ``pairs``."""
            best: int = -1
            best_free: tuple[int, ...] = ()
            for w, cells in enumerate(empties):
                if covered[w]:
                    continue
                free = tuple(sorted(cells - used))
                if len(free) < 2:
                    return False
                if best < 0 or len(free) < len(best_free):
                    best, best_free = w, free
                    if len(free) == 2:
                        break
            if best < 0:
                return True
            ranked = sorted(combinations(best_free, 2), key=lambda ab: -sum(
                1 for w in through[ab[0]] if not covered[w] and ab[1] in empties[w]))   # (stable: ties keep order)
            for a, b in ranked:
                self.nodes += 1
                if self.nodes > budget:
                    raise _OutOfNodes
                newly = [w for w in through[a] if not covered[w] and b in empties[w]]
                used.update((a, b))
                pairs.append((a, b))
                for w in newly:
                    covered[w] = True
                if cover():
                    return True
                for w in newly:
                    covered[w] = False
                pairs.pop()
                used.difference_update((a, b))
            return False

        budget = self.nodes + self.max_nodes
        try:
            if not cover():
                return None
        except _OutOfNodes:
            return None
        self.found += 1
        return pairs


def is_pairing(lines: np.ndarray, board: np.ndarray, defender: int, pairs: list[tuple[int, int]]) -> bool:
    """Whether ``pairs`` is a pairing of ``defender`` on ``board`` (module docstring;
    docs/proof-format.md section 7): disjoint pairs of distinct empty cells, both
    cells of one of them on every line of ``lines`` without a defender stone."""
    cells = [c for pair in pairs for c in pair]
    if len(set(cells)) != len(cells) or any(board[c] != 0 for c in cells):
        return False
    held = {frozenset(pair) for pair in pairs}
    for line in lines:
        if (board[line] == defender).any():
            continue
        on = set(int(c) for c in line)
        if not any(pair <= on for pair in held):
            return False
    return True
