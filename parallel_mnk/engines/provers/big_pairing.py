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
rest of a proof pays nothing for it.
"""
from __future__ import annotations

from itertools import combinations
from typing import Optional

import numpy as np

from ...kernels.grid import layout as GL


def board_lines(geo: np.ndarray, k: int) -> np.ndarray:
    """Every line of ``k`` cells of the array board's geometry ``geo`` (its cell ids,
    one row a line)."""
    nlines, off = int(geo[GL.G_NLINES]), int(geo[GL.G_OFF_LINES])
    return geo[off:off + nlines * k].reshape(nlines, k).copy()


class _OutOfNodes(Exception):
    """The search spent its nodes."""


class PairingFinder:
    """Finds pairings on one board: ``lines`` (an array of ``nlines`` x ``k`` cell
    ids, every line of ``k`` cells), ``max_lines`` live lines at most (0: never
    looks), ``max_nodes`` pairs tried at most a search. :attr:`nodes` counts the
    pairs tried, :attr:`found` the pairings found."""

    def __init__(self, lines: np.ndarray, max_lines: int, max_nodes: int) -> None:
        self.lines, self.max_lines, self.max_nodes = lines, max_lines, max_nodes
        self.nodes = self.found = 0
        self.past_bound = True   # a search past max_lines live lines may still run (none has failed there)

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
        pairs = self._search(empties)
        if pairs is None and past:
            self.past_bound = False
        return pairs

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
