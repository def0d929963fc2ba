"""The control words a coordinator shares with its searchers (``ctl``, int64).

Layout (:mod:`parallel_mnk.kernels.core.layout`): the abort word, the ABDADA busy
marks' base and mask, then two words per searcher (index 0 the coordinator,
1..n the workers): the id of a task to abandon and the task's live window
(``pack_window``), then the busy marks. The kernels read every word with an
atomic load, so a write here reaches a running search within its next poll
(the window: before its next move at the task root; the abort: within 1024 nodes).

A pool's words are an anonymous shared mapping made before the workers fork; a
Ray worker keeps a private array its watcher thread writes into.
"""
from __future__ import annotations

import mmap

import numpy as np

from ..kernels.core import layout as L

BUSY_MARKS = 1 << 12   # ABDADA marks: room for every node the workers are inside at once


def slot_of(index: int) -> int:
    """Index in ``ctl`` of searcher ``index``'s control words (0: the coordinator)."""
    return L.CTL_WORKERS + L.CTL_PER_WORKER * index


def shared_control(workers: int) -> tuple[mmap.mmap, np.ndarray]:
    """Zeroed control words for a coordinator and ``workers`` searchers with busy
    marks, in an anonymous shared mapping (processes forked afterwards share it)."""
    busy_base = slot_of(workers + 1)
    mem = mmap.mmap(-1, 8 * (busy_base + BUSY_MARKS))
    ctl = np.frombuffer(mem, dtype=np.int64)
    ctl[L.CTL_BUSY_BASE], ctl[L.CTL_BUSY_MASK] = busy_base, BUSY_MARKS - 1
    return mem, ctl


def start_task(ctl: np.ndarray, slot: int, task_id: int, alpha: int, beta: int) -> None:
    """Set the words of ``slot`` for a task about to start there: not abandoned,
    live window ``(alpha, beta)``."""
    ctl[slot + L.CTL_TASK_ABORT] = 0
    ctl[slot + L.CTL_LIVE_WINDOW] = L.pack_window(task_id, alpha, beta)


def set_window(ctl: np.ndarray, slot: int, task_id: int, alpha: int, beta: int) -> None:
    """Narrow the live window of task ``task_id`` running at ``slot``."""
    ctl[slot + L.CTL_LIVE_WINDOW] = L.pack_window(task_id, alpha, beta)


def abandon(ctl: np.ndarray, slot: int, task_id: int) -> None:
    """Ask the search of task ``task_id`` at ``slot`` to stop (its result is not needed)."""
    ctl[slot + L.CTL_TASK_ABORT] = task_id


def stop_all(ctl: np.ndarray) -> None:
    """Ask every search on ``ctl`` to stop."""
    ctl[L.CTL_ABORT] = 1


def clear_stop(ctl: np.ndarray) -> None:
    """Let searches on ``ctl`` run again after :func:`stop_all`."""
    ctl[L.CTL_ABORT] = 0
