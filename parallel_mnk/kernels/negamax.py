"""Alpha-beta negamax with a transposition table, and the exact-score driver.

Scores are from the side to move (DESIGN.md): a win completed on ply p is worth
``(cells + 2 - p) // 2``, a draw 0, a loss the negated worth of the opponent's win.

Contract of :func:`negamax` (fail-soft), for a window ``alpha < beta`` and true
score ``s`` of the position:

* returned ``v <= alpha``  ->  ``s <= v``  (an upper bound),
* returned ``v >= beta``   ->  ``s >= v``  (a lower bound),
* otherwise               ->  ``s == v``  (exact).

Pruning rules (each preserves the exact score):

* forced lines: two opponent threats lose at once, one must be blocked; with
  gravity, a cell right under an opponent's winning cell is never played;
* score bounds: the side to move cannot win before its next-but-one stone, nor
  lose before the opponent's second stone; with free placement, a side with no
  line left it could complete cannot win at all;
* free placement: cells on no line that either side could still complete are
  never played (a dead cell is a pass, and an extra stone never hurts in a
  game without gravity); when only dead cells are left the game is a draw;
* a transposition table of bounds keyed by symmetry-canonical hashes.
"""
import numpy as np
from numba import njit

from .bits import atomic_load, lowest_bit_index, popcount
from .layout import (
    C_ABORTED, C_BOARD, C_CELLS, C_COLS, C_GRAVITY, C_NODES, C_WEIGHT, CTL_ABORT, MAX_CELLS,
    OFF_MOVES, OFF_SCORES, OFF_STATIC, TT_EXACT, TT_LOWER, TT_UPPER,
)
from .lines import line_move_scores, live_line_summary, playable_cells, winning_cells
from .table import canonical_key, probe, push_hashes, store

ZERO = np.uint64(0)
ONE = np.uint64(1)
ABORT_POLL_MASK = np.uint64(1023)


@njit(cache=True)
def _order_moves(ctx, own, opp, cand, ply, tt_move, gravity):
    """Write the candidate cells of ``cand`` to the move list at ``ply``, best first.

    Order: the table's move; then (gravity) the number of our threats after the
    move, or (free) the live-line score of the cell; centre first on ties.
    Returns the number of moves.
    """
    mbase = OFF_MOVES + ply * MAX_CELLS
    sbase = OFF_SCORES + ply * 2 * MAX_CELLS   # per-cell line scores
    obase = sbase + MAX_CELLS                  # scores of the sorted move list
    mask = own | opp
    if not gravity:
        line_move_scores(ctx, own, opp, cand, C_WEIGHT, sbase)
    n = 0
    c = cand
    while c != ZERO:
        cell = lowest_bit_index(c)
        c &= c - ONE
        if cell == tt_move:
            score = np.uint64(1) << np.uint64(62)
        elif gravity:
            bit = ONE << np.uint64(cell)
            after = own | bit
            threats = popcount(winning_cells(ctx, after, ctx[C_BOARD] & ~(mask | bit)))
            score = np.uint64(threats) * np.uint64(64) + ctx[OFF_STATIC + cell]
        else:
            score = ctx[sbase + cell] * np.uint64(64) + ctx[OFF_STATIC + cell]
        # insertion sort, descending, stable
        i = n
        while i > 0 and ctx[obase + i - 1] < score:
            ctx[mbase + i] = ctx[mbase + i - 1]
            ctx[obase + i] = ctx[obase + i - 1]
            i -= 1
        ctx[mbase + i] = np.uint64(cell)
        ctx[obase + i] = score
        n += 1
    return n


@njit(cache=True)
def negamax(ctx, tt, ctl, own, opp, ply, alpha, beta):
    """Score of the position ``own`` (side to move) / ``opp`` with ``ply`` stones on the board.

    Preconditions: the game is not over, the side to move cannot win with its
    next stone, ``alpha < beta``, and ``ctx``'s hash slot ``ply`` holds the
    position's hashes (:func:`set_root_hashes`). Fail-soft; see the module
    docstring for what the return value proves. Counts nodes in ``ctx[C_NODES]``.
    If ``ctl[CTL_ABORT]`` becomes non-zero the search unwinds, sets
    ``ctx[C_ABORTED]`` and returns 0, which then means nothing.
    """
    nodes = ctx[C_NODES] + ONE
    ctx[C_NODES] = nodes
    if (nodes & ABORT_POLL_MASK) == ZERO and atomic_load(ctl, CTL_ABORT) != 0:
        ctx[C_ABORTED] = ONE
    if ctx[C_ABORTED] != ZERO:
        return 0
    cells = np.int64(ctx[C_CELLS])
    cols = ctx[C_COLS]
    gravity = ctx[C_GRAVITY] != ZERO
    mask = own | opp
    empty = ctx[C_BOARD] & ~mask
    opp_wins = winning_cells(ctx, opp, empty)
    if gravity:
        cand = playable_cells(ctx, mask)
    else:
        cand = empty
    forced = cand & opp_wins
    if forced != ZERO:
        if forced & (forced - ONE) != ZERO:
            return -((cells - ply) // 2)  # two threats: the opponent wins with its next stone
        cand = forced
    if gravity:
        cand &= ~(opp_wins << cols)  # never play right under an opponent's winning cell
        if cand == ZERO:
            return -((cells - ply) // 2)
    if ply >= cells - 2:
        return 0
    lo = -((cells - 2 - ply) // 2)
    hi = (cells - 1 - ply) // 2
    if not gravity:
        own_live, opp_live, live_empty = live_line_summary(ctx, own, opp)
        if not own_live and hi > 0:
            hi = 0
        if not opp_live and lo < 0:
            lo = 0
        if forced == ZERO:
            cand &= live_empty
            if cand == ZERO:
                return 0
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    key, sym = canonical_key(ctx, ply)
    flag, tt_score, tt_move = probe(ctx, tt, key, sym)
    if flag == TT_EXACT:
        return tt_score
    if flag == TT_LOWER:
        if tt_score > alpha:
            alpha = tt_score
            if alpha >= beta:
                return alpha
    elif flag == TT_UPPER:
        if tt_score < beta:
            beta = tt_score
            if alpha >= beta:
                return beta

    mbase = OFF_MOVES + ply * MAX_CELLS
    if cand & (cand - ONE) == ZERO:
        ctx[mbase] = np.uint64(lowest_bit_index(cand))  # a single move: nothing to order
        n = 1
    else:
        n = _order_moves(ctx, own, opp, cand, ply, tt_move, gravity)
    player = ply & 1
    best = -1000
    best_move = -1
    exact = False
    for i in range(n):
        cell = np.int64(ctx[mbase + i])
        push_hashes(ctx, ply, cell, player)
        v = -negamax(ctx, tt, ctl, opp, own | (ONE << np.uint64(cell)), np.int64(ply + 1),
                     np.int64(-beta), np.int64(-alpha))
        if ctx[C_ABORTED] != ZERO:
            return 0
        if v > best:
            best = v
            best_move = cell
        if v >= beta:
            store(ctx, tt, key, sym, TT_LOWER, v, cell)
            return v
        if v > alpha:
            alpha = v
            exact = True
    if exact:
        store(ctx, tt, key, sym, TT_EXACT, best, best_move)
    else:
        store(ctx, tt, key, sym, TT_UPPER, best, -1)
    return best
