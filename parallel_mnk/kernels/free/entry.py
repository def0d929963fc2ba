"""The free-placement family's entry point: the one function Python calls to search
a board without gravity (up to 64 cells), the search itself (:func:`.search.negamax`,
which plays the asked move and sets the root's hashes when Python calls it).

Compiling it compiles the free-placement search (:mod:`.search`), the proofs it
uses at its nodes (pairing certificates and VCF: :mod:`..proofs.pairing`,
:mod:`..proofs.threats`) and the helpers of :mod:`..core`; never the gravity search.
"""
from ..core import bounds, lines, node_rules, sharing, table
from ..core.jit import CTL, CTX, SEARCH_SIGNATURE, boolean, i64, u64
from . import search as free_search

SIGNATURES = {"search": SEARCH_SIGNATURE}

# The helpers the entry point calls, each with the one signature it calls it with and
# the relative cost of its compile (bench/README.md, "Cold start"): a cold start on
# several cores compiles them first, shared out between processes, and the entry
# point's own compile then loads them from the cache (:mod:`parallel_mnk.runtime.families`).
PARTS = (
    (free_search._proofs, (CTX, CTX, u64, u64, u64, i64, i64, i64, i64, i64), 2.7),
    (free_search._root, (CTX, u64, u64, i64, i64, i64, i64, i64), 1.2),
    (free_search._node_prelude, (CTX, u64, u64, i64), 0.25),
    (free_search._probe, (CTX, CTX, u64, i64), 0.1),
    (free_search._store, (CTX, CTX, u64, i64, i64, i64, i64, i64), 0.1),
    (free_search._canonical_key, (CTX, i64), 0.07),
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


# the search is its own entry point (why: :func:`.search.negamax`)
search = free_search.negamax
