"""The board's geometry as the kernels read it: one function per value.

This is the *generic* build: every value is read from the kernel context ``ctx``
(:mod:`.layout`'s slots, written by :func:`parallel_mnk.game.geometry.build_context`),
so one compiled search serves every board. A *per-board* build
(:mod:`parallel_mnk.runtime.boards`) is a copy of the kernels in which this file is
replaced by :mod:`.board_constant`: the same functions, returning constants of
one board, which numba freezes into the code (shifts, masks and loop bounds
become immediates, dead branches of other ``k`` go away).

Types are part of the contract (both builds return the same ones): ``cols``,
the masks, ``pre`` and ``shift`` are uint64; ``rows``, ``k``, ``cells`` and
``nsym`` int64. ``pre(ctx, d, way, j)``/``shift(ctx, d, j)`` are the shift masks of
direction ``d`` (``way`` 0 forward, 1 backward) and step ``j`` (:mod:`.layout`).
Each is one read: numba pastes them into their callers (:data:`.jit.expanded`).
"""
import numpy as np

from .jit import expanded
from .layout import (
    C_BOARD, C_BOTTOM, C_CELLS, C_COLS, C_EVEN, C_K, C_NSYM, C_ROWS, MAX_CELLS, OFF_PRE, OFF_SHIFT, OFF_STATIC,
)

BOARD = None   # (cols, rows, k, gravity) of a per-board build; None: every board


@expanded
def cols(ctx):
    """Columns (uint64: a shift by one row)."""
    return ctx[C_COLS]


@expanded
def rows(ctx):
    """Rows."""
    return np.int64(ctx[C_ROWS])


@expanded
def k(ctx):
    """Stones in a row that win."""
    return np.int64(ctx[C_K])


@expanded
def cells(ctx):
    """Cells of the board."""
    return np.int64(ctx[C_CELLS])


@expanded
def nsym(ctx):
    """Symmetries the table keys are canonical under (1, 2, 4 or 8)."""
    return np.int64(ctx[C_NSYM])


@expanded
def board(ctx):
    """Mask of every cell."""
    return ctx[C_BOARD]


@expanded
def bottom(ctx):
    """Mask of the bottom row."""
    return ctx[C_BOTTOM]


@expanded
def even(ctx):
    """Mask of the cells on an even row counted from the bottom (1-based)."""
    return ctx[C_EVEN]


@expanded
def pre(ctx, d, way, j):
    """The cells a shift by ``j`` along (``way`` 0) or against (1) direction ``d`` keeps."""
    return ctx[OFF_PRE + (d * 2 + way) * (MAX_CELLS + 1) + j]


@expanded
def shift(ctx, d, j):
    """The bit distance of ``j`` cells along direction ``d``."""
    return ctx[OFF_SHIFT + d * (MAX_CELLS + 1) + j]


@expanded
def static_bonus(ctx, cell):
    """Static move-ordering bonus of ``cell`` (< 64, centre first)."""
    return ctx[OFF_STATIC + cell]
