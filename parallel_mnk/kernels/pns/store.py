"""The settled stores of the proof-number prover (layout: :mod:`.pns_layout`): every
node settled, by its canonical key, with its value, its move and its zone, written
once and never replaced.

Why once: a certificate's record of a position and the zone its ancestors used
must agree (``docs/proof-format.md``, zones); a node proven again (its table entry
lost) takes the stored result instead of its own, so that every position has one
record. A searcher writes its own store ``st`` and reads a shared one ``ss`` first
(written by one process only, the coordinator of a parallel proof, which merges
what each job stored: :mod:`parallel_mnk.parallel.scheduling.pn_tree`). A slot is
claimed with a compare-and-swap (empty -> ``ST_BUSY``), filled, then published
with its key, so that a reader in another process sees whole entries; a reader
that meets ``ST_BUSY`` waits for the key.
"""
import numpy as np

from ..core.bits import atomic_cas, atomic_load
from ..core.jit import entry, inlined
from .pns_layout import ST_BUSY, ST_WORDS, W_SS_MASK, W_ST_MASK, W_ST_USED, W_STORE_FULL

ZERO = np.uint64(0)
ONE = np.uint64(1)
BUSY = np.uint64(ST_BUSY)
MAX_PROBES = 64   # slots looked at before a store counts as full


@inlined
def _tag(key):
    """The word 0 of ``key``'s entry: odd, so never 0 (empty) nor ST_BUSY."""
    return key | ONE


@inlined
def _wait(st, slot):
    """Word 0 of the entry at ``slot``, once its writer (if any) has published it."""
    w = atomic_load(st, slot)
    while w == BUSY:
        w = atomic_load(st, slot)
    return w


@inlined
def _find(st, mask, key):
    """``(found, info, zone)`` of ``key`` in the store ``st`` of ``mask + 1`` entries."""
    if mask == ZERO:
        return False, ZERO, ZERO
    tag = _tag(key)
    i = key & mask
    for _ in range(MAX_PROBES):
        slot = np.int64(i) * ST_WORDS
        w = _wait(st, slot)
        if w == ZERO:
            return False, ZERO, ZERO
        if w == tag:
            return True, st[slot + 1], st[slot + 2]
        i = (i + ONE) & mask
    return False, ZERO, ZERO


@inlined
def _put(st, mask, key, info, zone):
    """Insert into ``st`` unless ``key`` is there: ``(mine, info, zone, full)``."""
    tag = _tag(key)
    i = key & mask
    for _ in range(MAX_PROBES):
        slot = np.int64(i) * ST_WORDS
        w = _wait(st, slot)
        if w == ZERO:
            if atomic_cas(st, slot, ZERO, BUSY):
                st[slot + 1] = info
                st[slot + 2] = zone
                atomic_cas(st, slot, BUSY, tag)   # (publishes the entry after its words)
                return True, info, zone, False
            w = _wait(st, slot)   # another writer took the slot first: whose key?
        if w == tag:
            return False, st[slot + 1], st[slot + 2], False
        i = (i + ONE) & mask
    return False, ZERO, ZERO, True


@inlined
def store_find(wk, st, ss, key):
    """``(found, info, zone)`` of ``key`` in the shared store, else the searcher's own."""
    found, info, zone = _find(ss, wk[W_SS_MASK], key)
    if found:
        return found, info, zone
    return _find(st, wk[W_ST_MASK], key)


@inlined
def store_put(wk, st, ss, key, info, zone):
    """Store ``key``'s result in the searcher's store unless it is stored (in either).
    Returns ``(mine, info, zone)``: ``mine`` True when this call wrote it, else the
    stored result (also when the store is full: then ``wk[W_STORE_FULL]`` is set and
    ``info`` is 0)."""
    found, sinfo, szone = _find(ss, wk[W_SS_MASK], key)
    if found:
        return False, sinfo, szone
    mask = wk[W_ST_MASK]
    if mask == ZERO:
        return True, info, zone
    mine, sinfo, szone, full = _put(st, mask, key, info, zone)
    if full:
        wk[W_STORE_FULL] = ONE
    elif mine:
        wk[W_ST_USED] += ONE
    return mine, sinfo, szone


@entry
def export_entries(st, mask, out):
    """Move every entry of the store ``st`` (``mask + 1`` entries) to ``out`` (rows of
    ``ST_WORDS`` words, room for all) and empty ``st``; returns how many."""
    n = 0
    for i in range(np.int64(mask) + 1):
        slot = i * ST_WORDS
        if st[slot] != ZERO:
            for w in range(ST_WORDS):
                out[n * ST_WORDS + w] = st[slot + w]
                st[slot + w] = ZERO
            n += 1
    return n


@entry
def merge_entries(ss, mask, entries, n, insert):
    """The coordinator's merge of a job's ``n`` entries (rows of ``ST_WORDS`` words,
    :func:`export_entries`) into the shared store ``ss`` of ``mask + 1`` entries. An
    entry *conflicts* when its node is stored already, disproven both times, with a
    stored zone not inside the entry's (the job's records may rely on a zone the
    certificate will not show). Counts the conflicts; with ``insert`` 1 also stores
    the entries not stored yet. Returns ``conflicts``, or -1 when ``ss`` is full."""
    conflicts = 0
    for j in range(n):
        row = j * ST_WORDS
        key, info, zone = entries[row], entries[row + 1], entries[row + 2]
        found, sinfo, szone = _find(ss, np.uint64(mask), key)
        if found:
            if (sinfo & np.uint64(3)) != (info & np.uint64(3)) or szone & ~zone != ZERO:
                conflicts += 1
        elif insert != 0:
            _, _, _, full = _put(ss, np.uint64(mask), key, info, zone)
            if full:
                return -1
    return conflicts
