"""Depth-limited negamax on the array board (:mod:`.grid`), for boards beyond
exact reach and for the seed experiments.

One kernel serves every variant through ``flags``:

* ``F_PRUNE``   alpha-beta cut-offs (without it: plain minimax, every child searched)
* ``F_ORDER``   move ordering (table move, then :func:`.grid.move_score`)
* ``F_TT``      transposition table (``tt_keys``/``tt_data``, one process)
* ``F_THREATS`` win-in-one found without search, the only block forced, a double
                threat scored as a loss
* ``F_FAST``    a win on search ply p is worth ``WIN - p`` (prefer quick wins,
                slow losses); without it every win is worth ``WIN``
* ``F_NEAR``    free placement: only cells within two of a stone are tried

Counters (in ``st``): ``S_NODES`` = positions visited below the root (every
child put on the board, terminal ones included), ``S_EVALS`` = leaves scored
(static evaluation at depth 0, or a finished game).
"""
import numpy as np
from numba import njit

from .bits import atomic_load
from .grid import (
    G_CELLS, G_MAX_PLY, G_S_MOVES, G_S_MSCORE, S_ABORTED, S_BEST, S_EVALS, S_HASH, S_NODES, S_PLY, S_TURN,
    candidate_moves, evaluate, makes_four, move_score, play, unplay, winning_cells,
)

F_PRUNE = 1
F_ORDER = 2
F_TT = 4
F_THREATS = 8
F_FAST = 16
F_NEAR = 32

WIN = 1 << 40          # worth of a win (minus its ply with F_FAST)
INF = 1 << 50
MATE_ZONE = 1 << 20    # scores within this of WIN are wins
TT_LOWER = 1
TT_UPPER = 2
TT_EXACT = 3


@njit(inline="always", cache=True)
def _win_worth(flags, ply):
    return WIN - ply if flags & F_FAST else WIN


@njit(cache=True, nogil=True)
def _tt_store(tt_keys, tt_data, key, depth, flag, move, score, sply):
    # Win scores are stored relative to the node, so that they stay right at any depth.
    if score > WIN - MATE_ZONE:
        score += sply
    elif score < -WIN + MATE_ZONE:
        score -= sply
    i = key & (tt_keys.shape[0] - 1)
    tt_keys[i] = key
    tt_data[2 * i] = score
    tt_data[2 * i + 1] = depth | (flag << 8) | ((move + 1) << 16)


@njit(cache=True, nogil=True)
def negamax_limited(geo, st, tt_keys, tt_data, ctl, depth, alpha, beta, flags, width, sply):
    """Depth-limited negamax value of the position in ``st`` for the side to move.

    ``depth`` plies are searched; leaves get :func:`.grid.evaluate`. Fail-soft
    alpha-beta with ``F_PRUNE`` (result <= alpha: upper bound, >= beta: lower
    bound); plain minimax without it (the window is ignored). ``width`` > 0 keeps
    only the best-ordered ``width`` moves (forced moves excepted). ``sply`` is the
    distance from the root; at the root (sply == 0) the best move goes to
    ``st[S_BEST]``. Returns 0 with ``st[S_ABORTED]`` set when ``ctl[0]`` asks to stop.
    ``st`` is restored on return.
    """
    if (st[S_NODES] & 1023) == 0 and atomic_load(ctl, 0) != 0:
        st[S_ABORTED] = 1
    if st[S_ABORTED] != 0:
        return 0
    turn = st[S_TURN]
    cells = geo[G_CELLS]
    moves = geo[G_S_MOVES] + sply * cells
    mscore = geo[G_S_MSCORE] + sply * cells
    pair = np.empty(2, dtype=np.int64)
    forced = -1
    if flags & F_THREATS:
        if winning_cells(geo, st, turn, pair) > 0:
            st[S_EVALS] += 1
            if sply == 0:
                st[S_BEST] = pair[0]
            return _win_worth(flags, sply + 1)
        n_threats = winning_cells(geo, st, 3 - turn, pair)
        if n_threats == 2 and sply > 0:
            st[S_EVALS] += 1
            return -_win_worth(flags, sply + 2)
        if n_threats >= 1:
            forced = pair[0]
    if depth <= 0 or sply >= geo[G_MAX_PLY] - 1:
        st[S_EVALS] += 1
        return evaluate(geo, st)

    key = st[S_HASH]
    tt_move = -1
    if flags & F_TT:
        i = key & (tt_keys.shape[0] - 1)
        if tt_keys[i] == key:
            packed = tt_data[2 * i + 1]
            tt_move = (packed >> 16) - 1
            if sply > 0 and (packed & 255) >= depth:
                score = tt_data[2 * i]
                if score > WIN - MATE_ZONE:
                    score -= sply
                elif score < -WIN + MATE_ZONE:
                    score += sply
                flag = (packed >> 8) & 255
                if flag == TT_EXACT or (flag == TT_LOWER and score >= beta) or (flag == TT_UPPER and score <= alpha):
                    return score

    # ---- move list
    if forced >= 0:
        st[moves] = forced
        n = 1
    else:
        n = candidate_moves(geo, st, (flags & F_NEAR) != 0, st[moves:moves + cells])
        if flags & F_ORDER:
            for j in range(n):
                cell = st[moves + j]
                st[mscore + j] = (1 << 60) if cell == tt_move else move_score(geo, st, cell, turn)
            for j in range(1, n):   # insertion sort, best first (stable: centre/natural order on ties)
                cell = st[moves + j]
                sc = st[mscore + j]
                m = j - 1
                while m >= 0 and st[mscore + m] < sc:
                    st[moves + m + 1] = st[moves + m]
                    st[mscore + m + 1] = st[mscore + m]
                    m -= 1
                st[moves + m + 1] = cell
                st[mscore + m + 1] = sc
            if width > 0 and n > width:
                n = width
    if n == 0:   # board full (free placement) or no column left: a draw
        st[S_EVALS] += 1
        return 0

    alpha0 = alpha
    best = -INF
    best_move = st[moves]
    for j in range(n):
        cell = st[moves + j]
        st[S_NODES] += 1
        won = play(geo, st, cell)
        if won:
            st[S_EVALS] += 1
            score = _win_worth(flags, sply + 1)
        elif st[S_PLY] == cells:
            st[S_EVALS] += 1
            score = 0
        else:
            # One call site with variables only: a cached recursive kernel whose
            # recursion has other argument types (a literal here) crashes when
            # loaded from numba's cache. Without F_PRUNE the window is ignored.
            score = -negamax_limited(geo, st, tt_keys, tt_data, ctl, depth - 1, -beta, -max(alpha, best),
                                     flags, width, sply + 1)
        unplay(geo, st, cell)
        if st[S_ABORTED] != 0:
            return 0
        if score > best:
            best = score
            best_move = cell
            if sply == 0:
                st[S_BEST] = cell
            if flags & F_PRUNE and best >= beta:
                break
    if flags & F_TT:
        flag = TT_LOWER if best >= beta else (TT_UPPER if best <= alpha0 else TT_EXACT)
        if not flags & F_PRUNE:
            flag = TT_EXACT
        _tt_store(tt_keys, tt_data, key, depth, flag, best_move, best, sply)
    return best


@njit(cache=True, nogil=True)
def forced_win_by_fours(geo, st, ctl, max_moves, near_only, sply):
    """True if the side to move wins by continuous fours: each of its moves makes
    ``k-1`` in an open line so the reply is forced, within ``max_moves`` of its moves.

    Threats that cannot be played at once (gravity) are not counted, and a line
    where the defender could win first is refused, so True is always a real win.
    At ``sply == 0`` the first move of the win goes to ``st[S_BEST]``.
    """
    turn = st[S_TURN]
    pair = np.empty(2, dtype=np.int64)
    if winning_cells(geo, st, turn, pair) > 0:
        if sply == 0:
            st[S_BEST] = pair[0]
        return True
    if max_moves <= 0 or winning_cells(geo, st, 3 - turn, pair) > 0:
        return False
    if (st[S_NODES] & 1023) == 0 and atomic_load(ctl, 0) != 0:
        st[S_ABORTED] = 1
    if st[S_ABORTED] != 0:
        return False
    cells = geo[G_CELLS]
    moves = geo[G_S_MOVES] + sply * cells
    n = candidate_moves(geo, st, near_only, st[moves:moves + cells])
    for j in range(n):
        cell = st[moves + j]
        if not makes_four(geo, st, cell, turn):
            continue
        st[S_NODES] += 1
        play(geo, st, cell)
        win = False
        if winning_cells(geo, st, 3 - turn, pair) == 0:   # the defender cannot win first
            threats = winning_cells(geo, st, turn, pair)
            if threats >= 2:
                win = True
            elif threats == 1:
                block = pair[0]
                st[S_NODES] += 1
                play(geo, st, block)
                win = forced_win_by_fours(geo, st, ctl, max_moves - 1, near_only, sply + 2)
                unplay(geo, st, block)
        unplay(geo, st, cell)
        if win:
            if sply == 0:
                st[S_BEST] = cell
            return True
    return False
