"""The gravity family's entry point: the one function Python calls to search a
gravity board (Connect Four and every gravity board of up to 64 cells), the search
itself (:func:`.search.gravity_negamax`, which plays the asked move, plays out the
forced line and sets the root's hashes when Python calls it).

Compiling it compiles the whole gravity search (:mod:`.search`, :mod:`.static_analysis`
and the helpers of :mod:`..core`) and nothing of the other families.
"""
from ..core import bounds, lines, node_rules, sharing, table
from ..core.board import BOARD   # (cols, rows, k, gravity) of a per-board build, None in the generic one
from ..core.jit import CTL, CTX, SEARCH_SIGNATURE, boolean, i64, u64
from . import search as gravity_search
from . import static_analysis

SIGNATURES = {"search": SEARCH_SIGNATURE}

# The helpers the entry point calls, each with the one signature it calls it with and
# the relative cost of its compile: a cold start on several cores compiles them first,
# shared out between processes (:mod:`parallel_mnk.runtime.families`, docs/kernels.md).
PARTS = (
    (gravity_search._resolve_children, (CTX, CTX, u64, u64, i64, i64, i64, i64), 1.2),
    (static_analysis.resolve, (CTX, CTX, u64, u64, i64, u64, i64, boolean, i64, i64), 1.2),
    (gravity_search._root, (CTX, CTX, u64, u64, i64, i64, i64, i64, i64), 1.5),
    (lines.winning_cells, (CTX, u64, u64), 0.9),
    (gravity_search._what_is_known, (CTX, CTX, u64, u64, i64, i64, i64), 0.35),
    (table.set_root_hashes, (CTX, u64, u64, i64), 0.15),
    (sharing.narrow_to_live_window, (CTX, CTL, i64, i64, i64, i64, i64, boolean), 0.1),
    (sharing.poll_abort, (CTX, CTL), 0.1),
    (sharing.busy_marks, (CTX, CTL, i64), 0.05),
    (sharing.mark_child, (CTL, u64, i64, i64, boolean), 0.05),
    (sharing.unmark_child, (CTL, i64, i64), 0.05),
    (lines.has_k_run, (CTX, u64), 0.07),
    (lines.playable_cells, (CTX, u64), 0.05),
    (bounds.take_child, (i64, i64, i64, i64, boolean, i64, i64), 0.05),
    (bounds.node_kind, (i64, boolean, i64, i64, i64), 0.05),
    (bounds.narrow, (i64, i64, i64, i64), 0.05),
    (bounds.result_kind, (i64, i64, i64, i64), 0.05),
    (node_rules.signed_result, (CTX, i64, i64), 0.05),
)
__all__ = ["BOARD", "PARTS", "SIGNATURES", "search"]


# the search is its own entry point (why: :mod:`.search`'s docstring)
search = gravity_search.gravity_negamax
