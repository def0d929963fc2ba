"""Wins by continuous fours (VCF) from Python: :func:`find_vcf` (the kernel,
validated inputs) and :func:`check_vcf_line`, an independent plain-Python
checker of a returned line (its own windows; it shares no code with the kernels).

A VCF line for the side to move X against Y is a list of cells: X's move, Y's
reply, X's move, ... ending with X's winning stone. It proves a win when each
of X's moves before the last leaves X a completion cell (an empty cell that
completes a window for X) and Y none, and Y's move is X's only completion cell
or, after X's last four-making move, one of X's two (then X completes the other).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...game.geometry import build_context
from ...game.rules import GameSpec, MnkError, UnsupportedError
from ...kernels.proofs.layout import OFF_VCF_LINE, VCF_MAX_MOVES
from ...runtime import families
from .pairing import windows


def _completions(wins: list[frozenset[int]], own: int, opp: int) -> set[int]:
    out = set()
    for w in wins:
        if any(opp >> c & 1 for c in w):
            continue
        empty = [c for c in w if not own >> c & 1]
        if len(empty) == 1:
            out.add(empty[0])
    return out


def check_vcf_line(spec: GameSpec, own: int, opp: int, line: list[int]) -> Optional[str]:
    """None when ``line`` wins for ``own`` (to move) against ``opp`` as the module
    docstring says (every other reply of Y loses at once), else what is wrong."""
    wins = windows(spec)
    if not line or len(line) % 2 == 0:
        return "a VCF line has an odd number of cells"
    for i in range(0, len(line) - 1, 2):
        x, y = line[i], line[i + 1]
        if (own | opp) >> x & 1 or (own | opp) >> y & 1 or x == y:
            return f"step {i}: cell not empty"
        theirs = _completions(wins, opp, own)
        if theirs:
            if len(theirs) > 1 or x not in theirs:
                return f"step {i}: Y threatens {sorted(theirs)} and X does not block it"
        own |= 1 << x
        mine = _completions(wins, own, opp)
        if not mine:
            return f"step {i}: X's move {x} makes no four"
        if _completions(wins, opp, own):
            return f"step {i}: Y can win at once"
        if y not in mine:
            return f"step {i}: Y's reply {y} is not forced"
        opp |= 1 << y
        if any(all(opp >> c & 1 for c in w) for w in wins):
            return f"step {i}: Y's forced reply wins"
    last = line[-1]
    if (own | opp) >> last & 1 or last not in _completions(wins, own, opp):
        return "the last cell does not complete a window"
    return None


class VcfFinder:
    """The kernels' VCF search for one board, its context built once: for callers
    that search many positions (the certificate walk)."""

    def __init__(self, spec: GameSpec) -> None:
        if spec.gravity:
            raise UnsupportedError("the bitboard VCF is for free placement")
        spec.require_exact()
        families.load("proofs")
        from ...kernels.proofs import threats

        self.kernel, self.ctx = threats, build_context(spec)

    def find(self, own: int, opp: int, max_moves: int = VCF_MAX_MOVES, cap: int = 1 << 20) -> Optional[list[int]]:
        """:func:`find_vcf` without its checks of the arguments."""
        ctx = self.ctx
        plies = int(self.kernel.vcf_win(ctx, np.uint64(own), np.uint64(opp), np.int64(max_moves), np.int64(cap)))
        if plies == 0:
            return None
        return [int(c) for c in ctx[OFF_VCF_LINE:OFF_VCF_LINE + plies]]


def find_vcf(spec: GameSpec, own: int, opp: int, max_moves: int = VCF_MAX_MOVES,
             cap: int = 1 << 20) -> Optional[list[int]]:
    """A VCF line (module docstring) for ``own`` to move against ``opp``
    (bitboards, free placement, a position that is not over), with at most
    ``max_moves`` fours before the winning stone and ``cap`` search nodes; None
    when none is found."""
    if spec.gravity:
        raise UnsupportedError("the bitboard VCF is for free placement")
    spec.require_exact()
    full = (1 << spec.cells) - 1
    if own & opp or (own | opp) & ~full or own < 0 or opp < 0:
        raise MnkError("the stones must be disjoint bitboards of the board's cells")
    if max_moves < 0 or cap < 1:
        raise MnkError("max_moves must be at least 0 and cap at least 1")
    return VcfFinder(spec).find(own, opp, max_moves, cap)


def threat_zone(spec: GameSpec, own: int, opp: int, line: list[int]) -> int:
    """The threat zone the kernels' search takes from a VCF ``line`` of ``own`` against
    ``opp`` (as :func:`find_vcf` gives it, checked here by :func:`check_vcf_line`):
    a bitboard ``Z`` of empty cells such that, with ``opp`` to move, each move of
    ``opp`` outside ``Z`` loses to the same line
    (:func:`parallel_mnk.kernels.proofs.threats.threat_zone`)."""
    problem = check_vcf_line(spec, own, opp, line) if not own & opp else "the stones overlap"
    if problem is not None:
        raise MnkError(f"not a VCF line: {problem}")
    finder = VcfFinder(spec)
    ctx = finder.ctx
    for i, cell in enumerate(line):
        ctx[OFF_VCF_LINE + i] = cell
    return int(finder.kernel.threat_zone(ctx, np.uint64(own), np.uint64(opp), len(line)))
