"""The proof-number prover family's entry points: what
:mod:`parallel_mnk.engines.provers.pns` calls. Compiling them compiles the prover
with the pairing and VCF kernels it uses, never an exact search."""
from numba import types

from ..core.jit import CTL, CTX, i64, u64
from ..core.table import set_root_hashes
from .pns_records import canonical_records
from .pns_search import pns_search
from .store import export_entries, merge_entries

__all__ = ["canonical_records", "export_entries", "merge_entries", "pns_search", "set_root_hashes"]

MAPS = types.Array(types.int64, 2, "C")   # the symmetries' cell maps (game.geometry.symmetries)

SIGNATURES = {
    "set_root_hashes": (CTX, u64, u64, i64),
    "pns_search": (CTX, CTX, CTX, CTX, CTX, CTX, CTL, u64, u64, i64, i64, i64, i64),
    "export_entries": (CTX, u64, CTX),
    "merge_entries": (CTX, u64, CTX, i64, i64),
    "canonical_records": (MAPS, CTX, i64, i64, CTX),
}
