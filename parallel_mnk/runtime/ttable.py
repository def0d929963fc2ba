"""Transposition tables: sizing, allocation, salts, and tables in shared memory.

* The exact engine's table is ``uint64[2**bits]``, one word per entry
  (:mod:`parallel_mnk.kernels.core.layout`); a process keeps one per size
  (:func:`transposition_table`) and each solve salts its keys afresh
  (:func:`new_salt`), which is as good as clearing it.
* The depth-limited engine's table is a pair of int64 arrays
  (:class:`LimitedTable`), also one per size and process.
* Parallel solves share one table between processes: an anonymous shared
  mapping made before the workers fork (:func:`shared_table`, the process pool),
  or a ``memfd`` other processes of the machine open through ``/proc``
  (:func:`memfd_table`, :func:`open_memfd_table`, the Ray backend).
"""
from __future__ import annotations

import ctypes
import mmap
import os
from typing import Optional, Union

import numpy as np
import psutil

from ..api.options import parse_size
from ..game.rules import MnkError, ResourceError
from ..api.settings import TABLE_BITS, current

MIN_TT_BITS, MAX_TT_BITS = TABLE_BITS
SHMEM_THP = "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
MEMFD_PREFIX = "parallel-mnk-tt-"
MemfdTable = tuple[int, Optional[mmap.mmap], np.ndarray]   # (fd or -1, mapping or None, the entries)


# ------------------------------------------------------------------ sizes
def check_table_bits(bits: int) -> None:
    """Refuse (MnkError) a table of ``2**bits`` entries out of the range a table may have."""
    if not MIN_TT_BITS <= bits <= MAX_TT_BITS:
        raise MnkError(f"table size 2**{bits} is out of range (2**{MIN_TT_BITS} .. 2**{MAX_TT_BITS} entries)")


def check_table_memory(bits: int, what: str = "a table") -> None:
    """Refuse (MnkError) a table of ``2**bits`` entries that is out of range or
    bigger than the memory available now."""
    check_table_bits(bits)
    need, avail = 8 << bits, psutil.virtual_memory().available
    if need > avail:
        raise ResourceError(f"{what} of 2**{bits} entries needs {need / 2**30:.1f} GiB, "
                            f"only {avail / 2**30:.1f} GiB is available")


def tt_bits_for_size(size: Union[int, str]) -> int:
    """Table bits for ``size`` (bytes, or a string for :func:`parse_size`): the
    largest power-of-two count of 8-byte entries that fits in it (at most
    2**MAX_TT_BITS). Asking for more than the available memory is refused."""
    nbytes = parse_size(size) if isinstance(size, str) else int(size)
    if nbytes < 8 << MIN_TT_BITS:
        raise MnkError(f"table size {nbytes} bytes is too small (at least {(8 << MIN_TT_BITS) // 1024} KiB)")
    avail = psutil.virtual_memory().available
    if nbytes > avail:
        raise ResourceError(f"a table of {nbytes / 2**30:.2f} GiB was asked for, only {avail / 2**30:.1f} GiB "
                            "of memory is available")
    return min(MAX_TT_BITS, (nbytes // 8).bit_length() - 1)


def board_tt_bits(cells: int, gravity: bool, workers: int = 1) -> int:
    """The table a board's solves need (log2 of its entries), before the memory cap:
    with gravity 2**20 entries for 30 cells, twice as many every 6 cells more (up
    to 2**24: the empty 7x6 board gets 2**22, 32 MiB); free placement, whose
    searches grow faster with the board, 2**(cells - 5), up to 2**25 (256 MiB);
    one bit more from 8 workers (more of the tree in flight at once).

    Not bigger, because a bigger table costs at every node: each probe is a
    cache and TLB miss that grows with the table, and the first touch of its
    pages costs time of its own (bench/README.md, "Settings and their figures").
    Long searches of big boards still gain from size: give ``--tt-size``."""
    bits = 15 + cells // 6 if gravity else cells - 5
    bits = max(16, min(24 if gravity else 25, bits)) + (workers >= 8)
    return min(MAX_TT_BITS, bits)


def default_tt_bits(cells: Optional[int] = None, gravity: bool = False, workers: int = 1) -> int:
    """The default table (log2 of its entries): :func:`board_tt_bits` for a board of
    ``cells`` (None: any board, the size of the biggest free one), at most a
    quarter of the available memory and the setting ``DEFAULT_TT_CAP`` (256 MiB, 2**25 entries)."""
    want = board_tt_bits(64 if cells is None else cells, gravity, workers)
    budget = min(psutil.virtual_memory().available // 4, current().DEFAULT_TT_CAP)
    fits = (budget // 8).bit_length() - 1
    return max(MIN_TT_BITS, min(want, fits))


def resolve_tt_bits(tt_bits: Optional[int] = None, tt_size: Union[int, str, None] = None,
                    cells: Optional[int] = None, gravity: bool = False, workers: int = 1) -> int:
    """The table bits of a solve: ``tt_bits``, or from ``tt_size``, or the default
    for the board (``cells``, ``gravity``) and the ``workers`` (:func:`default_tt_bits`).
    A ``tt_bits`` out of range is refused here (MnkError), before any work."""
    if tt_bits is not None and tt_size is not None:
        raise MnkError("give the table size either as tt_bits or as tt_size, not both")
    if tt_size is not None:
        return tt_bits_for_size(tt_size)
    if tt_bits is None:
        return default_tt_bits(cells, gravity, workers)
    check_table_bits(tt_bits)
    return tt_bits


# ------------------------------------------------------------------ tables of this process
_tables: dict[int, np.ndarray] = {}


def transposition_table(bits: int) -> np.ndarray:
    """The process's exact-engine table of ``2**bits`` entries (allocated once per
    size, reused; each solve salts its keys afresh)."""
    if bits not in _tables:
        check_table_memory(bits)
        _tables[bits] = np.zeros(1 << bits, dtype=np.uint64)
    return _tables[bits]


def new_salt() -> np.uint64:
    """A random 64-bit salt for table keys."""
    return np.uint64(int.from_bytes(os.urandom(8), "little"))


class LimitedTable:
    """The depth-limited engine's table of ``2**bits`` entries: ``keys`` (hashes)
    and ``data`` (two words per entry, see :mod:`parallel_mnk.kernels.grid.search`)."""

    def __init__(self, bits: int) -> None:
        self.keys = np.zeros(1 << bits, dtype=np.int64)
        self.data = np.zeros(2 << bits, dtype=np.int64)

    def clear(self) -> None:
        """Forget every entry."""
        self.keys[:] = 0


_limited_tables: dict[int, LimitedTable] = {}


def limited_table(bits: Optional[int] = None) -> LimitedTable:
    """This process's depth-limited table of ``2**bits`` entries (made once, reused;
    None: the setting ``LIMITED_TT_BITS``)."""
    bits = current().LIMITED_TT_BITS if bits is None else bits
    if bits not in _limited_tables:
        _limited_tables[bits] = LimitedTable(bits)
    return _limited_tables[bits]


# ------------------------------------------------------------------ shared between processes
def shared_huge_pages() -> Optional[str]:
    """Linux's transparent huge page policy for shared memory (``never``,
    ``advise``, ``always``, ...), which decides whether a shared table gets
    2 MiB pages; None where there is no such setting.

    The serial table is private memory, which NumPy asks huge pages for (and
    ``enabled`` is usually ``madvise`` or ``always``); the shared table asks
    too, but under ``never`` (the usual default) it stays on 4 KiB pages and
    each random probe tends to miss the TLB. ``advise`` lets it have them.
    """
    try:
        with open(SHMEM_THP) as f:
            text = f.read()
    except OSError:
        return None
    chosen = [word[1:-1] for word in text.split() if word.startswith("[")]
    return chosen[0] if chosen else None


def shared_table(bits: int) -> tuple[mmap.mmap, np.ndarray]:
    """An anonymous shared mapping of ``2**bits`` zeroed entries and its array:
    processes forked afterwards share it. Asks for 2 MiB pages (fewer TLB misses
    on random probes) where the system allows them (:func:`shared_huge_pages`)."""
    check_table_memory(bits, "a shared table")
    mem = mmap.mmap(-1, 8 << bits)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        mem.madvise(mmap.MADV_HUGEPAGE)
    return mem, np.frombuffer(mem, dtype=np.uint64)


MADV_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23)   # Linux 5.14: fault pages in, writable
PAGE = mmap.PAGESIZE


def prefault(table: np.ndarray, part: int = 0, parts: int = 1) -> None:
    """Fault in the pages of ``table`` (part ``part`` of ``parts`` equal parts) in
    this process, so that its searches do not: one ``madvise`` call where Linux
    can populate pages, else a write of each page's first word (with the value it
    holds: call it before any search uses the table). Each process maps a shared
    table's pages for itself: every worker process prefaults the whole table,
    threads of one process a part each."""
    nbytes = table.nbytes
    start = (nbytes * part // parts) // PAGE * PAGE
    stop = nbytes if part == parts - 1 else (nbytes * (part + 1) // parts) // PAGE * PAGE
    if stop <= start:
        return
    base = table.ctypes.data
    if base % PAGE == 0 and _madvise(base + start, stop - start, MADV_POPULATE_WRITE):
        return
    words = table[start // 8:stop // 8]
    words[::PAGE // 8] |= np.uint64(0)   # (a write: the page becomes this process's, writable)


def _madvise(address: int, length: int, advice: int) -> bool:
    """``madvise(2)`` on this process's memory; False where it failed (an old kernel, another system)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.madvise(ctypes.c_void_p(address), ctypes.c_size_t(length), ctypes.c_int(advice)) == 0
    except (OSError, AttributeError):   # pragma: no cover - no libc
        return False


def memfd_table(token: str, bits: int) -> MemfdTable:
    """A new table of ``2**bits`` entries in a memfd named after ``token``:
    ``(fd, mapping, array)``; fd -1 (a private array) where memfd does not exist."""
    size = 8 << bits
    if not hasattr(os, "memfd_create"):
        return -1, None, np.zeros(1 << bits, dtype=np.uint64)
    fd = os.memfd_create(MEMFD_PREFIX + token, 0)
    os.ftruncate(fd, size)
    mem = mmap.mmap(fd, size)
    return fd, mem, np.frombuffer(mem, dtype=np.uint64)


def open_memfd_table(entry: tuple[int, int], token: str, bits: int) -> Optional[MemfdTable]:
    """Open the memfd table ``entry`` = ``(pid, fd)`` of another process of this
    machine, or None when it is not there (another host, the process is gone,
    not the table of ``token``, another size)."""
    pid, fd = entry
    path = f"/proc/{pid}/fd/{fd}"
    try:
        if not os.readlink(path).startswith("/memfd:" + MEMFD_PREFIX + token):
            return None
        own_fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        if os.fstat(own_fd).st_size != 8 << bits:
            os.close(own_fd)
            return None
        mem = mmap.mmap(own_fd, 8 << bits)
    except OSError:
        os.close(own_fd)
        return None
    return own_fd, mem, np.frombuffer(mem, dtype=np.uint64)


def close_memfd_table(table: MemfdTable) -> None:
    """Unmap and close a table of :func:`memfd_table` or :func:`open_memfd_table`
    (the memory is freed with the last process holding it)."""
    fd, mem, _ = table
    if mem is not None:
        try:
            mem.close()
        except BufferError:  # still referenced: freed with the last reference
            pass
    if fd >= 0:
        os.close(fd)


# ------------------------------------------------------------------ reading an entry from Python
def stored_move(ctx: np.ndarray, tt: np.ndarray, x_stones: int, o_stones: int) -> int:
    """The best move the exact engine's table ``tt`` holds for the position with
    the first player's stones ``x_stones`` and the second's ``o_stones``, under
    the salt and geometry of the kernel context ``ctx``, as a cell of the position
    (-1 when the table holds no entry or no move for it).

    A hint, never a proof: the key is the kernels' canonical key without the
    optional dead-stones rule, and the caller verifies the move by a search
    (:meth:`parallel_mnk.engines.exact.search.Search.best_cell`, which tries it first)."""
    from ..kernels.core import layout as L

    nsym = int(ctx[L.C_NSYM])
    zobrist = ctx[L.OFF_ZOBRIST:L.OFF_ZOBRIST + L.MAX_SYM * L.MAX_CELLS * 2].reshape(L.MAX_SYM, L.MAX_CELLS, 2)
    hashes = np.zeros(nsym, dtype=np.uint64)
    for player, stones in enumerate((int(x_stones), int(o_stones))):
        cells = [c for c in range(L.MAX_CELLS) if stones >> c & 1]
        if cells:
            hashes ^= np.bitwise_xor.reduce(zobrist[:nsym, cells, player], axis=1)
    sym = int(np.argmin(hashes))
    key = int(hashes[sym]) ^ int(ctx[L.C_SALT])
    tag = ((key >> L.TT_KEY_SHIFT) << (L.TT_KEY_SHIFT - L.TT_GEN_SHIFT)) | (int(ctx[L.C_SALT]) & 7)
    i = key & (len(tt) - 2)
    for entry in (int(tt[i]), int(tt[i + 1])):
        if entry >> L.TT_GEN_SHIFT == tag:
            move = ((entry >> L.TT_MOVE_SHIFT) & 127) - 1
            return -1 if move < 0 else int(ctx[L.OFF_INVPERM + sym * L.MAX_CELLS + move])
    return -1
