"""The pool family's entry points: what a parallel solve needs beyond its exact
family (the coordinator's split expansion, the atomic steps of the ready list).
Compiling them compiles no search."""
from ..core.jit import CTL, CTX, i64, u64
from .ready import claim, publish, take_back
from .split import expand

__all__ = ["claim", "expand", "publish", "take_back"]

SIGNATURES = {
    "expand": (CTX, CTX, u64, u64, i64, CTL),
    "claim": (CTL, i64, i64, i64),
    "publish": (CTL, i64, i64),
    "take_back": (CTL, i64, i64),
}
