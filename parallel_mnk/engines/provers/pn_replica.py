"""A parallel proof's searcher on a *replica* of the question's settled store
(:class:`ReplicaSearcher`: the Ray backend's workers, which may run on other
machines, or the setting ``PN_REPLICAS``), and how two stores meet: a store's
entries as rows (:func:`settled_rows`) merged into another (:func:`merge_rows`),
where a row of a stored key must agree with the stored entry (docs/proofs.md,
section 8, "On Ray").
"""
from __future__ import annotations

import os
import socket
from collections import Counter
from types import ModuleType
from typing import Callable, Optional

import numpy as np

from ...api.settings import current
from ...game.rules import GameSpec, MnkError
from ...kernels.core import layout as L
from ...kernels.pns import layout as PL
from .pns import JobOutcome, PnProver, PnRules, new_store, run_job

NO_POOL = np.zeros(1, dtype=np.uint64)   # the pool argument of a merge that copies no pairing


def settled_rows(kernels: ModuleType, st: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The entries of the store ``st`` (``2**bits`` slots) as rows of ``ST_WORDS`` words
    (``export_entries``), and the used part of its pairing pool (its word 0 the next
    free offset): what :func:`merge_rows` takes."""
    mask = np.uint64((1 << bits) - 1)
    rows = np.zeros(int(kernels.count_entries(st, mask)) * PL.ST_WORDS, dtype=np.uint64)
    kernels.export_entries(st, mask, rows)
    base = PL.ST_WORDS << bits
    return rows, st[base:base + max(1, int(st[base]))].copy()


def merge_rows(kernels: ModuleType, st: np.ndarray, bits: int, rows: np.ndarray, pool: Optional[np.ndarray],
               replica: bool = False) -> Optional[np.ndarray]:
    """Merge ``rows`` (:func:`settled_rows`) into the store ``st`` (``2**bits`` slots;
    no other writer meanwhile): the rows that went in (the others' keys were stored);
    None, and nothing written, when one of them disagrees
    with the stored entry of its key (``merge_entries``: its zone does not nest in the
    stored one's way, the stored within the row's; ``replica``: the other way, the
    row being the coordinator's and the stored entry the replica's own); the pairings
    copied from ``pool`` (None: not copied, the offsets kept: a store whose pool is
    never read). :class:`MnkError` when the store is full, or when a row's value
    differs from the stored one's (two searches of one position disagree: a bug)."""
    mask = np.uint64((1 << bits) - 1)
    n = len(rows) // PL.ST_WORDS
    if n == 0:
        return rows
    rows = np.array(rows, dtype=np.uint64)   # (a copy: the merge marks rows; Ray's arrays are read-only)
    pool = None if pool is None else np.require(pool, np.uint64, ["C", "W"])
    found = int(kernels.merge_entries(st, mask, rows, n, NO_POOL, 0, 2 if replica else 1))
    if found < -1 and found % 2 == 1:
        raise MnkError("two searches settled one position with different values (an internal error)")
    if found < -1:
        return None
    if found > 0 and int(kernels.merge_entries(st, mask, rows, n, NO_POOL if pool is None else pool,
                                               int(pool is not None), 0)) < 0:
        found = -1
    if found == -1:
        raise MnkError(f"a settled store of 2**{bits} entries is full: give a bigger table (--tt-size)")
    table = rows.reshape(-1, PL.ST_WORDS)
    return table[table[:, 0] != 0].reshape(-1) if found > 0 else rows[:0]


class ReplicaSearcher:
    """A worker's searcher of one question of a parallel proof that does not map the
    question's store (the Ray backend, or the setting ``PN_REPLICAS``), kept from job to
    job: its own table, a *replica* of the coordinator's store that it reads first, kept
    in step by the coordinator's log of the entries its store took
    (:mod:`parallel_mnk.parallel.scheduling.store_log`), and for each job a store of its
    own that takes what the job settles: the job's *delta*, sent back with its answer
    for the coordinator to merge (:func:`merge_rows`) and merged into the replica.

    The coordinator refuses a delta that disagrees with its store (another searcher
    settled one of its nodes first, with a zone not within this one's: the ancestors
    that used this one's might not hold) and every later one of this searcher's until
    it resets; ``token``
    names the searcher, ``epoch`` counts its resets. A reset clears table and replica
    (so nothing settled afterwards rests on a refused result); it comes when a job asks
    for it or when the log brings an entry whose zone is not within the replica's.

    A job runs in slices and takes the log the coordinator posted between them (kept in
    step while it runs); one that takes an entry its own delta would be refused for
    starts again (:meth:`run`)."""

    def __init__(self, spec: GameSpec, salt: int, tt_bits: int, store_bits: int, rules: PnRules) -> None:
        self.prover = PnProver(spec, tt_bits, store_bits, rules)
        p = self.prover
        p.ctx[L.C_SALT] = salt
        p.wk[PL.W_SHARED] = 1
        self.store_bits = store_bits
        self.replica = np.zeros(PL.ST_WORDS << store_bits, dtype=np.uint64)   # (entries only: no pool read)
        self.synced = -1   # the last addition of the log the replica holds
        self.token = f"{socket.gethostname()}/{os.getpid()}/{os.urandom(4).hex()}"
        self.epoch = 0

    def reset(self) -> None:
        """Forget every settled result: the table's settled entries (its numbers of open
        nodes stay: they only steer the search) and the replica cleared, the epoch counted."""
        self._forget_settled()
        self.replica = np.zeros_like(self.replica)
        self.synced = -1
        self.epoch += 1

    def _forget_settled(self) -> None:
        """Clear the table's settled entries (proof or disproof number 0)."""
        pt = self.prover.pt.reshape(-1, PL.PT_WORDS)
        nums = pt[:, 1] & ~np.uint64(1 << 60)   # (without the bit "evaluated": kernels/pns/search.py)
        inf = np.uint64(PL.INF)
        pt[(nums != 0) & (((nums & inf) == 0) | (((nums >> np.uint64(30)) & inf) == 0))] = 0

    def sync(self, log: tuple, fetch: Callable[[object], tuple[np.ndarray, np.ndarray]]) -> bool:
        """Take the log's additions this replica lacks (``log``: chunks ``(first, last,
        handle)``, ``fetch(handle)`` their ``(rows, starts)``: the row each addition
        starts at); False when one disagrees with the replica."""
        return self._take(log, fetch) is not None

    def _take(self, log: tuple, fetch: Callable[[object], tuple[np.ndarray, np.ndarray]]
              ) -> Optional[list[np.ndarray]]:
        """:meth:`sync`, giving the rows taken (None: a disagreement)."""
        K = self.prover.kernels
        taken = []
        for first, last, handle in log:
            if last <= self.synced:
                continue
            rows, starts = fetch(handle)
            part = rows[int(starts[max(0, self.synced + 1 - first)]) * PL.ST_WORDS:]
            if merge_rows(K, self.replica, self.store_bits, part, None, replica=True) is None:
                return None
            taken.append(part)
            self.synced = last
        return taken

    def _job_disagrees(self, rows: np.ndarray, bits: int) -> bool:
        """Whether a row of the coordinator's store disagrees with the job's own entry of
        its key (its zone not within the job's: the coordinator would refuse the job's
        delta, :func:`merge_rows`); nothing is written."""
        n = len(rows) // PL.ST_WORDS
        if n == 0:
            return False
        found = int(self.prover.kernels.merge_entries(self.prover.st, np.uint64((1 << bits) - 1),
                                                      np.array(rows, dtype=np.uint64), n, NO_POOL, 0, 2))
        if found < -1 and found % 2 == 1:
            raise MnkError("two searches settled one position with different values (an internal error)")
        return found < -1

    def run(self, x: int, o: int, ply: int, attacker_moves: bool, budget: int, ctl: np.ndarray, log: tuple,
            resets: dict[str, int], fetch: Callable[[object], tuple[np.ndarray, np.ndarray]],
            news: Callable[[], Optional[tuple]] = lambda: None) -> tuple[JobOutcome, np.ndarray, np.ndarray]:
        """Search the node ``(x, o)`` as :meth:`PnJobSearcher.run` does, after the resets
        asked (``resets``: token -> the epoch it must be past) and the log's new
        additions; returns the outcome and the job's delta ``(rows, pool)``.

        The search runs in slices of ``PN_REPLICA_SYNC_NODES`` nodes; between two,
        ``news()`` gives the log as the coordinator posted it last (None: nothing
        posted), and the replica takes what it lacks: what other jobs settled while
        this one ran. (Each slice starts again at the node, on the table's numbers.)
        An addition that disagrees with the replica ends the syncing for this job; the
        next job's start resets the replica."""
        if self.epoch <= resets.get(self.token, -1):
            self.reset()
        if not self.sync(log, fetch):
            self.reset()
            if not self.sync(log, fetch):
                raise MnkError("the store's log disagrees with itself (an internal error)")
        p = self.prover
        bits = current().PN_JOB_STORE_BITS
        p.st, p.ss = new_store(bits), self.replica
        p.wk[PL.W_ST_MASK] = (1 << bits) - 1
        p.wk[PL.W_SS_MASK] = (1 << self.store_bits) - 1
        outcome = self._slices(x, o, ply, attacker_moves, budget, ctl, fetch, news)
        rows, pool = settled_rows(p.kernels, p.st, bits)
        merge_rows(p.kernels, self.replica, self.store_bits, rows, None)   # (its own entries: none stored there)
        p.st = np.zeros(0, dtype=np.uint64)
        return outcome, rows, pool

    def _slices(self, x: int, o: int, ply: int, attacker_moves: bool, budget: int, ctl: np.ndarray,
                fetch: Callable[[object], tuple[np.ndarray, np.ndarray]],
                news: Callable[[], Optional[tuple]]) -> JobOutcome:
        """The job's search, slice by slice, the replica taking the posted log between
        two (:meth:`run`); the outcome of the whole job (nodes and counters summed,
        ``synced``: the additions taken between slices)."""
        p, step = self.prover, current().PN_REPLICA_SYNC_NODES
        bits = current().PN_JOB_STORE_BITS
        nodes, stats, in_step = 0, Counter[str](), True
        before = self.synced
        while True:
            out = run_job(p, x, o, ply, attacker_moves, min(step, budget - nodes), ctl)
            nodes += out.nodes
            stats.update(out.stats)
            if out.found >= 0 or out.stopped or nodes >= budget or out.nodes == 0:
                break
            log = news() if in_step else None
            taken = None if log is None else self._take(log, fetch)
            in_step = log is None or taken is not None
            if taken and any(self._job_disagrees(rows, bits) for rows in taken):
                # another job settled one of this job's nodes first, otherwise: this delta would be refused,
                # so the job starts again on what the store holds (its table's open numbers kept)
                p.st = new_store(bits)
                self._forget_settled()
                stats["restarts"] += 1
        stats["synced"] = max(0, self.synced - before)
        return JobOutcome(out.found, out.pn, out.dn, nodes, out.stopped, dict(stats))
