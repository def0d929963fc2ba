"""The book family's entry points: the exact search of a Connect Four position down to
an opening book's ply (:mod:`.negamax`), and the win-at-once test its caller needs."""
from numba import types

from ..core.jit import entry, i64, u64
from .negamax import book_negamax, can_win_now

__all__ = ["SIGNATURES", "search", "wins_now"]

ST = types.Array(types.uint64, 1, "C")
KEYS = types.Array(types.int32, 1, "C", readonly=True)
VALUES = types.Array(types.int8, 1, "C", readonly=True)
SIGNATURES = {
    "search": (ST, KEYS, VALUES, ST, u64, u64, i64, i64, i64),
    "wins_now": (ST, u64, u64),
}


# :func:`.negamax.book_negamax` from Python (its contract: the side to move cannot win
# at once, the game is not over, ``ply`` <= the book's ply); the search is its own entry
# point (why: its docstring)
search = book_negamax


@entry
def wins_now(st, cur, mask):
    """Whether the side to move of ``cur``/``mask`` completes 4 in a row with one move."""
    return can_win_now(st, cur, mask)
