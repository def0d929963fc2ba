"""A worker process of the process pool: receive a task, run it, send its result.

Workers are forked by :class:`~.procpool.ProcessPool` after the kernels are
loaded, so a worker's first task compiles nothing; they share the table and the
control words with the coordinator (anonymous shared mappings made before the
fork) and never outlive it. Each task comes with the runtime settings of the
solve that sent it (:func:`parallel_mnk.api.settings.to_carry`), which are in force
while it runs.
"""
from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

import numpy as np

from ...kernels.core import layout as L
from ...runtime.ttable import prefault
from ..task import WorkerEnv
from ...api.settings import DEFAULTS, applied, current, forget_after_fork



def die_with_parent(parent_pid: int, use_pdeathsig: bool, poll_s: float = 0.5) -> None:
    """Make sure this worker never outlives the coordinator.

    PR_SET_PDEATHSIG (Linux) kills at once, but it fires when the *thread* that
    forked us exits, so it is only asked for when the main thread forked. A
    watchdog thread checks the parent every ``poll_s`` seconds (the setting
    ``PARENT_POLL_S``) in every case (the kernels release the GIL, so it runs
    during a search too).
    """
    if use_pdeathsig:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - not Linux
            pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def worker_main(index: int, conn, tt_mem, ctl_mem, slot: int, parent_pid: int, use_pdeathsig: bool) -> None:
    """The worker loop: first the table's pages are mapped in this process and
    ``"ready"`` is sent; then each message is a task (anything with ``run(env)``,
    see :mod:`..task`) answered by its result on the same pipe; None or a closed
    pipe ends it. Ctrl-C is the coordinator's to handle (ignored here); SIGTERM
    ends the worker (the default action, not the handler the CLI's process set)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent_pid, use_pdeathsig, current().PARENT_POLL_S)   # (the pool's, inherited)
    forget_after_fork()
    env = WorkerEnv(index, np.frombuffer(tt_mem, dtype=np.uint64), np.frombuffer(ctl_mem, dtype=np.int64), slot)
    prefault(env.tt)
    try:
        conn.send("ready")
    except (OSError, BrokenPipeError):
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        settings, task = message
        with applied(DEFAULTS if settings is None else settings):
            result = task.run(env)
        env.ctl[slot + L.CTL_PATH:slot + L.CTL_PATH + L.PATH_DEPTH] = 0   # (a line shows a search under way)
        conn.send(result)
