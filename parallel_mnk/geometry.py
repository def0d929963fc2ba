"""Bit layout, lines, shifts and symmetries of a board, and the kernel context.

Bit layout: one bit per cell, ``bit = row * cols + col`` with row 0 at the top,
so the bit index is the internal cell index. A position is two bitboards, one
per player. Example, Connect Four (7 columns x 6 rows)::

    top     0  1  2  3  4  5  6        a6 ... g6
            7  8  9 10 11 12 13
           14 15 16 17 18 19 20
           21 22 23 24 25 26 27
           28 29 30 31 32 33 34
    bottom 35 36 37 38 39 40 41        a1 ... g1

Moving every stone one cell along a direction is a shift: east +1, south +cols,
south-east +cols+1, south-west +cols-1. Stones that would leave the board (or
wrap to the next row) are masked off *before* the shift, so ``(b & PRE) << s``
never needs a board mask. Because there is no padding, every board of up to 64
cells fits, gravity or not (Pons' padded layout would need cols*(rows+1) bits).

Gravity: the playable cells are ``empty & ((mask >> cols) | bottom_row)``: a
cell is playable when the cell below it is filled or it is on the bottom row.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .kernels import layout as L
from .rules import GameSpec

# (row step, col step) of the four line directions: E, S, SE, SW
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _cells_mask(spec: GameSpec, keep) -> int:
    mask = 0
    for r in range(spec.rows):
        for c in range(spec.cols):
            if keep(r, c):
                mask |= 1 << (r * spec.cols + c)
    return mask


@lru_cache(maxsize=None)
def line_masks(spec: GameSpec) -> tuple[int, ...]:
    """Every set of ``k`` consecutive cells in a row, column or diagonal, as bit masks.

    With k = 1 each cell is one line (directions coincide).
    """
    lines = []
    seen = set()
    for dr, dc in DIRECTIONS:
        for r in range(spec.rows):
            for c in range(spec.cols):
                er, ec = r + dr * (spec.k - 1), c + dc * (spec.k - 1)
                if not (0 <= er < spec.rows and 0 <= ec < spec.cols):
                    continue
                m = 0
                for i in range(spec.k):
                    m |= 1 << ((r + dr * i) * spec.cols + c + dc * i)
                if m not in seen:
                    seen.add(m)
                    lines.append(m)
    return tuple(lines)


def symmetries(spec: GameSpec) -> list[list[int]]:
    """Cell permutations of the board's symmetry group; the first is the identity.

    Gravity: identity and the left-right mirror. Free placement: the 4 symmetries
    of a rectangle, or the 8 of a square.
    """
    R, C = spec.rows, spec.cols
    maps = [lambda r, c: (r, c), lambda r, c: (r, C - 1 - c)]
    if not spec.gravity:
        maps += [lambda r, c: (R - 1 - r, c), lambda r, c: (R - 1 - r, C - 1 - c)]
        if R == C:
            maps += [
                lambda r, c: (c, r),
                lambda r, c: (c, R - 1 - r),
                lambda r, c: (C - 1 - c, r),
                lambda r, c: (C - 1 - c, R - 1 - r),
            ]
    perms = []
    for f in maps:
        perm = []
        for cell in range(spec.cells):
            r, c = divmod(cell, C)
            r2, c2 = f(r, c)
            perm.append(r2 * C + c2)
        if perm not in perms:
            perms.append(perm)
    return perms


@lru_cache(maxsize=None)
def _context_template(spec: GameSpec) -> np.ndarray:
    ctx = np.zeros(L.CTX_SIZE, dtype=np.uint64)
    R, C = spec.rows, spec.cols
    ctx[L.C_COLS] = C
    ctx[L.C_ROWS] = R
    ctx[L.C_K] = spec.k
    ctx[L.C_GRAVITY] = int(spec.gravity)
    ctx[L.C_CELLS] = spec.cells
    board = (1 << spec.cells) - 1
    ctx[L.C_BOARD] = board
    ctx[L.C_BOTTOM] = _cells_mask(spec, lambda r, c: r == R - 1)
    # move-ordering weight of a live line that holds j stones of one player: 1, 2, 6,
    # 18, 54, ... (tuned on empty (5,5,4), (4,6,4), (5,5,5), (4,7,4): 8**j took 1.7-16x
    # more nodes)
    for j in range(L.MAX_CELLS + 1):
        ctx[L.C_WEIGHT + j] = 1 if j == 0 else min(2 * 3 ** (j - 1), 1 << 40)

    for d, (dr, dc) in enumerate(DIRECTIONS):
        for j in range(1, L.MAX_CELLS + 1):
            fwd = _cells_mask(spec, lambda r, c: 0 <= r + dr * j < R and 0 <= c + dc * j < C)
            bwd = _cells_mask(spec, lambda r, c: 0 <= r - dr * j < R and 0 <= c - dc * j < C)
            shift = j * (dr * C + dc)
            if fwd == 0 or shift >= 64:
                fwd = bwd = shift = 0
            ctx[L.OFF_PRE + (d * 2 + 0) * (L.MAX_CELLS + 1) + j] = fwd
            ctx[L.OFF_PRE + (d * 2 + 1) * (L.MAX_CELLS + 1) + j] = bwd
            ctx[L.OFF_SHIFT + d * (L.MAX_CELLS + 1) + j] = shift

    lines = line_masks(spec)
    ctx[L.C_NLINES] = len(lines)
    for i, m in enumerate(lines):
        ctx[L.OFF_LINES + i] = m

    for cell in range(spec.cells):
        r, c = divmod(cell, C)
        # centre first: closeness to the centre, in 0..63, breaks ties in move ordering
        closeness = (C - abs(2 * c - (C - 1))) + (0 if spec.gravity else R - abs(2 * r - (R - 1)))
        ctx[L.OFF_STATIC + cell] = min(closeness, 63)

    perms = symmetries(spec)
    ctx[L.C_NSYM] = len(perms)
    rng = np.random.default_rng(0x6D6E6B)
    z0 = rng.integers(0, np.iinfo(np.uint64).max, size=(L.MAX_CELLS, 2), dtype=np.uint64, endpoint=True)
    for s, perm in enumerate(perms):
        inv = [0] * spec.cells
        for cell, image in enumerate(perm):
            inv[image] = cell
            ctx[L.OFF_PERM + s * L.MAX_CELLS + cell] = image
            for p in range(2):
                ctx[L.OFF_ZOBRIST + (s * L.MAX_CELLS + cell) * 2 + p] = z0[image, p]
        for image in range(spec.cells):
            ctx[L.OFF_INVPERM + s * L.MAX_CELLS + image] = inv[image]
    ctx.setflags(write=False)
    return ctx


def build_context(spec: GameSpec) -> np.ndarray:
    """A fresh, writable kernel context (``uint64[CTX_SIZE]``) for ``spec``.

    See :mod:`parallel_mnk.kernels.layout` for what each slot holds.
    """
    return _context_template(spec).copy()


def column_mask(spec: GameSpec, col: int) -> int:
    """Bits of one column."""
    return _cells_mask(spec, lambda r, c: c == col)


def board_mask(spec: GameSpec) -> int:
    """Bits of every cell."""
    return (1 << spec.cells) - 1
