"""Transposition table: one uint64 per entry, lock-free.

Key and payload share one 64-bit word (see :mod:`.layout`), so a reader never
sees half an entry even when several processes share the table: it either
matches the key check and is whole, or it does not match. Keys are canonical
under the board's symmetries (the smallest of the per-symmetry Zobrist hashes),
and the stored best move is in that canonical orientation.
"""
import numpy as np
from numba import njit

from .bits import lowest_bit_index

from .layout import (
    C_NSYM, C_SALT, MAX_CELLS, MAX_SYM, OFF_HASH, OFF_INVPERM, OFF_PERM, OFF_ZOBRIST,
    TT_KEY_SHIFT, TT_MOVE_SHIFT,
)

ZERO = np.uint64(0)


@njit(cache=True)
def set_root_hashes(ctx, x_stones, o_stones, ply):
    """Write the Zobrist hash of the position under every symmetry at slot ``ply``.

    ``x_stones`` are the first player's stones, ``o_stones`` the second's.
    """
    nsym = np.int64(ctx[C_NSYM])
    for s in range(nsym):
        h = ZERO
        for p in range(2):
            b = x_stones if p == 0 else o_stones
            while b != ZERO:
                cell = lowest_bit_index(b)
                h ^= ctx[OFF_ZOBRIST + (s * MAX_CELLS + cell) * 2 + p]
                b &= b - np.uint64(1)
        ctx[OFF_HASH + ply * MAX_SYM + s] = h


@njit(inline="always", cache=True)
def push_hashes(ctx, ply, cell, player):
    """Hashes at slot ``ply + 1`` = those at ``ply`` with ``player`` (0 = x) on ``cell``."""
    nsym = np.int64(ctx[C_NSYM])
    src = OFF_HASH + ply * MAX_SYM
    for s in range(nsym):
        ctx[src + MAX_SYM + s] = ctx[src + s] ^ ctx[OFF_ZOBRIST + (s * MAX_CELLS + cell) * 2 + player]


@njit(inline="always", cache=True)
def canonical_key(ctx, ply):
    """``(key, sym)``: the salted smallest symmetric hash at slot ``ply`` and its symmetry."""
    nsym = np.int64(ctx[C_NSYM])
    src = OFF_HASH + ply * MAX_SYM
    h = ctx[src]
    sym = 0
    for s in range(1, nsym):
        if ctx[src + s] < h:
            h = ctx[src + s]
            sym = s
    return h ^ ctx[C_SALT], sym


@njit(inline="always", cache=True)
def probe(ctx, tt, key, sym):
    """Look ``key`` up. Returns ``(flag, score, move)``; flag 0 when absent, move -1 when none.

    ``move`` is translated back from the canonical orientation ``sym``.
    """
    e = tt[key & np.uint64(len(tt) - 1)]
    if e == ZERO or (e >> np.uint64(TT_KEY_SHIFT)) != (key >> np.uint64(TT_KEY_SHIFT)):
        return 0, 0, -1
    score = np.int64(e & np.uint64(255)) - 128
    flag = np.int64((e >> np.uint64(8)) & np.uint64(3))
    m = np.int64((e >> np.uint64(TT_MOVE_SHIFT)) & np.uint64(127)) - 1
    if m >= 0:
        m = np.int64(ctx[OFF_INVPERM + sym * MAX_CELLS + m])
    return flag, score, m


@njit(inline="always", cache=True)
def store(ctx, tt, key, sym, flag, score, move):
    """Store a bound (flag 1 lower, 2 upper, 3 exact) and best move (-1 for none)."""
    m = ZERO
    if move >= 0:
        m = ctx[OFF_PERM + sym * MAX_CELLS + move] + np.uint64(1)
    e = ((key >> np.uint64(TT_KEY_SHIFT)) << np.uint64(TT_KEY_SHIFT)) | (m << np.uint64(TT_MOVE_SHIFT)) \
        | (np.uint64(flag) << np.uint64(8)) | np.uint64(score + 128)
    tt[key & np.uint64(len(tt) - 1)] = e
