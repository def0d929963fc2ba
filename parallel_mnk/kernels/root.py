"""Root-level kernels: a window search for any non-terminal position, the exact
score by iterated null-window searches (as in Pons' solver), and a best move.

Positions are ``own`` (stones of the side to move) and ``opp`` bitboards with
``ply`` stones on the board; the first player is to move when ``ply`` is even.
"""
import numpy as np
from numba import njit

from .bits import lowest_bit_index, unowned
from .common import insert_descending
from .layout import (
    C_ABORTED, C_BOARD, C_CELLS, C_GRAVITY, C_RESULT_KIND, MAX_CELLS, OFF_MOVES, OFF_STATIC, TT_EXACT,
)
from .gravity_search import gravity_task
from .lines import playable_cells, winning_cells
from .negamax import _order_moves, negamax, node_prelude
from .table import canonical_key, probe, set_root_hashes

ZERO = np.uint64(0)
ONE = np.uint64(1)


@njit(cache=True, nogil=True)
def legal_cells(ctx, own, opp):
    """Cells a stone may go to: the empty cells, or with gravity the playable ones."""
    mask = own | opp
    if ctx[C_GRAVITY] != ZERO:
        return playable_cells(ctx, mask)
    return ctx[C_BOARD] & ~mask


@njit(cache=True, nogil=True)
def immediate_wins(ctx, own, opp):
    """Legal cells where the side to move completes ``k`` in a row at once."""
    return winning_cells(ctx, own, legal_cells(ctx, own, opp))


@njit(cache=True, nogil=True)
def search_window(ctx, tt, ctl, own, opp, ply, alpha, beta):
    """Fail-soft window search of any position that is not over (``ply < cells``).

    Same return contract as :func:`negamax` (``v <= alpha``: upper bound,
    ``v >= beta``: lower bound, else exact), without its preconditions: an
    immediate win is scored here. Sets the root hashes itself.
    """
    return run_task(ctx, tt, ctl, own, opp, ply, alpha, beta, -1)


@njit(inline="always", cache=True)
def first_probe(lo, hi):
    """The state of the probes of a score known to lie in ``[lo, hi]``, before the
    first: ``(last, direction, run, bracketed)`` for :func:`next_probe`."""
    return (lo + hi) // 2, 0, 0, False


@njit(inline="always", cache=True)
def next_probe(lo, hi, state):
    """The null-window test point ``med`` (a probe of window ``(med, med + 1)``) for
    a score known to lie in ``[lo, hi]`` (lo < hi), and ``state`` (:func:`first_probe`,
    then :func:`after_probe`).

    As Steininger's c4, each probe starts next to the last one's fail-soft value
    (the first next to the middle of the range), so that near 0 two probes settle
    it (empty 6x6 gravity: 2 probes, 6.4 M nodes, against 7 and 8.0 M for Pons'
    bisection); while the probes keep failing the same way the step doubles, and
    once they have failed both ways the rest is bisection (on 240 of Pons'
    positions 13.6 M nodes, c4's rule alone 14.1 M, Pons' 12.5 M)."""
    last, direction, run, bracketed = state
    if bracketed:
        return lo + (hi - lo) // 2
    step = 1 << max(run - 1, 0)
    med = last - step if direction <= 0 else last + step - 1
    return min(max(med, lo), hi - 1)


@njit(inline="always", cache=True)
def after_probe(state, med, value):
    """The probe state after the probe at ``med`` returned the fail-soft ``value``."""
    last, direction, run, bracketed = state
    now = -1 if value <= med else 1
    if direction != 0 and now != direction:
        bracketed = True
    run = run + 1 if now == direction else 1
    return value, now, run, bracketed


@njit(cache=True, nogil=True)
def solve_score(ctx, tt, ctl, own, opp, ply, weak):
    """Score of a position that is not over.

    Exact (``weak`` false): the DESIGN.md score, found by null-window searches
    (:func:`next_probe`) that narrow the interval of possible scores.
    Weak: -1, 0 or 1 (loss, draw, win). If the search is aborted the result is
    meaningless and ``ctx[C_ABORTED]`` is set.
    """
    cells = np.int64(ctx[C_CELLS])
    if immediate_wins(ctx, own, opp) != ZERO:
        return 1 if weak else (cells + 1 - ply) // 2
    if weak:
        v = search_window(ctx, tt, ctl, own, opp, ply, -1, 1)
        return 1 if v > 0 else (-1 if v < 0 else 0)
    lo = -((cells - ply) // 2)
    hi = (cells + 1 - ply) // 2
    state = first_probe(lo, hi)
    while lo < hi:
        med = next_probe(lo, hi, state)
        r = search_window(ctx, tt, ctl, own, opp, ply, med, med + 1)
        if ctx[C_ABORTED] != ZERO:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
        state = after_probe(state, med, r)
    return lo


@njit(cache=True, nogil=True)
def move_value_at_least(ctx, tt, ctl, own, opp, ply, cell, target, weak):
    """Whether playing ``cell`` reaches ``target`` (a score, or -1/0/1 when ``weak``)."""
    cells = np.int64(ctx[C_CELLS])
    bit = ONE << np.uint64(cell)
    if winning_cells(ctx, own, bit) != ZERO:
        return True  # a win at once is the best there is
    child_own = opp
    child_opp = own | bit
    if ply + 1 >= cells:
        return 0 >= target
    if immediate_wins(ctx, child_own, child_opp) != ZERO:
        loss = -1 if weak else -((cells - ply) // 2)
        return loss >= target
    # the child's score (weak: its -1/0/1 value, the same search) is at most -target
    v = search_window(ctx, tt, ctl, child_own, child_opp, ply + 1, -target, -target + 1)
    return v <= -target


@njit(cache=True, nogil=True)
def best_move(ctx, tt, ctl, own, opp, ply, score, weak):
    """A cell that keeps the position's ``score`` (exact, or weak -1/0/1).

    Tried in static order (centre first). With a weak loss every move is
    equal; one that does not lose at once is preferred. Returns -1 if aborted.
    """
    legal = legal_cells(ctx, own, opp)
    n = 0
    order = np.empty(MAX_CELLS, dtype=np.int64)
    keys = np.empty(MAX_CELLS, dtype=np.uint64)
    c = legal
    while c != ZERO:
        cell = lowest_bit_index(c)
        c &= c - ONE
        insert_descending(order, keys, 0, 0, n, cell, ctx[OFF_STATIC + cell])
        n += 1
    fallback = order[0] if n > 0 else -1
    for i in range(n):
        cell = order[i]
        if weak and score < 0:
            bit = ONE << np.uint64(cell)
            if ply + 1 < np.int64(ctx[C_CELLS]) and immediate_wins(ctx, opp, own | bit) == ZERO:
                return cell
            continue
        if move_value_at_least(ctx, tt, ctl, own, opp, ply, cell, score, weak):
            return cell
        if ctx[C_ABORTED] != ZERO:
            return -1
    return fallback


@njit(cache=True, nogil=True)
def expand(ctx, tt, own, opp, ply, out):
    """The moves of a split node as the search would play them, best first.

    For a position that is not over. Returns ``(n, lo, hi)`` and writes ``n``
    cells to ``out``: proven bounds ``lo <= score <= hi`` and the moves worth
    searching (the same pruning as :func:`negamax`). ``n == 0`` means the score is
    exactly ``lo`` without search (a win at once, a forced loss, a dead draw);
    for a win at once ``out[0]`` is the winning cell.
    """
    cells = np.int64(ctx[C_CELLS])
    wins = immediate_wins(ctx, own, opp)
    if wins != ZERO:
        out[0] = lowest_bit_index(wins)
        v = (cells + 1 - ply) // 2
        return 0, v, v
    if ply & 1 == 0:
        set_root_hashes(ctx, own, opp, ply)
    else:
        set_root_hashes(ctx, opp, own, ply)
    cand, lo, hi = node_prelude(ctx, own, opp, ply)
    if cand == ZERO:
        return 0, lo, lo
    key, sym = canonical_key(ctx, ply)
    flag, tt_score, tt_move = probe(ctx, tt, key, sym)
    n = _order_moves(ctx, tt, own, opp, cand, ply, tt_move, ctx[C_GRAVITY] != ZERO)
    for i in range(n):
        out[i] = np.int64(ctx[OFF_MOVES + ply * MAX_CELLS + i])
    return n, lo, hi


@njit(cache=True, nogil=True)
def run_task(ctx, tt, ctl, own, opp, ply, alpha, beta, live_slot):
    """Search one task of the parallel split: a position that is not over, with
    window ``(alpha, beta)`` narrowed live from ``ctl[live_slot]``.

    Returns the fail-soft score; ``ctx[C_RESULT_KIND]`` says what it proves
    (1 lower bound, 2 upper bound, 3 exact). If ``ctx[C_ABORTED]`` is set the
    task was abandoned (no longer needed, or the search was stopped) and the
    score means nothing.
    """
    ctx, tt, ctl = unowned(ctx), unowned(tt), unowned(ctl)   # no reference counting in the recursion
    if ctx[C_GRAVITY] != ZERO:
        return gravity_task(ctx, tt, ctl, np.uint64(own), np.uint64(opp), np.int64(ply), np.int64(alpha),
                            np.int64(beta), np.int64(live_slot))
    cells = np.int64(ctx[C_CELLS])
    if immediate_wins(ctx, own, opp) != ZERO:
        ctx[C_RESULT_KIND] = TT_EXACT
        return (cells + 1 - ply) // 2
    if ply & 1 == 0:
        set_root_hashes(ctx, own, opp, ply)
    else:
        set_root_hashes(ctx, opp, own, ply)
    # exact argument types: a cached recursive kernel called with other types (a cast
    # in the recursion) segfaults when loaded from the cache (numba issue 6713)
    return negamax(ctx, tt, ctl, np.uint64(own), np.uint64(opp), np.int64(ply), np.int64(alpha), np.int64(beta),
                   np.int64(live_slot))
