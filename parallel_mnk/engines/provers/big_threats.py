"""What the proof-number prover past 64 cells (:mod:`parallel_mnk.parallel.uses.big_pn`)
knows of one node before searching below it: a :class:`Judge` looks at a position
of a free-placement board on the array board (:mod:`parallel_mnk.kernels.grid`) and
says whether the attacker's win is settled there at once, or which moves need a
proof and how hard it looks (after Allis' threat-space search under proof-number
search; docs/big-boards.md section 5).

The attacker to move (an OR node: one move that wins is enough):

1. it completes a line: **proven** (that move);
2. the defender has two completion cells: **disproven** (one stone blocks one);
   one: the block is the only move (any other loses at once);
   the defender has a pairing (:mod:`.big_pairing`: none of the attacker's lines
   can be completed, whoever moves; no live line is the empty pairing):
   **disproven**;
3. a win by fours and at most ``threes`` three-moves, found by threat-space search
   within ``vct_nodes`` nodes (:func:`parallel_mnk.kernels.grid.tss.vct`: every
   defence accounted for): **proven** (its first move);
4. otherwise every legal move, in the order of what a stone builds and blocks.

The defender to move (an AND node: every move must lose):

1. the defender completes a line: **disproven**;
2. the attacker has two completion cells: **proven**; one: the block is the only
   move (any other loses at once); the defender has a pairing: **disproven**;
3. the **zone**: if the attacker, given the move (the defender passing), wins by
   continuous fours along a line ``T`` (its stones, the forced replies and the
   completion cells), only the defender's moves in the zone of ``T`` need a proof
   (:meth:`Judge._zone`): the cells of the ``k``-cell lines that ``T``'s fours and
   five are made on, and of the lines with no attacker stone on which the
   defender's stones and ``T``'s replies reach ``k - 2`` (a defender stone there
   may give it a four on the way). Any other defender stone leaves ``T`` a win:
   each four is still made, each reply still forced, and the defender never has a
   completion cell first; (when the node is expanded, :meth:`threat_zone`: with
   ``zone_threes``, if the attacker given the move wins by fours and at most that
   many threes, the zone of that win, :meth:`.big_zones.ThreatZones.win_zone`: the
   win proven again move by move, every defence of each three refuted and its
   zone taken in;)
4. otherwise every legal move.

First numbers (proof, disproof): an open OR node ``(1, moves)``, an open AND node
``(moves, 1)``: a defence with a small zone is the cheapest to prove.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...game.rules import GameSpec
from ...kernels.grid import layout as GL
from ..exact.big import BigSearch
from .big_pairing import PairingFinder, board_lines
from .big_zones import ThreatZones

OPEN, PROVEN, DISPROVEN = 0, 1, 2


INF = (1 << 30) - 1


@dataclass
class Judgement:
    """What :class:`Judge` found of a position: ``state`` (OPEN, PROVEN,
    DISPROVEN); whether the attacker is to move (``or_node``); a proven OR node's
    winning ``move`` (-1 otherwise); an open node's ``cells`` (a cell set) that
    need proof, ``count`` of them, and whether a zone cut them (``zone``)."""

    state: int
    or_node: bool
    move: int = -1
    cells: int = 0
    count: int = 0
    zone: bool = False

    @property
    def numbers(self) -> tuple[int, int]:
        """Its first proof and disproof numbers (module docstring)."""
        if self.state == PROVEN:
            return 0, INF
        if self.state == DISPROVEN:
            return INF, 0
        return (1, self.count) if self.or_node else (self.count, 1)


class Judge:
    """Judges positions of ``spec`` (free placement, any size the array board takes)
    for the question "does ``attacker`` (1: x, 2: o) win?"; ``threes`` and
    ``vct_nodes`` bound the threat-space search at the attacker's nodes (0 threes:
    continuous fours only), ``zone_threes`` the threes of a win after a pass whose
    zone cuts a defender's node (0: continuous fours only; ``zone_nodes`` kernel
    nodes a zone), ``pairing`` the bounds of the search for the defender's pairing
    (live lines, pairs tried: :class:`.big_pairing.PairingFinder`; 0 lines: none).
    Counts the kernels' :attr:`nodes`."""

    def __init__(self, spec: GameSpec, attacker: int, threes: int, vct_nodes: int, fours: int,
                 search: Optional[BigSearch] = None, zone_threes: int = 0, zone_nodes: int = 1 << 12,
                 pairing: tuple[int, int] = (0, 0)) -> None:
        if spec.gravity:
            raise ValueError("the threat prover takes free placement only")
        self.spec, self.attacker, self.defender = spec, attacker, 3 - attacker
        self.threes, self.vct_nodes, self.fours = threes, vct_nodes, fours
        self.zone_threes, self.zone_nodes = zone_threes, zone_nodes
        self.search = search if search is not None else BigSearch(spec, 10)
        geo = self.search.geo
        self.lines = board_lines(geo, spec.k)
        through: list[list[int]] = [[] for _ in range(spec.cells)]   # the lines through each cell
        for i, row in enumerate(self.lines):
            for c in row:
                through[int(c)].append(i)
        self.through = [np.array(t, dtype=np.int64) for t in through]
        self.pair = np.zeros(2, dtype=np.int64)
        self.judged = 0
        self.zones = ThreatZones(spec, attacker, fours, self.search, self.lines, self.through, zone_nodes)
        self.pairing = pairing
        self.pairings = PairingFinder(self.lines, *pairing, cols=spec.cols)

    @property
    def nodes(self) -> int:
        """The kernels' nodes so far (threat searches) and the positions judged."""
        return self.search.nodes + self.judged

    def judge(self, x: int, o: int) -> Judgement:
        """The judgement of ``x``/``o`` (module docstring), the side to move by the counts."""
        self.judged += 1
        search, geo, board = self.search, self.search.geo, self.search.board
        st = search.state(x, o)
        mover = int(st[GL.S_TURN])
        other = 3 - mover
        or_node = mover == self.attacker
        pair = self.pair
        if board.winning_cells(geo, st, mover, pair) > 0:   # (a finished game never reaches here: the parent's rule 1)
            return Judgement(PROVEN, True, int(pair[0])) if or_node else Judgement(DISPROVEN, False)
        theirs = board.winning_cells(geo, st, other, pair)
        if theirs >= 2:
            return Judgement(DISPROVEN if or_node else PROVEN, or_node)
        if theirs == 1:
            return Judgement(OPEN, or_node, cells=1 << int(pair[0]), count=1)
        if self.pairings.find_in(search.geo, st, self.defender) is not None:
            return Judgement(DISPROVEN, or_node)
        empty = ~(x | o) & ((1 << self.spec.cells) - 1)
        if empty == 0:   # a full board, no line: the attacker did not win
            return Judgement(DISPROVEN, or_node)
        if or_node:
            first = self._threat_win(x, o)
            if first is not None:
                return Judgement(PROVEN, True, first)
            return Judgement(OPEN, True, cells=empty, count=bin(empty).count("1"))
        found = self.pass_fours(x, o, st)
        if found is not None:
            zone = found[1]
            return Judgement(OPEN, False, cells=zone, count=bin(zone).count("1"), zone=True)
        return Judgement(OPEN, False, cells=empty, count=bin(empty).count("1"))

    def threat_zone(self, x: int, o: int, judged: Judgement) -> Optional[Judgement]:
        """At ``x``/``o``, judged ``judged``: if that is the defender's open node with
        every legal move (no block, no zone of fours), the judgement its moves cut to
        the zone of the attacker's win by fours and at most ``zone_threes`` threes
        after a pass (PROVEN when no move is in it); else, or when no such win is
        found within ``zone_nodes`` nodes, None. Asked when the node is expanded, not
        when judged: the search costs more than a judgement (docs/big-boards.md
        section 6)."""
        empty = ~(x | o) & ((1 << self.spec.cells) - 1)
        if self.zone_threes <= 0 or judged.state != OPEN or judged.or_node or judged.cells != empty:
            return None
        zone = self.zones.win_zone(x, o, self.zone_threes)
        if zone is None:
            return None
        zone &= empty
        if zone == 0:
            return Judgement(PROVEN, False)
        return Judgement(OPEN, False, cells=zone, count=bin(zone).count("1"), zone=True)

    def pass_fours(self, x: int, o: int, st: Optional[np.ndarray] = None) -> Optional[tuple[list[int], int]]:
        """At ``x``/``o`` (the defender to move; ``st`` its state, if built): the
        attacker's moves of a win by continuous fours with the defender passing, and
        its zone (:meth:`_zone`: empty cells, the page's rule of ``fours`` records,
        docs/proof-format.md 12.3); None when there is none within the budget."""
        line = self._fours_after_pass(x, o)
        if line is None:
            return None
        if st is None:
            st = self.search.state(x, o)
        moves, zone = self._zone(st, line)
        return moves, zone & ~(x | o) & ((1 << self.spec.cells) - 1)

    def ordered(self, x: int, o: int, cells: int) -> list[int]:
        """The cells of the set ``cells``, best first for the side to move of
        ``x``/``o`` by what its stone builds and blocks (ties: nearest the centre,
        then the lower index)."""
        search, spec = self.search, self.spec
        st = search.state(x, o)
        mover = int(st[GL.S_TURN])
        cols, rows = spec.cols, spec.rows
        out = []
        while cells:
            low = cells & -cells
            c = low.bit_length() - 1
            cells ^= low
            score = int(search.board.move_score(search.geo, st, c, mover))
            off = abs(c % cols - (cols - 1) / 2) + abs(c // cols - (rows - 1) / 2)
            out.append((-score, off, c))
        out.sort()
        return [c for _, _, c in out]

    def _threat_win(self, x: int, o: int) -> Optional[int]:
        """The first move of the attacker's win by fours and threes within the budget."""
        search = self.search
        for threes in range(self.threes + 1):
            st = search.state(x, o)
            st[GL.S_NODE_LIMIT] = self.vct_nodes
            plies = search.board.vct(search.geo, st, search.ctl, np.int64(self.attacker), np.int64(threes),
                                     np.int64(self.fours), search.threat_scratch, search.fail, np.int64(0))
            search.nodes += int(st[GL.S_NODES])
            if plies > 0 and not st[GL.S_ABORTED]:
                return int(st[GL.S_BEST])
            if st[GL.S_ABORTED]:
                return None
        return None

    def _fours_after_pass(self, x: int, o: int) -> Optional[list[int]]:
        """The attacker's win by continuous fours with the defender passing: the line's
        cells (moves, replies, completion cells); None when there is none."""
        search = self.search
        st = search.state(x, o, self.attacker)
        st[GL.S_NODE_LIMIT] = self.vct_nodes
        plies = search.board.vct(search.geo, st, search.ctl, np.int64(self.attacker), np.int64(0),
                                 np.int64(self.fours), search.threat_scratch, search.fail, np.int64(0))
        search.nodes += int(st[GL.S_NODES])
        if plies <= 0 or st[GL.S_ABORTED]:
            return None
        return [int(c) for c in search.threat_scratch[:plies]]

    def _zone(self, st: np.ndarray, line: list[int]) -> tuple[list[int], int]:
        """The attacker's moves of the continuous fours ``line`` (found at ``st`` with
        the defender passing) up to its five or double four, and its zone for one
        defender stone (:meth:`.big_zones.ThreatZones.fours_zone` with ``k - 2``: the
        checker's rule of ``fours`` records, docs/proof-format.md 12.3)."""
        return self.zones.fours_zone(st, line, self.spec.k - 2)
