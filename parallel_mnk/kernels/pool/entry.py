"""The pool family's entry points: what a parallel solve needs beyond its exact
family (the coordinator's split expansion). Compiling them compiles no search."""
from ..core.jit import CTL, CTX, i64, u64
from .split import expand

__all__ = ["expand"]

SIGNATURES = {
    "expand": (CTX, CTX, u64, u64, i64, CTL),
}
