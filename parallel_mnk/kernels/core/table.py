"""Transposition table: one uint64 per entry, two entries per bucket, lock-free.

Key and payload share one 64-bit word (see :mod:`.layout`), so a reader never
sees half an entry even when several processes share the table: it either
matches the key check and is whole, or it does not match. Keys are canonical
under the board's symmetries (the smallest of the per-symmetry Zobrist hashes),
and the stored best move is in that canonical orientation.

A key's bucket is the pair of entries ``2i, 2i+1`` holding index ``key & (size-1)``
(one cache line). A store goes to the entry of its own key if there is one, else
over the entry with less work (log8 of the nodes its search took), an entry of
an older solve (another generation of the salt) counting as empty. An exact
entry is never replaced by a bound of the same key; a bound that meets the
opposite stored bound of the same key is stored as exact.
"""
import numpy as np
from parallel_mnk.settings import MAX_WORK
from . import board as B
from .jit import entry, expanded

from .bits import lowest_bit_index

from .layout import (
    C_SALT, MAX_CELLS, MAX_SYM, OFF_HASH, OFF_INVPERM, OFF_PERM, OFF_ZOBRIST, TT_EXACT,
    TT_FLAG_SHIFT,
    TT_GEN_SHIFT, TT_KEY_SHIFT, TT_LOWER, TT_MOVE_SHIFT, TT_SCORE_BIAS, TT_UPPER, TT_WORK_SHIFT,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)


@entry
def set_root_hashes(ctx, x_stones, o_stones, ply):
    """Write the Zobrist hash of the position under every symmetry at slot ``ply``.

    ``x_stones`` are the first player's stones, ``o_stones`` the second's.
    """
    nsym = B.nsym(ctx)
    for s in range(nsym):
        h = ZERO
        for p in range(2):
            b = x_stones if p == 0 else o_stones
            while b != ZERO:
                cell = lowest_bit_index(b)
                h ^= ctx[OFF_ZOBRIST + (s * MAX_CELLS + cell) * 2 + p]
                b &= b - np.uint64(1)
        ctx[OFF_HASH + ply * MAX_SYM + s] = h


@expanded
def push_hashes(ctx, ply, cell, player):
    """Hashes at slot ``ply + 1`` = those at ``ply`` with ``player`` (0 = x) on ``cell``."""
    nsym = B.nsym(ctx)
    src = OFF_HASH + ply * MAX_SYM
    for s in range(nsym):
        ctx[src + MAX_SYM + s] = ctx[src + s] ^ ctx[OFF_ZOBRIST + (s * MAX_CELLS + cell) * 2 + player]


@expanded
def canonical_key(ctx, ply):
    """``(key, sym)``: the salted smallest symmetric hash at slot ``ply`` and its symmetry."""
    nsym = B.nsym(ctx)
    src = OFF_HASH + ply * MAX_SYM
    h = ctx[src]
    sym = np.int64(0)   # (not a literal: its callers' callees would be typed for 0 too)
    for s in range(1, nsym):
        if ctx[src + s] < h:
            h = ctx[src + s]
            sym = s
    return h ^ ctx[C_SALT], sym


@expanded
def _tag(ctx, key):
    """The bits an entry of ``key`` carries above its payload: key check and generation."""
    return ((key >> np.uint64(TT_KEY_SHIFT)) << np.uint64(TT_KEY_SHIFT - TT_GEN_SHIFT)) | (ctx[C_SALT] & np.uint64(7))


@expanded
def probe(ctx, tt, key, sym):
    """Look ``key`` up. Returns ``(flag, score, move)``; flag 0 when absent, move -1 when none.

    ``move`` is translated back from the canonical orientation ``sym``.
    """
    tag = _tag(ctx, key)
    i = np.int64(key & np.uint64(len(tt) - 2))
    e = tt[i]
    if (e >> np.uint64(TT_GEN_SHIFT)) != tag:
        e = tt[i + 1]
        if (e >> np.uint64(TT_GEN_SHIFT)) != tag:
            return 0, 0, -1
    score = np.int64(e & np.uint64(127)) - TT_SCORE_BIAS
    flag = np.int64((e >> np.uint64(TT_FLAG_SHIFT)) & np.uint64(3))
    m = np.int64((e >> np.uint64(TT_MOVE_SHIFT)) & np.uint64(127)) - 1
    if m >= 0:
        m = np.int64(ctx[OFF_INVPERM + sym * MAX_CELLS + m])
    return flag, score, m


@expanded
def work_of(nodes):
    """log8 of a node count (0 for one node), at most ``MAX_WORK``: the table's
    measure of what an entry cost."""
    w = 0
    while nodes >= 8 and w < MAX_WORK:
        nodes >>= 3
        w += 1
    return w


@expanded
def _work(ctx, e):
    """An entry's work, -1 for one of an older solve (or an empty entry)."""
    if e == ZERO or (e >> np.uint64(TT_GEN_SHIFT)) & np.uint64(7) != ctx[C_SALT] & np.uint64(7):
        return -1
    return np.int64((e >> np.uint64(TT_WORK_SHIFT)) & np.uint64(15))


@expanded
def store(ctx, tt, key, sym, flag, score, move, work):
    """Store a bound (flag 1 lower, 2 upper, 3 exact), best move (-1 for none) and
    the ``work`` it cost (:func:`work_of`), by the bucket rules of the module docstring."""
    tag = _tag(ctx, key)
    i = np.int64(key & np.uint64(len(tt) - 2))
    e = tt[i]
    if (e >> np.uint64(TT_GEN_SHIFT)) != tag:
        e1 = tt[i + 1]
        if (e1 >> np.uint64(TT_GEN_SHIFT)) == tag or _work(ctx, e1) < _work(ctx, e):
            i += 1
            e = e1
    if (e >> np.uint64(TT_GEN_SHIFT)) == tag:
        old_flag = np.int64((e >> np.uint64(TT_FLAG_SHIFT)) & np.uint64(3))
        if old_flag == TT_EXACT:
            return
        if old_flag + flag == TT_LOWER + TT_UPPER and np.int64(e & np.uint64(127)) - TT_SCORE_BIAS == score:
            flag = TT_EXACT
    m = ZERO
    if move >= 0:
        m = ctx[OFF_PERM + sym * MAX_CELLS + move] + ONE
    tt[i] = (tag << np.uint64(TT_GEN_SHIFT)) | (np.uint64(min(work, MAX_WORK)) << np.uint64(TT_WORK_SHIFT)) \
        | (m << np.uint64(TT_MOVE_SHIFT)) | (np.uint64(flag) << np.uint64(TT_FLAG_SHIFT)) \
        | np.uint64(score + TT_SCORE_BIAS)
