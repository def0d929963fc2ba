"""The free-placement family's entry point: the one function Python calls to search
a board without gravity (up to 64 cells).

Compiling it compiles the free-placement search (:mod:`.search`), the proofs it
uses at its nodes (pairing certificates and VCF: :mod:`..proofs.pairing`,
:mod:`..proofs.threats`) and the helpers of :mod:`..core`; never the gravity search.
"""
from ..core import bounds, lines, node_rules, sharing, table
from ..core.bits import unowned
from ..core.jit import CTL, CTX, SEARCH_SIGNATURE, boolean, entry, i64, u64
from ..core.node_rules import play_first, signed_result
from . import search as free_search
from .search import free_task

SIGNATURES = {"search": SEARCH_SIGNATURE}

# The helpers the entry point calls, each with the one signature it calls it with and
# the relative cost of its compile (bench/README.md, "Cold start"): a cold start on
# several cores compiles them first, shared out between processes, and the entry
# point's own compile then loads them from the cache (:mod:`parallel_mnk.runtime.families`).
PARTS = (
    (free_search._proofs, (CTX, CTX, u64, u64, u64, i64, i64, i64, i64, i64), 2.7),
    (node_rules.play_first, (CTX, u64, u64, i64, i64, i64, i64, i64), 1.0),
    (lines.winning_cells, (CTX, u64, u64), 0.8),
    (node_rules.order_moves, (CTX, CTX, u64, u64, u64, i64, i64, boolean), 0.5),
    (free_search._threat_zone_of, (CTX, u64, u64, i64, i64), 0.35),
    (free_search._zone_of, (CTX, u64, u64, i64, i64), 0.3),
    (lines.live_line_summary, (CTX, u64, u64), 0.15),
    (lines.playable_cells, (CTX, u64), 0.07),
    (sharing.narrow_to_live_window, (CTX, CTL, i64, i64, i64, i64, i64, boolean), 0.07),
    (sharing.busy_marks, (CTX, CTL, i64), 0.07),
    (sharing.mark_child, (CTL, u64, i64, i64, boolean), 0.07),
    (sharing.unmark_child, (CTL, i64, i64), 0.07),
    (sharing.poll_abort, (CTX, CTL), 0.07),
    (bounds.table_bound, (i64, i64, i64, i64, i64, i64), 0.07),
    (bounds.take_child, (i64, i64, i64, i64, boolean, i64, i64), 0.07),
    (bounds.node_kind, (i64, boolean, i64, i64, i64), 0.07),
    (table.set_root_hashes, (CTX, u64, u64, i64), 0.07),
    (node_rules.signed_result, (CTX, i64, i64), 0.07),
    (free_search._skip, (CTX, boolean, i64, i64), 0.07),
)


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
