"""Depth-first proof-number search (df-pn: Nagai 2002) over threats past 64 cells: the
search below one leaf of the proof-number prover's tree (:mod:`parallel_mnk.parallel.uses.big_pn`),
a *job* of at most a given number of nodes, on the same judgements of positions
(:class:`.big_threats.Judge`: wins in one, blocks, threat-space search at the
attacker's nodes, zones of fours and pairings at the defender's).

A node is a position, keyed up to the board's symmetries (:class:`~parallel_mnk.game.geometry.Images`);
its children are its judgement's moves, one per key. df-pn runs the proof-number
search of the tree in memory depth first: at each node it stays below the child of
least proof number (the attacker's node) or least disproof number (the defender's)
while that child's numbers stay under thresholds taken from the second best
(Nagai's MID), keeping the open nodes' numbers and judgements in a table of at most
``table`` entries (full: cleared, and judged again when met) instead of a tree. A
settled node goes into ``settled`` as the tree's prover keeps it (its winning move
or, the defender's, its refutation), so that the tree, the certificate walk and a
journal read it alike.
"""
from __future__ import annotations

from typing import Callable, Optional

from ...game.geometry import Images
from .big_threats import DISPROVEN, INF, OPEN, PROVEN, Judge, Judgement

Key = tuple[int, int]


class ThreatDfpn:
    """df-pn below positions of one question ("does the judge's attacker win?"),
    its settled positions in ``settled`` (key up to symmetry -> state and the cell
    that settles it in the key's frame, -1 if none), its open ones in a table."""

    def __init__(self, judge: Judge, images: Images, settled: dict[Key, tuple[int, int]],
                 table: int = 1 << 18) -> None:
        self.judge, self.images, self.settled = judge, images, settled
        self.table: dict[Key, list] = {}   # key -> [pn, dn, judgement, children or None, (x, o) judged]
        self.table_max = table
        self.limit = 0
        self.stop: Callable[[], bool] = lambda: False
        self.stopped = False   # the last run ended by its stop()
        self.expanded = 0
        self.nodes_of: Callable[[], int] = lambda: self.judge.nodes   # the nodes a budget counts
        # judgements of many positions at once elsewhere (positions, the state that settles their parent, stop):
        # ``(state, move, cells, count, zone)`` of those reached; None: each judged here when met
        self.batch: Optional[Callable[[list[tuple[int, int]], int, Callable[[], bool]], dict]] = None

    def run(self, x: int, o: int, nodes: int, stop: Callable[[], bool] = lambda: False) -> tuple[int, int, int]:
        """Search below ``x``/``o`` until it is settled, the judge has counted ``nodes``
        more nodes, or ``stop()`` (asked at each step of the search) says so:
        ``(state, pn, dn)`` of ``x``/``o`` then (OPEN with its numbers when the budget
        ran out; :attr:`stopped` when ``stop()`` ended it)."""
        self.limit, self.stop, self.stopped = self.nodes_of() + nodes, stop, False
        key = self.images.of(x, o)[0]
        while True:
            state = self.settled.get(key, (OPEN, -1))[0]
            if state != OPEN:
                return state, *((0, INF) if state == PROVEN else (INF, 0))
            entry = self._entry(x, o, key)
            if entry[2].state == OPEN and (self.stopped or self.nodes_of() >= self.limit):
                return OPEN, entry[0], entry[1]
            self._mid(x, o, key, INF, INF)

    def _stopped_now(self) -> bool:
        """Whether ``stop()`` said so (now or before) in this run."""
        if not self.stopped and self.stop():
            self.stopped = True
        return self.stopped

    def _out_of_time(self) -> bool:
        """Whether the search must end now: its budget spent, or ``stop()``."""
        return self._stopped_now() or self.nodes_of() >= self.limit

    # ------------------------------------------------------------ the search
    def _mid(self, x: int, o: int, key: Key, th_pn: int, th_dn: int) -> None:
        """Nagai's MID: search below ``x``/``o`` (open, in the table) until its numbers
        reach ``th_pn``/``th_dn``, it is settled, or the budget runs out."""
        entry = self._entry(x, o, key)
        x, o = entry[4]   # (the frame its judgement and children are in: a symmetric image may come first)
        j: Judgement = entry[2]
        if j.state != OPEN:
            self._record(x, o, key, j.state, j.move)
            return
        children = entry[3]
        or_node = j.or_node
        if children is None:
            children = entry[3] = self._children(x, o, j)
            self.expanded += 1
            if self.batch is not None and not or_node:   # (the attacker's first moves often win: judged here in turn)
                self._judge_at_once(children, DISPROVEN)
        while not self.stopped:
            nums = []
            for cell, cx, co, ckey in children:   # (judged in order: the first that settles the node ends it)
                if ckey not in self.table and ckey not in self.settled and self._stopped_now():
                    return   # (before a judgement of its own: a node's children take up to 100 of them)
                got = self._numbers(cx, co, ckey)
                if (got[0] if or_node else got[1]) == 0:   # (the attacker's winning move, the defender's refutation)
                    self._record(x, o, key, PROVEN if or_node else DISPROVEN, cell)
                    return
                nums.append(got)
            if or_node:
                pn, dn = min((p for p, _ in nums), default=INF), min(INF, sum(d for _, d in nums))
            else:
                pn, dn = min(INF, sum(p for p, _ in nums)), min((d for _, d in nums), default=INF)
            if pn == 0 or dn == 0:   # (every child settled the other way)
                self._record(x, o, key, PROVEN if pn == 0 else DISPROVEN, -1)
                return
            kept = self.table.get(key)
            if kept is None:   # (the table was cleared below: this node's numbers and children kept)
                kept = self._entry(x, o, key)
                kept[3] = children
            kept[0], kept[1] = pn, dn
            if pn >= th_pn or dn >= th_dn or self._out_of_time():
                return
            # the best child and the thresholds it gets from the second best
            if or_node:
                order = sorted(range(len(nums)), key=lambda i: nums[i][0])
                best = order[0]
                second = nums[order[1]][0] if len(order) > 1 else INF
                c_th_pn = min(th_pn, second + 1)
                c_th_dn = min(INF, th_dn - dn + nums[best][1])
            else:
                order = sorted(range(len(nums)), key=lambda i: nums[i][1])
                best = order[0]
                second = nums[order[1]][1] if len(order) > 1 else INF
                c_th_dn = min(th_dn, second + 1)
                c_th_pn = min(INF, th_pn - pn + nums[best][0])
            cell, cx, co, ckey = children[best]
            self._mid(cx, co, ckey, c_th_pn, c_th_dn)

    # ------------------------------------------------------------ nodes
    def _judge_at_once(self, children: list[tuple[int, int, int, Key]], settles: int) -> None:
        """The judgements of ``children`` not settled nor in the table, asked of
        :attr:`batch` at once (in their order; it may stop at one that ``settles`` their
        parent), into the table as :meth:`_entry` makes them; the first child judged
        here first (the best move: the one that most often settles the parent)."""
        if not children or (self._numbers(*children[0][1:])[1 if settles == DISPROVEN else 0] == 0):
            return
        todo = [(cx, co) for _, cx, co, ckey in children if ckey not in self.table and ckey not in self.settled]
        if len(todo) < 2 or self.batch is None:
            return
        got = self.batch(todo, settles, self.stop)
        attacker_is_x = self.judge.attacker == 1
        for _, cx, co, ckey in children:
            fields = got.get((cx, co))
            if fields is None or ckey in self.table:
                continue
            j = Judgement(fields[0], (cx.bit_count() == co.bit_count()) == attacker_is_x, *fields[1:])
            self._store(cx, co, ckey, j)

    def _entry(self, x: int, o: int, key: Key) -> list:
        """The table's entry of ``x``/``o`` (judged now when absent)."""
        got = self.table.get(key)
        return got if got is not None else self._store(x, o, key, self.judge.judge(x, o))

    def _store(self, x: int, o: int, key: Key, j: Judgement) -> list:
        """The table's new entry of ``x``/``o`` judged ``j`` (a defender's node taking
        every move cut by a zone of threes first, with ``zone_threes``)."""
        if j.state == OPEN and not j.or_node and self.judge.zone_threes > 0:
            j = self.judge.threat_zone(x, o, j) or j
        if len(self.table) >= self.table_max:
            self.table.clear()
        got = self.table[key] = [*j.numbers, j, None, (x, o)]
        return got

    # ------------------------------------------------------------ what it knows, for the tree above
    def numbers(self, key: Key) -> Optional[tuple[int, int]]:
        """The numbers of an open position of key ``key`` in the table, if there."""
        got = self.table.get(key)
        return None if got is None else (got[0], got[1])

    def judgement(self, x: int, o: int, key: Key) -> Optional[Judgement]:
        """The judgement of ``x``/``o`` (key ``key``) in the table, if it was judged in
        this very frame (a judgement's cells are a frame's)."""
        got = self.table.get(key)
        return got[2] if got is not None and got[4] == (x, o) else None

    def _numbers(self, x: int, o: int, key: Key) -> tuple[int, int]:
        """A child's numbers: settled, in the table, or its judgement's when met for
        the first time (settled at once when the judgement settles it)."""
        state = self.settled.get(key, (OPEN, -1))[0]
        if state != OPEN:
            return (0, INF) if state == PROVEN else (INF, 0)
        entry = self._entry(x, o, key)
        j = entry[2]
        if j.state != OPEN:
            jx, jo = entry[4]   # (its move is in the frame it was judged in)
            self._record(jx, jo, key, j.state, j.move)
            return (0, INF) if j.state == PROVEN else (INF, 0)
        return entry[0], entry[1]

    def _children(self, x: int, o: int, j: Judgement) -> list[tuple[int, int, int, Key]]:
        """``(cell, x, o, key)`` of the moves of ``j``, one per key, in the judge's order."""
        x_moves = (x.bit_count() + o.bit_count()) % 2 == 0
        keys = dict(self.images.after(x, o, j.cells))
        out, seen = [], set()
        for cell in self.judge.ordered(x, o, j.cells):
            key = keys[cell]
            if key not in seen:
                seen.add(key)
                out.append((cell, *((x | 1 << cell, o) if x_moves else (x, o | 1 << cell)), key))
        return out

    def _record(self, x: int, o: int, key: Key, state: int, move: int) -> None:
        perm = self.images.of(x, o)[1]
        self.settled[key] = (state, perm[move] if move >= 0 else -1)
        self.table.pop(key, None)
