"""Proofs whose workers keep replicas of the settled store (engines/provers/pn_replica.py
ReplicaSearcher, parallel/scheduling/store_log.py; the Ray backend's way, here on the
process pool by the setting PN_REPLICAS): the merge kernel against a plain-Python
reference, the log's chunks, a delta whose zone does not nest refused with every later
one of its searcher until it resets, a replica that meets a disagreeing entry resetting
itself, and whole proofs with the values of naive.py and certificates the checker
verifies. The same proofs on Ray: tests/test_cluster.py.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from checks import random_positions
from naive import naive_score

from parallel_mnk import GameSpec, Options, solve
from parallel_mnk.engines.provers.pn_replica import ReplicaSearcher, merge_rows, settled_rows
from parallel_mnk.engines.provers.pns import PnProver, PnRules, new_store, write_certificate
from parallel_mnk.game.position import Position
from parallel_mnk.game.rules import MnkError, Value
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.pns import layout as PL
from parallel_mnk.parallel.scheduling.store_log import StoreLog
from parallel_mnk.parallel.uses.pn_coordinator import CoordinatorKernels
from parallel_mnk.proofcheck import check_file
from parallel_mnk.runtime import families

BITS = 8   # a store of 256 entries
W = PL.ST_WORDS


def _row(key: int, value: int = 1, move: int = 3, zone: int = 0, aux: int = 0, pairing: int = 0) -> list[int]:
    """An entry's row: its tag (odd), info (value, kind 0, move, the pairing's offset), zone, aux."""
    return [key | 1, value | (move + 1) << 8 | pairing << 16, zone, aux]


def _rows(*rows: list[int]) -> np.ndarray:
    return np.array([w for r in rows for w in r], dtype=np.uint64)


def _entries(st: np.ndarray, bits: int) -> dict[int, tuple[int, int, int]]:
    """key tag -> (info without the pairing's offset, zone, aux) of a store, in plain Python."""
    out = {}
    for i in range(1 << bits):
        if int(st[i * W]) & 1:
            out[int(st[i * W])] = (int(st[i * W + 1]) & 0xFFFF, int(st[i * W + 2]), int(st[i * W + 3]))
    return out


def test_merge_takes_new_keys_keeps_stored_ones_and_refuses_a_zone_that_does_not_nest():
    """Against a dict: random deltas into a store holding random entries. A delta row of
    a stored key agrees when the stored zone lies within its own (its ancestors hold with
    the stored entry) whatever its move, walked moves or pairing; one row whose zone does
    not hold the stored one gets the delta refused whole (nothing written); a different
    value is an error (two searches disagree)."""
    K = families.pns_kernels()
    rng = random.Random(7)
    for trial in range(40):
        st = new_store(BITS)
        keys = [rng.getrandbits(63) << 1 for _ in range(60)]
        first = [_row(k, rng.choice([1, 2]), rng.randrange(9), rng.getrandbits(16), rng.getrandbits(4)) for k in keys[:30]]
        assert len(merge_rows(K, st, BITS, _rows(*first), None)) == 30 * W
        expect = {r[0]: (r[1] & 0xFFFF, r[2], r[3]) for r in first}
        assert _entries(st, BITS) == expect
        agreeing = [list(r) for r in rng.sample(first, 6)]
        agreeing[0][1] ^= 5 << 16               # another pairing offset
        agreeing[1][1] ^= 1 << 8                # another move
        agreeing[2][3] ^= 1                     # other moves walked first
        agreeing[3][2] |= 1 << 20               # a larger zone
        new = [_row(k, 2, 1, rng.getrandbits(16)) for k in keys[30:]]
        delta = agreeing + new
        rng.shuffle(delta)
        stored = [r for r in delta if r[0] in expect and expect[r[0]][1]]
        bad = [list(r) for r in delta]
        j = bad.index(rng.choice(stored))
        zone = expect[bad[j][0]][1]
        bad[j][2] &= ~(zone & -zone)   # a zone without one of the stored zone's cells
        before = st.copy()
        assert merge_rows(K, st, BITS, _rows(*bad), None) is None
        assert np.array_equal(st, before), "a refused delta wrote"
        added = merge_rows(K, st, BITS, _rows(*delta), None)
        assert added is not None and sorted(added[::W].tolist()) == sorted(r[0] for r in new), "not the new rows"
        expect.update({r[0]: (r[1] & 0xFFFF, r[2], r[3]) for r in new})
        assert _entries(st, BITS) == expect, "a stored entry was changed, or a new one is missing"
        other = [list(rng.choice(first))]
        other[0][1] ^= 3   # proven <-> disproven
        with pytest.raises(MnkError, match="different values"):
            merge_rows(K, st, BITS, _rows(*other), None)


def test_merge_copies_pairings_to_the_stores_pool_and_says_full():
    """A row's pairing (count, then pair masks) is copied from the delta's pool to the
    store's, its offset changed; the store's own pairings stay; a full store is an error."""
    K = families.pns_kernels()
    st = new_store(BITS)
    base = W << BITS
    st[base] = 4   # three words of the store's pool in use already
    st[base + 1:base + 4] = [2, 0x11, 0x22]
    pool = np.array([6, 1, 0xA, 3, 0xB, 0xC, 0xD], dtype=np.uint64)   # pairings at 1 (one pair) and 3 (three)
    rows = _rows(_row(2, 2, 0, pairing=3), _row(4, 2, 0, pairing=1), _row(6, 1, 2))
    assert merge_rows(K, st, BITS, rows, pool) is not None
    where = {int(st[i * W]): int(st[i * W + 1]) >> 16 for i in range(1 << BITS) if int(st[i * W]) & 1}
    assert where[7] == 0
    assert st[base + where[3]:base + where[3] + 4].tolist() == [3, 0xB, 0xC, 0xD]
    assert st[base + where[5]:base + where[5] + 2].tolist() == [1, 0xA]
    assert st[base + 1:base + 4].tolist() == [2, 0x11, 0x22] and int(st[base]) == 4 + 4 + 2
    full = _rows(*[_row(k << 1) for k in range(1, (1 << BITS) + 2)])
    with pytest.raises(MnkError, match="full"):
        merge_rows(K, new_store(BITS), BITS, full, None)


def test_the_log_hands_out_few_chunks_that_replay_every_addition():
    """A binary counter of chunks: after n additions at most log2(n) + 1 chunks,
    consecutive, whose rows are the additions in order; a chunk's starts give each
    addition's first row (a replica past part of a chunk takes the rest only)."""
    log = StoreLog(lambda value: value)
    additions = []
    for n in range(1, 200):
        rows = np.arange(4 * (n % 5 + 1), dtype=np.uint64) + 1000 * n
        additions.append(rows)
        log.add(rows)
        log.add(np.zeros(0, dtype=np.uint64))   # (nothing: no addition)
        chunks = log.handed_out()
        assert len(chunks) <= n.bit_length() + 1 and log.additions == n
        assert [c[0] for c in chunks] == [0] + [c[1] + 1 for c in chunks[:-1]] and chunks[-1][1] == n - 1
    for first, last, (rows, starts) in log.handed_out():
        for a in range(first, last + 1):
            at = int(starts[a - first]) * W
            assert np.array_equal(rows[at:at + len(additions[a])], additions[a])


def _replica(spec: GameSpec) -> ReplicaSearcher:
    return ReplicaSearcher(spec, 12345, 12, BITS, PnRules())


def test_a_replica_takes_what_it_lacks_and_resets_on_a_disagreement():
    spec = GameSpec(4, 4, 3)
    r = _replica(spec)
    log = StoreLog(lambda value: value)
    log.add(_rows(_row(2), _row(4)))
    log.add(_rows(_row(6, 2, 1, zone=0b1010)))
    assert r.sync(log.handed_out(), lambda h: h) and r.synced == 1
    assert set(_entries(r.replica, BITS)) == {3, 5, 7}
    log.add(_rows(_row(8)))
    assert r.sync(log.handed_out(), lambda h: h) and r.synced == 2 and len(_entries(r.replica, BITS)) == 4
    log.add(_rows(_row(6, 2, 4, zone=0b0010)))   # (the store's zone within the replica's: the replica's holds)
    assert r.sync(log.handed_out(), lambda h: h) and r.synced == 3
    log.add(_rows(_row(6, 2, 1, zone=0b0110)))   # (the store's zone not within the replica's)
    assert not r.sync(log.handed_out(), lambda h: h)
    pt = r.prover.pt.reshape(-1, PL.PT_WORDS)
    pt[0] = [5, 3 | 4 << 30 | 1 << 60, 0, 9]        # an open node's numbers (evaluated): kept
    pt[1] = [7, 0 | PL.INF << 30, 0, 9]               # a proven node: forgotten
    pt[2] = [11, PL.INF | 0 << 30 | 1 << 60, 6, 9]    # a disproven one: forgotten
    r.reset()
    assert r.epoch == 1 and r.synced == -1 and not r.replica.any()
    assert pt[0].tolist() == [5, 3 | 4 << 30 | 1 << 60, 0, 9] and not pt[1:].any()


def test_a_refused_searcher_is_refused_until_it_resets():
    """The coordinator's side: a delta that disagrees with the store is refused, and
    every later one of the same searcher at that epoch; past it, taken."""
    spec = GameSpec(4, 4, 3)
    store = new_store(BITS)
    kernels = CoordinatorKernels(spec, 1, store, BITS, PnRules(), replicated=True)
    log = StoreLog(lambda value: value)
    assert kernels.merge(_rows(_row(2, 2, 1, zone=3)), np.zeros(1, dtype=np.uint64))
    assert not kernels.merge(_rows(_row(4), _row(2, 2, 1, zone=5)), np.zeros(1, dtype=np.uint64))
    assert kernels.merge(_rows(_row(8), _row(2, 2, 6, zone=7)), np.zeros(1, dtype=np.uint64))
    assert kernels.pending[-1][::W].tolist() == [9], "the log must get what the store took (one entry a key)"
    assert _entries(store, BITS) == {3: (2 | 2 << 8, 3, 0), 9: (1 | 4 << 8, 0, 0)}
    log.refuse("w1", 0)
    assert not log.accepts("w1", 0) and log.accepts("w1", 1) and log.accepts("w2", 0)
    assert log.resets() == {"w1": 0}
    r = _replica(spec)
    r.token = "w1"
    r.run(0, 0, 0, True, 64, np.zeros(L.CTL_SIZE, dtype=np.int64), log.handed_out(), log.resets(), lambda h: h)
    assert r.epoch == 1, "asked to reset, it did not"


@pytest.mark.parametrize("workers", [1, 3])
def test_replicated_proofs_give_naive_values(workers, use_settings):
    """Jobs of 2^7 nodes (many, so that workers settle the same nodes and deltas are
    refused), values as naive.py's on random positions of small boards."""
    use_settings(PN_JOB_NODES=1 << 7, PN_REPLICAS=True)
    opts = Options(workers=workers, prover="pn")
    for spec, stones in ((GameSpec(5, 5, 4), (13, 15)), (GameSpec(6, 4, 4), (12, 14)), (GameSpec(4, 4, 3), (4, 7))):
        for pos in random_positions(spec, 4, stones, seed=73 + workers, quiet=True):
            r = solve(pos, weak=True, options=opts)
            score = naive_score(spec, pos.x, pos.o)
            assert r.value == (Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW), pos.board_text()
            assert r.parallel["replicas"] is True


def test_refused_jobs_run_again_on_a_reset_searcher(tmp_path, use_settings, monkeypatch):
    """Every searcher's first delta refused (as if another had settled one of its nodes
    otherwise): the job's leaf is open again, the searcher resets before its next job,
    and the proof ends with the value alpha-beta gives and a certificate that verifies."""
    use_settings(PN_JOB_NODES=1 << 6, PN_REPLICAS=True)
    seen: set[str] = set()
    merge = CoordinatorKernels.merge

    def refuse_first(self, rows, pool):
        return merge(self, rows, pool) if seen else bool(seen.add("refused"))
    monkeypatch.setattr(CoordinatorKernels, "merge", refuse_first)
    resets = []
    reset = ReplicaSearcher.reset
    monkeypatch.setattr(ReplicaSearcher, "reset", lambda self: (resets.append(self.epoch), reset(self)))
    pos = Position.from_moves(GameSpec(6, 5, 4), "c3 d3")
    r = solve(pos, weak=True, options=Options(workers=1, prover="pn", certificate=tmp_path))
    assert r.parallel["refused"] == 1 and resets == [0]
    assert r.value == solve(pos, weak=True, options=Options(workers=1, prover="search")).value
    files = sorted(tmp_path.glob("*.jsonl.xz"))
    assert files and all(check_file(f).claim in ("wins", "cannot-win") for f in files)


def test_replicated_proof_certificates_verify(tmp_path, use_settings):
    """The empty (5,5,4) replicated on 3 workers with small jobs (many, some refused): the
    certificate written from the merged store verifies (a win's: the test above)."""
    use_settings(PN_JOB_NODES=1 << 7, PN_REPLICAS=True)
    r = solve(Position(GameSpec(5, 5, 4)), weak=True, options=Options(workers=3, prover="pn", certificate=tmp_path))
    assert r.value == Value.DRAW and r.parallel["jobs"] > 20
    assert [check_file(f).claim for f in sorted(tmp_path.glob("*.jsonl.xz"))] == ["cannot-win"]


def test_a_full_job_store_is_one_error_naming_its_setting(use_settings):
    """A job that settles more nodes than its own store holds (2^12 entries here): the
    proof stops with an error naming the setting to raise (its delta would be cut short)."""
    use_settings(PN_REPLICAS=True, PN_JOB_STORE_BITS=12)
    with pytest.raises(MnkError, match="PN_JOB_STORE_BITS"):
        solve(Position(GameSpec(4, 7, 4)), weak=True, options=Options(workers=2, prover="pn"))


def _job(r: ReplicaSearcher, pos: Position, budget: int, news):
    """A job of ``budget`` nodes on ``pos`` (the side to move attacking) with an empty log."""
    return r.run(pos.x, pos.o, pos.ply, True, budget, np.zeros(L.CTL_SIZE, dtype=np.int64), (), {}, lambda h: h,
                 news)


# (o to move; a job of o's question settles it in 93 nodes, 88 entries; naive.py reaches it)
SLICED = "....o/....x/x..xo/o.o.x/.x.xo"


def test_a_job_takes_the_posted_log_between_its_slices(use_settings):
    """With slices of 16 nodes, the log the coordinator posted after the job started is
    in the replica once the job ends (taken between slices, not at the next job's start),
    and ``synced`` counts it; with nothing posted a sliced job settles its node as one
    slice of the whole budget does (the value of naive.py)."""
    spec = GameSpec(5, 5, 4)
    pos = Position.from_board(spec, SLICED)
    use_settings(PN_REPLICA_SYNC_NODES=1 << 30, PN_JOB_STORE_BITS=14)
    a, _, _ = _job(ReplicaSearcher(spec, 12345, 16, 14, PnRules()), pos, 1 << 20, lambda: None)
    use_settings(PN_REPLICA_SYNC_NODES=16, PN_JOB_STORE_BITS=14)
    b, _, _ = _job(ReplicaSearcher(spec, 12345, 16, 14, PnRules()), pos, 1 << 20, lambda: None)
    assert a.nodes > 32 and a.found >= 0 and b.found == a.found == int(naive_score(spec, pos.x, pos.o) > 0)
    assert b.stats["synced"] == 0
    log = StoreLog(lambda value: value)
    calls = []

    def news():
        calls.append(len(calls))
        if len(calls) == 1:   # (posted once the job ran its first slice)
            log.add(_rows(_row(2 << 40), _row(4 << 40)))
            return log.handed_out()
        return None
    r = ReplicaSearcher(spec, 12345, 16, 14, PnRules())
    out, _, _ = _job(r, pos, 1 << 20, news)
    assert calls and out.stats["synced"] == 1 and r.synced == 0
    assert {(2 << 40) | 1, (4 << 40) | 1} <= set(_entries(r.replica, 14))


def test_a_job_meeting_an_addition_that_refutes_its_own_entry_starts_again(tmp_path, use_settings, monkeypatch):
    """A posted addition of a key the job settled, whose zone is not within the job's
    (the coordinator would refuse the job's delta): the job forgets what it settled and
    goes on; its delta then agrees with the store (merged, not refused), its answer is
    naive.py's, and the store with its delta merged certifies it (nothing it rests on was
    forgotten)."""
    use_settings(PN_REPLICA_SYNC_NODES=16, PN_JOB_STORE_BITS=14)
    K = families.pns_kernels()
    spec = GameSpec(5, 5, 4)
    pos = Position.from_board(spec, SLICED)
    r = ReplicaSearcher(spec, 12345, 16, 14, PnRules())
    log = StoreLog(lambda value: value)
    posted = []   # (the rows, their pool)

    def news():
        if posted:
            return None
        rows, pool = settled_rows(K, r.prover.st, 14)   # (what the job settled so far, as if another job had)
        table = rows.reshape(-1, W)
        plain = [i for i in range(len(table)) if int(table[i, 1]) >> 16 == 0]   # (no pairing: its zone is changed)
        if not plain:
            return None
        free = ~int(table[plain[0], 2]) & ((1 << 25) - 1)
        table[plain[0], 2] |= np.uint64(free & -free)   # one cell more in its zone: not within the job's
        posted.append((rows, pool))
        log.add(rows)
        return log.handed_out()
    forgotten = []   # (the table's settled entries forgotten too: they may rest on what the job forgets)
    forget = ReplicaSearcher._forget_settled
    monkeypatch.setattr(ReplicaSearcher, "_forget_settled", lambda self: (forgotten.append(self), forget(self)))
    out, rows, pool = _job(r, pos, 1 << 20, news)
    assert posted, "nothing settled after a slice: the test's position is too easy"
    assert out.stats["restarts"] == 1 and forgotten == [r] and out.found == int(naive_score(spec, pos.x, pos.o) > 0)
    store = new_store(14)
    assert merge_rows(K, store, 14, *posted[0]) is not None
    assert merge_rows(K, store, 14, rows, pool) is not None, "the restarted job's delta disagrees with the store"
    prover = PnProver(spec, 12, 14, PnRules())   # (the store as the coordinator's after the merge: it certifies)
    prover.ctx[L.C_SALT] = 12345
    prover.st, prover.wk[PL.W_ST_MASK] = store, (1 << 14) - 1
    prover.ss, prover.wk[PL.W_SS_MASK] = np.zeros(W, dtype=np.uint64), 0
    cert = write_certificate(prover, store, pos, "o", bool(out.found), tmp_path, out.nodes, 0.0, False)
    assert check_file(cert).claim == ("wins" if out.found else "cannot-win")


def test_jobs_kept_in_step_give_naive_values_and_certificates_that_verify(tmp_path, use_settings):
    """Replicas on 3 threads with jobs of 2^7 nodes taking the posted log every 2^3:
    naive.py's values on random positions of small boards; the empty (5,5,4), whose jobs
    took the store's additions while they ran, a draw with a certificate that verifies."""
    use_settings(PN_JOB_NODES=1 << 7, PN_REPLICAS=True, PN_REPLICA_SYNC_NODES=1 << 3)
    opts = Options(workers=3, prover="pn", backend="thread")
    for spec, stones in ((GameSpec(5, 5, 4), (13, 15)), (GameSpec(6, 4, 4), (12, 14)), (GameSpec(4, 4, 3), (4, 7))):
        for pos in random_positions(spec, 4, stones, seed=91, quiet=True):
            r = solve(pos, weak=True, options=opts)
            score = naive_score(spec, pos.x, pos.o)
            assert r.value == (Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW), pos.board_text()
    r = solve(Position(GameSpec(5, 5, 4)), weak=True,
              options=Options(workers=3, prover="pn", backend="thread", certificate=tmp_path))
    assert r.value == Value.DRAW and r.parallel["synced"] > 0
    assert [check_file(f).claim for f in sorted(tmp_path.glob("*.jsonl.xz"))] == ["cannot-win"]
