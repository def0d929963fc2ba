"""Line kernels on bitboards: shifts along a direction, k-in-a-row detection,
winning cells (threats) and live lines.

Every function takes the context array ``ctx`` (see :mod:`.layout`) and uint64
bitboards in the layout of :mod:`parallel_mnk.game.geometry`.
"""
import numpy as np
from . import board as B
from .jit import called, expanded, inlined

from .bits import lowest_bit_index, popcount
from .layout import (
    C_NLINES, OFF_LINES, OFF_TMP,
)

ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
ZERO = np.uint64(0)


@inlined
def shift_forward(ctx, b, d, j):
    """Stones of ``b`` moved ``j`` cells along direction ``d``; those leaving the board dropped."""
    return (b & B.pre(ctx, d, 0, j)) << B.shift(ctx, d, j)


@inlined
def shift_backward(ctx, b, d, j):
    """Stones of ``b`` moved ``j`` cells against direction ``d``; those leaving the board dropped."""
    return (b & B.pre(ctx, d, 1, j)) >> B.shift(ctx, d, j)


@inlined
def has_k_run(ctx, b):
    """True when bitboard ``b`` holds ``k`` consecutive cells in some direction."""
    k = B.k(ctx)
    for d in range(4):
        r = b
        for j in range(1, k):
            r &= shift_backward(ctx, b, d, j)
            if r == ZERO:
                break
        if r != ZERO:
            return True
    return False


@expanded
def _steps(ctx, b, d):
    """The stones of ``b`` moved 1 and 2 cells along (f) and against (r) direction ``d``.

    The vertical direction (d = 1) needs no masks: a stone shifted off the top
    or bottom leaves the word or lands on bits past the board, which the final
    ``& empty`` of :func:`winning_cells` removes. Only call it for d = 1 when
    rows >= k (then every shift j * cols, j < k, is below 64).
    """
    if d == 1:
        return b << B.shift(ctx, d, 1), b << B.shift(ctx, d, 2), b >> B.shift(ctx, d, 1), b >> B.shift(ctx, d, 2)
    f1 = (b & B.pre(ctx, d, 0, 1)) << B.shift(ctx, d, 1)
    f2 = (b & B.pre(ctx, d, 0, 2)) << B.shift(ctx, d, 2)
    r1 = (b & B.pre(ctx, d, 1, 1)) >> B.shift(ctx, d, 1)
    r2 = (b & B.pre(ctx, d, 1, 2)) >> B.shift(ctx, d, 2)
    return f1, f2, r1, r2


@expanded
def _step(ctx, b, d, j):
    """Stones of ``b`` moved ``j`` cells along and against ``d`` (no masks when vertical)."""
    if d == 1:
        s = B.shift(ctx, d, j)
        return b << s, b >> s
    return (b & B.pre(ctx, d, 0, j)) << B.shift(ctx, d, j), (b & B.pre(ctx, d, 1, j)) >> B.shift(ctx, d, j)


@called
def _winning_cells_any_k(ctx, b, k):
    w = ZERO
    for d in range(4):
        # after[j]: cells whose j following cells along d are all stones of b
        after = ALL
        ctx[OFF_TMP] = after
        for j in range(1, k):
            after &= shift_backward(ctx, b, d, j)
            ctx[OFF_TMP + j] = after
        w |= after
        before = ALL
        for j in range(1, k):
            before &= shift_forward(ctx, b, d, j)
            if before == ZERO:
                break
            w |= before & ctx[OFF_TMP + k - 1 - j]
    return w


@inlined
def _winning_cells_along(ctx, b, d, k):
    """Cells that complete ``k`` (3, 4 or 5, a constant where it is inlined) in a
    row for the stones ``b`` along direction ``d`` (f_i: a stone i cells before,
    r_i: i cells after)."""
    f1, f2, r1, r2 = _steps(ctx, b, d)
    if k == 3:
        return (f1 & (f2 | r1)) | (r1 & r2)
    f3, r3 = _step(ctx, b, d, np.int64(3))
    if k == 4:
        return (f1 & f2 & (f3 | r1)) | (r1 & r2 & (f1 | r3))
    f4, r4 = _step(ctx, b, d, np.int64(4))
    return (f1 & f2 & ((f3 & (f4 | r1)) | (r1 & r2))) | (r1 & r2 & r3 & (f1 | r4))


@inlined
def winning_cells(ctx, b, empty):
    """Cells of ``empty`` that would complete ``k`` in a row for the stones ``b``.

    A cell x wins when, in some direction, the ``j`` cells before x and the
    ``k-1-j`` cells after x all hold stones of ``b``. Gravity is not applied:
    intersect with the playable cells where it matters. Unrolled for k = 3, 4, 5:
    one loop per k, so that each inlines its own straight-line code (a test of k
    inside one loop costs instructions at every node).
    """
    k = B.k(ctx)
    vertical = B.rows(ctx) >= k  # else no vertical line exists (and _steps needs one)
    w = ZERO
    if k == 4:
        for d in range(4):
            if d != 1 or vertical:
                w |= _winning_cells_along(ctx, b, d, np.int64(4))
    elif k == 5:
        for d in range(4):
            if d != 1 or vertical:
                w |= _winning_cells_along(ctx, b, d, np.int64(5))
    elif k == 3:
        for d in range(4):
            if d != 1 or vertical:
                w |= _winning_cells_along(ctx, b, d, np.int64(3))
    else:
        w = _winning_cells_any_k(ctx, b, k)
    return w & empty


@inlined
def playable_cells(ctx, mask):
    """Gravity: the empty cells a stone can drop into (the cell below is filled, or bottom row)."""
    cols = B.cols(ctx)
    return B.board(ctx) & ~mask & ((mask >> cols) | B.bottom(ctx))


@called
def live_line_summary(ctx, own, opp):
    """Which lines can still be won, in one pass over the line masks.

    Returns ``(own_live, opp_live, live_empty)``: whether some line is free of
    ``opp``'s stones (an empty line counts), whether some line holds ``opp``'s
    stones and none of ``own``'s (an empty line does not count), and the empty
    cells lying on any line free of one side's stones. An empty cell outside
    ``live_empty`` can never matter to either side.

    With ``own`` to move, ``not opp_live`` means that ``opp`` cannot win (free
    placement): its only lines are empty ones, a game of empty lines where
    ``own`` moves first and extra stones never hurt, so strategy stealing
    denies the second player a win there, and a win of ``opp`` in the real game
    would be one there (tests/test_negamax_contract checks the bound).
    """
    n = np.int64(ctx[C_NLINES])
    empty = B.board(ctx) & ~(own | opp)
    own_live = False
    opp_live = False
    live_empty = ZERO
    for i in range(n):
        line = ctx[OFF_LINES + i]
        has_own = (line & own) != ZERO
        has_opp = (line & opp) != ZERO
        if not has_opp:
            own_live = True
            live_empty |= line & empty
        elif not has_own:
            opp_live = True
            live_empty |= line & empty
    return own_live, opp_live, live_empty


@called
def line_move_scores(ctx, own, opp, cand, weight_base, out_base):
    """Move-ordering score of each candidate cell, written to ``ctx[out_base + cell]``.

    A cell earns, for every line through it that a player can still complete,
    ``ctx[weight_base + j]`` where ``j`` is that player's stones on the line: it
    grows with our chances there and with the need to block the opponent's.
    Only cells of ``cand`` are written.
    """
    c = cand
    while c != ZERO:
        ctx[out_base + lowest_bit_index(c)] = ZERO
        c &= c - np.uint64(1)
    n = np.int64(ctx[C_NLINES])
    for i in range(n):
        line = ctx[OFF_LINES + i]
        cells = line & cand
        if cells == ZERO:
            continue
        mine = line & own
        theirs = line & opp
        s = ZERO
        if theirs == ZERO:
            s += ctx[weight_base + popcount(mine)]
        if mine == ZERO:
            s += ctx[weight_base + popcount(theirs)]
        if s == ZERO:
            continue
        while cells != ZERO:
            ctx[out_base + lowest_bit_index(cells)] += s
            cells &= cells - np.uint64(1)
