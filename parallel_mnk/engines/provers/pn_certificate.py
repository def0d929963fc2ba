"""Certificates of the proof-number prover (``docs/proof-format.md``, mnk-proof/2),
written from the store a proof settled its nodes into: the walk of the positions
the checker will walk (:mod:`parallel_mnk.kernels.pns.certificate_walk`) leaves records in a
buffer (the claimant's moves, the defender's pairings, the attacker's moves walked
first where zones answered the others); each is moved to the certificate's frame
(:mod:`parallel_mnk.kernels.pns.records`) and written as a JSON line. No search:
the store holds every record's content.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np

from ...game.rules import GameSpec, cell_name
from ...kernels.pns import layout as PL
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


class RecordText:
    """The records a search left in its buffer, as JSON lines of the certificate's
    frame: :meth:`convert` gives ``(stream, key, line)`` for each (``key`` the
    position's, ``x << cells | o`` of its canonical form) and empties the buffer."""

    def __init__(self, spec: GameSpec, kernels: ModuleType, maps: np.ndarray) -> None:
        self.spec, self.kernels, self.maps = spec, kernels, maps
        self.scratch = np.zeros(3, dtype=np.uint64)
        self.text = BoardText(spec)

    def convert(self, rb: np.ndarray) -> list[tuple[int, int, str]]:
        """The records of ``rb`` (then emptied: ``rb[0] = 1``)."""
        end = int(rb[0])
        if end <= 1:
            return []
        self.kernels.canonical_records(self.maps, rb, 1, end, self.scratch)
        words = rb[:end].tolist()
        rb[0] = 1
        names, text, cells = self.text.names, self.text.text, self.spec.cells
        out = []
        i = 1
        while i < end:
            head = words[i]
            kind, n, stream = head & 255, (head >> 8) & 0xFFFF, head >> 24
            x, o = words[i + 1], words[i + 2]
            payload = words[i + 3:i + 3 + n]
            i += 3 + n
            p = text(x, o)
            if kind == PL.REC_MOVE:
                line = f'{{"p":"{p}","m":"{names[payload[0]]}"}}'
            elif kind == PL.REC_PAIRS:
                pairs = ",".join(f'["{names[a]}","{names[b]}"]' for a, b in map(_cells_of_pair, payload))
                line = f'{{"p":"{p}","pairs":[{pairs}]}}'
            else:
                first = ",".join(f'"{names[c]}"' for c in payload)
                line = f'{{"p":"{p}","first":[{first}]}}'
            out.append((stream, x << cells | o, line))
        return out


class CertificateFile:
    """One certificate (``attacker`` and ``claim``) of the position ``root`` (board
    text) in ``folder``: :meth:`drain` the walk's buffer into it as it fills,
    :meth:`finish` (or :meth:`discard`)."""

    def __init__(self, spec: GameSpec, root: str, attacker: str, claim: str, folder: Path,
                 kernels: ModuleType, maps: np.ndarray) -> None:
        self.spec, self.root, self.attacker, self.claim = spec, root, attacker, claim
        folder.mkdir(parents=True, exist_ok=True)
        self.file = RecordFile(folder / f"{attacker}-{claim}.jsonl.xz")
        self.text = RecordText(spec, kernels, maps)
        self.count = 0

    def drain(self, rb: np.ndarray) -> None:
        """Write the records of the buffer ``rb`` and empty it."""
        out = self.file.out
        for _, _, line in self.text.convert(rb):
            out.write(line + "\n")
            self.count += 1

    def finish(self, nodes: int, seconds: float, prover: str = "pn") -> Path:
        """Write the header and close: the certificate's file."""
        head = {"format": FORMAT_2, "cols": self.spec.cols, "rows": self.spec.rows, "k": self.spec.k,
                "gravity": False, "root": self.root, "attacker": self.attacker, "claim": self.claim,
                "solver": "parallel-mnk", "prover": prover, "records": self.count, "nodes": nodes,
                "seconds": round(seconds, 3)}
        self.file.finish(head)
        return self.file.path

    def discard(self) -> None:
        """Remove what was written."""
        self.file.discard()


def _cells_of_pair(mask: int) -> tuple[int, int]:
    """The two cells of a pair mask, lower first."""
    a = (mask & -mask).bit_length() - 1
    rest = mask & (mask - 1)
    return a, (rest & -rest).bit_length() - 1


__all__ = ["FORMAT", "FORMAT_2", "CertificateFile", "RecordText"]
