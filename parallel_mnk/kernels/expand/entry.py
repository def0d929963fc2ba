"""The expand family's entry points: what a parallel solve needs beyond its exact
family (the coordinator's split expansion, a resumed solve's table seeds).
Compiling them compiles no search."""
from ..core.jit import CTL, CTX, i64, u64
from .expansion import expand, seed_bound

__all__ = ["expand", "seed_bound"]

SIGNATURES = {
    "expand": (CTX, CTX, u64, u64, i64, CTL),
    "seed_bound": (CTX, CTX, u64, u64, i64, i64, i64),
}
