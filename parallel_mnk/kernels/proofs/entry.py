"""The proofs family's entry points: what the validated provers of
:mod:`parallel_mnk.engines.provers` call (df-pn, the pairing-certificate finder, VCF,
reply and threat zones, the certificate walk's step).
Compiling them compiles df-pn and the proof kernels, never an exact search."""
from numba import types

from ..core.jit import CTL, CTX, i64, u64
from ..core.table import set_root_hashes
from .dfpn import dfpn_move, dfpn_prove
from .pairing import reply_zone, search_certificate
from .threats import threat_zone, vcf_win
from .walk import walk_step

__all__ = ["dfpn_move", "dfpn_prove", "search_certificate", "set_root_hashes", "threat_zone", "vcf_win", "walk_step"]

MAPS = types.Array(types.int64, 2, "C")   # the symmetries' cell maps (canonical.py, walk.py)

SIGNATURES = {
    "set_root_hashes": (CTX, u64, u64, i64),
    "dfpn_prove": (CTX, CTX, CTL, u64, u64, i64, i64),
    "dfpn_move": (CTX, CTX, u64, u64, i64, i64, i64),
    "search_certificate": (CTX, u64, u64, i64),
    "reply_zone": (CTX, u64, u64, i64),
    "vcf_win": (CTX, u64, u64, i64, i64),
    "threat_zone": (CTX, u64, u64, i64),
    "walk_step": (CTX, MAPS, u64, u64, i64, i64, CTX),
}
