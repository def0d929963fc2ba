"""Static analysis of gravity positions: what is known of a position without
searching it (forced lines played out, score bounds, the even-squares bound).

Bit layout as in :mod:`parallel_mnk.game.geometry` (cell = row * cols + col, row 0 at
the top): the cell above a cell is ``cell - cols`` (``b >> cols`` moves every
stone one row up), the cell below ``cell + cols``. Positions are ``own`` (the side
to move) and ``opp``; ``ply`` stones are on the board. A *threat* of a side is an
empty cell that would complete ``k`` in a row for it (playable or not). A move is
*safe* when it is playable and not directly under a threat of the opponent (else
the opponent wins on top of it).

Score bounds (from the side to move, docs/design.md's scores; :mod:`..core.bounds`):

* a side to move that cannot win at once and whose opponent has no playable
  threat can win at the earliest with its next-but-one stone (ply + 3) and lose at
  the earliest to the opponent's second stone (ply + 4);
* even-squares (Allis' claimeven): on a board of even height, with the first
  player to move, the second player can answer every move in the same column
  (or, in a column of odd height, in another such column), and so owns every
  empty cell of even height (1-based from the bottom) that is not playable now.
  If the first player has no line outside those cells, it cannot win; if the
  second player then has a line inside them, the first player loses, at the
  latest when that line's highest cell can be filled.
"""
import numpy as np
from ..core import board as B
from ..core.jit import expanded, inlined

from ..core.bits import lowest_bit_index
from ..core.bounds import NO_SCORE, win_in
from ..core.layout import (
    C_ETC_MIN_EMPTY, C_RULES, GC_ENTRY, GC_H0,
    GC_H1, GC_HI, GC_KEY, GC_LO, GC_OPP, GC_OWN, GC_PLY, MAX_SYM, OFF_HASH,
    RULE_EVENS, RULE_STATIC, SCORE_BIAS, TT_EXACT, TT_LOWER, TT_UPPER,
)
from ..core.lines import has_k_run, playable_cells, winning_cells
from ..core.table import canonical_key, probe, push_hashes

ZERO = np.uint64(0)
ONE = np.uint64(1)

# the table lookup of a record (GC_ENTRY) or node slot (GN_ENTRY), packed in one word:
#   bit 0 valid (the word holds a lookup), bits 1..3 symmetry, 4..5 flag, 6..13 score + 128, 14..20 move + 1
LOOKED_UP = np.uint64(1)


@expanded
def pack_lookup(sym, flag, score, move):
    """One word for a table lookup: its symmetry, flag, score and move (-1 for none)."""
    return LOOKED_UP | (np.uint64(sym) << np.uint64(1)) | (np.uint64(flag) << np.uint64(4)) \
        | (np.uint64(score + 128) << np.uint64(6)) | (np.uint64(move + 1) << np.uint64(14))


@expanded
def unpack_lookup(word):
    """``(sym, flag, score, move)`` of a word made by :func:`pack_lookup`."""
    sym = np.int64((word >> np.uint64(1)) & np.uint64(7))
    flag = np.int64((word >> np.uint64(4)) & np.uint64(3))
    score = np.int64((word >> np.uint64(6)) & np.uint64(255)) - 128
    move = np.int64((word >> np.uint64(14)) & np.uint64(127)) - 1
    return sym, flag, score, move


@inlined
def evens_bound(ctx, own, opp, ply):
    """Upper bound on the score of the first player to move (``ply`` even, board of
    even height) from the second player's even-squares strategy (module
    docstring); ``NO_SCORE`` when the strategy proves nothing."""
    cells = B.cells(ctx)
    rows = B.rows(ctx)
    cols = B.cols(ctx)
    mask = own | opp
    empty = B.board(ctx) & ~mask
    theirs_empty = B.even(ctx) & empty & ~playable_cells(ctx, mask)
    if has_k_run(ctx, B.board(ctx) & ~(opp | theirs_empty)):
        return NO_SCORE
    if not has_k_run(ctx, opp | theirs_empty):
        return 0
    # the second player completes a line for sure: the first one to be completed is
    # done, at the latest, once every cell but those above its highest empty cell is
    # filled; that is lowest for the line whose highest empty cell is lowest
    allowed = opp
    height = 1
    while height < rows:
        allowed |= theirs_empty & (B.bottom(ctx) >> (np.uint64(height - 1) * cols))
        if has_k_run(ctx, allowed):
            break
        height += 1
    last = cells - (rows - height)
    last -= last & 1   # the second player's stones complete on even plies
    return -win_in(cells, last, np.int64(0))


@inlined
def position_key(ctx, own, opp, ply):
    """``(key, sym)``: the table key of the position at hash slot ``ply`` (its
    salted canonical hash, :func:`..core.table.canonical_key`)."""
    return canonical_key(ctx, ply)


@inlined
def open_bounds(ctx, own, opp, ply, alpha, beta):
    """``(lo, hi)``: bounds on the score of an *open* position (the side to move
    cannot win at once, the opponent has no playable threat and the side to move
    has a safe move: module docstring's bounds), for a search with window
    ``(alpha, beta)``: a bound that could not narrow that window is not worked out."""
    cells = B.cells(ctx)
    rules = ctx[C_RULES]
    lo = -win_in(cells, ply, np.int64(4))
    hi = win_in(cells, ply, np.int64(3))
    if rules & np.uint64(RULE_EVENS) and (ply & 1) == 0 and (B.rows(ctx) & 1) == 0 and hi > lo:
        hi = min(hi, evens_bound(ctx, own, opp, ply))
    return lo, max(lo, hi)


@inlined
def resolve(ctx, tt, own, opp, ply, opp_threats, rec, etc, alpha, beta):
    """Static analysis of a position whose side to move cannot win at once
    (``opp_threats``: the opponent's threats), for a search with window ``(alpha,
    beta)``; the hashes of the position are at slot ``ply`` of ``ctx``.

    Forced moves (the only block of an opponent's playable threat, the only safe
    move) are played out, their hashes pushed to the next slots, until a position
    is settled (a forced loss, a full board) or open. Writes the record at
    ``ctx[rec:]`` (layout's ``GC_*``): the position reached, its hashes, and bounds
    ``lo <= score <= hi`` *of the position reached* (from its side to move; equal
    when settled); with ``etc`` and enough empty cells also its table entry
    (bounds folded in). Returns True when the score is settled.
    """
    cells = B.cells(ctx)
    cols = B.cols(ctx)
    board = B.board(ctx)
    own, opp, threats = np.uint64(own), np.uint64(opp), np.uint64(opp_threats)
    lo = hi = 0
    settled = False
    while True:
        if ply >= cells:
            settled = True   # a full board: a draw
            break
        mask = own | opp
        play = playable_cells(ctx, mask)
        now = threats & play
        safe = play & ~(threats << cols)
        if (now != ZERO and (now & (now - ONE)) != ZERO) or (now & ~safe) != ZERO or safe == ZERO:
            lo = hi = -win_in(cells, ply, np.int64(2))   # the opponent wins with its next stone
            settled = True
            break
        forced = now if now != ZERO else (safe if (safe & (safe - ONE)) == ZERO else ZERO)
        if forced == ZERO or (ctx[C_RULES] & np.uint64(RULE_STATIC)) == ZERO:
            break
        cell = lowest_bit_index(forced)
        push_hashes(ctx, ply, cell, ply & 1)
        threats = winning_cells(ctx, own | forced, board & ~(mask | forced))
        own, opp = opp, own | forced
        alpha, beta = -beta, -alpha
        ply += 1
    ctx[rec + GC_OWN] = own
    ctx[rec + GC_OPP] = opp
    ctx[rec + GC_PLY] = ply
    src = OFF_HASH + ply * MAX_SYM
    ctx[rec + GC_H0] = ctx[src]
    ctx[rec + GC_H1] = ctx[src + 1] if np.uint64(B.nsym(ctx)) > ONE else ZERO
    ctx[rec + GC_ENTRY] = ZERO
    if not settled:
        lo, hi = open_bounds(ctx, own, opp, ply, alpha, beta)
        if etc and cells - ply >= np.int64(ctx[C_ETC_MIN_EMPTY]):
            key, sym = position_key(ctx, own, opp, ply)
            flag, score, move = probe(ctx, tt, key, sym)
            ctx[rec + GC_KEY] = key
            ctx[rec + GC_ENTRY] = pack_lookup(sym, flag, score, move)
            if flag == TT_EXACT:
                lo = hi = score
            elif flag == TT_LOWER:
                lo = max(lo, min(score, hi))
            elif flag == TT_UPPER:
                hi = min(hi, max(score, lo))
        settled = lo >= hi
    ctx[rec + GC_LO] = np.uint64(lo + SCORE_BIAS)
    ctx[rec + GC_HI] = np.uint64(hi + SCORE_BIAS)
    return settled
