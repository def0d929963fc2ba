"""Victory by continuous fours (VCF) on bitboards, exact in the strong game
(``docs/proofs.md``), and the bound it gives the exact search.

X (stones ``own``) is to move against Y (``opp``). A *four* is a live window
(no Y stone) holding ``k - 1`` X stones; its empty cell is a *completion cell*.

1. X has a completion cell: X wins at once (1 ply).
2. Y has two completion cells: no VCF. Y has one: X must block it, so that cell
   is X's only candidate; otherwise every cell that makes a four is.
3. A candidate ``c`` that leaves X two completion cells wins in 3 plies: after
   ``c`` Y has none (it had none, or ``c`` took the only one), so Y cannot win
   first and can block only one. With one completion cell ``r``, Y must play
   ``r`` (any other move loses at once); X recurses on the position after both.

Every "win" is a genuine strong-game win, found with its line (X's moves and
Y's forced replies) and its length in plies; "no win" means only "no VCF found"
(within the depth and node caps). Free placement only.
"""
import numpy as np
from ..core.jit import called, entry, inlined

from ..core.bits import lowest_bit_index, popcount
from ..core.bounds import win_in
from ..core.layout import C_BOARD, C_CELLS, C_K, C_NLINES, OFF_LINES
from .layout import (
    OFF_VCF_LINE, P_VCF_CAP, P_VCF_MIN_EMPTY, P_VCF_MOVES, P_VCF_NODE_CAP, P_VCF_NODES, P_VCF_TOTAL, P_VCF_WINS,
    VCF_MAX_MOVES,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)


@inlined
def _cells_making(ctx, own, opp, need):
    """Empty cells in windows without ``opp`` stones that hold ``need`` of ``own``'s."""
    empty = ctx[C_BOARD] & ~(own | opp)
    out = ZERO
    for i in range(np.int64(ctx[C_NLINES])):
        line = ctx[OFF_LINES + i]
        if line & opp == ZERO and popcount(line & own) == need:
            out |= line & empty
    return out


@called
def four_cells(ctx, own, opp):
    """Empty cells where a stone of ``own`` makes a four (``k - 1`` of its stones in
    a window without ``opp`` stones)."""
    return _cells_making(ctx, own, opp, np.int64(ctx[C_K]) - 2)


@called
def completion_cells(ctx, own, opp):
    """Empty cells that complete a window for ``own`` (windows without ``opp`` stones)."""
    return _cells_making(ctx, own, opp, np.int64(ctx[C_K]) - 1)


@called
def _vcf(ctx, own, opp, moves_left, depth):
    """Plies to the VCF win of ``own`` to move (odd, >= 1), 0 when none is found.
    The line is written from ``ctx[OFF_VCF_LINE + 2 * depth]`` on (X's move, Y's
    reply, ...); the search stops when ``ctx[P_VCF_NODES]`` reaches the cap."""
    ctx[P_VCF_NODES] += ONE
    mine = completion_cells(ctx, own, opp)
    if mine != ZERO:
        ctx[OFF_VCF_LINE + 2 * depth] = np.uint64(lowest_bit_index(mine))
        return 1
    if moves_left <= 0 or ctx[P_VCF_NODES] >= ctx[P_VCF_CAP]:
        return 0
    theirs = completion_cells(ctx, opp, own)
    if theirs & (theirs - ONE) != ZERO:
        return 0
    cand = four_cells(ctx, own, opp)
    if theirs != ZERO:
        cand &= theirs
    while cand != ZERO:
        cell = lowest_bit_index(cand)
        cand &= cand - ONE
        bit = ONE << np.uint64(cell)
        threats = completion_cells(ctx, own | bit, opp)
        if threats == ZERO:
            continue
        ctx[OFF_VCF_LINE + 2 * depth] = np.uint64(cell)
        if threats & (threats - ONE) != ZERO:
            ctx[OFF_VCF_LINE + 2 * depth + 1] = np.uint64(lowest_bit_index(threats))
            ctx[OFF_VCF_LINE + 2 * depth + 2] = np.uint64(lowest_bit_index(threats & (threats - ONE)))
            return 3
        ctx[OFF_VCF_LINE + 2 * depth + 1] = np.uint64(lowest_bit_index(threats))
        d = _vcf(ctx, np.uint64(own | bit), np.uint64(opp | threats), np.int64(moves_left - 1),
                 np.int64(depth + 1))
        if d > 0:
            return d + 2
        if ctx[P_VCF_NODES] >= ctx[P_VCF_CAP]:
            return 0
    return 0


@entry
def vcf_win(ctx, own, opp, max_moves, cap):
    """Plies to a win of ``own`` (to move) by continuous fours with at most
    ``max_moves`` fours before the winning stone, visiting at most ``cap`` nodes;
    0 when none is found. The line (``plies`` cells: X's moves and Y's forced
    replies, then the winning cell; after a double four, Y's block is the first
    of X's two completion cells) is at ``ctx[OFF_VCF_LINE:]``."""
    ctx[P_VCF_NODES] = ZERO
    ctx[P_VCF_CAP] = np.uint64(cap)
    # exact argument types: a cached recursive kernel called with other types segfaults (numba issue 6713)
    return _vcf(ctx, np.uint64(own), np.uint64(opp), np.int64(min(max_moves, VCF_MAX_MOVES)), np.int64(0))


@called
def vcf_bound(ctx, own, opp, ply, lower):
    """The exact search's lower bound of the side to move (stones ``own``, ``ply``
    stones on the board, no win in one) raised by a VCF win found within
    ``ctx[P_VCF_MOVES]`` fours and ``ctx[P_VCF_NODE_CAP]`` nodes, at nodes with at
    least ``ctx[P_VCF_MIN_EMPTY]`` empty cells (the win's worth: docs/design.md score)."""
    cells = np.int64(ctx[C_CELLS])
    if ctx[P_VCF_MIN_EMPTY] == ZERO or cells - ply < np.int64(ctx[P_VCF_MIN_EMPTY]):
        return lower
    if win_in(cells, ply, np.int64(3)) <= lower:
        return lower   # no VCF could be worth more than what is known
    d = vcf_win(ctx, own, opp, np.int64(ctx[P_VCF_MOVES]), np.int64(ctx[P_VCF_NODE_CAP]))
    ctx[P_VCF_TOTAL] += ctx[P_VCF_NODES]
    if d == 0:
        return lower
    ctx[P_VCF_WINS] += ONE
    return max(lower, win_in(cells, ply, d))


@entry
def threat_zone(ctx, own, opp, plies):
    """After :func:`vcf_win` found a win of ``plies`` plies for ``own`` (to move)
    against ``opp``, its line at ``ctx[OFF_VCF_LINE:]``: a mask ``Z`` of empty
    cells such that the same line still wins after one more ``opp`` stone on any
    empty cell outside ``Z``. ``Z`` is the line's cells and every empty cell where
    an ``opp`` stone would make a four of ``opp`` (a window without ``own`` stones
    holding ``k - 2`` of ``opp``'s stones and forced replies on the line). Outside
    ``Z`` the stone lies in none of ``own``'s fours (their cells are ``own``'s
    stones and completion cells on the line) and gives ``opp`` no four, so every
    reply on the line is still forced and every four still stands: when ``opp``
    is to move, each of its moves outside ``Z`` loses to that line (Allis'
    threat-space defence: the defender must play in the threat's cells)."""
    empty = ctx[C_BOARD] & ~(own | opp)
    line = ZERO
    replies = ZERO
    for i in range(plies):
        bit = ONE << ctx[OFF_VCF_LINE + i]
        line |= bit
        if i & 1 == 1:
            replies |= bit
    theirs = opp | replies
    need = np.int64(ctx[C_K]) - 2
    out = line & empty
    for i in range(np.int64(ctx[C_NLINES])):
        w = ctx[OFF_LINES + i]
        if w & own == ZERO and popcount(w & theirs) >= need:
            out |= w & empty
    return out
