"""Helpers both engines' kernels share: the abort poll and the insertion step of
their move ordering."""
from .jit import expanded

from .bits import atomic_load
from .layout import CTL_ABORT

from parallel_mnk.settings import POLL_MASK   # (absolute: a per-board build copies this folder)


@expanded
def stop_requested(ctl):
    """True when ``ctl[CTL_ABORT]`` asks every search to stop (written by another
    thread or process; read atomically, so the write is seen at once)."""
    return atomic_load(ctl, CTL_ABORT) != 0


@expanded
def budget_spent(nodes, limit):
    """True when a node budget ``limit`` (0: none) is used up after ``nodes``."""
    return limit != 0 and nodes >= limit


@expanded
def insert_descending(moves, scores, mbase, sbase, n, move, score):
    """Insert ``move`` with ``score`` into the list of ``n`` moves at
    ``moves[mbase:]`` (scores at ``scores[sbase:]``) kept best first; among equal
    scores the earlier insertion stays first (stable). The list grows by one."""
    i = n
    while i > 0 and scores[sbase + i - 1] < score:
        moves[mbase + i] = moves[mbase + i - 1]
        scores[sbase + i] = scores[sbase + i - 1]
        i -= 1
    moves[mbase + i] = move
    scores[sbase + i] = score

