"""The settled store of a parallel proof in memory every process of this machine
maps: an anonymous memory file (``memfd``, freed with the last process that holds
it: nothing is left behind when a solve is killed) that the workers open by its
path under ``/proc`` (a file in the temporary folder where ``memfd`` does not
exist); the searchers write it with compare-and-swaps (the prover's kernels,
:mod:`parallel_mnk.kernels.pns.settled_store`).
"""
from __future__ import annotations

import mmap
import os
import tempfile
from pathlib import Path

import numpy as np

from ..game.rules import MnkError
from ..kernels.pns import layout as PL


def store_words(bits: int) -> int:
    """The words of a store of ``2**bits`` entries and its pairing pool."""
    return (PL.ST_WORDS << bits) + PL.pool_words(1 << bits)


def store_bytes(bits: int) -> int:
    """The bytes of a store of ``2**bits`` entries and its pairing pool."""
    return store_words(bits) * 8


class SharedStore:
    """A zeroed store of ``2**bits`` entries in shared memory: :attr:`path` opens it in
    another process of this machine (:func:`attach_store`), :attr:`array` maps it
    here; :meth:`close` releases it. :class:`MnkError` when it cannot be made."""

    def __init__(self, bits: int) -> None:
        nbytes = store_bytes(bits)
        self.bits = bits
        self.file: Path | None = None
        try:
            if hasattr(os, "memfd_create"):
                self.fd = os.memfd_create("parallel-mnk-store", 0)
                self.path = Path(f"/proc/{os.getpid()}/fd/{self.fd}")
            else:  # pragma: no cover - not Linux
                self.fd, name = tempfile.mkstemp(prefix="parallel-mnk-store-")
                self.path = self.file = Path(name)
            os.ftruncate(self.fd, nbytes)
            self.mem = mmap.mmap(self.fd, nbytes)
        except OSError as e:
            raise MnkError(f"cannot make the shared store of {nbytes >> 20} MiB: {e.strerror or e}") from None
        self.array = np.frombuffer(self.mem, dtype=np.uint64)

    def close(self) -> None:
        """Release it here (the memory is freed with the last process that maps it)."""
        try:
            os.close(self.fd)
        except OSError:
            pass
        if self.file is not None:
            self.file.unlink(missing_ok=True)


def attach_store(path: Path, bits: int) -> np.ndarray:
    """The store at ``path`` (:attr:`SharedStore.path`) mapped in this process (a plain
    array on a shared mapping: the kernels take it as any other)."""
    fd = os.open(path, os.O_RDWR)
    try:
        mem = mmap.mmap(fd, store_bytes(bits))
    finally:
        os.close(fd)
    return np.frombuffer(mem, dtype=np.uint64)
