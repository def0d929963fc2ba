"""Board geometry: bit layout, lines, shifts and symmetries, and the read-only
arrays the kernels see (the exact engine's context, the depth-limited engine's
grid geometry).

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

The line functions here (:func:`has_line`, :func:`winning_cells`) work on
Python ints of any size and take the board as ``rows, cols, k``, so that the
NMK protocol can use them on boards :class:`GameSpec` does not describe.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterator, Optional

import numpy as np

from ..kernels.core import layout as L
from ..kernels.grid import layout as GL
from ..kernels.proofs.layout import fill_proof_tables
from .rules import MAX_CELLS, GameSpec
from ..settings import ETC_MIN_EMPTY

# (row step, col step) of the four line directions: E, S, SE, SW
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
ZOBRIST_SEED = 0x6D6E6B   # both engines' hash keys come from this seed
MAX_LIMITED_DEPTH = 64    # the depth-limited engine's deepest search


# ------------------------------------------------------------------ lines on Python ints
def _cells_mask(spec: GameSpec, keep: Callable[[int, int], bool]) -> int:
    mask = 0
    for r in range(spec.rows):
        for c in range(spec.cols):
            if keep(r, c):
                mask |= 1 << (r * spec.cols + c)
    return mask


@lru_cache(maxsize=None)
def _line_masks(rows: int, cols: int, k: int) -> tuple[int, ...]:
    lines = []
    seen = set()
    for dr, dc in DIRECTIONS:
        for r in range(rows):
            for c in range(cols):
                er, ec = r + dr * (k - 1), c + dc * (k - 1)
                if not (0 <= er < rows and 0 <= ec < cols):
                    continue
                m = 0
                for i in range(k):
                    m |= 1 << ((r + dr * i) * cols + c + dc * i)
                if m not in seen:
                    seen.add(m)
                    lines.append(m)
    return tuple(lines)


def line_masks(spec: GameSpec) -> tuple[int, ...]:
    """Every set of ``k`` consecutive cells in a row, column or diagonal, as bit masks.

    With k = 1 each cell is one line (directions coincide).
    """
    return _line_masks(spec.rows, spec.cols, spec.k)


@lru_cache(maxsize=64)
def _directions(rows: int, cols: int) -> tuple[tuple[int, int, int], ...]:
    """``(shift, fwd, bwd)`` for E, S, SE, SW: moving one cell along the direction
    adds ``shift`` to the bit index; ``fwd`` (``bwd``) are the cells that have a
    neighbour forward (backward) on the board."""
    result = []
    for dr, dc in DIRECTIONS:
        fwd = bwd = 0
        for r in range(rows):
            for c in range(cols):
                bit = 1 << (r * cols + c)
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    fwd |= bit
                if 0 <= r - dr < rows and 0 <= c - dc < cols:
                    bwd |= bit
        if fwd:
            result.append((dr * cols + dc, fwd, bwd))
    return tuple(result)


def _has_line_by_shifts(stones: int, rows: int, cols: int, k: int) -> bool:
    if k == 1 or not stones:
        return stones != 0
    for shift, fwd, _ in _directions(rows, cols):
        run = stones  # cells starting a run of (1 + steps) stones forward
        for _ in range(k - 1):
            run = stones & fwd & (run >> shift)
            if not run:
                break
        else:
            return True
    return False


_has_line_cached = lru_cache(maxsize=1 << 16)(_has_line_by_shifts)


def has_line(stones: int, rows: int, cols: int, k: int) -> bool:
    """Whether the bitboard ``stones`` holds ``k`` in a row (any direction, any board size)."""
    if rows * cols <= MAX_CELLS:  # small boards: the same stones recur (protocol files, outcome())
        return _has_line_cached(stones, rows, cols, k)
    return _has_line_by_shifts(stones, rows, cols, k)


def winning_cells(own: int, empty: int, rows: int, cols: int, k: int) -> int:
    """Cells of ``empty`` where one more stone completes ``k`` in a row with ``own``
    (gravity not applied; any board size)."""
    if k == 1:
        return empty
    if rows * cols <= MAX_CELLS:  # small boards: a loop over the lines is twice as fast
        return _winning_cells_by_lines(own, empty, rows, cols, k)
    return _winning_cells_by_shifts(own, empty, rows, cols, k)


def _winning_cells_by_lines(own: int, empty: int, rows: int, cols: int, k: int) -> int:
    wins = 0
    for line in _line_masks(rows, cols, k):
        rest = line & ~own
        if rest & (rest - 1) == 0 and rest & empty:  # one cell missing, and it is empty
            wins |= rest
    return wins


def _winning_cells_by_shifts(own: int, empty: int, rows: int, cols: int, k: int) -> int:
    """Any board size, memory in proportion to the board (the line masks would take ~cells**2 bits)."""
    if k == 1:
        return empty
    wins = 0
    for shift, fwd, bwd in _directions(rows, cols):
        # after[m]: cells followed by m own stones along the direction; before[m]: preceded by
        after, before = [-1], [-1]
        run_f = run_b = own  # cells starting (ending) a run of m own stones
        for m in range(1, k):
            if m > 1:
                run_f = own & fwd & (run_f >> shift)
                run_b = own & bwd & (run_b << shift)
            after.append(fwd & (run_f >> shift))
            before.append(bwd & (run_b << shift))
        for i in range(k):
            wins |= before[i] & after[k - 1 - i]
    return wins & empty


def board_mask(spec: GameSpec) -> int:
    """Bits of every cell."""
    return (1 << spec.cells) - 1


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


def map_stones(bits: int, perm: list[int]) -> int:
    """The image of the cells ``bits`` under the cell map ``perm`` (one of :func:`symmetries`)."""
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << perm[low.bit_length() - 1]
        bits ^= low
    return out


def least_image(perms: list[list[int]], x: int, o: int) -> tuple[tuple[int, int], list[int]]:
    """The least ``(x, o)`` image of a position under the cell maps ``perms`` (equal
    for every image of it: its key up to symmetry) and the map that gives it."""
    best: Optional[tuple[tuple[int, int], list[int]]] = None
    for perm in perms:
        image = (map_stones(x, perm), map_stones(o, perm))
        if best is None or image < best[0]:
            best = (image, perm)
    assert best is not None
    return best


def least_images_after(perms: list[list[int]], x: int, o: int,
                       cells: int) -> Iterator[tuple[int, tuple[int, int], list[int]]]:
    """``(cell, key, perm)`` for each cell of ``cells`` (by index): :func:`least_image`
    of the position after the side to move puts a stone there, its key and a map that
    gives it. The images of the
    position are mapped once and each child's are those plus the image of its cell
    (a stone's image does not depend on the others), not mapped again stone by stone."""
    x_moves = (x.bit_count() + o.bit_count()) % 2 == 0
    images = [(map_stones(x, perm), map_stones(o, perm), perm) for perm in perms]
    while cells:
        low = cells & -cells
        cells ^= low
        cell = low.bit_length() - 1
        best: Optional[tuple[int, int]] = None
        best_perm = perms[0]
        for ix, io, perm in images:
            image = (ix | 1 << perm[cell], io) if x_moves else (ix, io | 1 << perm[cell])
            if best is None or image < best:
                best, best_perm = image, perm
        assert best is not None
        yield cell, best, best_perm


class Images:
    """The keys up to symmetry (:func:`least_image`) of the positions a search meets,
    under the cell maps ``perms``: remembered, at most ``kept`` of them (then all
    forgotten and computed again), the children a position lists (:meth:`after`)
    taking theirs from its images."""

    def __init__(self, perms: list[list[int]], kept: int = 1 << 20) -> None:
        self.perms, self.kept = perms, kept
        self._met: dict[tuple[int, int], tuple[tuple[int, int], list[int]]] = {}

    def of(self, x: int, o: int) -> tuple[tuple[int, int], list[int]]:
        """:func:`least_image` of ``x``/``o``: its key and the map that gives it."""
        got = self._met.get((x, o))
        if got is None:
            got = least_image(self.perms, x, o)
            self._remember((x, o), got)
        return got

    def after(self, x: int, o: int, cells: int) -> Iterator[tuple[int, tuple[int, int]]]:
        """``(cell, key)`` of each child after a cell of ``cells``, by index
        (:func:`least_images_after`), each child's key and map remembered."""
        x_moves = (x.bit_count() + o.bit_count()) % 2 == 0
        for cell, key, perm in least_images_after(self.perms, x, o, cells):
            self._remember((x | 1 << cell, o) if x_moves else (x, o | 1 << cell), (key, perm))
            yield cell, key

    def _remember(self, position: tuple[int, int], image: tuple[tuple[int, int], list[int]]) -> None:
        if len(self._met) >= self.kept:
            self._met.clear()
        self._met[position] = image


# ------------------------------------------------------------------ shared by both engines' arrays
def _zobrist_keys(shape, low: int, high: int, dtype=np.int64, stream: int = 0) -> np.ndarray:
    """Random hash keys in ``[low, high]`` from the one seed both engines use
    (``stream`` > 0: another series from it)."""
    rng = np.random.default_rng(ZOBRIST_SEED if stream == 0 else (ZOBRIST_SEED, stream))
    return rng.integers(low, high, size=shape, dtype=dtype, endpoint=True)


def _centre_distance(spec: GameSpec, cell: int) -> tuple[int, int]:
    """``(rows, cols)`` distance of ``cell`` from the centre, doubled (0 at the centre)."""
    r, c = divmod(cell, spec.cols)
    return abs(2 * r - (spec.rows - 1)), abs(2 * c - (spec.cols - 1))


# ------------------------------------------------------------------ the exact engine's context
def _shift_masks(ctx: np.ndarray, spec: GameSpec) -> None:
    R, C = spec.rows, spec.cols
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


def _symmetry_tables(ctx: np.ndarray, spec: GameSpec) -> None:
    perms = symmetries(spec)
    ctx[L.C_NSYM] = len(perms)
    z0 = _zobrist_keys((L.MAX_CELLS, 2), 0, int(np.iinfo(np.uint64).max), np.uint64)
    for s, perm in enumerate(perms):
        inv = [0] * spec.cells
        for cell, image in enumerate(perm):
            inv[image] = cell
            ctx[L.OFF_PERM + s * L.MAX_CELLS + cell] = image
            for p in range(2):
                ctx[L.OFF_ZOBRIST + (s * L.MAX_CELLS + cell) * 2 + p] = z0[image, p]
        for image in range(spec.cells):
            ctx[L.OFF_INVPERM + s * L.MAX_CELLS + image] = inv[image]


@lru_cache(maxsize=None)
def _context_template(spec: GameSpec) -> np.ndarray:
    size = L.CTX_SIZE + (L.gravity_records_size(spec.cells, spec.cols) if spec.gravity else 0)
    ctx = np.zeros(size, dtype=np.uint64)
    ctx[L.C_COLS], ctx[L.C_ROWS], ctx[L.C_K] = spec.cols, spec.rows, spec.k
    ctx[L.C_GRAVITY] = int(spec.gravity)
    ctx[L.C_CELLS] = spec.cells
    ctx[L.C_BOARD] = board_mask(spec)
    ctx[L.C_BOTTOM] = _cells_mask(spec, lambda r, c: r == spec.rows - 1)
    ctx[L.C_EVEN] = _cells_mask(spec, lambda r, c: (spec.rows - r) % 2 == 0)
    ctx[L.C_RULES] = L.RULES_DEFAULT
    ctx[L.C_ETC_MIN_EMPTY] = ETC_MIN_EMPTY
    # move-ordering weight of a live line that holds j stones of one player: 1, 2, 6,
    # 18, 54, ... (tuned on empty (5,5,4), (4,6,4), (5,5,5), (4,7,4): 8**j took 1.7-16x
    # more nodes)
    for j in range(L.MAX_CELLS + 1):
        ctx[L.C_WEIGHT + j] = 1 if j == 0 else min(2 * 3 ** (j - 1), 1 << 40)
    _shift_masks(ctx, spec)
    lines = line_masks(spec)
    ctx[L.C_NLINES] = len(lines)
    for i, m in enumerate(lines):
        ctx[L.OFF_LINES + i] = m
    fill_proof_tables(ctx, lines, spec.cells, spec.k, spec.gravity)
    for cell in range(spec.cells):
        dr, dc = _centre_distance(spec, cell)
        # centre first: closeness to the centre, in 0..63, breaks ties in move ordering
        closeness = (spec.cols - dc) + (0 if spec.gravity else spec.rows - dr)
        ctx[L.OFF_STATIC + cell] = min(closeness, 63)
    _symmetry_tables(ctx, spec)
    ctx.setflags(write=False)
    return ctx


def build_context(spec: GameSpec) -> np.ndarray:
    """A fresh, writable kernel context (``uint64[CTX_SIZE]``) for ``spec`` (at most
    64 cells). See :mod:`parallel_mnk.kernels.core.layout` for what each slot holds."""
    return _context_template(spec).copy()


# ------------------------------------------------------------------ the depth-limited engine's geometry
def grid_line_weights(k: int) -> list[int]:
    """``W[j]``: worth of a line holding j stones of one side and none of the other
    (8x per stone, capped so that a full board's sum stays far below a win)."""
    return [0] + [min(8 ** (j - 1), 1 << 24) for j in range(1, k + 2)]


@lru_cache(maxsize=32)
def build_grid_geometry(spec: GameSpec, whole_game: bool = False) -> np.ndarray:
    """The read-only ``geo`` array of the depth-limited engine for ``spec`` (any
    board up to 26x26; see :mod:`parallel_mnk.kernels.grid.layout`); its per-ply
    move lists reach :data:`MAX_LIMITED_DEPTH` plies, or every ply of the game with
    ``whole_game`` (the exact search of big boards, :mod:`parallel_mnk.kernels.big`)."""
    cells, cols, rows, k = spec.cells, spec.cols, spec.rows, spec.k
    lines = [[c for c in range(cells) if m >> c & 1] for m in line_masks(spec)]
    through: list[list[int]] = [[] for _ in range(cells)]
    for i, line in enumerate(lines):
        for c in line:
            through[c].append(i)
    max_ply = (cells if whole_game else min(cells, MAX_LIMITED_DEPTH)) + 2
    off = GL.G_HEADER
    parts = {}
    for name, size in (("lines", len(lines) * k), ("cstart", cells + 1), ("clines", sum(map(len, through))),
                       ("w", k + 2), ("centre", cells), ("zob", 2 * cells + 1)):
        parts[name] = off
        off += size
    geo = np.zeros(off + 8, dtype=np.int64)
    geo[GL.G_COLS], geo[GL.G_ROWS], geo[GL.G_K], geo[GL.G_GRAVITY] = cols, rows, k, int(spec.gravity)
    geo[GL.G_CELLS], geo[GL.G_NLINES], geo[GL.G_MAX_PLY] = cells, len(lines), max_ply
    geo[GL.G_OFF_LINES], geo[GL.G_OFF_CSTART], geo[GL.G_OFF_CLINES] = parts["lines"], parts["cstart"], parts["clines"]
    geo[GL.G_OFF_W], geo[GL.G_OFF_CENTRE], geo[GL.G_OFF_ZOB] = parts["w"], parts["centre"], parts["zob"]
    for i, line in enumerate(lines):
        geo[parts["lines"] + i * k: parts["lines"] + (i + 1) * k] = line
    pos = 0
    for c in range(cells):
        geo[parts["cstart"] + c] = pos
        for i in through[c]:
            geo[parts["clines"] + pos] = i
            pos += 1
    geo[parts["cstart"] + cells] = pos
    geo[parts["w"]: parts["w"] + k + 2] = grid_line_weights(k)
    for c in range(cells):
        # 0..2: nearer the centre is better (breaks ties in ordering and evaluation)
        dist = sum(_centre_distance(spec, c))
        geo[parts["centre"] + c] = max(0, 2 - dist * 3 // (rows + cols))
    geo[parts["zob"]: parts["zob"] + 2 * cells + 1] = _zobrist_keys(2 * cells + 1, 1, (1 << 62) - 1)
    st_off = GL.S_HEADER
    set_words = (len(lines) + 63) // 64
    geo[GL.G_SET_WORDS] = set_words
    for slot, size in ((GL.G_S_BOARD, cells), (GL.G_S_CNT, 2 * len(lines)), (GL.G_S_HEIGHT, cols),
                       (GL.G_S_NEAR, cells), (GL.G_S_SETS, 4 * set_words), (GL.G_S_MOVES, max_ply * cells),
                       (GL.G_S_MSCORE, max_ply * cells)):
        geo[slot] = st_off
        st_off += size
    geo[GL.G_S_SIZE] = st_off
    geo.setflags(write=False)
    return geo


def empty_grid_state(geo: np.ndarray, turn: int = 1) -> np.ndarray:
    """A fresh state ``st`` (:mod:`parallel_mnk.kernels.grid.layout`) of ``geo``'s empty
    board with ``turn`` (1 or 2) to move: the header, board, line counts, heights and
    neighbourhoods and line sets set (with ``k`` 1 every line is one stone short of a
    win, with ``k`` 2 two stones), the per-ply move and score lists left unset: every
    kernel writes a ply's list before it reads it, and zeroing them is most of what a
    state costs on a big board. Stones go on with the kernels' ``set_stone``."""
    st = np.empty(int(geo[GL.G_S_SIZE]), dtype=np.int64)
    st[:int(geo[GL.G_S_MOVES])] = 0
    k, nlines, words = int(geo[GL.G_K]), int(geo[GL.G_NLINES]), int(geo[GL.G_SET_WORDS])
    if k == 1:
        st[GL.S_THREAT + 1] = st[GL.S_THREAT + 2] = nlines
    if k in (1, 2):   # every line of the empty board holds k - 1 (k = 1) or k - 2 (k = 2) stones of each side
        every = np.zeros(words, dtype=np.uint64)
        for line in range(nlines):
            every[line >> 6] |= np.uint64(1) << np.uint64(line & 63)
        for s in ((GL.SET_FOURS, GL.SET_FOURS + 1) if k == 1 else (GL.SET_THREES, GL.SET_THREES + 1)):
            at = int(geo[GL.G_S_SETS]) + s * words
            st[at:at + words] = every.view(np.int64)
    st[GL.S_TURN] = turn
    if turn == 2:
        st[GL.S_HASH] = geo[geo[GL.G_OFF_ZOB] + 2 * geo[GL.G_CELLS]]
    return st
