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

from .bits import atomic_load, lowest_bit_index, popcount, prefetch
from .layout import (
    C_ABORTED, C_BOARD, C_CELLS, C_COLS, C_CTL_SLOT, C_DEFER_MIN_EMPTY, C_GRAVITY, C_NODE_LIMIT, C_NODES,
    C_RESULT_KIND, C_TASK_ID, C_WEIGHT, CTL_ABORT, CTL_BUSY_BASE, CTL_BUSY_MASK, CTL_TASK_ABORT, MAX_CELLS,
    OFF_MOVES, OFF_SCORES, OFF_STATIC, TT_EXACT, TT_LOWER, TT_UPPER, WINDOW_BIAS,
)
from .lines import line_move_scores, live_line_summary, playable_cells, winning_cells
from .table import canonical_key, probe, push_hashes, store

ZERO = np.uint64(0)
ONE = np.uint64(1)
ABORT_POLL_MASK = np.uint64(1023)
PREFETCH_CHILDREN = 4


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


@njit(inline="always", cache=True)
def node_prelude(ctx, own, opp, ply):
    """Forced lines and score bounds of a node (the pruning rules of the module docstring).

    Precondition: the side to move cannot win with its next stone and the game is
    not over. Returns ``(cand, lo, hi)``: the cells worth playing and proven
    bounds ``lo <= score <= hi``. When ``cand`` is 0 the score is exactly ``lo``.
    """
    cells = np.int64(ctx[C_CELLS])
    gravity = ctx[C_GRAVITY] != ZERO
    mask = own | opp
    empty = ctx[C_BOARD] & ~mask
    opp_wins = winning_cells(ctx, opp, empty)
    if gravity:
        cand = playable_cells(ctx, mask)
    else:
        cand = empty
    lost = -((cells - ply) // 2)  # the opponent wins with its next stone
    forced = cand & opp_wins
    if forced != ZERO:
        if forced & (forced - ONE) != ZERO:
            return ZERO, lost, lost  # two threats
        cand = forced
    if gravity:
        cand &= ~(opp_wins << ctx[C_COLS])  # never play right under an opponent's winning cell
        if cand == ZERO:
            return ZERO, lost, lost
    if ply >= cells - 2:
        return ZERO, 0, 0
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
                return ZERO, 0, 0
    return cand, lo, hi


@njit(inline="always", cache=True)
def _result_kind(kind, value, lower, upper):
    """What a fail-soft ``value`` proves at a node known to score in ``[lower, upper]``:
    ``kind`` (a lower or an upper bound), or exact when the bound meets the known one
    (a lower bound ``>= upper`` or an upper bound ``<= lower``). The window may have
    been narrowed to those bounds, so without this a proven exact score would be
    reported as a mere bound (and a split-tree node given the bound could never settle)."""
    if kind == TT_LOWER and value >= upper:
        return TT_EXACT
    if kind == TT_UPPER and value <= lower:
        return TT_EXACT
    return kind


@njit(inline="always", cache=True)
def pack_window(task_id, alpha, beta):
    """One int64 word holding a task id and a window (read and written atomically)."""
    return (task_id << 32) | ((alpha + WINDOW_BIAS) << 16) | (beta + WINDOW_BIAS)


@njit(inline="always", cache=True)
def _poll_abort(ctx, ctl):
    """True when the whole search or this searcher's current task must stop, or
    the node budget is spent."""
    if atomic_load(ctl, CTL_ABORT) != 0:
        return True
    limit = ctx[C_NODE_LIMIT]
    if limit != ZERO and ctx[C_NODES] >= limit:
        return True
    task = np.int64(ctx[C_TASK_ID])
    return task != 0 and atomic_load(ctl, np.int64(ctx[C_CTL_SLOT]) + CTL_TASK_ABORT) == task


@njit(cache=True)
def negamax(ctx, tt, ctl, own, opp, ply, alpha, beta, live_slot):
    """Score of the position ``own`` (side to move) / ``opp`` with ``ply`` stones on the board.

    Preconditions: the game is not over, the side to move cannot win with its
    next stone, ``alpha < beta``, and ``ctx``'s hash slot ``ply`` holds the
    position's hashes (:func:`set_root_hashes`). Fail-soft; see the module
    docstring for what the return value proves. Counts nodes in ``ctx[C_NODES]``.

    ``live_slot`` (task roots only; -1 elsewhere): index in ``ctl`` of a live
    window ``pack_window(task_id, A, B)`` that another process may narrow while
    this runs. Before each move the window is intersected with it; a value is
    still only returned when proven (if the window closes without a proof the
    task is abandoned as below). The kind of the result is left in
    ``ctx[C_RESULT_KIND]`` (1 lower bound, 2 upper bound, 3 exact).

    Abort: when ``ctl[CTL_ABORT]`` becomes non-zero, this searcher's task-abort
    slot names its task, or ``ctx[C_NODE_LIMIT]`` nodes are spent, the search unwinds without storing anything, sets
    ``ctx[C_ABORTED]`` and returns 0, which then means nothing.
    """
    nodes = ctx[C_NODES] + ONE
    ctx[C_NODES] = nodes
    if (nodes & ABORT_POLL_MASK) == ZERO and _poll_abort(ctx, ctl):
        ctx[C_ABORTED] = ONE
    if ctx[C_ABORTED] != ZERO:
        return 0
    cand, lo, hi = node_prelude(ctx, own, opp, ply)
    if cand == ZERO:
        ctx[C_RESULT_KIND] = TT_EXACT
        return lo
    # lower <= score <= upper: what the prelude and the table prove; a result that
    # meets one of them is exact, whatever window it was searched with
    lower = lo
    upper = hi
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            ctx[C_RESULT_KIND] = _result_kind(TT_LOWER, alpha, lower, upper)
            return alpha
    if beta > hi:
        beta = hi
        if alpha >= beta:
            ctx[C_RESULT_KIND] = _result_kind(TT_UPPER, beta, lower, upper)
            return beta

    key, sym = canonical_key(ctx, ply)
    flag, tt_score, tt_move = probe(ctx, tt, key, sym)
    if flag == TT_EXACT:
        ctx[C_RESULT_KIND] = TT_EXACT
        return tt_score
    if flag == TT_LOWER:
        lower = max(lower, tt_score)
        if tt_score > alpha:
            alpha = tt_score
            if alpha >= beta:
                ctx[C_RESULT_KIND] = _result_kind(TT_LOWER, alpha, lower, upper)
                return alpha
    elif flag == TT_UPPER:
        upper = min(upper, tt_score)
        if tt_score < beta:
            beta = tt_score
            if alpha >= beta:
                ctx[C_RESULT_KIND] = _result_kind(TT_UPPER, beta, lower, upper)
                return beta

    mbase = OFF_MOVES + ply * MAX_CELLS
    if cand & (cand - ONE) == ZERO:
        ctx[mbase] = np.uint64(lowest_bit_index(cand))  # a single move: nothing to order
        n = 1
    else:
        n = _order_moves(ctx, own, opp, cand, ply, tt_move, ctx[C_GRAVITY] != ZERO)
    player = ply & 1
    if n > 1:
        # start fetching the first children's table entries now (cutoffs come early):
        # their probes then hit the cache
        tt_mask = np.uint64(len(tt) - 1)
        for i in range(min(n, PREFETCH_CHILDREN)):
            push_hashes(ctx, ply, np.int64(ctx[mbase + i]), player)
            child_key, _ = canonical_key(ctx, ply + 1)
            prefetch(tt, np.int64(child_key & tt_mask))
    best = -1000
    best_move = -1
    best_exact = False
    task = np.int64(ctx[C_TASK_ID])
    # ABDADA (shared table only): a move whose child another searcher is inside is put
    # off to a second pass, by when its value is usually in the table
    defer_from = np.int64(ctx[C_DEFER_MIN_EMPTY])
    busy_base = 0
    busy_mask = 0
    if defer_from > 0 and np.int64(ctx[C_CELLS]) - ply >= defer_from:
        busy_base = ctl[CTL_BUSY_BASE]
        busy_mask = ctl[CTL_BUSY_MASK]
    deferred = ZERO
    second_pass = False
    i = 0
    while True:
        if i == n:
            if deferred == ZERO or second_pass:
                break
            second_pass = True
            i = 0
        cell = np.int64(ctx[mbase + i])
        i += 1
        bit = ONE << np.uint64(cell)
        if second_pass and (deferred & bit) == ZERO:
            continue
        if live_slot >= 0:
            word = atomic_load(ctl, live_slot)
            if (word >> 32) == task:
                alpha = max(alpha, ((word >> 16) & 0xFFFF) - WINDOW_BIAS)
                beta = min(beta, (word & 0xFFFF) - WINDOW_BIAS)
                if best_exact and best >= beta:
                    break  # proven fail-high against the narrowed window
                if alpha >= beta:
                    ctx[C_ABORTED] = ONE  # no longer needed, and nothing proven: abandon
                    return 0
        push_hashes(ctx, ply, cell, player)
        mark = -1
        mark_key = np.int64(0)
        if busy_base > 0:
            child_key, _ = canonical_key(ctx, ply + 1)
            mark_key = np.int64(child_key >> ONE)  # non-zero for any key that matters
            mark = busy_base + (mark_key & busy_mask)
            if not second_pass and i > 1 and atomic_load(ctl, mark) == mark_key:
                deferred |= bit
                continue
            ctl[mark] = mark_key
        v = -negamax(ctx, tt, ctl, opp, own | bit, np.int64(ply + 1),
                     np.int64(-beta), np.int64(-alpha), np.int64(-1))
        if mark >= 0 and ctl[mark] == mark_key:
            ctl[mark] = 0
        if ctx[C_ABORTED] != ZERO:
            return 0
        if v > best:
            best = v
            best_move = cell
            best_exact = alpha < v < beta
        if v >= beta:
            break
        if v > alpha:
            alpha = v
    if best >= beta:
        store(ctx, tt, key, sym, TT_LOWER, best, best_move)
        ctx[C_RESULT_KIND] = _result_kind(TT_LOWER, best, lower, upper)
    elif best_exact:
        store(ctx, tt, key, sym, TT_EXACT, best, best_move)
        ctx[C_RESULT_KIND] = TT_EXACT
    else:
        store(ctx, tt, key, sym, TT_UPPER, best, -1)
        ctx[C_RESULT_KIND] = _result_kind(TT_UPPER, best, lower, upper)
    return best
