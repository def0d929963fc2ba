"""The settled stores of the proof-number prover (layout: :mod:`.layout`): every
node settled, by its canonical key, with its value, its move, its zone and what its
record needs, written once and never replaced.

Why once: a certificate's record of a position and the zone its ancestors used
must agree (``docs/proof-format.md``, zones); a node proven again (its table entry
lost, or by another searcher) takes the stored result instead of its own, so that
every position has one record: the certificate is written from the store
(:mod:`.certificate_walk`). A searcher writes the store ``st`` (its own, or one every
searcher of the question shares in memory all their processes map) and reads
``ss`` first (may be empty). A slot is claimed with a compare-and-swap (empty ->
busy: ``ST_BUSY | writer << 2``, the writer's number from ``wk[W_WRITER]``), filled,
then published with its key, so that a reader in another process sees whole
entries; a reader that meets a busy slot waits for the key. A slot left busy by a
writer that died is marked ``ST_DEAD`` by the coordinator (:func:`bury_dead`) and
skipped.

Pairings go to the store's pool (after its entries): a compare-and-swap reserves
their words.
"""
import numpy as np
from numba import types
from numba.core import cgutils, config
from numba.core.extending import intrinsic

from ..core.bits import atomic_cas, atomic_load
from ..core.jit import entry, inlined
from .layout import ST_BUSY, ST_DEAD, ST_WORDS, W_SS_MASK, W_ST_MASK, W_ST_USED, W_STORE_FULL, W_WRITER

ZERO = np.uint64(0)
ONE = np.uint64(1)
BUSY = np.uint64(ST_BUSY)
DEAD = np.uint64(ST_DEAD)
LOW = np.uint64(3)
# slots looked at before a store counts as full: linear probing meets a run of 64 taken
# slots near half load already (a (9,7,5) store of 2**26 entries was full so); runs of
# 4096 are rare up to about 90 % load, and only writes and misses walk that far
MAX_PROBES = 1 << 12


@intrinsic
def _load_acquire_intrinsic(typingctx, arr, idx):
    """``arr[idx]`` read with an acquire atomic load: no later read of this thread is
    moved before it (by the compiler; x86 does not either), so the words of an entry
    are read after its key word that says it is published."""
    sig = arr.dtype(arr, types.intp)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        return builder.load_atomic(ptr, "acquire", arr.dtype.bitwidth // 8)

    return sig, codegen


def _load_acquire_plain(arr, idx):
    return arr[idx]


load_acquire = _load_acquire_plain if getattr(config, "DISABLE_JIT", False) else _load_acquire_intrinsic


@inlined
def _tag(key):
    """The word 0 of ``key``'s entry: odd, so never 0 (empty), busy (``ST_BUSY`` in its
    low two bits) nor ``ST_DEAD``."""
    return key | ONE


@inlined
def _wait(st, slot):
    """Word 0 of the entry at ``slot``, once its writer (if any) has published it (an
    acquire load: the entry's other words are read after it)."""
    w = load_acquire(st, slot)
    while w & LOW == BUSY:
        w = load_acquire(st, slot)
    return w


@inlined
def _home(key, mask):
    """The first slot probed for ``key`` (or its tag: the lowest bit is not used, so
    that an entry exported by its tag goes back where its key finds it)."""
    return (key >> ONE) & mask


@inlined
def _find(st, mask, key):
    """``(found, info, zone, aux)`` of ``key`` in the store ``st`` of ``mask + 1`` entries."""
    if mask == ZERO:
        return False, ZERO, ZERO, ZERO
    tag = _tag(key)
    i = _home(key, mask)
    for _ in range(MAX_PROBES):
        slot = np.int64(i) * ST_WORDS
        w = _wait(st, slot)
        if w == ZERO:
            return False, ZERO, ZERO, ZERO
        if w == tag:
            return True, st[slot + 1], st[slot + 2], st[slot + 3]
        i = (i + ONE) & mask
    return False, ZERO, ZERO, ZERO


@inlined
def store_find(wk, st, ss, key):
    """``(found, info, zone, aux)`` of ``key`` in ``ss``, else in ``st``."""
    found, info, zone, aux = _find(ss, wk[W_SS_MASK], key)
    if found:
        return found, info, zone, aux
    return _find(st, wk[W_ST_MASK], key)


@inlined
def store_put(wk, st, ss, key, info, zone, aux):
    """Store ``key``'s result in ``st`` unless it is stored (in either store). Returns
    ``(mine, info, zone, aux)``: ``mine`` True when this call wrote it, else the
    stored result (also when the store is full: then ``wk[W_STORE_FULL]`` is set and
    ``info`` is 0)."""
    found, sinfo, szone, saux = _find(ss, wk[W_SS_MASK], key)
    if found:
        return False, sinfo, szone, saux
    mask = wk[W_ST_MASK]
    if mask == ZERO:
        return True, info, zone, aux
    tag = _tag(key)
    i = _home(key, mask)
    for _ in range(MAX_PROBES):
        slot = np.int64(i) * ST_WORDS
        w = _wait(st, slot)
        if w == ZERO:
            busy = BUSY | (wk[W_WRITER] << np.uint64(2))
            if atomic_cas(st, slot, ZERO, busy):
                st[slot + 1] = info
                st[slot + 2] = zone
                st[slot + 3] = aux
                atomic_cas(st, slot, busy, tag)   # (publishes the entry after its words)
                wk[W_ST_USED] += ONE
                return True, info, zone, aux
            w = _wait(st, slot)   # another writer took the slot first: whose key?
        if w == tag:
            return False, st[slot + 1], st[slot + 2], st[slot + 3]
        i = (i + ONE) & mask
    wk[W_STORE_FULL] = ONE
    return False, ZERO, ZERO, ZERO


@inlined
def pool_base(mask):
    """The offset in a store of ``mask + 1`` entries of its pairing pool."""
    return (np.int64(mask) + 1) * ST_WORDS


@inlined
def pool_alloc(wk, st, words):
    """Reserve ``words`` words of ``st``'s pool: their offset (from the pool's start),
    or 0 when it is full (``wk[W_STORE_FULL]`` set). The pool's first word is the
    next free offset (0 before the first reservation: then 1)."""
    base = pool_base(wk[W_ST_MASK])
    size = len(st) - base
    while True:
        at = atomic_load(st, base)
        start = at if at != ZERO else ONE
        if np.int64(start) + words > size:
            wk[W_STORE_FULL] = ONE
            return 0
        if atomic_cas(st, base, at, start + np.uint64(words)):
            return np.int64(start)


@entry
def bury_dead(st, mask, writer):
    """Mark every slot of ``st`` (``mask + 1`` entries) the writer ``writer`` (dead) left
    busy as ``ST_DEAD``; returns how many."""
    busy = BUSY | (np.uint64(writer) << np.uint64(2))
    n = 0
    for i in range(np.int64(mask) + 1):
        if st[i * ST_WORDS] == busy:
            atomic_cas(st, i * ST_WORDS, busy, DEAD)
            n += 1
    return n


@entry
def count_entries(st, mask):
    """The entries of ``st`` (``mask + 1`` slots), dead ones not counted."""
    n = 0
    for i in range(np.int64(mask) + 1):
        if st[i * ST_WORDS] & ONE == ONE:
            n += 1
    return n


@entry
def export_entries(st, mask, out):
    """Copy the entries of ``st`` (``mask + 1`` slots; dead ones left out) to ``out`` (rows
    of ``ST_WORDS`` words) until it is full; returns how many (a journal's snapshot: while
    workers write, more entries may come than were counted; those stay for the next)."""
    n = 0
    rows = len(out) // ST_WORDS
    for i in range(np.int64(mask) + 1):
        slot = i * ST_WORDS
        if n == rows:
            break
        if st[slot] & ONE == ONE:
            for w in range(ST_WORDS):
                out[n * ST_WORDS + w] = st[slot + w]
            n += 1
    return n


@entry
def import_entries(st, mask, entries, n):
    """Insert ``n`` entries (rows of :func:`export_entries`) into ``st`` (``mask + 1``
    slots) where their keys are not yet; returns how many went in, -1 when full."""
    count = 0
    m = np.uint64(mask)
    for j in range(n):
        row = j * ST_WORDS
        tag = entries[row]
        i = _home(tag, m)   # (the tag is the key with its lowest bit set: the same home)
        done = False
        for _ in range(MAX_PROBES):
            slot = np.int64(i) * ST_WORDS
            w = st[slot]
            if w == tag:
                done = True
                break
            if w == ZERO:
                st[slot + 1] = entries[row + 1]
                st[slot + 2] = entries[row + 2]
                st[slot + 3] = entries[row + 3]
                st[slot] = tag
                count += 1
                done = True
                break
            i = (i + ONE) & m
        if not done:
            return -1
    return count


PLACE = np.uint64(0xFFFF)   # an entry's info without its pairing's offset (value, kind, move)
VALUE = np.uint64(3)
SIXTEEN = np.uint64(16)


@entry
def merge_entries(st, mask, entries, n, pool, relocate, check):
    """Merge ``n`` rows of :func:`export_entries` (another store's) into ``st`` (``mask +
    1`` slots; written by this thread alone). A row whose key is stored *agrees* with
    the stored entry when their values agree and their zones nest: with ``check`` 1
    the stored zone within the row's (the row's ancestors, which used its zone, hold
    with the stored one: a certificate checker's zone of a position is computed from
    its records, and a smaller one answers every move a larger one did), with ``check``
    2 the row's within the stored one; move, kind, walked moves and pairing may differ
    (no ancestor reads them). With ``check`` nothing is written: returns the rows whose
    keys are not stored, ``-2 - 2j`` when row ``j``'s zone does not nest, ``-3 - 2j``
    when its value differs. With ``check`` 0 the rows whose keys are not stored go in
    (with ``relocate``, each one's pairing copied from ``pool``, its source store's
    pool, to ``st``'s and its offset changed; without, the offsets kept: a store whose
    pool nobody reads) and stored entries are kept, their rows' word 0 zeroed (the rows
    left are those that went in): returns how many went in, -1 when the store or its
    pool is full."""
    m = np.uint64(mask)
    base = pool_base(m)
    count = 0
    for j in range(n):
        row = j * ST_WORDS
        tag = entries[row]
        i = _home(tag, m)
        slot = np.int64(-1)
        for _ in range(MAX_PROBES):
            s = np.int64(i) * ST_WORDS
            w = st[s]
            if w == tag:
                if check != 0:
                    if ((st[s + 1] ^ entries[row + 1]) & VALUE) != ZERO:
                        return -3 - 2 * j
                    inner, outer = (st[s + 2], entries[row + 2]) if check == 1 else (entries[row + 2], st[s + 2])
                    if inner & ~outer != ZERO:
                        return -2 - 2 * j
                slot = -2
                break
            if w == ZERO:
                slot = s
                break
            i = (i + ONE) & m
        if slot == -1:
            return -1
        if slot == -2:
            if check == 0:
                entries[row] = ZERO
            continue
        count += 1
        if check != 0:
            continue
        info = entries[row + 1]
        at = np.int64(info >> SIXTEEN)
        if relocate and at != 0:
            words = np.int64(pool[at]) + 1
            start = np.int64(st[base]) if st[base] != ZERO else np.int64(1)
            if base + start + words > len(st):
                return -1
            for w in range(words):
                st[base + start + w] = pool[at + w]
            st[base] = np.uint64(start + words)
            info = (info & PLACE) | (np.uint64(start) << SIXTEEN)
        st[slot + 1] = info
        st[slot + 2] = entries[row + 2]
        st[slot + 3] = entries[row + 3]
        st[slot] = tag
    return count
