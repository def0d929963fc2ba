"""The generic rules of a node, for either placement: its forced lines and static
score bounds (:func:`node_prelude`) and the order of its moves (:func:`order_moves`).

The free-placement search applies both at every node (:mod:`..free.search`); the
split of a parallel solve expands its nodes with them on either kind of board
(:mod:`..expand.expansion`), and df-pn takes its moves from them (:mod:`..proofs.dfpn`).
Scores are from the side to move (docs/design.md).
"""
import numpy as np

from parallel_mnk.settings import PREFETCH_CHILDREN
from . import board as B
from .bits import lowest_bit_index, popcount, prefetch
from .bounds import flip_kind
from .common import insert_descending
from .jit import called, expanded, inlined
from .layout import (
    C_GRAVITY, C_RESULT_KIND, C_WEIGHT, MAX_CELLS, OFF_MOVES, OFF_SCORES, TT_EXACT,
)
from .lines import line_move_scores, live_line_summary, playable_cells, winning_cells
from .table import canonical_key, push_hashes

ZERO = np.uint64(0)
ONE = np.uint64(1)


# ------------------------------------------------------------------ move ordering
@called
def order_moves(ctx, tt, own, opp, cand, ply, tt_move, gravity):
    """Write the candidate cells of ``cand`` (at least two) to the move list at
    ``ply``, best first, and return how many there are.

    Order: the table's move; then (gravity) the number of our threats after the
    move, or (free) the live-line score of the cell; centre first on ties. Then
    starts fetching the first children's table entries (cutoffs come early, so
    their probes then hit the cache).
    """
    mbase = OFF_MOVES + ply * MAX_CELLS
    sbase = OFF_SCORES + ply * 2 * MAX_CELLS   # per-cell line scores
    obase = sbase + MAX_CELLS                  # scores of the sorted move list
    mask = own | opp
    if not gravity:
        line_move_scores(ctx, own, opp, cand, np.int64(C_WEIGHT), sbase)
    n = np.int64(0)
    c = cand
    while c != ZERO:
        cell = lowest_bit_index(c)
        c &= c - ONE
        if cell == tt_move:
            score = np.uint64(1) << np.uint64(62)
        elif gravity:
            bit = ONE << np.uint64(cell)
            threats = popcount(winning_cells(ctx, own | bit, B.board(ctx) & ~(mask | bit)))
            score = np.uint64(threats) * np.uint64(64) + B.static_bonus(ctx, cell)
        else:
            score = ctx[sbase + cell] * np.uint64(64) + B.static_bonus(ctx, cell)
        insert_descending(ctx, ctx, mbase, obase, n, np.uint64(cell), score)
        n += 1
    tt_mask = np.uint64(len(tt) - 1)
    for i in range(min(n, PREFETCH_CHILDREN)):
        push_hashes(ctx, ply, np.int64(ctx[mbase + i]), ply & 1)
        child_key, _ = canonical_key(ctx, ply + 1)
        prefetch(tt, np.int64(child_key & tt_mask))
    return n


# ------------------------------------------------------------------ forced lines and bounds
@expanded
def node_prelude(ctx, own, opp, ply):
    """Forced lines and score bounds of a node (the pruning rules of the module docstring).

    Precondition: the side to move cannot win with its next stone and the game is
    not over. Returns ``(cand, lo, hi)``: the cells worth playing and proven
    bounds ``lo <= score <= hi``. When ``cand`` is 0 the score is exactly ``lo``.
    """
    cells = B.cells(ctx)
    gravity = ctx[C_GRAVITY] != ZERO
    mask = own | opp
    empty = B.board(ctx) & ~mask
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
        cand &= ~(opp_wins << B.cols(ctx))  # never play right under an opponent's winning cell
        if cand == ZERO:
            return ZERO, lost, lost
    if ply >= cells - 2:
        return ZERO, 0, 0
    lo = -((cells - 2 - ply) // 2)
    hi = (cells - 1 - ply) // 2
    if not gravity:
        if ply == 0 and lo < 0:
            lo = 0  # strategy stealing: the first player never loses the empty board
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


# ------------------------------------------------------------------ the root step of an entry point
# ``cell`` of a search's own recursive calls (the free and gravity searches are their
# entry points): a node inside the search, below 0 but -1, which asks for the position
INSIDE = np.int64(-2)


@inlined
def play_first(ctx, own, opp, ply, cell, alpha, beta, live_slot):
    """What an entry point searches when asked for the value of the move to ``cell``
    (``cell`` >= 0; below 0: of the position itself), window ``(alpha, beta)`` from
    the side to move.

    Returns ``(own, opp, ply, alpha, beta, live_slot, sign, settled, value)``: the
    position to search with its window and live slot, ``sign`` -1 when that is the
    child (its result is the move's negated: :func:`signed_result`), and
    ``settled`` when the move decides at once (it wins, or fills the board): then
    ``value`` is the move's exact value and ``ctx[C_RESULT_KIND]`` says so."""
    if cell < 0:
        return own, opp, ply, alpha, beta, live_slot, 1, False, 0
    bit = ONE << np.uint64(cell)
    cells = B.cells(ctx)
    if winning_cells(ctx, own, bit) != ZERO:
        ctx[C_RESULT_KIND] = TT_EXACT
        return own, opp, ply, alpha, beta, live_slot, 1, True, (cells + 1 - ply) // 2
    if ply + 1 >= cells:
        ctx[C_RESULT_KIND] = TT_EXACT
        return own, opp, ply, alpha, beta, live_slot, 1, True, 0
    return opp, own | bit, ply + 1, -beta, -alpha, np.int64(-1), -1, False, 0


@inlined
def signed_result(ctx, sign, value):
    """``value`` (and the kind in ``ctx[C_RESULT_KIND]``) seen from the side that
    played first when ``sign`` is -1 (:func:`play_first`)."""
    if sign < 0:
        ctx[C_RESULT_KIND] = flip_kind(np.int64(ctx[C_RESULT_KIND]))
        return -value
    return value
