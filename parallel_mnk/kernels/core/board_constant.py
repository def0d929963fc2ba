"""The board's geometry of a per-board build (:mod:`parallel_mnk.runtime.boards` copies
the kernels and puts this file in place of :mod:`.board`): the same functions
and contracts as :mod:`.board`, returning the constants of one board, which
numba freezes into the compiled code. ``ctx`` is ignored; the values come from
``board_values``, the module the build generates next to this one from the
board's own context (the layout's slots, so both builds agree by construction).
"""
from .board_values import (  # type: ignore[import-not-found]  # generated in a per-board build only
    BOARD, BOARD_MASK, BOTTOM, CELLS, COLS, EVEN, K, NSYM, PRE, ROWS, SHIFT, STATIC,
)
from .jit import expanded
from .layout import MAX_CELLS

__all__ = ["BOARD"]


@expanded
def cols(ctx):
    """Columns (uint64: a shift by one row)."""
    return COLS


@expanded
def rows(ctx):
    """Rows."""
    return ROWS


@expanded
def k(ctx):
    """Stones in a row that win."""
    return K


@expanded
def cells(ctx):
    """Cells of the board."""
    return CELLS


@expanded
def nsym(ctx):
    """Symmetries the table keys are canonical under (1, 2, 4 or 8)."""
    return NSYM


@expanded
def board(ctx):
    """Mask of every cell."""
    return BOARD_MASK


@expanded
def bottom(ctx):
    """Mask of the bottom row."""
    return BOTTOM


@expanded
def even(ctx):
    """Mask of the cells on an even row counted from the bottom (1-based)."""
    return EVEN


@expanded
def pre(ctx, d, way, j):
    """The cells a shift by ``j`` along (``way`` 0) or against (1) direction ``d`` keeps."""
    return PRE[(d * 2 + way) * (MAX_CELLS + 1) + j]


@expanded
def shift(ctx, d, j):
    """The bit distance of ``j`` cells along direction ``d``."""
    return SHIFT[d * (MAX_CELLS + 1) + j]


@expanded
def static_bonus(ctx, cell):
    """Static move-ordering bonus of ``cell`` (< 64, centre first)."""
    return STATIC[cell]
