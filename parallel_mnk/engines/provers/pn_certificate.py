"""Certificates of the proof-number prover, written as the proof is found
(``docs/proof-format.md``, mnk-proof/2): the records a question's search leaves in
its buffer (:mod:`parallel_mnk.kernels.pns.pns_layout`: the claimant's moves, the
defender's pairings, the attacker's moves walked first where zones answered the
others) go, drained between its slices, to two files, one a claim (the attacker
wins; it cannot win). When the question is settled the file of its answer gets
its header and the other is removed: no second search.

The kernel moves each record to its canonical frame (:mod:`..kernels.pns.pns_records`);
here each becomes a JSON line, the first record of a position kept (a position is
settled once per store, but a line of a VCF may meet a position twice).
"""
from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Optional

import numpy as np

from ...game.position import Position
from ...game.rules import GameSpec, cell_name
from ...kernels.pns import pns_layout as PL
from .certificate import FORMAT, RecordFile

FORMAT_2 = "mnk-proof/2"
CLAIMS = {PL.STREAM_WINS: "wins", PL.STREAM_CANNOT: "cannot-win"}


class BoardText:
    """Board text (``docs/proof-format.md``, section 4) of bitboards, a row at a time
    from a cache: a certificate writes millions of them."""

    def __init__(self, spec: GameSpec) -> None:
        self.cols, self.rows = spec.cols, spec.rows
        self.row_mask = (1 << spec.cols) - 1
        self.cache: dict[tuple[int, int], str] = {}
        self.names = [cell_name(spec, c) for c in range(spec.cells)]

    def row(self, x: int, o: int) -> str:
        """The text of one row's stones (bit ``c`` = column ``c``)."""
        key = (x, o)
        text = self.cache.get(key)
        if text is None:
            text = "".join("x" if x >> c & 1 else ("o" if o >> c & 1 else ".") for c in range(self.cols))
            self.cache[key] = text
        return text

    def text(self, x: int, o: int) -> str:
        """The board text of the position ``(x, o)``."""
        cols, mask = self.cols, self.row_mask
        return "/".join(self.row(x >> (r * cols) & mask, o >> (r * cols) & mask) for r in range(self.rows))


class QuestionRecords:
    """The records of one question about ``position`` with ``attacker`` (``x``/``o``)
    as they are found, into ``folder``: :meth:`drain` after each slice of the search,
    :meth:`finish` once settled (or :meth:`discard`)."""

    def __init__(self, spec: GameSpec, position: Position, attacker: str, folder: Path,
                 kernels: ModuleType, maps: np.ndarray) -> None:
        self.spec, self.position, self.attacker, self.folder = spec, position, attacker, folder
        self.kernels, self.maps = kernels, maps
        self.scratch = np.zeros(3, dtype=np.uint64)
        folder.mkdir(parents=True, exist_ok=True)
        self.files = {s: RecordFile(folder / f"{attacker}-{claim}.jsonl.xz") for s, claim in CLAIMS.items()}
        self.seen: dict[int, set[int]] = {s: set() for s in CLAIMS}
        self.counts = {s: 0 for s in CLAIMS}
        self.text = BoardText(spec)

    def drain(self, rb: np.ndarray) -> None:
        """Write the records of the buffer ``rb`` and empty it (``rb[0] = 1``)."""
        end = int(rb[0])
        if end <= 1:
            return
        self.kernels.canonical_records(self.maps, rb, 1, end, self.scratch)
        words = rb[:end].tolist()
        rb[0] = 1
        names, text, cells = self.text.names, self.text.text, self.spec.cells
        i = 1
        while i < end:
            head = words[i]
            kind, n, stream = head & 255, (head >> 8) & 0xFFFF, head >> 24
            x, o = words[i + 1], words[i + 2]
            payload = words[i + 3:i + 3 + n]
            i += 3 + n
            key = x << cells | o
            if key in self.seen[stream]:
                continue
            self.seen[stream].add(key)
            p = text(x, o)
            if kind == PL.REC_MOVE:
                record = {"p": p, "m": names[payload[0]]}
            elif kind == PL.REC_PAIRS:
                record = {"p": p, "pairs": [[names[a], names[b]] for a, b in map(_cells_of_pair, payload)]}
            else:
                record = {"p": p, "first": [names[c] for c in payload]}
            self.files[stream].add(record)
            self.counts[stream] += 1

    def finish(self, wins: Optional[bool], nodes: int, seconds: float) -> Path:
        """The settled question's certificate (``wins``: the attacker wins, else it cannot):
        its file gets the header, the other is removed. Returns the file."""
        keep = PL.STREAM_WINS if wins else PL.STREAM_CANNOT
        self.files[1 - keep].discard()
        head = {"format": FORMAT_2, "cols": self.spec.cols, "rows": self.spec.rows, "k": self.spec.k,
                "gravity": False, "root": self.position.board_text(), "attacker": self.attacker,
                "claim": CLAIMS[keep], "solver": "parallel-mnk", "prover": "pn", "records": self.counts[keep],
                "nodes": nodes, "seconds": round(seconds, 3)}
        self.files[keep].finish(head)
        return self.files[keep].path

    def discard(self) -> None:
        """Remove both files (the question was not settled)."""
        for f in self.files.values():
            f.discard()


def _cells_of_pair(mask: int) -> tuple[int, int]:
    """The two cells of a pair mask, lower first."""
    a = (mask & -mask).bit_length() - 1
    rest = mask & (mask - 1)
    return a, (rest & -rest).bit_length() - 1


__all__ = ["FORMAT", "FORMAT_2", "QuestionRecords"]
