"""Writing certificates (``docs/proof-format.md``) of values of boards past 64
cells, proven by the big-board search (:mod:`parallel_mnk.engines.exact.big`) or
the proof-number prover past 64 cells (:mod:`parallel_mnk.parallel.uses.big_pn`):
mnk-proof/2 for wins on free placement (its ``fours`` records), mnk-proof/1 else.

The walk is :mod:`.certificate`'s (the checker's rules, its memo by canonical
form, records as they are found), on the array board:

* game over, or the claimant completing a line at once: nothing to write;
* the claimant to move: an ``m`` record of a move that keeps the claim, the first of
  0. the move the proof-number prover past 64 cells proved there (``hint``: a win's
     move, or in ``cannot-win`` the defender's refutation its tree found), if any;
  1. in ``cannot-win`` on free placement, where the defender has a pairing: a cell
     outside its pairs (the pairing holds after it: a ``pairs`` record next);
  2. the next move of a win by continuous fours (``wins``, free placement) found
     earlier or now (the defender's other replies lose at once: the checker's rule
     2, so a VCF costs one record a four);
  3. the first move of a win by fours and threes found by threat-space search
     (``wins``, free placement; every defence is walked below it);
  4. the move a null-window search of the position proves (its order: the
     table's move, then the static order);
* the refuter to move in ``cannot-win`` on free placement, where the defender has a
  pairing (:class:`.big_pairing.PairingFinder`, the pn prover's bounds): a ``pairs``
  record, and nothing below it (the checker's rule 3 and section 7);
* the refuter to move: every legal move is walked, except in ``wins`` on free
  placement where the attacker, given the move (the defender passing), wins by
  continuous fours: a ``fours`` record of its moves, and only the defender's moves
  in that win's zone are walked (the page's 12.3, :meth:`.big_threats.Judge.pass_fours`).

A position reached against the claim means the value was wrong: RuntimeError.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ...game.geometry import symmetries
from ...game.position import Position
from ...game.rules import GameSpec, cell_name
from ...kernels.grid import layout as GL
from ...runtime.running import StatusLine
from ..exact.big import BigSearch, table_bits
from .big_pairing import PairingFinder, board_lines
from .big_threats import Judge
from .certificate import Certificate, RecordFile, write_certificate
from .pn_certificate import FORMAT_2
from ...api.settings import current



class BigWalk:
    """The extraction's state on a big board: the search, the symmetries, the memo
    of canonical forms walked and the VCF moves planned ahead."""

    def __init__(self, spec: GameSpec, attacker: str, claim: str, tt_bits: int, records: RecordFile,
                 cert: Certificate, hint: Optional[Callable[[int, int], Optional[int]]] = None) -> None:
        self.spec, self.attacker, self.claim = spec, attacker, claim
        self.claimant = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
        self.search = BigSearch(spec, table_bits(tt_bits))
        self.perms = symmetries(spec)
        self.proved: set[str] = set()
        self.plan: dict[tuple[int, int], int] = {}
        self.records, self.cert = records, cert
        self.hint = hint   # a move a proof already found (the pn prover's), checked like any other
        self.zones = claim == "wins" and not spec.gravity   # fours records (mnk-proof/2)
        vct_nodes = current().big_pn_budget(spec.cells)[1]
        self.judge = Judge(spec, 1 if attacker == "x" else 2, 0, vct_nodes, current().BIG_FOURS,
                           self.search) if self.zones else None
        if self.zones:
            cert.format = FORMAT_2
        s = current()
        self.pairings = None if claim == "wins" or spec.gravity else \
            PairingFinder(board_lines(self.search.geo, spec.k), s.BIG_PN_PAIRING_LINES, s.BIG_PN_PAIRING_NODES,
                          cols=spec.cols)

    def canonical(self, x: int, o: int) -> tuple[str, list[int]]:
        """The canonical board text of ``x``/``o`` and the symmetry that gives it (a
        cell's image in the canonical frame)."""
        spec = self.spec
        chars = ["x" if x >> c & 1 else "o" if o >> c & 1 else "." for c in range(spec.cells)]
        best: Optional[tuple[str, list[int]]] = None
        for perm in self.perms:
            image = ["."] * spec.cells
            for c in range(spec.cells):
                image[perm[c]] = chars[c]
            text = "/".join("".join(image[r * spec.cols:(r + 1) * spec.cols]) for r in range(spec.rows))
            if best is None or text < best[0]:
                best = (text, perm)
        assert best is not None
        return best

    def settled(self, x: int, o: int, ply: int) -> bool:
        """Whether the checker's rules 1 and 2 settle ``x``/``o`` for the claim;
        RuntimeError when the game is over against it."""
        search, geo = self.search, self.search.geo
        st = search.state(x, o)
        k, nlines, cnt = self.spec.k, int(geo[GL.G_NLINES]), int(geo[GL.G_S_CNT])
        counts = st[cnt:cnt + 2 * nlines].reshape(nlines, 2)
        line_x, line_o = bool((counts[:, 0] >= k).any()), bool((counts[:, 1] >= k).any())
        attacker_line = line_x if self.attacker == "x" else line_o
        if line_x or line_o or ply == self.spec.cells:
            if attacker_line == (self.claim == "wins"):
                return True
            raise RuntimeError(f"the walk reached a finished game where {self.attacker} {self.claim} fails: "
                               "the solved value was wrong")
        mover = "x" if ply % 2 == 0 else "o"
        if mover == self.claimant:
            pair = np.zeros(2, dtype=np.int64)
            return search.board.winning_cells(geo, st, 1 if mover == "x" else 2, pair) > 0
        return False

    def children(self, x: int, o: int, ply: int) -> list[tuple[int, int, int]]:
        """What the checker needs after ``x``/``o``; records written on the way."""
        if self.settled(x, o, ply):
            self.cert.leaves += 1
            return []
        key, perm = self.canonical(x, o)
        if key in self.proved:
            return []
        self.proved.add(key)
        mover = "x" if ply % 2 == 0 else "o"
        if mover == self.claimant:
            cell = self.keeping_move(x, o)
            self.records.add({"p": key, "m": cell_name(self.spec, perm[cell])})
            self.cert.records += 1
            self.cert.moves += 1
            return [self.play(x, o, ply, cell)]
        st = self.search.state(x, o)
        if self.pairings is not None:
            pairs = self.pairings.find_in(self.search.geo, st, 1 if self.claimant == "x" else 2)
            if pairs is not None:
                self.records.add({"p": key, "pairs": [[cell_name(self.spec, perm[a]), cell_name(self.spec, perm[b])]
                                                      for a, b in pairs]})
                self.cert.records += 1
                self.cert.pairings += 1
                return []
        return self.refuter_children(x, o, ply, key, perm, st)

    def refuter_children(self, x: int, o: int, ply: int, key: str, perm: list[int],
                         st: np.ndarray) -> list[tuple[int, int, int]]:
        """The refuter's moves from ``x``/``o`` (canonical form ``key`` by ``perm``, its
        kernel state ``st``, left as it was)
        that the checker's rules 1 and 2 do not settle at once (:meth:`settled`, on one
        state: each stone put and taken back), those of a ``fours`` record's zone where
        there is one (module docstring); the others counted as leaves. RuntimeError
        when one completes the refuter's line (or fills the board against a win)."""
        search, geo, board = self.search, self.search.geo, self.search.board
        cells = search.legal_cells(x, o)
        found = self.judge.pass_fours(x, o) if self.judge is not None else None
        if found is not None:
            moves, zone = found
            self.records.add({"p": key, "fours": [cell_name(self.spec, perm[c]) for c in moves]})
            self.cert.records += 1
            cells = [c for c in cells if zone >> c & 1]
        refuter = 1 if ply % 2 == 0 else 2
        claimant = 3 - refuter
        pair = np.zeros(2, dtype=np.int64)
        out = []
        for c in cells:
            won = board.set_stone(geo, st, c, refuter)
            if won or ply + 1 == self.spec.cells:
                if won or self.claim == "wins":
                    raise RuntimeError(f"the walk reached a finished game where {self.attacker} {self.claim} "
                                       "fails: the solved value was wrong")
                self.cert.leaves += 1
            elif board.winning_cells(geo, st, claimant, pair) > 0:
                self.cert.leaves += 1
            else:
                out.append(self.play(x, o, ply, c))
            board.clear_stone(geo, st, c)
        return out

    def play(self, x: int, o: int, ply: int, cell: int) -> tuple[int, int, int]:
        """The position after the side to move takes ``cell``."""
        return (x | 1 << cell, o, ply + 1) if ply % 2 == 0 else (x, o | 1 << cell, ply + 1)

    def keeping_move(self, x: int, o: int) -> int:
        """A move of the claimant that keeps the claim (the module docstring's order)."""
        planned = self.plan.pop((x, o), None)
        if planned is not None:
            return planned
        hinted = None if self.hint is None else self.hint(x, o)
        if hinted is not None:
            return hinted
        search = self.search
        kept = self.pairing_kept(x, o)
        if kept is not None:
            return kept
        if self.claim == "wins" and not self.spec.gravity:
            line = search.fours_line(x, o)
            if line is not None:
                self.follow(x, o, line)
                return line[0]
            first = search.threat_win(x, o, current().BIG_VCT_NODES)
            if first is not None:
                return first
        need = 1 if self.claim == "wins" else 0
        cell = search.best_cell(x, o, need, True)
        if cell < 0 or search.window(x, o, need - 1, need, True, cell=cell) < need:
            raise RuntimeError("no move keeps the claim: the solved value was wrong")
        return cell

    def pairing_kept(self, x: int, o: int) -> Optional[int]:
        """In ``cannot-win`` on free placement, the claimant (the defender) to move at
        ``x``/``o`` with a pairing (the pn prover's bounds): its first legal cell outside
        every pair, which leaves the pairing whole; None when there is no pairing or no
        such cell."""
        if self.pairings is None:
            return None
        pairs = self.pairings.find_in(self.search.geo, self.search.state(x, o), 1 if self.claimant == "x" else 2)
        if pairs is None:
            return None
        paired = {c for pair in pairs for c in pair}
        return next((c for c in self.search.legal_cells(x, o) if c not in paired), None)

    def follow(self, x: int, o: int, line: list[int]) -> None:
        """Remember the claimant's later moves of a VCF ``line`` under the positions
        where they are played (after each forced reply)."""
        if len(self.plan) > current().PLAN_MAX:
            self.plan.clear()
        mover_is_x = bin(x).count("1") == bin(o).count("1")
        for i in range(0, len(line) - 3, 2):
            if mover_is_x:
                x, o = x | 1 << line[i], o | 1 << line[i + 1]
            else:
                o, x = o | 1 << line[i], x | 1 << line[i + 1]
            self.plan[(x, o)] = line[i + 2]

    def run(self, x: int, o: int, ply: int, status: Optional[StatusLine] = None) -> None:
        """Walk everything the checker needs below ``x``/``o``, depth first."""
        cert = self.cert
        stack = [(x, o, ply, 0)]
        while stack:
            x, o, ply, d = stack.pop()
            cert.depth = max(cert.depth, d)
            stack.extend((cx, co, cp, d + 1) for cx, co, cp in self.children(x, o, ply))
            if status is not None:
                status.update(lambda: f"certificate {self.attacker} {self.claim}: {len(self.proved):,} positions, "
                                      f"{cert.records:,} records, {status.elapsed():.0f} s")


def extract_big(position: Position, attacker: str, claim: str, directory: Path, tt_bits: int = 22,
                progress: Optional[bool] = False, hint: Optional[Callable[[int, int], Optional[int]]] = None
                ) -> Certificate:
    """:func:`.certificate.extract` for a board past 64 cells: the certificate of
    ``attacker``'s ``claim`` from ``position`` written as ``<attacker>-<claim>.jsonl.xz``
    in ``directory``; RuntimeError (and no file) when the claim does not hold.
    ``hint(x, o)``: the claimant's move a proof found at a position (None: none),
    taken before any search (the checker judges it as any other record)."""
    def walk_all(records: RecordFile, cert: Certificate, status: Optional[StatusLine]) -> tuple[int, int]:
        walk = BigWalk(position.spec, attacker, claim, tt_bits, records, cert, hint)
        walk.run(position.x, position.o, position.ply, status)
        return len(walk.proved), walk.search.nodes

    return write_certificate(position, attacker, claim, directory, progress, walk_all)
