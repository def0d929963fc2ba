"""The best-first tree a parallel proof keeps in its coordinator (after Kishimoto's
and Pawlewicz's parallel df-pn and the PNS-PDFPN of Cizek et al.): the top of a
proof-number search whose leaves are handed out as bounded df-pn jobs.

A node holds its position, whose move it is (the attacker's: an OR node), its
proof and disproof numbers, and, once settled, its value (the store holds its
record and zone: :mod:`parallel_mnk.kernels.pns.settled_store`). :meth:`PnTree.select`
walks from the root to the most-proving leaf with no job under way (at an OR node
the child of least proof number, at an AND node of least disproof number),
expanding on the way every leaf that has had its first job (or lies within the
first ``open_depth`` plies). A job under way counts as if it will disprove its
leaf (*virtual numbers*): an AND node with a job below its best child takes no
second job (one disproof settles it, and the answers of its other children would
be moot), and the next job goes to the next child of the OR node above it, which
a disproof of that node needs too. (Most of a proof's nodes go to disproofs: the
draws of the empty boards, and every refuted move of a win.) Where the question is
expected to be proven and workers are several (the threat proofs past 64 cells from
``BIG_PN_BUSY_PROVES`` workers, 2: ``busy_proves``), a job
under way counts as its leaf's *proof* instead: the next job goes to the defender's
other moves, which that proof needs too, and only when none is left to the
attacker's other moves (counted as above), so that no worker idles while the tree
has an open leaf a job could take. With ``stick`` (the 1+epsilon trick of Pawlewicz and
Lew) a node keeps to the child it last went below while that child's real number is
within ``1 + stick`` times its best sibling's.
:meth:`PnTree.end_job` takes a job's answer and backs the numbers up; a node whose children settle it is settled by the caller's
``settle`` (which writes its record), so that the tree and the store agree.

At the attacker's nodes, as in the kernels, a move outside the zone of a disproven
child counts as disproven (the zone answers it). Given ``key_of`` (a position's key up
to the board's symmetries), a node keeps one child of each key: the others have its
value, and the kernels find them settled with it (their store is keyed the same way).

Scheduling only: what expands a node, settles it or reads a zone is the caller's
(callbacks); no kernels, no pool.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional, Union

INF = (1 << 30) - 1
OPEN, PROVEN, DISPROVEN = 0, 1, 2

Expansion = Union[int, list[tuple[int, int, int]]]   # a settled state, or (cell, pn, dn) of each child


class PnNode:
    """One node of the tree (``cell``: the move from its parent, -1 at the root)."""

    __slots__ = ("x", "o", "ply", "or_node", "cell", "parent", "children", "pn", "dn", "state", "busy", "jobs",
                 "zone", "leaf", "busy_below", "vp", "vd", "last")

    def __init__(self, x: int, o: int, ply: int, or_node: bool, cell: int, parent: Optional["PnNode"],
                 pn: int = 1, dn: int = 1) -> None:
        self.x, self.o, self.ply, self.or_node, self.cell, self.parent = x, o, ply, or_node, cell, parent
        self.children: Optional[list[PnNode]] = None
        self.pn, self.dn = pn, dn
        self.state = OPEN
        self.busy = False     # a job is under way on it
        self.jobs = 0         # jobs it had
        self.zone = 0         # its zone once disproven (cells)
        self.leaf = False     # kept a leaf: its children settle it, the store's view not (its jobs will)
        self.busy_below = 0   # jobs under way on it and below it
        self.vp = self.vd = (pn, dn)   # its virtual numbers, the jobs under way counted as proofs / disproofs
        self.last: Optional[PnNode] = None   # the child a walk last went below (kept to while ``stick`` allows)

    def child(self, cell: int, pn: int, dn: int) -> "PnNode":
        """The child after ``cell`` (the side to move's stone)."""
        bit = 1 << cell
        x, o = (self.x | bit, self.o) if self.ply % 2 == 0 else (self.x, self.o | bit)
        return PnNode(x, o, self.ply + 1, not self.or_node, cell, self, pn, dn)

    def path(self) -> list[int]:
        """The cells from the root to this node."""
        out: list[int] = []
        node: Optional[PnNode] = self
        while node is not None and node.cell >= 0:
            out.append(node.cell)
            node = node.parent
        return out[::-1]


class PnTree:
    """The coordinator's tree of one question from the root ``(x, o)`` (``ply``
    stones; ``or_node``: the attacker to move). ``expand(node)`` gives a node's
    children or its settled state; ``state_of(node)`` whether the store holds it
    settled; ``zone_of(node)`` a disproven node's zone (cells, the frame of the
    root); ``settle(node, proven)`` writes the record of a node its children settle
    and returns the state the store holds then (OPEN when it would not settle: the
    tree then keeps it open). ``zone_wait``: below an attacker's node none of whose
    moves is disproven yet, jobs go to its best move alone (that move's zone may answer
    the others); off, every move counts at once (work for more workers, some of it a
    zone would have saved). ``key_of``, ``busy_proves``: the module docstring."""

    def __init__(self, x: int, o: int, ply: int, or_node: bool, expand: Callable[[PnNode], Expansion],
                 state_of: Callable[[PnNode], int], zone_of: Callable[[PnNode], int],
                 settle: Callable[[PnNode, bool], int], open_depth: int = 2,
                 key_of: Optional[Callable[[int, int], object]] = None, zone_wait: bool = True,
                 busy_proves: bool = False, stick: float = 0.0) -> None:
        self.root = PnNode(x, o, ply, or_node, -1, None)
        self.expand_cb, self.state_of, self.zone_of, self.settle_cb = expand, state_of, zone_of, settle
        self.key_of = key_of   # a position's key up to symmetry: siblings of one key are one child
        self.open_depth = open_depth
        self.nodes = 1
        self.zone_wait = zone_wait   # jobs below an attacker's node go to its best move alone until one is disproven
        self.busy_proves = busy_proves   # a job under way counts as its leaf's proof first (module docstring)
        self.stick = stick   # the 1+epsilon trick (Pawlewicz and Lew 2007): a node keeps to its last child while that
        # child's number (pn at an OR node, dn at an AND node) is at most (1 + stick) times the best other child's
        self._busy = DISPROVEN   # how a job under way counts in the walk under way (:meth:`_walk`)

    # ------------------------------------------------------------ choosing a leaf
    def select(self) -> Optional[PnNode]:
        """The most-proving leaf by the virtual numbers (module docstring) without a
        job under way (None: the jobs under way settle the root if they all settle
        their leaves as they count, or the root is settled); expands leaves on the
        way as the module says."""
        while self.root.state == OPEN:
            found = self._walk(PROVEN if self.busy_proves else DISPROVEN)
            if found is None and self.busy_proves:   # (no job a proof needs left: one a disproof would)
                found = self._walk(DISPROVEN)
            if found is not None:
                if found.children is None and self._expandable(found):
                    self._expand(found)
                    continue   # (its numbers changed: walk again from the root)
                return found
            return None
        return None

    def _walk(self, busy: int) -> Optional[PnNode]:
        """:meth:`_descend` from the root with a job under way counting as ``busy``
        (PROVEN or DISPROVEN)."""
        self._busy = busy
        return self._descend(self.root)

    def _expandable(self, node: PnNode) -> bool:
        return not node.leaf and (node.jobs > 0 or node.ply - self.root.ply < self.open_depth)

    def _descend(self, node: PnNode) -> Optional[PnNode]:
        """The best leaf below ``node`` with no job (children tried best first)."""
        if node.state != OPEN or node.busy:
            return None
        if node.children is None:
            return node
        if node.busy_below and 0 in self._virtual(node):
            return None   # (settled if the jobs under way disprove their leaves)
        ranked = real_ranked = self._ranked(node)
        if node.or_node and self.zone_wait and not any(c.state == DISPROVEN for c in node.children):
            # the attacker's node before its first disproven child: that child's zone may answer the other
            # moves, so jobs go below the best move alone until then
            ranked = ranked[:1]
        elif node.busy_below:
            side = 0 if node.or_node else 1
            ranked = sorted(ranked, key=lambda c: self._virtual(c)[side])
        if self.stick > 0 and len(ranked) > 1:
            # the child a one-job walk takes (real numbers, kept to while within 1 + stick of the best): the one
            # the node keeps to, whatever jobs under way elsewhere make this walk take
            side = 0 if node.or_node else 1
            real = (lambda c: c.pn) if node.or_node else (lambda c: c.dn)
            live = ranked if not node.busy_below else real_ranked
            pref = live[0]
            last = node.last
            if last is not None and last is not pref and last in live and real(last) <= real(pref) * (1 + self.stick):
                pref = last
            node.last = pref
            if pref is not ranked[0] and pref in ranked and \
                    (not node.busy_below or self._virtual(pref)[side] <= self._virtual(ranked[0])[side] * (1 + self.stick)):
                ranked.remove(pref)
                ranked.insert(0, pref)
        for child in ranked:
            found = self._descend(child)
            if found is not None:
                return found
        return None

    def _virtual(self, node: PnNode) -> tuple[int, int]:
        """``node``'s numbers with every job under way below it counted as its leaf's
        proof or disproof, as this walk of :meth:`select` counts them (module docstring;
        kept up to date by :meth:`_revise`)."""
        return node.vp if self._busy == PROVEN else node.vd

    def _revise(self, node: Optional[PnNode]) -> None:
        """Recompute the virtual numbers (:meth:`_virtual`, both counts) from ``node`` up
        to the root, after a change at ``node`` (a job begun or ended, numbers backed
        up, children made): every node whose numbers may change is on that path."""
        while node is not None:
            if node.state != OPEN or not node.busy_below:
                node.vp = node.vd = (node.pn, node.dn)
            elif node.busy:
                node.vp, node.vd = (0, INF), (INF, 0)
            elif node.children is None:   # (made a leaf again: the jobs below it no longer count)
                node.vp = node.vd = (node.pn, node.dn)
            else:
                node.vp, node.vd = self._combine_virtual(node)
            node = node.parent

    def _combine_virtual(self, node: PnNode) -> tuple[tuple[int, int], tuple[int, int]]:
        """``node``'s virtual numbers of both counts from its children's (:meth:`_combine`
        of each, its children read once)."""
        assert node.children is not None
        settling = PROVEN if node.or_node else DISPROVEN
        if any(c.state == settling for c in node.children):
            return ((0, INF), (0, INF)) if node.or_node else ((INF, 0), (INF, 0))
        live = self.live_children(node) if node.or_node else [c for c in node.children if c.state == OPEN]
        if not live:
            return ((INF, 0), (INF, 0)) if node.or_node else ((0, INF), (0, INF))
        vps, vds = [c.vp for c in live], [c.vd for c in live]
        if node.or_node:
            return ((min(p for p, _ in vps), min(INF, sum(d for _, d in vps))),
                    (min(p for p, _ in vds), min(INF, sum(d for _, d in vds))))
        return ((min(INF, sum(p for p, _ in vps)), min(d for _, d in vps)),
                (min(INF, sum(p for p, _ in vds)), min(d for _, d in vds)))

    def _ranked(self, node: PnNode) -> list[PnNode]:
        """``node``'s open children that count (not answered by a zone), most proving first."""
        live = self.live_children(node)
        return sorted(live, key=(lambda c: c.pn) if node.or_node else (lambda c: c.dn))

    def best_cell(self, margin: float = 0.0) -> Optional[int]:
        """The root move the proof leans to so far, not proved (None before the root
        is split). For the attacker to move: a proven child, else the first open one
        of the expansion's order (the caller's, best first) unless another's proof
        number times ``1 + margin`` is smaller than its (then the most-proving one:
        least pn, then most dn; ``margin`` inf: always the order's first); moves a
        disproven sibling's zone answers are not chosen. For the defender: a disproven child, else the open one
        hardest to prove (most pn, then least dn). Else the first child the proof did
        not settle against the side to move, else the first."""
        children = self.root.children
        if not children:
            return None
        if self.root.or_node:
            done = [c for c in children if c.state == PROVEN]
            live = self.live_children(self.root)
            best = min(live, key=lambda c: (c.pn, -c.dn), default=None)
            if best is not None and live[0].pn <= (1 + margin) * best.pn:
                best = live[0]   # (numbers within the margin say nothing: the order's first)
        else:
            done = [c for c in children if c.state == DISPROVEN]
            best = max((c for c in children if c.state == OPEN), key=lambda c: (c.pn, -c.dn), default=None)
        if done:
            return done[0].cell
        if best is not None:
            return best.cell
        against = DISPROVEN if self.root.or_node else PROVEN
        return next((c for c in children if c.state != against), children[0]).cell

    def live_children(self, node: PnNode) -> list[PnNode]:
        """The open children of ``node`` no disproven sibling's zone answers."""
        assert node.children is not None
        allowed = -1
        if node.or_node:
            for c in node.children:
                if c.state == DISPROVEN:
                    allowed &= c.zone
        return [c for c in node.children if c.state == OPEN and (not node.or_node or allowed >> c.cell & 1)]

    def _expand(self, node: PnNode) -> None:
        got = self.expand_cb(node)
        if isinstance(got, int):
            self._set_settled(node, got)
            self._backup(node.parent)
            self._revise(node)
            return
        node.children = [node.child(cell, pn, dn) for cell, pn, dn in got]
        if self.key_of is not None:   # (symmetric siblings have one value: one job, not one each)
            kept, keys = [], set()
            for c in node.children:
                key = self.key_of(c.x, c.o)
                if key not in keys:
                    keys.add(key)
                    kept.append(c)
            node.children = kept
        self.nodes += len(node.children)
        for c in node.children:   # (children settled already: by jobs elsewhere, transpositions)
            state = self.state_of(c)
            if state != OPEN:
                self._set_settled(c, state)
        self._backup(node)
        self._revise(node)

    # ------------------------------------------------------------ answers
    def begin_job(self, node: PnNode) -> None:
        """A job starts on ``node``."""
        node.busy = True
        above: Optional[PnNode] = node
        while above is not None:
            above.busy_below += 1
            above = above.parent
        self._revise(node)

    def end_job(self, node: PnNode, found: int, pn: int, dn: int) -> None:
        """A job on ``node`` ended: ``found`` 1 proven, 0 disproven, -1 open with numbers
        ``(pn, dn)``, -2 lost (nothing known: the node is handed out again)."""
        node.busy = False
        above: Optional[PnNode] = node
        while above is not None:
            above.busy_below -= 1
            above = above.parent
        if found != -2:
            node.jobs += 1
        if found != -2 and node.state == OPEN:
            if found >= 0:
                self._set_settled(node, PROVEN if found == 1 else DISPROVEN)
            elif node.children is None:
                node.pn, node.dn = pn, dn
            self._backup(node.parent if node.children is None or found >= 0 else node)
        self._revise(node)

    def _set_settled(self, node: PnNode, state: int) -> None:
        node.state = state
        node.pn, node.dn = (0, INF) if state == PROVEN else (INF, 0)
        node.vp = node.vd = (node.pn, node.dn)
        if state == DISPROVEN:
            node.zone = self.zone_of(node)

    def _backup(self, node: Optional[PnNode]) -> None:
        """Recompute the numbers from ``node`` up to the root; settle what its children settle."""
        while node is not None:
            if node.state == OPEN and node.children is not None:
                pn, dn = self._numbers(node)
                if pn == 0 or dn == 0:
                    state = self.settle_cb(node, pn == 0)
                    if state != OPEN:
                        self._set_settled(node, state)
                    else:   # (the store's view differs: a leaf again, its jobs settle it)
                        node.children, node.leaf = None, True
                        node.pn, node.dn = 1, 1
                else:
                    node.pn, node.dn = pn, dn
            node = node.parent

    def _numbers(self, node: PnNode) -> tuple[int, int]:
        return self._combine(node, lambda c: (c.pn, c.dn))

    def _combine(self, node: PnNode, numbers: Callable[[PnNode], tuple[int, int]]) -> tuple[int, int]:
        """``node``'s numbers from its children's ``numbers`` (min and sum, zones answering
        the attacker's moves outside them)."""
        assert node.children is not None
        if node.or_node:
            if any(c.state == PROVEN for c in node.children):
                return 0, INF
            live = self.live_children(node)
            if not live:
                return INF, 0
            nums = [numbers(c) for c in live]
            return min(pn for pn, _ in nums), min(INF, sum(dn for _, dn in nums))
        if any(c.state == DISPROVEN for c in node.children):
            return INF, 0
        live = [c for c in node.children if c.state == OPEN]
        if not live:
            return 0, INF
        nums = [numbers(c) for c in live]
        return min(INF, sum(pn for pn, _ in nums)), min(dn for _, dn in nums)

    # ------------------------------------------------------------ what it holds
    def walk(self) -> Iterator[PnNode]:
        """Every node, parents first."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            if node.children:
                stack.extend(reversed(node.children))
