"""The canonical image of a position under the board's symmetries, as the
certificate format (``docs/proof-format.md``) orders them: the image whose
board text is least (Python's ``min``). A cell is a bit ``row * cols + col``,
row 0 at the top, which is also the text's order (``/`` between rows sits at the
same places in every image), and ``.`` < ``o`` < ``x``; so of two images the
smaller is the one with the lower-ranked stone at the first cell where they
differ. No text is built.

    cell bits of a 3-column board        its text "abc/def/ghi"
      0 1 2    (top row)                 compared left to right
      3 4 5
      6 7 8    (bottom row)

``maps`` is ``int64[nsym, cells]``: ``maps[s, c]`` the cell that symmetry ``s``
takes cell ``c`` to (row 0 the identity), :func:`parallel_mnk.game.geometry.symmetries`.
"""
import numpy as np

from ..core.bits import lowest_bit_index
from ..core.jit import inlined

ZERO = np.uint64(0)
ONE = np.uint64(1)


@inlined
def _image(maps, s, stones):
    """``stones`` moved by symmetry ``s``."""
    out = ZERO
    while stones != ZERO:
        cell = lowest_bit_index(stones)
        stones &= stones - ONE
        out |= ONE << np.uint64(maps[s, cell])
    return out


@inlined
def _rank(x, o, bit):
    """The text rank of the cell ``bit``: 0 empty, 1 o, 2 x."""
    return 2 if x & bit else (1 if o & bit else 0)


@inlined
def canonical_into(maps, x, o, out):
    """Write the canonical image of ``(x, o)`` into ``out[0]`` (x) and ``out[1]``
    (o); return the symmetry that takes the position there (the first such)."""
    best_x, best_o, best = x, o, 0
    for s in range(1, maps.shape[0]):
        ix = _image(maps, s, x)
        io = _image(maps, s, o)
        diff = (ix ^ best_x) | (io ^ best_o)
        if diff != ZERO:
            bit = diff & (~diff + ONE)
            if _rank(ix, io, bit) < _rank(best_x, best_o, bit):
                best_x, best_o, best = ix, io, s
    out[0] = best_x
    out[1] = best_o
    return best

