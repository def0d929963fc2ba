"""Exact alpha-beta on the array board (:mod:`..grid.stones`): the value of a
position of any board up to 26x26, free placement or gravity.

The bitboard searches stop at 64 cells; past them this search proves values on
the board kept as per-line stone counts (``docs/big-boards.md``).
It reads top-down, one step per rule:

1. **A win in one**: the side to move completes a line (a playable cell of a line
   with ``k - 1`` of its stones and none of the other's).
2. **The opponent's threats**: two playable winning cells of the opponent lose
   (one stone blocks one cell); one must be blocked (every other move loses at
   once), so it is the only move searched.
3. **The window** (exact scores): no win comes before ply + 3 and no loss before
   ply + 2, so the score lies in ``[-(cells - ply) // 2, (cells - 1 - ply) // 2]``.
4. **The table**: a stored bound that decides the window answers.
5. **A win by continuous fours** (weak, free placement): :func:`..grid.tss.vcf`
   finds the side to move a line of fours, each reply forced, the defender never
   winning first: a win in the strong game (``docs/proofs.md`` 4.3).
6. **Every move**, the block alone after step 2; the table's move first, then
   :func:`..grid.stones.move_score` order (what a stone builds and blocks).

Scores: ``weak`` 1 / 0 / -1; otherwise the project's exact score (a win
completed on ply ``p`` is worth ``(cells + 2 - p) // 2``,
:mod:`parallel_mnk.game.rules`). Fail-soft: a result ``<= alpha`` is an upper
bound, ``>= beta`` a lower bound, in between the value. The table's words:
``tt_keys[i]`` a position's hash, ``tt_data[2i]`` its score, ``tt_data[2i + 1]``
``flag | (move + 1) << 8`` (flags of :mod:`..core.layout`: 1 lower bound, 2 upper,
3 exact). Weak and exact scores never share a table.
"""
import numpy as np

from ..core.common import POLL_MASK, budget_spent, insert_descending, stop_requested
from ..core.jit import allocating
from ..core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from ..grid.stones import candidate_moves, move_score, play, unplay, winning_cells
from ..grid.layout import G_CELLS, G_GRAVITY, G_S_MOVES, G_S_MSCORE, INF, S_ABORTED, S_BEST, S_HASH, S_NODES, \
    S_NODE_LIMIT, S_PLY, S_TURN
from ..grid.tss import vcf


@allocating
def _store(tt_keys, tt_data, key, score, flag, move):
    """Remember ``score`` of the position ``key`` as a bound ``flag``, with its best ``move``."""
    i = key & (tt_keys.shape[0] - 1)
    tt_keys[i] = key
    tt_data[2 * i] = score
    tt_data[2 * i + 1] = flag | ((move + 1) << 8)


@allocating
def prove(geo, st, tt_keys, tt_data, ctl, alpha, beta, weak, fours, line, fail, sply):
    """The value of the position in ``st`` for the side to move (module docstring),
    fail-soft in ``(alpha, beta)``; ``sply`` plies below the search's root, where the
    best move found goes to ``st[S_BEST]``. ``fours``: the most fours a search for a
    win by continuous fours may play (step 5; 0: none), ``line`` its scratch (at
    least ``LINE_MAX`` words), ``fail`` its failure table. Returns 0 with
    ``st[S_ABORTED]`` set when ``ctl`` asks to stop or the node budget
    ``st[S_NODE_LIMIT]`` is spent. ``st`` is restored on return."""
    if (st[S_NODES] & POLL_MASK) == 0 and (stop_requested(ctl) or budget_spent(st[S_NODES], st[S_NODE_LIMIT])):
        st[S_ABORTED] = 1
    if st[S_ABORTED] != 0:
        return 0
    turn = st[S_TURN]
    ply = st[S_PLY]
    cells = geo[G_CELLS]
    pair = np.empty(2, dtype=np.int64)
    # 1. a win in one
    if winning_cells(geo, st, turn, pair) > 0:
        if sply == 0:
            st[S_BEST] = pair[0]
        return 1 if weak else (cells + 1 - ply) // 2
    # 2. the opponent's threats
    threats = winning_cells(geo, st, 3 - turn, pair)
    lowest = -1 if weak else -((cells - ply) // 2)
    if threats >= 2:
        if sply == 0:
            st[S_BEST] = pair[0]
        return lowest
    forced = pair[0] if threats == 1 else -1
    # 3. the window
    highest = 1 if weak else (cells - 1 - ply) // 2
    if sply > 0:
        if alpha >= highest:
            return highest
        if beta <= lowest:
            return lowest
    # 4. the table
    key = st[S_HASH]
    slot = key & (tt_keys.shape[0] - 1)
    tt_move = -1
    if tt_keys[slot] == key:
        packed = tt_data[2 * slot + 1]
        tt_move = (packed >> 8) - 1
        score = tt_data[2 * slot]
        flag = packed & 3
        if sply > 0 and (flag == TT_EXACT or (flag == TT_LOWER and score >= beta)
                         or (flag == TT_UPPER and score <= alpha)):
            return score
    # 5. a win by continuous fours
    if weak and fours > 0 and geo[G_GRAVITY] == 0 and beta > 0:
        # exact argument types: a cached recursive kernel called with other types segfaults (numba issue 6713)
        if vcf(geo, st, ctl, np.int64(turn), np.int64(fours), line, np.int64(0), fail) > 0:
            _store(tt_keys, tt_data, key, np.int64(1), np.int64(TT_LOWER), line[0])
            if sply == 0:
                st[S_BEST] = line[0]
            return 1
        if st[S_ABORTED] != 0:
            return 0
    # 6. every move
    moves = geo[G_S_MOVES] + sply * cells
    mscore = geo[G_S_MSCORE] + sply * cells
    if forced >= 0:
        st[moves] = forced
        n = 1
    else:
        n = candidate_moves(geo, st, np.bool_(False), st[moves:moves + cells])
        for j in range(n):
            cell = st[moves + j]
            insert_descending(st, st, moves, mscore, j, cell,
                              (1 << 60) if cell == tt_move else move_score(geo, st, cell, turn))
    if n == 0:   # no move left (gravity: every column full)
        return 0
    alpha0 = alpha
    best = -INF
    best_move = st[moves]
    for j in range(n):
        cell = st[moves + j]
        st[S_NODES] += 1
        if play(geo, st, cell):
            score = 1 if weak else (cells + 1 - ply) // 2
        elif st[S_PLY] == cells:
            score = 0
        else:
            # one call site with variables only (a cached recursive kernel must see one signature)
            score = -prove(geo, st, tt_keys, tt_data, ctl, np.int64(-beta), np.int64(-max(alpha, best)), weak,
                           np.int64(fours), line, fail, np.int64(sply + 1))
        unplay(geo, st, cell)
        if st[S_ABORTED] != 0:
            return 0
        if score > best:
            best = score
            best_move = cell
            if sply == 0:
                st[S_BEST] = cell
            if best >= beta:
                break
    flag = TT_LOWER if best >= beta else (TT_UPPER if best <= alpha0 else TT_EXACT)
    _store(tt_keys, tt_data, key, best, flag, best_move)
    return best
