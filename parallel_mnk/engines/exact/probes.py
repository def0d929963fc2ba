"""The null-window probes of a root: how the exact score, or the weak value, of a
position is narrowed down by searches of null windows ``(med, med + 1)``. Used by the
serial engine (:class:`parallel_mnk.engines.exact.search.Search`) and the parallel driver alike;
plain Python (the searches are the caller's ``probe``).
"""
from __future__ import annotations

from typing import Callable, Optional

# The state of the null-window probes that narrow a score known to lie in [lo, hi]:
# (last fail-soft value, direction of the last failure, run of failures that way, bracketed).
ProbeState = tuple[int, int, int, bool]


def first_probe(lo: int, hi: int) -> ProbeState:
    """The probe state of a score known to lie in ``[lo, hi]``, before the first probe."""
    return (lo + hi) // 2, 0, 0, False


def next_probe(lo: int, hi: int, state: ProbeState) -> int:
    """The null-window test point ``med`` (a probe of window ``(med, med + 1)``) for a
    score known to lie in ``[lo, hi]`` (lo < hi), after the probes of ``state``.

    As Steininger's c4, each probe starts next to the last one's fail-soft value
    (the first next to the middle of the range), so that near 0 two probes settle
    it; while the probes keep failing the same way the step doubles, and once they
    have failed both ways the rest is bisection (fewer probes than Pons' bisection
    near 0, fewer nodes than c4's rule alone far from it: bench/README.md,
    "Settings and their figures")."""
    last, direction, run, bracketed = state
    if bracketed:
        return lo + (hi - lo) // 2
    step = 1 << max(run - 1, 0)
    med = last - step if direction <= 0 else last + step - 1
    return min(max(med, lo), hi - 1)


def after_probe(state: ProbeState, med: int, value: int) -> ProbeState:
    """The probe state after the probe at ``med`` returned the fail-soft ``value``."""
    _, direction, run, bracketed = state
    now = -1 if value <= med else 1
    if direction != 0 and now != direction:
        bracketed = True
    run = run + 1 if now == direction else 1
    return value, now, run, bracketed


def probe_score(lo: int, hi: int, probe: Callable[[int, int, int], Optional[int]],
                first: Optional[tuple[int, int]] = None) -> Optional[int]:
    """The score known to lie in ``[lo, hi]``, by null-window probes (:func:`next_probe`;
    the first one placed as for the range ``first``, default ``(lo, hi)``).
    ``probe(lo, hi, med)`` searches the window ``(med, med + 1)`` and returns its
    fail-soft value, or None when the search was stopped (then so is this)."""
    state = first_probe(*(first or (lo, hi)))
    while lo < hi:
        med = next_probe(lo, hi, state)
        r = probe(lo, hi, med)
        if r is None:
            return None
        if r <= med:
            hi = r
        else:
            lo = r
        state = after_probe(state, med, r)
    return lo


def weak_value(probe: Callable[[int, int], Optional[int]]) -> Optional[int]:
    """The weak value (-1 loss, 0 draw, 1 win) by at most two null-window probes,
    as c4 does: ``(-1, 0)`` (is the score below 0?), then, unless its fail-soft
    value already decides, ``(0, 1)`` (above 0?). ``probe(alpha, beta)`` searches
    that window and returns its fail-soft value, or None when stopped (then so is
    this). Not one window ``(-1, 1)``: every node would have to tell three
    outcomes apart, which costs more nodes."""
    v = probe(-1, 0)
    if v is None or v != 0:
        return None if v is None else (1 if v > 0 else -1)
    v = probe(0, 1)
    return None if v is None else (1 if v > 0 else 0)


def narrowed(bounds: tuple[int, int], alpha: int, beta: int, value: int, weak: bool) -> tuple[int, int]:
    """``bounds`` (the proven lowest and highest score of a position) after a
    search of the window ``(alpha, beta)`` returned the fail-soft ``value``: at
    most ``value`` when it failed low, at least ``value`` when it failed high,
    exactly ``value`` in between. ``weak``: bounds of the weak score (-1/0/1),
    the sign of the value."""
    lo, hi = bounds
    v = (value > 0) - (value < 0) if weak else value
    if value <= alpha:
        return lo, max(lo, min(hi, v))
    if value >= beta:
        return min(hi, max(lo, v)), hi
    return v, v
