"""Pairing certificates from Python: :func:`find_certificate` (the kernel's
exact finder, validated inputs) and :func:`check_certificate`, an independent
plain-Python checker (its own window list; it shares no code with the kernels).

A certificate is a list of cell pairs ``(a, b)`` (cell = ``row * cols + col``,
row 0 at the top). It is one *for the defender against the attacker* in a
position when the pairs are disjoint, their cells empty, and every window
(``k`` cells in a row) with no defender stone holds both cells of some pair.
Then the attacker cannot win, whoever is to move (see :mod:`parallel_mnk.kernels.proofs.pairing`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...game.geometry import build_context
from ...game.rules import GameSpec, MnkError, UnsupportedError
from ...kernels.proofs.layout import MAX_PAIRS, OFF_FOUND, OFF_RING
from ...runtime import families

Pairs = list[tuple[int, int]]


@dataclass
class CertificateSearch:
    """What :func:`find_certificate` found: ``pairs`` (None when none was found),
    ``status`` (``"found"``, ``"none"``: proven that none exists, ``"capped"``:
    unknown, ``"incomplete"``: unknown, the finder paired only the first cells of
    windows with more free cells than it takes, past ``k = 7``) and the search's
    ``nodes``."""

    pairs: Optional[Pairs]
    status: str
    nodes: int


def windows(spec: GameSpec) -> list[frozenset[int]]:
    """Every window of ``spec`` as a set of cells (listed here, not from the kernels)."""
    out = set()
    for r in range(spec.rows):
        for c in range(spec.cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(spec.k)]
                if all(0 <= rr < spec.rows and 0 <= cc < spec.cols for rr, cc in cells):
                    out.add(frozenset(rr * spec.cols + cc for rr, cc in cells))
    return sorted(out, key=sorted)


def check_certificate(spec: GameSpec, attacker: int, defender: int, pairs: Pairs) -> Optional[str]:
    """None when ``pairs`` is a certificate for ``defender`` against ``attacker``
    (bitboards) in that position, else what is wrong with it (one line)."""
    used: set[int] = set()
    for a, b in pairs:
        for cell in (a, b):
            if not 0 <= cell < spec.cells:
                return f"cell {cell} is off the board"
            if (attacker | defender) >> cell & 1:
                return f"cell {cell} is not empty"
            if cell in used:
                return f"cell {cell} is in two pairs"
            used.add(cell)
        if a == b:
            return f"pair ({a}, {b}) names one cell twice"
    for window in windows(spec):
        if any(defender >> c & 1 for c in window):
            continue
        if not any(a in window and b in window for a, b in pairs):
            return f"window {sorted(window)} is live for the attacker and holds no pair"
    return None


def _validate(spec: GameSpec, attacker: int, defender: int) -> None:
    if spec.gravity:
        raise UnsupportedError("pairing certificates are for free placement")
    spec.require_exact()
    full = (1 << spec.cells) - 1
    if attacker & defender or (attacker | defender) & ~full or attacker < 0 or defender < 0:
        raise MnkError("the stones must be disjoint bitboards of the board's cells")


class PairingFinder:
    """The kernels' exact finder for one board, its context built once: for callers
    that search many positions (the certificate walk)."""

    def __init__(self, spec: GameSpec) -> None:
        _validate(spec, 0, 0)
        families.load("proofs")
        from ...kernels.proofs import pairing

        self.spec, self.kernel, self.ctx = spec, pairing, build_context(spec)

    def find(self, attacker: int, defender: int, cap: int = 1 << 20) -> CertificateSearch:
        """Search a certificate for ``defender`` against ``attacker`` (disjoint
        bitboards of the board, not checked here), at most ``cap`` (>= 1) nodes."""
        kernel, ctx = self.kernel, self.ctx
        n = int(kernel.search_certificate(ctx, np.uint64(attacker), np.uint64(defender), cap))
        nodes = int(ctx[kernel.P_DFS_NODES])
        if n == kernel.CAPPED:
            return CertificateSearch(None, "capped", nodes)
        if n == kernel.NONE_EXISTS:
            return CertificateSearch(None, "none", nodes)
        if n == kernel.INCOMPLETE:
            return CertificateSearch(None, "incomplete", nodes)
        pairs = []
        for i in range(n):
            mask = int(ctx[OFF_FOUND + 1 + i])
            a = (mask & -mask).bit_length() - 1
            b = (mask & ~(1 << a)).bit_length() - 1
            pairs.append((a, b))
        return CertificateSearch(pairs, "found", nodes)


def find_certificate(spec: GameSpec, attacker: int, defender: int, cap: int = 1 << 20) -> CertificateSearch:
    """Search a certificate for ``defender`` against ``attacker`` (bitboards) with
    the kernels' exact finder, at most ``cap`` nodes."""
    _validate(spec, attacker, defender)
    if cap < 1:
        raise MnkError(f"cap must be at least 1, got {cap}")
    return PairingFinder(spec).find(attacker, defender, cap)


def reply_zone(spec: GameSpec, attacker: int, defender: int, pairs: Pairs) -> Optional[int]:
    """The reply zone the kernels' search takes from a remembered certificate ``pairs``
    (disjoint cell pairs) in the position ``attacker``/``defender`` (bitboards), the
    attacker to move: a bitboard ``Z`` of empty cells such that every attacker move
    outside ``Z`` is answered by one defender move in ``Z`` after which the pairs
    still empty form a certificate (so the attacker cannot win there); None when the
    pairs give none (:func:`parallel_mnk.kernels.proofs.pairing.reply_zone`)."""
    _validate(spec, attacker, defender)
    used: set[int] = set()
    for a, b in pairs:
        if a == b or not (0 <= a < spec.cells and 0 <= b < spec.cells) or {a, b} & used:
            raise MnkError(f"pair ({a}, {b}) is not two new cells of the board")
        used |= {a, b}
    if not pairs or len(pairs) > MAX_PAIRS:
        raise MnkError(f"a certificate has 1 to {MAX_PAIRS} pairs, got {len(pairs)}")
    families.load("proofs")
    from ...kernels.proofs import pairing

    ctx = build_context(spec)
    ctx[OFF_RING] = len(pairs)
    for i, (a, b) in enumerate(pairs):
        ctx[OFF_RING + 1 + i] = (1 << a) | (1 << b)
    zone = int(pairing.reply_zone(ctx, np.uint64(attacker), np.uint64(defender), 0))
    return zone or None
