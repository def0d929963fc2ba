"""One step of the certificate walk (:mod:`parallel_mnk.engines.provers.certificate`) in a
kernel: the checker's rules 1 and 2 of ``docs/proof-format.md`` and the
canonical image, so that a position the rules settle (most of those a walk meets)
costs one call from Python.

``claim`` packs the certificate: bit 0 the attacker (0 x, 1 o), bit 1 set for
``wins`` (clear: ``cannot-win``); the claimant is the attacker in ``wins``, the
defender in ``cannot-win``.
"""
import numpy as np

from ..core import board as B
from ..core.jit import entry
from ..core.layout import C_GRAVITY
from ..core.lines import has_k_run, playable_cells, winning_cells
from .canonical import canonical_into

SETTLED = 0     # the rules settle it for the claim: nothing to write
AGAINST = -1    # the game is over against the claim (the value was wrong)
OPEN = 1        # a record or the refuter's moves are needed: out[0:2] its canonical image, out[2] the symmetry

ZERO = np.uint64(0)


@entry
def walk_step(ctx, maps, x, o, ply, claim, out):
    """Classify ``(x, o)`` (``ply`` stones, so x to move when even) for ``claim``
    (module docstring): :data:`SETTLED`, :data:`AGAINST` or :data:`OPEN`."""
    attacker = claim & 1
    wins = claim >> 1
    x_line = has_k_run(ctx, x)
    o_line = has_k_run(ctx, o)
    taken = x | o
    if x_line or o_line or taken == B.board(ctx):   # rule 1: game over
        attacker_line = x_line if attacker == 0 else o_line
        return SETTLED if attacker_line == (wins == 1) else AGAINST
    mover = ply & 1
    claimant = attacker if wins == 1 else 1 - attacker
    if mover == claimant:   # rule 2: the claimant completes a line at once
        own = x if mover == 0 else o
        legal = playable_cells(ctx, taken) if ctx[C_GRAVITY] != ZERO else B.board(ctx) & ~taken
        if winning_cells(ctx, own, legal) != ZERO:
            return SETTLED
    out[2] = np.uint64(canonical_into(maps, x, o, out))
    return OPEN
