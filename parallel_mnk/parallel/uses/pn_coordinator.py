"""The coordinator's searcher of one question of a proof by jobs
(:mod:`.pn_jobs`): the prover's kernels on the question's store, which expand the
tree's nodes, read their settled state and zone, and settle the nodes their children
settle (:class:`CoordinatorKernels`).
"""
from __future__ import annotations

import numpy as np

from ...engines.provers.pn_replica import merge_rows, settled_rows
from ...engines.provers.pns import PnProver, PnRules, new_store
from ...game.rules import GameSpec
from ...kernels.core import layout as L
from ...kernels.pns import layout as PL
from ..scheduling.pn_tree import DISPROVEN, OPEN, PROVEN, Expansion, PnNode

SETTLE_BUDGET = 1 << 12   # nodes the coordinator's own search may take to settle a tree node its children settle
SCRATCH_BITS = 17   # with replicas: the store the coordinator's own kernels write, merged after each call


class CoordinatorKernels:
    """The coordinator's searcher of one question, on the question's store ``store``:
    its kernels expand the tree's nodes, read their settled state and zone, and
    settle them (writing their entries as any searcher does). With ``replicated``
    (the workers keep replicas: :class:`~...engines.provers.pn_replica.ReplicaSearcher`)
    nothing but this object writes the store: its kernels write a scratch store,
    merged into it after each call, and the jobs' deltas are merged by
    :meth:`merge`; every addition waits in :attr:`pending` for the log."""

    def __init__(self, spec: GameSpec, salt: int, store: np.ndarray, store_bits: int, rules: PnRules,
                 replicated: bool = False) -> None:
        self.prover = PnProver(spec, 16, store_bits, rules)
        self.store, self.store_bits, self.replicated = store, store_bits, replicated
        self.pending: list[np.ndarray] = []
        p = self.prover
        p.ctx[L.C_SALT] = salt
        p.wk[PL.W_SHARED] = 1
        self.plain()
        if replicated:
            p.st = new_store(SCRATCH_BITS)
            p.wk[PL.W_ST_MASK] = (1 << SCRATCH_BITS) - 1
            p.ss = store
            p.wk[PL.W_SS_MASK] = (1 << store_bits) - 1
        self.out = np.zeros(2 * L.MAX_CELLS, dtype=np.uint64)
        self.nodes = 0
        self.stored_before = 0   # entries it stored before its counters' last reset

    def plain(self) -> None:
        """The kernels on the store itself (a certificate is walked so)."""
        p = self.prover
        p.st, p.ss = self.store, np.zeros(PL.ST_WORDS, dtype=np.uint64)
        p.wk[PL.W_ST_MASK] = (1 << self.store_bits) - 1
        p.wk[PL.W_SS_MASK] = 0

    def _absorb(self) -> None:
        """Move what the kernels wrote to the scratch store into the store (replicated)."""
        if not self.replicated:
            return
        p = self.prover
        rows, pool = settled_rows(p.kernels, p.st, SCRATCH_BITS)
        if len(rows):
            added = merge_rows(p.kernels, self.store, self.store_bits, rows, pool)   # (read first: never refused)
            assert added is not None
            self.pending.append(added)
            p.st[:] = 0

    def merge(self, rows: np.ndarray, pool: np.ndarray) -> bool:
        """Merge a job's delta into the store (replicated): False, nothing merged,
        when it disagrees with the store."""
        added = merge_rows(self.prover.kernels, self.store, self.store_bits, rows, pool)
        if added is None:
            return False
        self.pending.append(added)   # (the log gets what the store took: one entry a key)
        return True

    @property
    def stored(self) -> int:
        """The store entries this searcher wrote."""
        return self.stored_before + int(self.prover.wk[PL.W_ST_USED])

    def _at(self, node: PnNode) -> tuple[int, int]:
        p = self.prover
        p.kernels.set_root_hashes(p.ctx, np.uint64(node.x), np.uint64(node.o), node.ply)
        return (node.x, node.o) if node.ply % 2 == 0 else (node.o, node.x)

    def expand(self, node: PnNode) -> Expansion:
        """The node's children ``(cell, pn, dn)``, or its state when its rules settle it."""
        p = self.prover
        own, opp = self._at(node)
        n = int(p.kernels.pns_expand(p.ctx, p.st, p.ss, p.wk, np.uint64(own), np.uint64(opp), node.ply,
                                     int(node.or_node), self.out))
        self._absorb()
        if n == -1:
            return PROVEN
        if n == -2:
            return DISPROVEN
        cells = self.out[:n].tolist()
        nums = self.out[n:2 * n].tolist()
        return [(c, w & PL.INF, (w >> 30) & PL.INF) for c, w in zip(cells, nums)]

    def lookup(self, node: PnNode) -> tuple[int, int, int]:
        """``(state, zone, move)`` of the node in the store (move -1: none)."""
        p = self.prover
        self._at(node)
        found = int(p.kernels.pns_settled(p.ctx, p.st, p.ss, p.wk, node.ply, self.out))
        if found < 0:
            return OPEN, 0, -1
        return (PROVEN if found == 1 else DISPROVEN), int(self.out[0]), int(self.out[1]) - 1

    def state_of(self, node: PnNode) -> int:
        return self.lookup(node)[0]

    def zone_of(self, node: PnNode) -> int:
        return self.lookup(node)[1]

    def settle(self, node: PnNode, proven: bool) -> int:
        """Settle a node its children settle, by the kernels' own rules (they find
        the children in the store): its entry. The state they reach."""
        p = self.prover
        own, opp = self._at(node)
        self.stored_before = self.stored
        p.reset_counters()
        p.wk[PL.W_SOFT_LIMIT] = SETTLE_BUDGET
        found = int(p.kernels.pns_search(p.ctx, p.pt, p.st, p.ss, p.wk, p.ctl, np.uint64(own), np.uint64(opp),
                                         node.ply, int(node.or_node), PL.INF, PL.INF))
        self.nodes += int(p.wk[PL.W_NODES])
        self._absorb()
        return OPEN if found < 0 else (PROVEN if found == 1 else DISPROVEN)
