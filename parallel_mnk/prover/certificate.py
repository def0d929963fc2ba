"""Writing mnk-proof/1 certificates (``../shared/proof-format.md``) of a solved value.

:func:`extract` walks the real positions of the claim from the root exactly as the
page's checker will (its rules, its memo by canonical form), so that it writes
every record the checker needs and no other:

* game over, or the prover (the attacker in ``wins``, the defender in
  ``cannot-win``) completing a line at once: nothing to write (the checker's rules);
* the prover to move: a move that keeps the claim, chosen by the exact search
  (the table's move tried first, then the static order; each candidate proven by a
  null-window search of it, never taken from a table entry): an ``m`` record;
* the refuter to move: in ``cannot-win`` without gravity, a pairing certificate of
  the position if the exact finder has one (a ``pairs`` record, the walk ends
  there); otherwise every legal move is walked.

A position reached against the claim means the value was wrong: RuntimeError.
:func:`claims_of` says which files a value needs; :func:`write` writes one
(xz-compressed JSON lines, the header first).
"""
from __future__ import annotations

import json
import lzma
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..geometry import board_mask, has_line, symmetries, winning_cells
from ..position import Position
from ..rules import GameSpec, Value, cell_name, format_board_text
from ..search import Search
from ..ttable import stored_move, transposition_table
from .pairing import find_certificate

FORMAT = "mnk-proof/1"
PAIRING_CAP = 1 << 16    # finder nodes per refuter position (a miss only means the walk goes on)
PAIRING_MAX_K = 6


@dataclass
class Certificate:
    """The records of one claim, and what the walk did."""

    spec: GameSpec
    root: str
    attacker: str
    claim: str
    records: list[dict] = field(default_factory=list)
    positions: int = 0
    pairings: int = 0
    nodes: int = 0
    seconds: float = 0.0
    depth: int = 0


def claims_of(position: Position, value: Value) -> list[tuple[str, str]]:
    """``(attacker, claim)`` of each certificate the ``value`` of ``position`` needs:
    a win of its side to move or of the other, or a draw's two ``cannot-win`` (only
    ``x cannot-win`` from an empty free-placement board: strategy stealing)."""
    mover = "x" if position.ply % 2 == 0 else "o"
    other = "o" if mover == "x" else "x"
    if value is Value.WIN:
        return [(mover, "wins")]
    if value is Value.LOSS:
        return [(other, "wins")]
    if not position.spec.gravity and position.ply == 0:
        return [("x", "cannot-win")]
    return [("x", "cannot-win"), ("o", "cannot-win")]


class _Walk:
    """The extraction's state: the board's maps, the search, the memo."""

    def __init__(self, spec: GameSpec, attacker: str, claim: str, tt_bits: int) -> None:
        self.spec, self.attacker, self.claim = spec, attacker, claim
        self.prover = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
        self.search = Search(spec, transposition_table(tt_bits))
        self.perms = symmetries(spec)
        self.full = board_mask(spec)
        self.proved: set[str] = set()
        self.records: list[dict] = []
        self.pairings = 0

    def canonical(self, x: int, o: int) -> tuple[str, list[int]]:
        """The page's canonical form (least board text of the images) and the map to it."""
        best: Optional[tuple[str, list[int]]] = None
        for perm in self.perms:
            xi = oi = 0
            for cell in range(self.spec.cells):
                if x >> cell & 1:
                    xi |= 1 << perm[cell]
                elif o >> cell & 1:
                    oi |= 1 << perm[cell]
            text = format_board_text(self.spec, xi, oi)
            if best is None or text < best[0]:
                best = (text, perm)
        assert best is not None
        return best

    def children(self, x: int, o: int, ply: int) -> list[tuple[int, int, int]]:
        """What the checker needs after ``(x, o)``; records written on the way."""
        spec = self.spec
        key, perm = self.canonical(x, o)
        if key in self.proved:
            return []
        self.proved.add(key)
        x_line, o_line = has_line(x, spec.rows, spec.cols, spec.k), has_line(o, spec.rows, spec.cols, spec.k)
        if x_line or o_line or (x | o) == self.full:
            if (x_line if self.attacker == "x" else o_line) != (self.claim == "wins"):
                raise RuntimeError(f"the walk reached {format_board_text(spec, x, o)}, where the claim "
                                   f"{self.attacker} {self.claim} fails: the solved value was wrong")
            return []
        mover = "x" if ply % 2 == 0 else "o"
        own, opp = (x, o) if mover == "x" else (o, x)
        legal = self.search.legal_mask(own, opp)
        cells = [c for c in range(spec.cells) if legal >> c & 1]
        if mover == self.prover:
            if winning_cells(own, legal, spec.rows, spec.cols, spec.k):
                return []
            cell = self.keeping_move(x, o, ply)
            self.records.append({"p": key, "m": cell_name(spec, perm[cell])})
            return [self.play(x, o, ply, cell)]
        if self.claim == "cannot-win" and not spec.gravity and spec.k <= PAIRING_MAX_K:
            found = find_certificate(spec, own, opp, PAIRING_CAP)
            if found.pairs is not None:
                self.pairings += 1
                self.records.append({"p": key, "pairs": [[cell_name(spec, perm[a]), cell_name(spec, perm[b])]
                                                         for a, b in found.pairs]})
                return []
        return [self.play(x, o, ply, c) for c in cells]

    def play(self, x: int, o: int, ply: int, cell: int) -> tuple[int, int, int]:
        return (x | 1 << cell, o, ply + 1) if ply % 2 == 0 else (x, o | 1 << cell, ply + 1)

    def keeping_move(self, x: int, o: int, ply: int) -> int:
        """A move of the prover that keeps the claim, proven by a null-window search:
        a win (``wins``) or at least a draw (``cannot-win``); the table's move first."""
        search = self.search
        own, opp = (x, o) if ply % 2 == 0 else (o, x)
        need = 1 if self.claim == "wins" else 0
        hint = stored_move(search.ctx, search.tt, x, o)
        order = sorted(search.legal_cells(own, opp), key=lambda c: c != hint)
        for cell in order:
            if search.window(own, opp, ply, need - 1, need, cell=cell) >= need:
                return cell
        raise RuntimeError("no move keeps the claim: the solved value was wrong")


def extract(position: Position, attacker: str, claim: str, tt_bits: int = 22) -> Certificate:
    """The certificate of ``attacker``'s ``claim`` from ``position`` (module docstring)."""
    started = time.perf_counter()
    walk = _Walk(position.spec, attacker, claim, tt_bits)
    stack = [(position.x, position.o, position.ply, 0)]
    depth = 0
    while stack:
        x, o, ply, d = stack.pop()
        depth = max(depth, d)
        stack.extend((cx, co, cp, d + 1) for cx, co, cp in walk.children(x, o, ply))
    return Certificate(position.spec, position.board_text(), attacker, claim, walk.records, len(walk.proved),
                       walk.pairings, walk.search.nodes, time.perf_counter() - started, depth)


def write(cert: Certificate, directory: Path) -> Path:
    """Write ``cert`` as ``<attacker>-<claim>.jsonl.xz`` in ``directory`` (made if
    missing); returns the file."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{cert.attacker}-{cert.claim}.jsonl.xz"
    spec = cert.spec
    head = {"format": FORMAT, "cols": spec.cols, "rows": spec.rows, "k": spec.k, "gravity": spec.gravity,
            "root": cert.root, "attacker": cert.attacker, "claim": cert.claim, "solver": "parallel-mnk",
            "records": len(cert.records), "positions": cert.positions, "nodes": cert.nodes,
            "seconds": round(cert.seconds, 3)}
    tmp = path.with_name(path.name + ".part")
    with lzma.open(tmp, "wt", encoding="utf-8") as f:
        f.write(json.dumps(head) + "\n")
        for rec in cert.records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    tmp.replace(path)
    return path
