"""The proof-number prover family's entry points: what
:mod:`parallel_mnk.engines.provers.pns` and a parallel proof's coordinator
(:mod:`parallel_mnk.parallel.uses.pn_jobs`) call. Compiling them compiles the prover
with the pairing and VCF kernels it uses, never an exact search."""
from numba import types

from ..core.jit import CTL, CTX, i64, u64
from ..core.table import set_root_hashes
from .records import canonical_records
from .search import pns_expand, pns_search, pns_settled
from .certificate_walk import walk_records
from .settled_store import bury_dead, count_entries, export_entries, import_entries, merge_entries

__all__ = ["bury_dead", "canonical_records", "count_entries", "export_entries", "import_entries", "merge_entries",
           "pns_expand", "pns_search", "pns_settled", "set_root_hashes", "walk_records"]

MAPS = types.Array(types.int64, 2, "C")   # the symmetries' cell maps (game.geometry.symmetries)

SIGNATURES = {
    "set_root_hashes": (CTX, u64, u64, i64),
    "pns_search": (CTX, CTX, CTX, CTX, CTX, CTL, u64, u64, i64, i64, i64, i64),
    "pns_expand": (CTX, CTX, CTX, CTX, u64, u64, i64, i64, CTX),
    "pns_settled": (CTX, CTX, CTX, CTX, i64, CTX),
    "walk_records": (CTX, CTX, CTX, CTX, CTX, CTX, CTX, i64, i64),
    "canonical_records": (MAPS, CTX, i64, i64, CTX),
    "bury_dead": (CTX, u64, i64),
    "count_entries": (CTX, u64),
    "export_entries": (CTX, u64, CTX),
    "import_entries": (CTX, u64, CTX, i64),
    "merge_entries": (CTX, u64, CTX, i64, CTX, i64, i64),
}
