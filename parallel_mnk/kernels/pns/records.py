"""The prover's records in the certificate's frame: each record's position moved
to its canonical form (``docs/proof-format.md``, section 6: the least board text
of its images, :mod:`..proofs.canonical`) and its cells with it, in place, so that
Python only writes the text (:mod:`parallel_mnk.engines.provers.pn_certificate`).
"""
import numpy as np

from ..core.bits import lowest_bit_index
from ..core.jit import entry
from ..proofs.canonical import canonical_into
from .layout import REC_PAIRS

ZERO = np.uint64(0)
ONE = np.uint64(1)


@entry
def canonical_records(maps, rb, start, end, out):
    """Move the records of ``rb[start:end]`` (:mod:`.layout`) to their canonical
    frames: the stones to the canonical image, each payload cell (or pair mask's
    cells) by the same symmetry (``maps[s, c]``: symmetry ``s`` takes cell ``c`` there).
    ``out`` is scratch (3 words). Returns the number of records."""
    i = start
    count = 0
    while i < end:
        head = rb[i]
        kind = np.int64(head & np.uint64(255))
        n = np.int64((head >> np.uint64(8)) & np.uint64(0xFFFF))
        s = canonical_into(maps, rb[i + 1], rb[i + 2], out)
        rb[i + 1] = out[0]
        rb[i + 2] = out[1]
        if s != 0:
            for j in range(n):
                w = rb[i + 3 + j]
                if kind == REC_PAIRS:
                    moved = ZERO
                    while w != ZERO:
                        c = lowest_bit_index(w)
                        w &= w - ONE
                        moved |= ONE << np.uint64(maps[s, c])
                    rb[i + 3 + j] = moved
                else:
                    rb[i + 3 + j] = np.uint64(maps[s, np.int64(w)])
        i += 3 + n
        count += 1
    return count
