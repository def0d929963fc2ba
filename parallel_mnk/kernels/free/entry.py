"""The free-placement family's entry point: the one function Python calls to search
a board without gravity (up to 64 cells).

Compiling it compiles the free-placement search (:mod:`.search`), the proofs it
uses at its nodes (pairing certificates and VCF: :mod:`..proofs.pairing`,
:mod:`..proofs.threats`) and the helpers of :mod:`..core`; never the gravity search.
"""
from ..core.bits import unowned
from ..core.jit import SEARCH_SIGNATURE, entry
from ..core.node_rules import play_first, signed_result
from .search import free_task

SIGNATURES = {"search": SEARCH_SIGNATURE}


@entry
def search(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """Fail-soft value, for the side to move, of the free-placement position
    ``own``/``opp`` with ``ply`` stones (not over), or with ``cell`` >= 0 of the move
    to ``cell`` (an empty cell), in the window ``(alpha, beta)`` (live from
    ``ctl[live_slot]`` when >= 0; the move's child is searched with none).

    The contract of :func:`.search.negamax` (``v <= alpha``: upper bound, ``v >=
    beta``: lower bound, else exact; the kind in ``ctx[C_RESULT_KIND]``; meaningless
    when ``ctx[C_ABORTED]`` is set), without its preconditions.
    """
    ctx, tt, ctl = unowned(ctx), unowned(tt), unowned(ctl)   # no reference counting in the recursion
    own, opp, ply, alpha, beta, live_slot, sign, settled, value = play_first(ctx, own, opp, ply, cell, alpha,
                                                                             beta, live_slot)
    if not settled:
        value = free_task(ctx, tt, ctl, own, opp, ply, alpha, beta, live_slot)
    return signed_result(ctx, sign, value)
