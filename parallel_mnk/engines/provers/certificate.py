"""Writing mnk-proof/1 certificates (``docs/proof-format.md``) of a solved value.

:func:`extract` walks the real positions of the claim from the root exactly as the
page's checker will (its rules, its memo by canonical form), so that it writes
every record the checker needs and no other:

* game over, or the claimant (the attacker in ``wins``, the defender in
  ``cannot-win``) completing a line at once: nothing to write (the checker's rules;
  such positions are settled before any canonical form is taken);
* the claimant to move: a move that keeps the claim, an ``m`` record, the first of:
  1. in ``cannot-win`` without gravity, a move after which the exact pairing finder
     has a certificate for the defender (a small cap per move): the attacker's next
     position is then a ``pairs`` leaf, and any move of the defender that leaves one
     keeps the claim (a pairing proves the attacker cannot win);
  2. in ``wins`` without gravity, the first move of the attacker's win by
     continuous fours (VCF) if the finder has one: the attacker's later moves follow
     the line while the defender blocks (any other reply loses at once: the
     checker's rule 2), so the win costs a record a four. (Not in ``cannot-win``:
     the defender's VCF wins there cost fewer records on (4,7,4) but 4x the search
     nodes a position on (9,6,5), whose walk then meets fewer transpositions.)
  3. a move chosen by the exact search (the table's move tried first, then the
     static order; each candidate proven by a null-window search of it, never taken
     from a table entry);
* the refuter to move: in ``cannot-win`` without gravity, a pairing certificate of
  the position if the exact finder has one (a ``pairs`` record, the walk ends
  there); otherwise every legal move is walked.

A position reached against the claim means the value was wrong: RuntimeError.
Records go to disk as they are found (xz), so memory holds only the memo of the
positions walked (one integer each), never the records.
:func:`claims_of` says which files a value needs.
"""
from __future__ import annotations

import json
import lzma
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ...game.geometry import symmetries
from ...game.position import Position
from ...game.rules import GameSpec, Value, cell_name, format_board_text, parse_board_text
from ...runtime import families
from ...runtime.running import StatusLine
from ...runtime.ttable import stored_move, transposition_table
from ..exact.search import Search
from .pairing import PairingFinder
from .threats import VcfFinder
from ...api.settings import current

FORMAT = "mnk-proof/1"
XZ_PRESET = 6


@dataclass
class Certificate:
    """One claim's file and what the walk did: ``positions`` it walked past the
    checker's own rules (each one memo entry), ``records`` written (``moves`` of them
    ``m`` records, ``pairings`` ``pairs`` records), ``leaves`` settled by the rules
    (game over, a win at once), the search's ``nodes`` and ``depth`` in plies."""

    spec: GameSpec
    root: str
    attacker: str
    claim: str
    path: Path
    records: int = 0
    moves: int = 0
    pairings: int = 0
    positions: int = 0
    leaves: int = 0
    nodes: int = 0
    seconds: float = 0.0
    depth: int = 0
    format: str = FORMAT   # mnk-proof/2 where the writer uses its rules (big boards' fours records)


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


class RecordFile:
    """The records as they are found, xz-compressed into ``<file><suffix>`` beside
    the certificate; :meth:`finish` writes the file as the header's xz stream
    followed by the records' (one text to any xz reader: streams concatenate)."""

    def __init__(self, path: Path, suffix: str = ".records") -> None:
        self.path = path
        self.tmp = path.with_name(path.name + suffix)
        self.out = lzma.open(self.tmp, "wt", encoding="utf-8", preset=XZ_PRESET)

    def add(self, record: dict) -> None:
        """Append one record (a JSON line)."""
        self.out.write(json.dumps(record, separators=(",", ":")) + "\n")

    def finish(self, head: dict) -> None:
        """Write the certificate (``head`` its first line, then the records) and
        remove the temporary file."""
        self.out.close()
        part = self.path.with_name(self.path.name + ".part")
        with open(part, "wb") as f:
            f.write(lzma.compress((json.dumps(head) + "\n").encode(), preset=XZ_PRESET))
            with open(self.tmp, "rb") as records:
                shutil.copyfileobj(records, f)
        part.replace(self.path)
        self.tmp.unlink()

    def close(self) -> Path:
        """Finish the records' stream and return its file (to be merged)."""
        self.out.close()
        return self.tmp

    def discard(self) -> None:
        """Remove the records written so far (the walk failed or was stopped)."""
        self.out.close()
        self.tmp.unlink(missing_ok=True)


def load_records(spec: GameSpec, streams: list[Path]) -> dict[int, str]:
    """The record lines of the xz ``streams`` by their position's memo key (see
    :meth:`Walk.key_of`), the first line of each position (walks on several processes
    meet some positions twice; any one record of a position is proof, as each walk
    closed the claim below its own)."""
    out: dict[int, str] = {}
    cells = spec.cells
    for stream in streams:
        with lzma.open(stream, "rt", encoding="utf-8") as f:
            for line in f:
                x, o = parse_board_text(spec, line[6:line.index('"', 6)])   # a line starts {"p":"<board>"
                out.setdefault(x << cells | o, line)
    return out


class Walk:
    """The extraction's state: the board's maps, the search, the finder, the memo."""

    def __init__(self, spec: GameSpec, attacker: str, claim: str, tt_bits: int, records: RecordFile,
                 cert: Certificate) -> None:
        self.spec, self.attacker, self.claim = spec, attacker, claim
        self.claimant = attacker if claim == "wins" else ("o" if attacker == "x" else "x")
        self.search = Search(spec, transposition_table(tt_bits))
        self.perms = symmetries(spec)
        families.load("proofs")
        from ...kernels.proofs import walk
        self.kernel = walk
        self.maps = np.array(self.perms, dtype=np.int64)
        self.image = np.zeros(3, dtype=np.uint64)   # walk_step's canonical image and symmetry
        self.claim_bits = (attacker == "o") | (claim == "wins") << 1
        pairing = claim == "cannot-win" and not spec.gravity
        self.finder = PairingFinder(spec) if pairing else None
        # (refuter's, claimant's stones, pairs or None): the lookahead's verdict on the claimant's last move
        self.found: Optional[tuple[int, int, Optional[list]]] = None
        self.vcf = VcfFinder(spec) if claim == "wins" and not spec.gravity else None
        self.plan: dict[tuple[int, int], int] = {}   # (claimant's, refuter's stones) -> the VCF's next move
        self.proved: set[int] = set()
        self.records, self.cert = records, cert

    def text(self, key: int) -> str:
        """The board text of a memo key (the canonical form: its x image above its o image)."""
        cells = self.spec.cells
        return format_board_text(self.spec, key >> cells, key & ((1 << cells) - 1))

    def write(self, key: int, perm: list[int], move: Optional[int] = None, pairs: Optional[list] = None) -> None:
        """A record of the position ``key``, its cells mapped by ``perm``."""
        spec, cert = self.spec, self.cert
        if move is not None:
            self.records.add({"p": self.text(key), "m": cell_name(spec, perm[move])})
            cert.moves += 1
        else:
            assert pairs is not None
            self.records.add({"p": self.text(key), "pairs": [[cell_name(spec, perm[a]), cell_name(spec, perm[b])]
                                                             for a, b in pairs]})
            cert.pairings += 1
        cert.records += 1

    def key_of(self, x: int, o: int, ply: int) -> Optional[int]:
        """The memo key of ``(x, o)`` (its canonical form, the x image above the o
        image; the symmetry left in ``image[2]``), or None when the checker's rules 1
        and 2 settle it; RuntimeError when the game is over against the claim."""
        kernel = self.kernel
        found = kernel.walk_step(self.search.ctx, self.maps, np.uint64(x), np.uint64(o), ply, self.claim_bits,
                                 self.image)
        if found == kernel.SETTLED:
            return None
        if found == kernel.AGAINST:
            raise RuntimeError(f"the walk reached {format_board_text(self.spec, x, o)}, where the claim "
                               f"{self.attacker} {self.claim} fails: the solved value was wrong")
        return int(self.image[0]) << self.spec.cells | int(self.image[1])

    def children(self, x: int, o: int, ply: int) -> list[tuple[int, int, int]]:
        """What the checker needs after ``(x, o)``; records written on the way."""
        spec = self.spec
        key = self.key_of(x, o, ply)
        if key is None:   # rules 1 and 2
            self.cert.leaves += 1
            return []
        perm = self.perms[int(self.image[2])]
        if key in self.proved:
            return []
        self.proved.add(key)
        mover = "x" if ply % 2 == 0 else "o"
        own, opp = (x, o) if mover == "x" else (o, x)
        legal = self.search.legal_mask(own, opp)
        if mover == self.claimant:
            cell = self.keeping_move(own, opp, ply)
            self.write(key, perm, move=cell)
            return [self.play(x, o, ply, cell)]
        if self.finder is not None:   # rule 3: a pairing closes the node
            if self.found is not None and self.found[:2] == (own, opp):   # the lookahead tried it (a second
                pairs = self.found[2]   # try with a bigger cap finds few more, for much more time)
            else:
                pairs = self.finder.find(own, opp, current().CERTIFICATE_PAIRING_CAP).pairs
            if pairs is not None:
                self.write(key, perm, pairs=pairs)
                return []
        return [self.play(x, o, ply, c) for c in range(spec.cells) if legal >> c & 1]

    def run(self, x: int, o: int, ply: int, depth: int = 0, status: Optional[StatusLine] = None) -> None:
        """Walk everything the checker needs below ``(x, o)`` (``depth`` plies below
        the certificate's root), depth first; ``status`` redrawn on the way."""
        cert = self.cert
        stack = [(x, o, ply, depth)]
        while stack:
            x, o, ply, d = stack.pop()
            cert.depth = max(cert.depth, d)
            stack.extend((cx, co, cp, d + 1) for cx, co, cp in self.children(x, o, ply))
            if status is not None:
                status.update(lambda: f"certificate {self.attacker} {self.claim}: {len(self.proved):,} positions, "
                                      f"{cert.records:,} records, {status.elapsed():.0f} s")

    def play(self, x: int, o: int, ply: int, cell: int) -> tuple[int, int, int]:
        """The position after the side to move takes ``cell``."""
        return (x | 1 << cell, o, ply + 1) if ply % 2 == 0 else (x, o | 1 << cell, ply + 1)

    def keeping_move(self, own: int, opp: int, ply: int) -> int:
        """A move of the claimant (``own``) that keeps the claim: one that leaves a
        pairing certificate (``cannot-win``), the next move of a VCF win, or one
        proven by a null-window search to win (``wins``) or at least draw
        (``cannot-win``): the module docstring's order."""
        planned = self.plan.pop((own, opp), None)
        if planned is not None:
            return planned
        search = self.search
        x, o = (own, opp) if ply % 2 == 0 else (opp, own)
        hint = stored_move(search.ctx, search.tt, x, o)
        order = sorted(search.legal_cells(own, opp), key=lambda c: c != hint)
        if self.finder is not None:
            for cell in order:
                pairs = self.finder.find(opp, own | 1 << cell, current().LOOKAHEAD_CAP).pairs
                if pairs is not None:
                    self.found = (opp, own | 1 << cell, pairs)
                    return cell
        if self.vcf is not None:
            line = self.vcf.find(own, opp, cap=current().VCF_CAP)
            if line is not None:
                self.follow(own, opp, line)
                return line[0]
        need = 1 if self.claim == "wins" else 0
        for cell in order:
            if search.window(own, opp, ply, need - 1, need, cell=cell) >= need:
                self.found = (opp, own | 1 << cell, None) if self.finder is not None else None
                return cell
        raise RuntimeError("no move keeps the claim: the solved value was wrong")


    def follow(self, own: int, opp: int, line: list[int]) -> None:
        """Remember the claimant's later moves of a VCF ``line`` (its moves and the
        refuter's blocks alternate, the winning stone last), each under the position
        where it is played."""
        if len(self.plan) > current().PLAN_MAX:
            self.plan.clear()
        for i in range(0, len(line) - 3, 2):
            own, opp = own | 1 << line[i], opp | 1 << line[i + 1]
            self.plan[(own, opp)] = line[i + 2]


def frontier(walk: Walk, position: Position, target: int) -> list[tuple[int, int, int, int]]:
    """Open positions ``(x, o, ply, depth)`` of the first level below ``position``
    that has at least ``target`` of them (or the last level there is), distinct up
    to symmetry; ``walk`` writes the records of the levels above. The walks start
    here: the claimant's first moves are then chosen before any deep walk has filled
    the table, whose moves the search tries first (fewer records than depth first
    from the root: bench/README.md, "Settings and their figures")."""
    level = [(position.x, position.o, position.ply, 0)]
    while level and len(level) < target:
        below: dict[int, tuple[int, int, int, int]] = {}
        for x, o, ply, depth in level:
            for cx, co, cp in walk.children(x, o, ply):
                key = walk.key_of(cx, co, cp)
                if key is None:
                    walk.cert.leaves += 1
                elif key not in below and key not in walk.proved:
                    below[key] = (cx, co, cp, depth + 1)
        if not below:
            return []
        level = list(below.values())
    return level


def header(cert: Certificate) -> dict:
    """The first line of ``cert``'s file (the page's header, and what the walk did)."""
    spec = cert.spec
    return {"format": cert.format, "cols": spec.cols, "rows": spec.rows, "k": spec.k, "gravity": spec.gravity,
            "root": cert.root, "attacker": cert.attacker, "claim": cert.claim, "solver": "parallel-mnk",
            "records": cert.records, "positions": cert.positions, "nodes": cert.nodes,
            "seconds": round(cert.seconds, 3)}


def new_certificate(position: Position, attacker: str, claim: str, directory: Path) -> Certificate:
    """An empty :class:`Certificate` of the claim, its file in ``directory`` (made)."""
    directory.mkdir(parents=True, exist_ok=True)
    return Certificate(position.spec, position.board_text(), attacker, claim,
                       directory / f"{attacker}-{claim}.jsonl.xz")


def extract(position: Position, attacker: str, claim: str, directory: Path, tt_bits: int = 22,
            progress: Optional[bool] = False) -> Certificate:
    """Write the certificate of ``attacker``'s ``claim`` from ``position`` as
    ``<attacker>-<claim>.jsonl.xz`` in ``directory`` (made if missing; module
    docstring); RuntimeError (and no file) when the claim does not hold.
    ``progress``: a status line on stderr (None: when stderr is a terminal).
    :func:`parallel_mnk.parallel.uses.certify.extract_parallel` is the same on workers."""
    def walk_all(records: RecordFile, cert: Certificate, status: Optional[StatusLine]) -> tuple[int, int]:
        walk = Walk(position.spec, attacker, claim, tt_bits, records, cert)
        for x, o, ply, depth in frontier(walk, position, current().CERTIFICATE_FRONTIER):
            walk.run(x, o, ply, depth, status)   # (no closure a position unseen)
        return len(walk.proved), walk.search.nodes

    return write_certificate(position, attacker, claim, directory, progress, walk_all)


def write_certificate(position: Position, attacker: str, claim: str, directory: Path, progress: Optional[bool],
                      walk_all: Callable[[RecordFile, Certificate, Optional[StatusLine]], tuple[int, int]]
                      ) -> Certificate:
    """The file of ``attacker``'s ``claim`` from ``position`` in ``directory``, its
    records written by ``walk_all(records, cert, status)`` (which returns the positions
    it walked and the nodes it searched; ``status`` None without a status line): the
    header goes first once the walk is done; on any error no file is left."""
    started = time.perf_counter()
    cert = new_certificate(position, attacker, claim, directory)
    records = RecordFile(cert.path)
    status = StatusLine(progress)
    try:
        cert.positions, cert.nodes = walk_all(records, cert, status if status.show else None)
    except BaseException:
        records.discard()
        raise
    finally:
        status.finish()
    cert.seconds = time.perf_counter() - started
    records.finish(header(cert))
    return cert
