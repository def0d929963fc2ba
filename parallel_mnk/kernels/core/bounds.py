"""Score bounds and search windows, shared by the exact engines (free placement
in :mod:`..free.search`, gravity in :mod:`..gravity.search`).

Scores are from the side to move (docs/design.md): a win completed on ply p is worth
``(cells + 2 - p) // 2``, a draw 0, a loss the negated worth of the opponent's win.
A window ``(alpha, beta)`` is open when ``alpha < beta``; fail-soft results are read
against it: ``v <= alpha`` an upper bound, ``v >= beta`` a lower bound, else exact.
Kinds are the table's flags: ``TT_LOWER``, ``TT_UPPER``, ``TT_EXACT``.
"""
import numpy as np

from .jit import inlined

from .layout import TT_EXACT, TT_LOWER, TT_UPPER

NO_SCORE = 1000   # beyond every score: an absent bound


@inlined
def win_in(cells, ply, plies):
    """Worth of a win completed ``plies`` plies after a position with ``ply`` stones
    (``plies`` odd: the side to move completes it); 0 when the board is full
    before, so that a bound "no win before then" is then "no win at all"."""
    return max((cells + 2 - ply - plies) // 2, 0)


@inlined
def narrow(alpha, beta, lower, upper):
    """The window ``(alpha, beta)`` narrowed to known bounds ``lower <= s <= upper``.

    Returns ``(alpha, beta, kind, value)``: ``kind`` 0 while the window is open;
    else it closed and ``value`` is proven: a lower bound (``TT_LOWER``) or an
    upper bound (``TT_UPPER``)."""
    if alpha < lower:
        alpha = lower
        if alpha >= beta:
            return alpha, beta, TT_LOWER, alpha
    if beta > upper:
        beta = upper
        if alpha >= beta:
            return alpha, beta, TT_UPPER, beta
    return alpha, beta, 0, 0


@inlined
def table_bound(flag, tt_score, alpha, beta, lower, upper):
    """What a table entry adds to the known bounds and the window (for a bound
    ``flag``; an exact entry is an answer by itself). Returns ``(alpha, beta, lower,
    upper, kind, value)`` with ``kind``/``value`` as for :func:`narrow`."""
    if flag == TT_LOWER:
        alpha, beta, kind, value = narrow(alpha, beta, tt_score, np.int64(NO_SCORE))
        return alpha, beta, max(lower, tt_score), upper, kind, value
    if flag == TT_UPPER:
        alpha, beta, kind, value = narrow(alpha, beta, np.int64(-NO_SCORE), tt_score)
        return alpha, beta, lower, min(upper, tt_score), kind, value
    return alpha, beta, lower, upper, 0, 0


@inlined
def result_kind(kind, value, lower, upper):
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


@inlined
def take_child(v, cell, best, best_move, best_exact, alpha, beta):
    """A searched move's fail-soft value ``v`` (from the side to move) folded into its
    node: ``(best, best_move, best_exact, alpha, cut)``, ``best_exact`` when the best
    value fell inside the window, ``cut`` when it fails high (stop the loop)."""
    if v > best:
        best, best_move, best_exact = v, cell, alpha < v < beta
    return best, best_move, best_exact, max(alpha, v), v >= beta


@inlined
def node_kind(best, best_exact, beta, lower, upper):
    """What a node's child loop proved, for the table: a lower bound when ``best >=
    beta`` (a cut), exact when a child's value fell inside the window
    (``best_exact``), else an upper bound; a bound that meets the node's known
    ``[lower, upper]`` is exact (:func:`result_kind`)."""
    if best >= beta:
        return result_kind(np.int64(TT_LOWER), best, lower, upper)
    if best_exact:
        return TT_EXACT
    return result_kind(np.int64(TT_UPPER), best, lower, upper)


@inlined
def flip_kind(kind):
    """The kind of a result seen from the other side (a lower bound becomes an upper one)."""
    if kind == TT_LOWER:
        return TT_UPPER
    if kind == TT_UPPER:
        return TT_LOWER
    return kind
