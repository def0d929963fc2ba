"""Relevance zones of the attacker's threat wins past 64 cells: where a defender
stone may break a win, for the proof-number prover's defender nodes
(:class:`.big_threats.Judge`; docs/big-boards.md section 6).

A **zone** of a win of the attacker at a position ``X`` (the attacker to move) is
a cell set ``Z`` such that ``X`` with one more defender stone anywhere outside
``Z`` (the attacker still to move) is still the attacker's win. At a defender
node ``P`` whose attacker, given the move (``Q``: ``P`` with the defender
passing), wins, every defender move outside ``Z(Q)`` loses: ``P`` plus the move
is ``Q`` plus a stone outside the zone.

:meth:`ThreatZones.fours_zone` is the zone of a win by continuous fours ``T``
(one extra stone); :meth:`ThreatZones.win_zone` that of a win by fours and threes,
built by proving the win again move by move from the kernels' threat-space
search (:func:`parallel_mnk.kernels.grid.tss.vct`), every defence accounted for:

* a win by continuous fours ``T``: its fours zone;
* a four ``a`` (the reply ``r`` forced): ``a``'s k-cell lines that hold its four,
  the defender's lines with no attacker stone that hold ``k - 2`` of its stones
  (a stone there would give it a four first), and the zone after ``a`` and ``r``;
* a three ``a`` (``T``: the attacker's continuous fours after it if the
  defender passed): ``a``, the lines ``T``'s fours and five are made on, the
  defender's lines with no attacker stone whose stones and ``T``'s replies reach
  ``k - 3``, and for each empty cell ``m`` of those (every such defence is
  refuted, by fours or with one three fewer), the zone after ``a`` and ``m``.
  A defence ``m`` outside them and a stone ``d`` outside the zone leave ``T`` a
  win: neither is on a line ``T`` uses, and together they bring no defender line
  to a four (a line below ``k - 3`` with ``T``'s replies gains two stones at most);
  a defence inside meets its own refutation, which ``d`` does not touch.

None when the win is not found again within the budget (the caller then takes
every move: a zone is only ever a cut that is proven).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...game.rules import GameSpec
from ...kernels.grid import layout as GL
from ..exact.big import BigSearch


class ThreatZones:
    """The zones of ``attacker``'s (1: x, 2: o) wins on ``spec`` by ``search``'s
    kernels (``fours`` fours a continuous-four search), each :meth:`win_zone` within
    ``nodes`` kernel nodes; ``lines`` (the k-cell lines, a row of cells each) and
    ``through`` (the lines through each cell) are the board's."""

    def __init__(self, spec: GameSpec, attacker: int, fours: int, search: BigSearch, lines: np.ndarray,
                 through: list[np.ndarray], nodes: int) -> None:
        self.spec, self.attacker, self.defender, self.fours = spec, attacker, 3 - attacker, fours
        self.search, self.lines, self.through, self.nodes = search, lines, through, nodes
        self.pair = np.zeros(2, dtype=np.int64)
        self.spent = 0

    # ------------------------------------------------------------ fours
    def fours_zone(self, st: np.ndarray, line: list[int], reach: int) -> tuple[list[int], int]:
        """The attacker's moves of the continuous fours ``line`` (its moves, the
        defender's replies, the completion cells; found at ``st`` with the attacker
        to move) up to its five or double four, and the cells where a defender stone
        put at ``st`` may break it: the cells of every k-cell line that holds ``k - 1``
        attacker stones and no defender stone when an attacker move of ``line`` is
        played (its fours and five: a stone there unmakes one), and of every line
        with no attacker stone at ``st`` whose defender stones and the defender's
        replies of ``line`` on it reach ``reach`` (``k - 2``: one stone more may give
        the defender a four on the way, which the fours do not answer; ``k - 3`` for
        two stones more). Fewer stones leave ``line`` a win: its fours are made, each
        reply is forced, and the defender never has a completion cell first. (With
        ``k - 2``, the checker's rule of ``fours`` records: docs/proof-format.md 12.3.)"""
        geo, k = self.search.geo, self.spec.k
        a, d = self.attacker - 1, self.defender - 1
        lines = self.lines
        nlines = lines.shape[0]
        base = int(geo[GL.G_S_CNT])
        cnt = st[base:base + 2 * nlines].reshape(nlines, 2).copy()
        board = int(geo[GL.G_S_BOARD])
        filled = st[board:board + self.spec.cells] != 0
        replies = np.zeros(self.spec.cells, dtype=np.int64)
        used = np.zeros(nlines, dtype=bool)
        i = 0
        while i < len(line):
            through = self.through[line[i]]
            cnt[through, a] += 1
            filled[line[i]] = True
            used[through[(cnt[through, a] >= k - 1) & (cnt[through, d] == 0)]] = True
            if (cnt[through, a] >= k).any() or i + 1 >= len(line):
                break
            completions = np.unique(lines[(cnt[:, a] == k - 1) & (cnt[:, d] == 0)])
            if (~filled[completions]).sum() >= 2:
                break   # (the rest of the line: the completion cells of a double four)
            reply = line[i + 1]
            replies[reply] = 1
            filled[reply] = True
            cnt[self.through[reply], d] += 1
            i += 2
        cnt0 = st[base:base + 2 * nlines].reshape(nlines, 2)
        theirs = (cnt0[:, a] == 0) & (cnt0[:, d] + replies[lines].sum(axis=1) >= reach)
        out = 0
        for c in np.unique(lines[used | theirs]):
            out |= 1 << int(c)
        return line[0:i + 1:2], out

    # ------------------------------------------------------------ fours and threes
    def win_zone(self, x: int, o: int, threes: int) -> Optional[int]:
        """A zone (module docstring; a cell set, stones included) of the attacker's
        win by fours and at most ``threes`` threes at ``x``/``o`` with the attacker to
        move (whatever the stone counts say), or None when none is found within
        :attr:`nodes` kernel nodes."""
        self.spent = 0
        try:
            return self._zone_of_win(x, o, threes)
        except _OutOfNodes:
            return None

    def _zone_of_win(self, x: int, o: int, threes: int) -> Optional[int]:
        """:meth:`win_zone` below its budget (the module docstring's three cases)."""
        geo, board = self.search.geo, self.search.board
        att, dfn, k = self.attacker, self.defender, self.spec.k
        st = self._state(x, o, att)
        line = self._search(st, 0)
        if line is not None:
            return self.fours_zone(st, line, k - 2)[1]
        if threes <= 0:
            return None
        st = self._state(x, o, att)
        if self._search(st, threes) is None:
            return None
        a = int(st[GL.S_BEST])
        xa, oa = self._put(x, o, a, att)
        st_x = self._state(x, o, att)
        near = self.fours_zone(st_x, [a], k - 2)[1]   # a's fours' lines, the defender's lines at k - 2
        after = self._state(xa, oa, dfn)
        pair = self.pair
        threats = board.winning_cells(geo, after, att, pair)
        if threats >= 2:
            return None   # (a double four: the continuous fours above would have found it)
        if threats == 1:   # a four: the reply is forced
            xr, or_ = self._put(xa, oa, int(pair[0]), dfn)
            if self._completes(xr, or_, int(pair[0])):
                return None
            below = self._zone_of_win(xr, or_, threes)
            return None if below is None else below | near | 1 << a
        st_pass = self._state(xa, oa, att)
        line = self._search(st_pass, 0)
        if line is None:
            return None
        zone = self.fours_zone(st_pass, line, k - 3)[1]
        defences = zone & ~(xa | oa) & ((1 << self.spec.cells) - 1)
        out = zone | near | 1 << a
        while defences:
            low = defences & -defences
            m = low.bit_length() - 1
            defences ^= low
            xm, om = self._put(xa, oa, m, dfn)
            if self._completes(xm, om, m):
                return None
            below = self._zone_of_win(xm, om, threes - 1)
            if below is None:
                return None
            out |= below
        return out

    # ------------------------------------------------------------ the kernels
    def _state(self, x: int, o: int, turn: int) -> np.ndarray:
        return self.search.state(x, o, turn)

    def _put(self, x: int, o: int, cell: int, player: int) -> tuple[int, int]:
        return (x | 1 << cell, o) if player == 1 else (x, o | 1 << cell)

    def _completes(self, x: int, o: int, cell: int) -> bool:
        """Whether the stone at ``cell`` of ``x``/``o`` completes a line (the defender's five)."""
        stones = o if self.defender == 2 else x
        for ln in self.through[cell]:
            if all(stones >> int(c) & 1 for c in self.lines[ln]):
                return True
        return False

    def _search(self, st: np.ndarray, threes: int) -> Optional[list[int]]:
        """The kernels' threat-space search of the attacker at ``st`` with ``threes``
        threes: the continuous fours' line (``threes`` 0) or ``[first move]``; None
        when there is no win within the budget. Raises when the budget is spent."""
        search = self.search
        left = self.nodes - self.spent
        if left <= 0:
            raise _OutOfNodes
        st[GL.S_NODE_LIMIT] = left
        plies = search.board.vct(search.geo, st, search.ctl, np.int64(self.attacker), np.int64(threes),
                                 np.int64(self.fours), search.threat_scratch, search.fail, np.int64(0))
        used = int(st[GL.S_NODES])
        search.nodes += used
        self.spent += used
        if st[GL.S_ABORTED]:
            raise _OutOfNodes
        if plies <= 0:
            return None
        return [int(c) for c in search.threat_scratch[:plies]] if threes == 0 else [int(st[GL.S_BEST])]


class _OutOfNodes(Exception):
    """The zone's budget is spent (no zone)."""
