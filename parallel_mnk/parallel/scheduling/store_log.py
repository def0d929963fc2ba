"""The log of a question's settled store, for workers that keep a replica of it
instead of mapping it (:class:`~parallel_mnk.engines.provers.pn_replica.ReplicaSearcher`: the
Ray backend's workers, which may run on other machines).

Every entry the coordinator's store takes (a job's accepted delta, what the
coordinator's own kernels settle, a journal's snapshot) is an *addition*, numbered
0, 1, 2, ... A worker's replica holds the additions up to some number and takes the
rest before each job. The log hands them out as *chunks* of consecutive additions,
``(first, last, handle)``: ``handle`` is what the backend's ``share`` made of ``(rows,
starts)`` (the entries' rows, and the row each addition starts at, so that a replica
takes only the part of a chunk it lacks). Two chunks of one size are joined into one
(a binary counter), so a log of ``n`` additions has at most about ``log2(n) + 1``
chunks, each entry is copied ``log2(n)`` times at most, and a job carries a short list.

The log also keeps the searchers whose deltas the coordinator refused (one
disagreed with its store): their later answers are refused too until the searcher
has reset (its epoch past the refused one); :meth:`StoreLog.resets` is what each job
carries to tell them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

ST_WORDS = 4   # words a row (kernels/pns/layout.py ST_WORDS)


@dataclass
class Chunk:
    """The additions ``first..last``: their rows, the row each starts at, and the
    shared handle (made when first handed out)."""

    first: int
    last: int
    rows: np.ndarray
    starts: np.ndarray
    handle: Any = None

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def join(self, other: "Chunk") -> "Chunk":
        """This chunk followed by ``other`` (the next additions)."""
        return Chunk(self.first, other.last, np.concatenate([self.rows, other.rows]),
                     np.concatenate([self.starts, other.starts + len(self.rows) // ST_WORDS]))


class StoreLog:
    """The additions of one question's store (module docstring); ``share`` makes a
    chunk's handle of ``(rows, starts)`` (the Ray backend: an object in its store;
    this machine's pool: the arrays themselves)."""

    def __init__(self, share: Callable[[tuple[np.ndarray, np.ndarray]], Any]) -> None:
        self.share = share
        self.chunks: list[Chunk] = []
        self.additions = 0
        self.entries = 0
        self.refused: dict[str, int] = {}   # searcher token -> the last epoch refused

    def add(self, rows: np.ndarray) -> None:
        """One addition: the rows a store took at once (none: nothing added)."""
        if len(rows) == 0:
            return
        n = self.additions
        self.additions += 1
        self.entries += len(rows) // ST_WORDS
        self.chunks.append(Chunk(n, n, rows, np.zeros(1, dtype=np.int64)))
        while len(self.chunks) >= 2 and self.chunks[-1].size == self.chunks[-2].size:
            last = self.chunks.pop()
            self.chunks[-1] = self.chunks[-1].join(last)

    def handed_out(self) -> tuple[tuple[int, int, Any], ...]:
        """The chunks as a job carries them: ``(first, last, handle)`` each, in order."""
        for c in self.chunks:
            if c.handle is None:
                c.handle = self.share((c.rows, c.starts))
        return tuple((c.first, c.last, c.handle) for c in self.chunks)

    def accepts(self, token: str, epoch: int) -> bool:
        """Whether an answer of the searcher ``token`` at ``epoch`` may be merged."""
        return epoch > self.refused.get(token, -1)

    def refuse(self, token: str, epoch: int) -> None:
        """Refuse the searcher's answers until it resets past ``epoch``."""
        self.refused[token] = max(epoch, self.refused.get(token, -1))

    def resets(self) -> dict[str, int]:
        """What a job carries: token -> the epoch the searcher must be past."""
        return dict(self.refused)

