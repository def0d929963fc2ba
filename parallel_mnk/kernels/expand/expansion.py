"""The split node expansion of a parallel solve: the moves of a node of the split
tree as the search would play them, with the bounds proven without search.

Positions are ``own`` (stones of the side to move) and ``opp`` bitboards with
``ply`` stones on the board; the first player is to move when ``ply`` is even.
"""
import numpy as np

from ..core.bits import lowest_bit_index
from ..core.jit import entry
from ..core.layout import C_BOARD, C_CELLS, C_GRAVITY, MAX_CELLS, OFF_MOVES
from ..core.lines import playable_cells, winning_cells
from ..core.node_rules import node_prelude, order_moves
from ..core.table import MAX_WORK, canonical_key, probe, set_root_hashes, store

ZERO = np.uint64(0)


@entry
def expand(ctx, tt, own, opp, ply, out):
    """The moves of a split node as the search would play them, best first.

    For a position that is not over. Returns ``(n, lo, hi)`` and writes ``n``
    cells to ``out``: proven bounds ``lo <= score <= hi`` and the moves worth
    searching (the same pruning as :func:`..free.search.negamax`). ``n == 0``
    means the score is exactly ``lo`` without search (a win at once, a forced
    loss, a dead draw); for a win at once ``out[0]`` is the winning cell.
    """
    cells = np.int64(ctx[C_CELLS])
    mask = own | opp
    gravity = ctx[C_GRAVITY] != ZERO
    legal = playable_cells(ctx, mask) if gravity else ctx[C_BOARD] & ~mask
    wins = winning_cells(ctx, own, legal)
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
    n = order_moves(ctx, tt, own, opp, cand, ply, tt_move, gravity)
    for i in range(n):
        out[i] = np.int64(ctx[OFF_MOVES + ply * MAX_CELLS + i])
    return n, lo, hi


@entry
def seed_bound(ctx, tt, own, opp, ply, kind, value):
    """Store in the table a bound proven earlier of a position that is not over
    (``kind`` 1 lower, 2 upper, 3 exact; ``value`` from the side to move), as the
    search stores what it proves, with the most work an entry can show (so that
    the table keeps it): a resumed solve finds there what an earlier run finished."""
    if ply & 1 == 0:
        set_root_hashes(ctx, own, opp, ply)
    else:
        set_root_hashes(ctx, opp, own, ply)
    key, sym = canonical_key(ctx, ply)
    store(ctx, tt, key, sym, kind, value, -1, MAX_WORK)
