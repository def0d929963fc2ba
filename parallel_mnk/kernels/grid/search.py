"""Depth-limited negamax on the array board (:mod:`.stones`), for boards beyond
exact reach and for the seed experiments.

One kernel serves every variant through ``flags`` (:mod:`.layout`):
``F_PRUNE`` alpha-beta cut-offs (without it: plain minimax), ``F_ORDER`` move
ordering, ``F_TT`` a transposition table, ``F_THREATS`` forced lines found
without search, ``F_FAST`` quick wins worth more, ``F_NEAR`` only cells near
the stones (free placement).

Counters (in ``st``): ``S_NODES`` = positions visited below the root (every
child put on the board, terminal ones included), ``S_EVALS`` = leaves scored
(static evaluation at depth 0, or a finished game).

Helpers inlined into the search take and return plain numbers (an array
handed to an inlined helper costs a reference count update per node).

Table: ``tt_keys[i]`` holds a position's hash, ``tt_data[2i]`` its score (wins
relative to the node) and ``tt_data[2i + 1]`` ``depth | flag << 8 | (move + 1) << 16``
with the flags of :mod:`..core.layout` (1 lower bound, 2 upper bound, 3 exact).
"""
import numpy as np
from ..core.jit import allocating, allocating_expanded   # the family makes arrays (core/jit.py)

from ..core.common import POLL_MASK, budget_spent, insert_descending, stop_requested
from .stones import candidate_moves, evaluate, makes_four, move_score, play, unplay, winning_cells
from .layout import (  # noqa: F401  (the flags and the scale are part of this kernel's interface)
    F_FAST, F_NEAR, F_ORDER, F_PRUNE, F_THREATS, F_TT, G_CELLS, G_MAX_PLY, G_S_MOVES, G_S_MSCORE, INF, MATE_ZONE,
    S_ABORTED, S_BEST, S_EVALS, S_HASH, S_NODE_LIMIT, S_NODES, S_PLY, S_TURN, WIN,
)
from ..core.layout import TT_EXACT, TT_LOWER, TT_UPPER


@allocating_expanded
def _win_worth(flags, ply):
    return WIN - ply if flags & F_FAST else WIN


@allocating_expanded
def _must_stop(ctl, nodes, limit):
    """True when ``ctl`` asks every search to stop or the node budget ``limit``
    (0: none) is spent after ``nodes``."""
    return stop_requested(ctl) or budget_spent(nodes, limit)


@allocating
def _tt_store(tt_keys, tt_data, key, depth, flag, move, score, sply):
    """Store a result; win scores relative to the node, so they stay right at any depth."""
    if score > WIN - MATE_ZONE:
        score += sply
    elif score < -WIN + MATE_ZONE:
        score -= sply
    i = key & (tt_keys.shape[0] - 1)
    tt_keys[i] = key
    tt_data[2 * i] = score
    tt_data[2 * i + 1] = depth | (flag << 8) | ((move + 1) << 16)


@allocating_expanded
def _tt_entry(packed, score, depth, alpha, beta, sply):
    """``(move, cut, score)`` of a table entry of this position (``packed`` flags
    word and stored ``score``): the stored move (-1: none), and whether the
    stored bound, searched at least ``depth`` deep, decides the window (then
    ``score`` is the answer)."""
    move = (packed >> 16) - 1
    if sply == 0 or (packed & 255) < depth:
        return move, False, 0
    if score > WIN - MATE_ZONE:
        score -= sply
    elif score < -WIN + MATE_ZONE:
        score += sply
    flag = (packed >> 8) & 255
    cut = flag == TT_EXACT or (flag == TT_LOWER and score >= beta) or (flag == TT_UPPER and score <= alpha)
    return move, cut, score


@allocating
def negamax_limited(geo, st, tt_keys, tt_data, ctl, depth, alpha, beta, flags, width, sply):
    """Depth-limited negamax value of the position in ``st`` for the side to move.

    ``depth`` plies are searched; leaves get :func:`.stones.evaluate`. Fail-soft
    alpha-beta with ``F_PRUNE`` (result <= alpha: upper bound, >= beta: lower
    bound); plain minimax without it (the window is ignored). ``width`` > 0 keeps
    only the best-ordered ``width`` moves (forced moves excepted). ``sply`` is the
    distance from the root; at the root (sply == 0) the best move goes to
    ``st[S_BEST]``. Returns 0 with ``st[S_ABORTED]`` set when ``ctl[0]`` asks to
    stop or the node budget ``st[S_NODE_LIMIT]`` is spent. ``st`` is restored on return.
    """
    if (st[S_NODES] & POLL_MASK) == 0 and _must_stop(ctl, st[S_NODES], st[S_NODE_LIMIT]):
        st[S_ABORTED] = 1
    if st[S_ABORTED] != 0:
        return 0
    # 1. threats: a win in one, the opponent's double threat, the one block
    turn = st[S_TURN]
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
    # 2. the table
    key = st[S_HASH]
    tt_move = -1
    i = key & (tt_keys.shape[0] - 1)
    if flags & F_TT and tt_keys[i] == key:
        tt_move, cut, score = _tt_entry(tt_data[2 * i + 1], tt_data[2 * i], depth, alpha, beta, sply)
        if cut:
            return score
    # 3. the moves, cut to the width
    cells = geo[G_CELLS]
    moves = geo[G_S_MOVES] + sply * cells
    mscore = geo[G_S_MSCORE] + sply * cells
    if forced >= 0:
        st[moves] = forced
        n = 1
    else:
        n = candidate_moves(geo, st, (flags & F_NEAR) != 0, st[moves:moves + cells])
        if flags & F_ORDER:   # best first, the table's move first of all (stable: natural order on ties)
            for j in range(n):
                cell = st[moves + j]
                sc = (1 << 60) if cell == tt_move else move_score(geo, st, cell, turn)
                insert_descending(st, st, moves, mscore, j, cell, sc)
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
        if play(geo, st, cell):
            st[S_EVALS] += 1
            score = _win_worth(flags, sply + 1)
        elif st[S_PLY] == geo[G_CELLS]:
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


@allocating
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
    if (st[S_NODES] & POLL_MASK) == 0 and _must_stop(ctl, st[S_NODES], st[S_NODE_LIMIT]):
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
