"""The certificate walk of the proof-number prover: the records of a settled
question, read from its store (:mod:`.settled_store`) by walking the positions the
checker will walk (``docs/proof-format.md``, mnk-proof/2), no search.

From the root, depth first, memoised by canonical key: a position the checker's
rules settle (game over, the claimant completing a line) needs nothing; the
claimant to move needs its stored move (a ``m`` record; the walk goes on after
it); the refuter to move, in ``cannot-win``, may have a stored pairing (a ``pairs``
record, the walk stops there) or its moves walked first (a ``first`` record: the
walk goes on after those only, the prover's zones answer the others); otherwise
every move of the refuter that is not on a dead cell is walked. Records go to
the buffer ``rb`` (:mod:`.layout`) in the position's own frame
(:mod:`.records` moves them to the certificate's).

The walk stops (returns ``STOP_BUFFER``) when the buffer is nearly full; its stack
stays in ``stk``, so the next call goes on. A position the store lacks, or one
where the game ended against the claim, is counted in ``wk[W_WALK_MISSING]``
(never in a proof the prover settled: a bug).
"""
import numpy as np

from ..core.bits import lowest_bit_index, popcount
from ..core.jit import called, entry, inlined
from ..core.layout import C_BOARD, MAX_CELLS, OFF_INVPERM
from ..core.lines import has_k_run, winning_cells
from ..core.table import canonical_key, set_root_hashes
from .layout import (
    KIND_FIRST, KIND_PAIRS, REC_FIRST, REC_MOVE, REC_PAIRS, STOP_BUFFER, STOP_DONE, W_RECORDS, W_STORE_FULL,
    W_ST_MASK, W_WALK_MISSING,
)
from .settling import _live
from .settled_store import pool_base, store_find
from .zones import from_canonical

ZERO = np.uint64(0)
ONE = np.uint64(1)
# typed constants for kernel-to-kernel calls (numba types a plain int or bool argument as a
# literal: a compile of the callee for each value)
I1 = np.int64(1)
RECORD_ROOM = 3 + 2 * MAX_CELLS   # the most words one record takes


@inlined
def _memo_add(memo, key):
    """Add ``key`` to the hash set ``memo`` (power-of-two length, 0 empty): 1 added,
    0 there already, -1 full."""
    k = key | ONE
    mask = np.uint64(len(memo) - 1)
    i = k & mask
    for _ in range(len(memo)):
        w = memo[np.int64(i)]
        if w == k:
            return 0
        if w == ZERO:
            memo[np.int64(i)] = k
            return 1
        i = (i + ONE) & mask
    return -1


@inlined
def _record(wk, rb, kind, n, x, o):
    """Start a record of ``n`` payload words about ``(x, o)``: its payload's offset."""
    at = np.int64(rb[0])
    rb[at] = np.uint64(kind) | (np.uint64(n) << np.uint64(8))
    rb[at + 1] = x
    rb[at + 2] = o
    rb[0] = np.uint64(at + 3 + n)
    wk[W_RECORDS] += ONE
    return at + 3


@called
def _push(stk, x, o):
    """Push the position ``(x, o)`` on the walk's stack (``stk[0]`` its size in positions)."""
    n = np.int64(stk[0])
    stk[1 + 2 * n] = x
    stk[2 + 2 * n] = o
    stk[0] = np.uint64(n + 1)


@entry
def walk_records(ctx, st, ss, wk, rb, stk, memo, attacker, wins):
    """Walk the certificate of the claim (``attacker`` 0 x, 1 o; ``wins`` 1 "wins", 0
    "cannot-win") from the positions on ``stk`` (the root pushed by the caller:
    ``stk[0] = 1``, ``stk[1:3]`` its stones), writing records to ``rb`` (``rb[0]`` the
    next free word). Returns ``STOP_DONE`` when the walk is over, ``STOP_BUFFER``
    when ``rb`` is nearly full (drain it and call again: the stack is kept), or -1
    when ``memo`` is full."""
    board = ctx[C_BOARD]
    claimant = attacker if wins == 1 else 1 - attacker
    pool = pool_base(wk[W_ST_MASK])
    while stk[0] != ZERO:
        if np.int64(rb[0]) + RECORD_ROOM > len(rb):
            return STOP_BUFFER
        n = np.int64(stk[0]) - 1
        x, o = stk[1 + 2 * n], stk[2 + 2 * n]
        stk[0] = np.uint64(n)
        x_line = has_k_run(ctx, x)
        o_line = has_k_run(ctx, o)
        if x_line or o_line or (x | o) == board:   # rule 1: game over
            if (x_line if attacker == 0 else o_line) != (wins == 1):
                wk[W_WALK_MISSING] += ONE
            continue
        ply = popcount(x | o)
        mover = ply & 1
        own, opp = (x, o) if mover == 0 else (o, x)
        empty = board & ~(x | o)
        if mover == claimant and winning_cells(ctx, own, empty) != ZERO:   # rule 2
            continue
        set_root_hashes(ctx, x, o, ply)
        key, sym = canonical_key(ctx, ply)
        added = _memo_add(memo, key)
        if added < 0:
            wk[W_STORE_FULL] = ONE
            return -1
        if added == 0:
            continue
        found, info, _, aux = store_find(wk, st, ss, key)
        kind = np.int64((info >> np.uint64(2)) & np.uint64(15))
        if mover == claimant:
            m = np.int64((info >> np.uint64(8)) & np.uint64(255)) - 1
            if not found or m < 0:
                wk[W_WALK_MISSING] += ONE
                continue
            cell = np.int64(ctx[OFF_INVPERM + sym * MAX_CELLS + m])
            at = _record(wk, rb, np.int64(REC_MOVE), I1, x, o)
            rb[at] = np.uint64(cell)
            bit = ONE << np.uint64(cell)
            _push(stk, x | bit if mover == 0 else x, o | bit if mover == 1 else o)
            continue
        if wins == 0 and found and kind == KIND_PAIRS:
            at_pool = np.int64(info >> np.uint64(16))
            count = 0 if at_pool == 0 else np.int64(st[pool + at_pool])
            at = _record(wk, rb, np.int64(REC_PAIRS), count, x, o)
            for j in range(count):
                rb[at + j] = from_canonical(ctx, sym, st[pool + at_pool + 1 + j])
            continue
        att, dfn = (own, opp) if mover == attacker else (opp, own)
        _, live_empty = _live(ctx, att, dfn)
        moves = empty & live_empty
        if moves == ZERO:   # every empty cell dead: no line can be completed
            if wins == 1:
                wk[W_WALK_MISSING] += ONE
            continue
        if wins == 0 and found and kind == KIND_FIRST:
            first = from_canonical(ctx, sym, aux)
            at = _record(wk, rb, np.int64(REC_FIRST), popcount(first), x, o)
            c = first
            j = 0
            while c != ZERO:
                rb[at + j] = np.uint64(lowest_bit_index(c))
                c &= c - ONE
                j += 1
            moves = first
        while moves != ZERO:
            cell = lowest_bit_index(moves)
            moves &= moves - ONE
            bit = ONE << np.uint64(cell)
            _push(stk, x | bit if mover == 0 else x, o | bit if mover == 1 else o)
    return STOP_DONE
