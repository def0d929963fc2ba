"""The proof-number prover past 64 cells (``--prover pn`` on a free-placement board
of more than 64 cells, weak): proof-number search over threats, after Allis' proof
of 15x15 Gomoku (docs/big-boards.md section 5).

The coordinator keeps the best-first tree (:mod:`..scheduling.pn_tree`, the same
scheduler as the 64-cell prover's); a *job* on a leaf judges each of the leaf's
moves (:class:`~parallel_mnk.engines.provers.big_threats.Judge`: settled at once by
a win in one, a block, threat-space search, or open with the moves that need a
proof and its first numbers), and the leaf is then expanded into the judged
children. In one process (``BIG_PN_DFPN_NODES`` > 0) a job is df-pn below the leaf
instead (:class:`~parallel_mnk.engines.provers.big_dfpn.ThreatDfpn`, on the same
judgements), and the leaf is expanded with its children's df-pn numbers. The
defender's moves outside the zone of the attacker's continuous fours
are never children: the fours answer them. Positions are keyed up to the board's
symmetries: symmetric siblings are one child, and a settled position met again by
another order of moves is not searched again (:attr:`ThreatProof.settled`).

The solve asks its questions in turn (:mod:`.big_pn_solve`); a proven question is
certified by the big-board walk (:mod:`parallel_mnk.engines.provers.big_certificate`),
which takes the tree's winning moves (a disproven one's refutations) first: no
second search of the tree.

With more than one worker the jobs of judgements run on the pool's processes (or
Ray's; with ``BIG_PN_POOL_DFPN``, the df-pn stays here and the moves of the nodes it
expands are judged there: :class:`.big_pn_pool.BatchJudge`), a leaf a worker
(:class:`~..task.JudgeJob`: the judgements of the leaf's moves that are not settled
or waiting yet); the coordinator keeps the tree, the settled positions and
the judgements, and expands each leaf once its job is back. A worker that dies
mid-job is restarted and its leaf handed out again; the tree never holds a job's
half (a job's judgements are taken only when it ends).

A question starts from the positions a journal settled in earlier runs
(:mod:`..scheduling.big_pn_journal`, written by :mod:`.big_pn_solve`).
"""
from __future__ import annotations

from typing import Callable, Optional

from ...api.results import WorkerStats
from ...api.settings import current
from ...engines.exact.big import BigSearch, table_bits
from ...engines.provers.big_dfpn import ThreatDfpn
from ...engines.provers.big_threats import DISPROVEN, INF, OPEN, PROVEN, Judge, Judgement
from ...game.geometry import Images, symmetries
from ...game.position import Position
from ...game.rules import MnkError
from ..pools.backend import Backend
from ..scheduling.pn_tree import Expansion, PnNode, PnTree
from .big_pn_pool import BatchJudge, JudgePool

Key = tuple[int, int]
LISTED_KEPT = 256   # the leaves whose children a proof keeps listed between their hand-out and expansion


class ThreatProof:
    """One question, "does ``attacker`` ("x" or "o") win from ``position``?", by
    proof-number search over threats (module docstring). :attr:`settled` maps a
    position's key up to symmetry to its state and the cell that settles it in the
    key's frame: a proven position's winning cell (the attacker to move), a
    disproven one's refutation (the defender to move, where its tree found one), else
    -1."""

    def __init__(self, position: Position, attacker: str, settled: Optional[dict[Key, tuple[int, int]]] = None,
                 threes: Optional[int] = None, vct_nodes: Optional[int] = None,
                 zone_threes: Optional[int] = None, dfpn_nodes: Optional[int] = None) -> None:
        spec = position.spec
        s = current()
        self.position, self.attacker = position, attacker
        budget = s.big_pn_budget(spec.cells)
        self.judge = Judge(spec, 1 if attacker == "x" else 2, budget[0] if threes is None else threes,
                           budget[1] if vct_nodes is None else vct_nodes, s.BIG_FOURS,
                           BigSearch(spec, table_bits(12)), s.BIG_PN_ZONE_THREES if zone_threes is None else zone_threes,
                           s.BIG_PN_ZONE_NODES, (s.BIG_PN_PAIRING_LINES, s.BIG_PN_PAIRING_NODES))
        self.perms = symmetries(spec)
        self.images = Images(self.perms)   # the keys up to symmetry of the positions met
        self._listed: dict[tuple[int, int, int], list[tuple[int, Key, Key]]] = {}   # leaves' children, until expanded
        self.settled: dict[Key, tuple[int, int]] = {} if settled is None else settled
        self.waiting: dict[Key, Judgement] = {}   # judged positions not yet expanded, by their own (x, o)
        self.zones_asked: set[Key] = set()   # defender's nodes whose zone of threes was looked for
        self.dfpn_nodes = s.BIG_PN_DFPN_NODES if dfpn_nodes is None else dfpn_nodes   # a job's df-pn (0: judgements)
        self.dfpn = ThreatDfpn(self.judge, self.images, self.settled, s.BIG_PN_DFPN_TABLE)
        self.dfpn.nodes_of = lambda: self.nodes   # (its jobs' budgets count the workers' judgements too)
        self.tree: Optional[PnTree] = None
        self.jobs = 0
        self.judged_leaves = 0   # leaves expanded by a job of judgements (a df-pn's expansions: its own count)
        self.answer: Optional[bool] = None
        self.remote_nodes = 0   # the workers' judgements' nodes
        self.restarts: dict[int, int] = {}
        self.lost = 0   # jobs lost with their worker (handed out again)
        self.worker_stats: dict[int, WorkerStats] = {}
        self.slot_s = 0.0   # the workers' seconds in pool runs
        self.idle_s = 0.0   # of them, without a job while the coordinator waited for answers

    # ------------------------------------------------------------ what is settled
    def lookup(self, x: int, o: int) -> tuple[int, int]:
        """The settled state of ``x``/``o`` (OPEN when not settled) and its winning
        cell in this frame (-1: none known)."""
        key, perm = self.images.of(x, o)
        state, move = self.settled.get(key, (OPEN, -1))
        return state, (perm.index(move) if move >= 0 else -1)

    def _record(self, x: int, o: int, state: int, move: int) -> None:
        key, perm = self.images.of(x, o)
        self.settled[key] = (state, perm[move] if move >= 0 else -1)

    def winning_move(self, x: int, o: int) -> Optional[int]:
        """The cell the proof wins by at ``x``/``o`` (the attacker to move), if settled so."""
        state, move = self.lookup(x, o)
        return move if state == PROVEN and move >= 0 else None

    def refuting_move(self, x: int, o: int) -> Optional[int]:
        """The defender's cell after which the proof found the attacker cannot win, at
        ``x``/``o`` (the defender to move), if settled so (None: none known, e.g. a
        pairing settled it)."""
        state, move = self.lookup(x, o)
        return move if state == DISPROVEN and move >= 0 else None

    # ------------------------------------------------------------ the tree's callbacks
    def _child(self, x: int, o: int, cell: int) -> Key:
        ply = bin(x).count("1") + bin(o).count("1")
        return (x | 1 << cell, o) if ply % 2 == 0 else (x, o | 1 << cell)

    def _judgement(self, x: int, o: int) -> Judgement:
        """The judgement of ``x``/``o`` waiting for its expansion, judged again when a
        transposition took it."""
        j = self.waiting.get((x, o))
        if j is None:
            j = self.dfpn.judgement(x, o, self.images.of(x, o)[0]) or self.judge.judge(x, o)
            self.waiting[(x, o)] = j
        return j

    def _leaf_judgement(self, x: int, o: int) -> Judgement:
        """:meth:`_judgement` of a leaf being expanded: a defender's node that takes
        every move is cut by the zone of a win by threes after a pass if the judge
        finds one (:meth:`.big_threats.Judge.threat_zone`; asked once a node)."""
        j = self._judgement(x, o)
        if j.state == OPEN and not j.or_node and self.judge.zone_threes > 0 and (x, o) not in self.zones_asked:
            self.zones_asked.add((x, o))
            cut = self.judge.threat_zone(x, o, j)
            if cut is not None:
                j = self.waiting[(x, o)] = cut
        return j

    def _expand(self, node: PnNode) -> Expansion:
        j = self._leaf_judgement(node.x, node.o)
        del self.waiting[(node.x, node.o)]
        if j.state != OPEN:
            return j.state
        out: list[tuple[int, int, int]] = []
        for cell in self.judge.ordered(node.x, node.o, j.cells):
            child = self._child(node.x, node.o, cell)
            state = self.lookup(*child)[0]
            if state != OPEN:
                pn, dn = (0, INF) if state == PROVEN else (INF, 0)
            else:   # (a df-pn's numbers, else the judgement's first ones)
                got = self.waiting.get(child)
                pn, dn = self.dfpn.numbers(self.images.of(*child)[0]) or (got.numbers if got is not None else (1, 1))
            out.append((cell, pn, dn))
        return out

    def _state_of(self, node: PnNode) -> int:
        return self.lookup(node.x, node.o)[0]

    def _settle(self, node: PnNode, proven: bool) -> int:
        move = -1
        if proven == node.or_node:   # (the attacker's winning move, the defender's refutation)
            assert node.children is not None
            move = next(c.cell for c in node.children if c.state == (PROVEN if proven else DISPROVEN))
        state = PROVEN if proven else DISPROVEN
        self._record(node.x, node.o, state, move)
        return state

    def _job(self, node: PnNode, stop: Callable[[], bool]) -> Optional[tuple[int, int, int]]:
        """Judge every move of the leaf ``node`` (one child per key up to symmetry):
        ``(found, pn, dn)`` as :meth:`PnTree.end_job` takes them (a leaf its children
        settle is settled here, with its winning move), None when stopped midway."""
        j = self._leaf_judgement(node.x, node.o)
        if j.state != OPEN:   # (a transposition settled at once: as if its children did)
            del self.waiting[(node.x, node.o)]
            self._record(node.x, node.o, j.state, j.move)
            return (1 if j.state == PROVEN else 0), *j.numbers
        children = self._distinct_children(node, j.cells)
        self._listed.pop((node.x, node.o, j.cells), None)
        settling = PROVEN if node.or_node else DISPROVEN
        for cell, child, key in children:   # (a child settled already settles the leaf: no search before it)
            if self.settled.get(key, (OPEN, -1))[0] == settling:
                self.waiting.pop((node.x, node.o))
                self._record(node.x, node.o, settling, cell)
                return (1, 0, INF) if node.or_node else (0, INF, 0)
        nums = []
        for cell, child, key in children:
            state = self.settled.get(key, (OPEN, -1))[0]
            if state == OPEN and child not in self.waiting:
                if stop():
                    return None
                got = self.judge.judge(*child)
                if got.state == OPEN:
                    self.waiting[child] = got
                else:
                    self._record(*child, got.state, got.move)
                    state = got.state
            if state == PROVEN and node.or_node:
                self.waiting.pop((node.x, node.o))
                self._record(node.x, node.o, PROVEN, cell)
                return 1, 0, INF
            if state == DISPROVEN and not node.or_node:
                self.waiting.pop((node.x, node.o))
                self._record(node.x, node.o, DISPROVEN, cell)
                return 0, INF, 0
            nums.append((0, INF) if state == PROVEN else (INF, 0) if state == DISPROVEN else
                        self.waiting[child].numbers)
        if node.or_node:
            pn, dn = min((p for p, _ in nums), default=INF), min(INF, sum(d for _, d in nums))
        else:
            pn, dn = min(INF, sum(p for p, _ in nums)), min((d for _, d in nums), default=INF)
        if pn == 0 or dn == 0:   # (every child settled the other way)
            self.waiting.pop((node.x, node.o))
            self._record(node.x, node.o, PROVEN if pn == 0 else DISPROVEN, -1)
            return (1 if pn == 0 else 0), pn, dn
        return -1, pn, dn

    def _dfpn_job(self, node: PnNode, stop: Callable[[], bool]) -> Optional[tuple[int, int, int]]:
        """df-pn below the leaf ``node`` for about :attr:`dfpn_nodes` nodes:
        ``(found, pn, dn)`` as :meth:`PnTree.end_job` takes them, None when ``stop()``
        stopped it midway (what it settled is kept)."""
        state, pn, dn = self.dfpn.run(node.x, node.o, self.dfpn_nodes, stop)
        if state != OPEN:
            self.waiting.pop((node.x, node.o), None)
            return (1 if state == PROVEN else 0), pn, dn
        return None if self.dfpn.stopped else (-1, pn, dn)

    # ------------------------------------------------------------ the proof
    def _start(self) -> PnTree:
        """The tree, made at the first run (the root judged first: :attr:`answer`
        set when that settles it)."""
        if self.tree is not None:
            return self.tree
        pos = self.position
        x, o = pos.x, pos.o
        state = self.lookup(x, o)[0]
        j = self.judge.judge(x, o) if state == OPEN else Judgement(state, True)
        or_node = (pos.ply % 2 == 0) == (self.attacker == "x")
        self.tree = PnTree(x, o, pos.ply, or_node, self._expand, self._state_of, lambda node: -1, self._settle,
                           open_depth=0, key_of=lambda a, b: self.images.of(a, b)[0], zone_wait=False,
                           stick=current().BIG_PN_TREE_EPS)
        if j.state != OPEN:
            if state == OPEN:
                self._record(x, o, j.state, j.move)
            self.answer = j.state == PROVEN
        else:
            self.waiting[(x, o)] = j
        return self.tree

    def run(self, stop: Callable[[], bool], status: Callable[[str], None]) -> Optional[bool]:
        """Prove or disprove the question until ``stop()`` says so: True, False, None
        (stopped; a later call goes on where this one stopped)."""
        tree = self._start()
        if self.answer is not None:
            return self.answer
        while tree.root.state == OPEN:
            if stop():
                return None
            leaf = tree.select()
            if leaf is None and tree.root.state != OPEN:   # (settled by an expansion on the way)
                break
            if leaf is None:
                raise MnkError("the proof's tree has no open leaf (an internal error)")
            tree.begin_job(leaf)
            got = self._dfpn_job(leaf, stop) if self.dfpn_nodes > 0 else self._job(leaf, stop)
            if got is None:
                tree.end_job(leaf, -2, 1, 1)
                return None
            self.jobs += 1
            self.judged_leaves += self.dfpn_nodes == 0
            tree.end_job(leaf, *got)
            status(self.status())
        self.answer = tree.root.state == PROVEN
        return self.answer

    def run_on(self, backend: Backend, stop: Callable[[], bool], status: Callable[[str], None],
               pause: Callable[[], bool] = lambda: False) -> Optional[bool]:
        """:meth:`run` with the judgements on ``backend``'s workers: True, False, None
        (stopped: by ``stop()``, the running jobs stopped and dropped, their leaves open
        again; by ``pause()``, no more jobs handed out, the running ones taken in). Each
        worker judges a leaf's moves (:class:`.big_pn_pool.JudgePool`); with
        ``BIG_PN_POOL_DFPN`` and df-pn jobs (:attr:`dfpn_nodes`), the search stays here
        and each node it expands has its moves judged on the workers at once
        (:class:`.big_pn_pool.BatchJudge`)."""
        tree = self._start()
        if self.answer is not None:
            return self.answer
        if self.dfpn_nodes > 0 and current().BIG_PN_POOL_DFPN:
            batch = self.dfpn.batch = BatchJudge(self, backend)
            try:
                return self.run(lambda: stop() or pause(), status)
            finally:
                batch.finish()
                self.dfpn.batch = None
        # from BIG_PN_BUSY_PROVES workers, a job under way counts as its leaf's proof first (pn_tree): the spare
        # workers take the defender's other moves rather than ever more attacker's moves
        tree.busy_proves = backend.n >= current().BIG_PN_BUSY_PROVES
        if JudgePool(self, tree, backend).run(stop, status, pause):
            self.answer = tree.root.state == PROVEN
        return self.answer

    def take(self, positions: tuple, judgements: tuple) -> None:
        """A job's judgements (``(state, move, cells, count, zone)`` of each of
        ``positions``, in order; fewer when it ended early): open ones wait for their
        expansion, the others are settled."""
        for (x, o), (state, move, cells, count, zone) in zip(positions, judgements):
            if self.lookup(x, o)[0] != OPEN:
                continue
            if state == OPEN:
                self.waiting[(x, o)] = Judgement(state, (bin(x).count("1") == bin(o).count("1")) ==
                                                 (self.attacker == "x"), move, cells, count, zone)
            else:
                self._record(x, o, state, move)

    def expand_judged(self, leaf: PnNode) -> tuple[int, int, int]:
        """:meth:`_job` of a leaf whose moves are all judged (no search here)."""
        got = self._job(leaf, lambda: False)
        assert got is not None
        self.jobs += 1
        self.judged_leaves += 1
        return got

    def to_judge(self, node: PnNode) -> list[Key]:
        """The moves of the leaf ``node`` whose judgement :meth:`_job` would make
        (one per key up to symmetry, not settled, not waiting); none when the leaf's
        own judgement settles it."""
        j = self._leaf_judgement(node.x, node.o)
        if j.state != OPEN:
            return []
        return [child for _, child, key in self._distinct_children(node, j.cells)
                if self.settled.get(key, (OPEN, -1))[0] == OPEN and child not in self.waiting]

    def _distinct_children(self, node: PnNode, cells: int) -> list[tuple[int, Key, Key]]:
        """``(cell, child, key)`` of the moves ``cells`` of ``node``, by cell, one per
        key up to symmetry (the first cell of each); listed once for a leaf's hand-out
        and its expansion (at most ``LISTED_KEPT`` leaves kept)."""
        got = self._listed.get((node.x, node.o, cells))
        if got is None:
            got, keys = [], set()
            for cell, key in self.images.after(node.x, node.o, cells):
                if key not in keys:
                    keys.add(key)
                    got.append((cell, self._child(node.x, node.o, cell), key))
            if len(self._listed) >= LISTED_KEPT:
                self._listed.clear()
            self._listed[(node.x, node.o, cells)] = got
        return got

    @property
    def expansions(self) -> int:
        """The nodes this question has expanded, its moves judged: by jobs of
        judgements (here or on the workers) and by df-pn (the share of effort its
        slices count: ``BIG_PN_SLICE_EXPANSIONS``)."""
        return self.judged_leaves + self.dfpn.expanded

    @property
    def nodes(self) -> int:
        """The threat searches' nodes and the positions judged, here and on the workers."""
        return self.judge.nodes + self.remote_nodes

    def status(self) -> str:
        """The progress line: nodes, the tree, the root's moves settled."""
        tree = self.tree
        if tree is None:
            return f"{self.attacker} wins? {self.nodes / 1e6:.1f} M nodes"
        root = tree.root
        moves = "root not split yet"
        if root.children is not None:
            done = sum(1 for c in root.children if c.state != OPEN)
            moves = f"root moves {done} settled of {len(root.children)}"
        return (f"{self.attacker} wins? {self.nodes / 1e6:.1f} M nodes, {self.jobs} jobs, {tree.nodes:,} tree nodes, "
                f"{len(self.settled):,} settled, {moves}, root pn {root.pn} dn {root.dn}")

    def line(self, first: int) -> list[int]:
        """A line of the proven win from the root, ``first`` its first cell: the
        proof's winning moves (where the tree ends, the attacker's win by fours or
        threats) and, for the defender, its first move needing proof (where every
        move loses: a block of the attacker's win in one, else the search's first)."""
        walk = self.position.copy()
        out: list[int] = []
        cell: Optional[int] = first
        search = self.judge.search
        while cell is not None and cell >= 0:
            out.append(cell)
            walk.push(walk.move_of_cell(cell))
            if walk.is_game_over():
                break
            x, o = walk.x, walk.o
            j = self.judge.judge(x, o)
            if j.or_node:
                cell = self.winning_move(x, o)
                if cell is None:
                    cell = j.move if j.state == PROVEN else search.threat_win(x, o, current().BIG_VCT_NODES)
            elif j.state == OPEN:
                moves = self.judge.ordered(x, o, j.cells)
                cell = moves[0] if moves else None
            else:   # (every move loses: a block of the attacker's win in one, else the search's first)
                cell = search.first_choice(x, o)
        return out
