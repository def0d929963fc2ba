"""The gravity family's entry point: the one function Python calls to search a
gravity board (Connect Four and every gravity board of up to 64 cells).

Compiling it compiles the whole gravity search (:mod:`.search`, :mod:`.static_analysis`
and the helpers of :mod:`..core`) and nothing of the other families.
"""
from ..core.bits import unowned
from ..core.board import BOARD   # (cols, rows, k, gravity) of a per-board build, None in the generic one
from ..core.jit import SEARCH_SIGNATURE, entry
from ..core.node_rules import play_first, signed_result
from .search import gravity_task

SIGNATURES = {"search": SEARCH_SIGNATURE}
__all__ = ["BOARD", "SIGNATURES", "search"]


@entry
def search(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """Fail-soft value, for the side to move, of the gravity position ``own``/``opp``
    with ``ply`` stones (not over), or with ``cell`` >= 0 of the move to ``cell``
    (a playable cell), in the window ``(alpha, beta)`` (live from ``ctl[live_slot]``
    when >= 0; the move's child is searched with none).

    The contract of :func:`.search.gravity_negamax` (``v <= alpha``: upper bound,
    ``v >= beta``: lower bound, else exact; the kind in ``ctx[C_RESULT_KIND]``;
    meaningless when ``ctx[C_ABORTED]`` is set), without its preconditions: a win
    at once is scored here, and the root hashes are set here.
    """
    ctx, tt, ctl = unowned(ctx), unowned(tt), unowned(ctl)   # no reference counting in the recursion
    own, opp, ply, alpha, beta, live_slot, sign, settled, value = play_first(ctx, own, opp, ply, cell, alpha,
                                                                             beta, live_slot)
    if not settled:
        value = gravity_task(ctx, tt, ctl, own, opp, ply, alpha, beta, live_slot)
    return signed_result(ctx, sign, value)
