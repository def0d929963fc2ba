"""The big-board family's entry point: the exact search of boards up to 26x26
(:mod:`.prove`), called by :mod:`parallel_mnk.engines.exact.big`. Its arrays are
the depth-limited engine's (:mod:`..grid.layout`): geometry read-only, state,
table and scratch int64 words. The array board's own kernels (play, threats) are
the ``grid`` family's entry points."""
from ..core.jit import CTL as I
from ..core.jit import GEO, boolean, i64
from .prove import prove

__all__ = ["prove"]

SIGNATURES = {
    "prove": (GEO, I, I, I, I, i64, i64, boolean, i64, I, I, i64),
}
