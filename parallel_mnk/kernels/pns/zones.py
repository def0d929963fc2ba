"""Relevance zones of the proof-number prover: what a disproof of "the attacker A
wins" depends on (``docs/proofs.md``, zones; ``docs/proof-format.md`` states the
same rules for the checker).

A zone ``Z`` of a node disproven for A is a set of empty cells such that A still
cannot win after A stones are put on **any** empty cells outside ``Z`` (so after any
stones outside ``Z``: an extra stone of the defender D never helps A). Then an A
move ``c`` outside the zone ``Z_i`` of a disproven child ``i`` of an A node is
refuted too: the position after ``c`` has fewer A stones than the child with ``c``
added, which A cannot win. The zones of the rules that settle a node at once:

* a pairing of D: the cells of its pairs (every window live for A holds a pair);
* A has no live window: nothing;
* D completes a line at once (D to move): D's completion cells and :func:`hit_once`
  of A's live windows (no window of A becomes complete by the A stones outside);
* D holds two completion cells with A to move (A loses), or one that A must block:
  D's completion cells and :func:`hit_twice` (A gets no completion cell from them);
* anything else (a VCF of D): every empty cell.

Zones are masks in the frame of the node; the table and the store keep them in
the canonical frame (:func:`zone_to_canonical`, :func:`from_canonical`). A position
that a symmetry of the board leaves as it is has several symmetries onto its
canonical form, which map a zone to different cells; its zone is stored closed
under them (the union of the images: a zone of a position holds for its images,
so the union is one too), so that whichever symmetry a reader (or the checker)
maps it back by, the zone is the same.
"""
import numpy as np

from ..core.bits import lowest_bit_index
from ..core.jit import inlined
from ..core.layout import C_BOARD, C_NLINES, C_NSYM, MAX_CELLS, MAX_SYM, OFF_HASH, OFF_INVPERM, OFF_LINES, OFF_PERM
from .layout import OFF_RINGS, RING_WORDS

ZERO = np.uint64(0)
ONE = np.uint64(1)
# typed constants for kernel-to-kernel calls (numba types a plain int or bool argument as a
# literal: a compile of the callee for each value)
I1, I2 = np.int64(1), np.int64(2)


@inlined
def _map(ctx, base, sym, mask):
    """``mask`` with each cell ``c`` moved to ``ctx[base + sym * MAX_CELLS + c]``."""
    if sym == 0:
        return mask
    out = ZERO
    while mask != ZERO:
        c = lowest_bit_index(mask)
        mask &= mask - ONE
        out |= ONE << ctx[base + sym * MAX_CELLS + c]
    return out


@inlined
def to_canonical(ctx, sym, mask):
    """``mask`` (a node's frame) in the canonical frame of symmetry ``sym``."""
    return _map(ctx, np.int64(OFF_PERM), sym, mask)


@inlined
def zone_to_canonical(ctx, ply, sym, zone):
    """``zone`` of the position whose hashes are at slot ``ply`` (canonical symmetry
    ``sym``) in the canonical frame, closed under the symmetries that take the
    position to its canonical form (module docstring)."""
    base = OFF_HASH + ply * MAX_SYM
    h = ctx[base + sym]
    out = _map(ctx, np.int64(OFF_PERM), sym, zone)
    for s in range(np.int64(ctx[C_NSYM])):
        if s != sym and ctx[base + s] == h:
            out |= _map(ctx, np.int64(OFF_PERM), s, zone)
    return out


@inlined
def from_canonical(ctx, sym, mask):
    """``mask`` (canonical frame of symmetry ``sym``) in the node's frame."""
    return _map(ctx, np.int64(OFF_INVPERM), sym, mask)


@inlined
def _hits(ctx, wk, att, dfn, times):
    """Empty cells of each window live for ``att`` (no ``dfn`` stone) in its rings
    nearest its middle: the first ring holding an empty cell (``times`` 1), or the
    first two such rings (``times`` 2)."""
    empty = ctx[C_BOARD] & ~(att | dfn)
    out = ZERO
    for i in range(np.int64(ctx[C_NLINES])):
        line = ctx[OFF_LINES + i]
        if line & dfn != ZERO:
            continue
        found = 0
        for r in range(RING_WORDS):
            cells = wk[OFF_RINGS + i * RING_WORDS + r] & empty
            if cells != ZERO:
                out |= cells
                found += 1
                if found == times:
                    break
    return out


@inlined
def hit_once(ctx, wk, att, dfn):
    """Cells meeting every window live for ``att`` (the equivariant choice of
    :func:`_hits`): with ``att`` stones on every empty cell outside them, ``att``
    completes no window."""
    return _hits(ctx, wk, att, dfn, I1)


@inlined
def hit_twice(ctx, wk, att, dfn):
    """Cells holding two empty cells of every window live for ``att`` that has two (or
    all it has): with ``att`` stones on every empty cell outside them, ``att`` gets no
    window with one empty cell that it did not have."""
    return _hits(ctx, wk, att, dfn, I2)
