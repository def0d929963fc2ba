"""The proofs family's entry points: what the validated provers of
:mod:`parallel_mnk.prover` call (df-pn, the pairing-certificate finder, VCF,
the certificates' canonical images).
Compiling them compiles df-pn and the proof kernels, never an exact search."""
from numba import types

from ..core.jit import CTL, CTX, i64, u64
from ..core.table import set_root_hashes
from .canonical import canonical_image
from .dfpn import dfpn_move, dfpn_prove
from .pairing import search_certificate
from .threats import vcf_win

__all__ = ["canonical_image", "dfpn_move", "dfpn_prove", "search_certificate", "set_root_hashes", "vcf_win"]

MAPS = types.Array(types.int64, 2, "C")   # the symmetries' cell maps (canonical.py)

SIGNATURES = {
    "canonical_image": (MAPS, u64, u64, CTX),
    "set_root_hashes": (CTX, u64, u64, i64),
    "dfpn_prove": (CTX, CTX, CTL, u64, u64, i64, i64),
    "dfpn_move": (CTX, CTX, u64, u64, i64, i64, i64),
    "search_certificate": (CTX, u64, u64, i64),
    "vcf_win": (CTX, u64, u64, i64, i64),
}
