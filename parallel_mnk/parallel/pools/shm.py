"""The control words a coordinator shares with its searchers (``ctl``, int64).

Layout (:mod:`parallel_mnk.kernels.core.layout`): the abort word, the ABDADA busy
marks' base and mask, then four cache lines per searcher (index 0 the coordinator,
1..n the workers): the id of a task to abandon and the task's live window
(``pack_window``), written here; the path words, written by the searcher (the
move it is inside at each of the first plies below its task's root); then the
busy marks, a cache line each. The kernels read the words written here with an
atomic load, so a write reaches a running search within its next poll (the
window: before its next move at the task root; the abort: within 1024 nodes).

A pool's words are an anonymous shared mapping made before the workers fork; a
Ray worker keeps a private array its watcher thread writes into.
"""
from __future__ import annotations

import mmap

import numpy as np

from ...api.settings import current
from ...kernels.core import layout as L


def slot_of(index: int) -> int:
    """Index in ``ctl`` of searcher ``index``'s control words (0: the coordinator)."""
    return L.CTL_WORKERS + L.CTL_PER_WORKER * index


def shared_control(workers: int) -> tuple[mmap.mmap, np.ndarray]:
    """Zeroed control words for a coordinator and ``workers`` searchers with busy
    marks (the setting ``BUSY_MARKS``), in an anonymous shared mapping (processes
    forked afterwards share it)."""
    marks = current().BUSY_MARKS
    busy_base = slot_of(workers + 1)
    mem = mmap.mmap(-1, 8 * (busy_base + marks * L.BUSY_MARK_STRIDE))
    ctl = np.frombuffer(mem, dtype=np.int64)
    ctl[L.CTL_BUSY_BASE], ctl[L.CTL_BUSY_MASK] = busy_base, marks - 1
    return mem, ctl


def start_task(ctl: np.ndarray, slot: int, task_id: int, alpha: int, beta: int) -> None:
    """Set the words of ``slot`` for a task about to start there: not abandoned,
    live window ``(alpha, beta)``, no line published yet."""
    ctl[slot + L.CTL_TASK_ABORT] = 0
    ctl[slot + L.CTL_LIVE_WINDOW] = L.pack_window(task_id, alpha, beta)
    ctl[slot + L.CTL_PATH:slot + L.CTL_PATH + L.PATH_DEPTH] = 0


def path_of(ctl: np.ndarray, slot: int, task_id: int, root_ply: int) -> dict[int, tuple[int, int, int]]:
    """The line task ``task_id`` (rooted at a node of ``root_ply`` stones) searches
    at ``slot`` now, as published by its search: per ply of a node on it, ``(cell,
    child_ply, done)``: the move it is inside there, the ply of the node that move
    (with its forced line) reached, and how many of the node's moves were finished
    before. Words of another task, or that do not chain, are left out; a snapshot of
    a line that moves on."""
    words = [int(w) for w in ctl[slot + L.CTL_PATH:slot + L.CTL_PATH + L.PATH_DEPTH]]
    line: dict[int, tuple[int, int, int]] = {}
    expect = None
    for depth, word in enumerate(words):
        task, done, ply, child_ply, cell = L.unpack_step(word)
        if word == 0 or task != task_id or ply != root_ply + depth:
            continue
        if expect is not None and ply != expect:
            break   # (not the node the step above leads to: a torn read)
        line[ply] = (cell, child_ply, done)
        expect = child_ply
    return line


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
