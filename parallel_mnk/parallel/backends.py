"""The process's backends: one process pool and one Ray backend at most, each with
its coordinator, made on first use, reused across solves (workers keep their
loaded kernels and the table its pages) and rebuilt when the worker count, the
table size or the cluster address changes.
"""
from __future__ import annotations

import os
from typing import Optional

from ..options import BACKENDS
from ..rules import MnkError
from .coordinator import Coordinator
from .procpool import ProcessPool
from .ray_backend import RayBackend
from .readypool import ReadyPool

# whether workers of the process pool take their tasks from a ready list in shared
# memory (ReadyPool) rather than from the coordinator down a pipe (ProcessPool);
# PARALLEL_MNK_READY_LIST=0/1 chooses when the pool is made. Off: on 2 cores it did
# not pay (a fifth of the task starts chained at ~20 us instead of ~80 us, but the
# workers' busy share stayed 84-85 % and Test_L1_R2 took +3 % nodes, queued tasks
# being claimed before the result that made them useless was recorded)
READY_LIST = False

_coordinators: dict[str, Coordinator] = {}


def get_coordinator(backend: str, workers: int, tt_bits: int, address: Optional[str] = None) -> Coordinator:
    """The coordinator of the process's ``backend`` (``"process"`` or ``"ray"``) with
    ``workers`` slots and a table of ``2**tt_bits`` entries; Ray is imported only
    for the Ray backend (``address``: a running cluster, default a local Ray)."""
    if backend not in BACKENDS:
        raise MnkError(f"unknown backend {backend!r} ({' or '.join(BACKENDS)})")
    current = _coordinators.get(backend)
    if current is not None:
        b = current.backend
        kind_changed = backend == "process" and isinstance(b, ReadyPool) != ready_list_wanted()
        if b.closed or kind_changed or (b.n, b.tt_bits, getattr(b, "address", None)) != (workers, tt_bits, address):
            b.close()
            del _coordinators[backend]
            current = None
    if current is None:
        made = _process_pool(workers, tt_bits) if backend == "process" else RayBackend(workers, tt_bits, address)
        current = _coordinators[backend] = Coordinator(made)
    return current


def ready_list_wanted() -> bool:
    """Whether a new process pool gets a ready list (``READY_LIST``, or the
    environment's ``PARALLEL_MNK_READY_LIST``)."""
    env = os.environ.get("PARALLEL_MNK_READY_LIST", "")
    return READY_LIST if env == "" else env not in ("0", "no", "false")


def _process_pool(workers: int, tt_bits: int) -> ProcessPool:
    return ReadyPool(workers, tt_bits) if ready_list_wanted() else ProcessPool(workers, tt_bits)


def get_pool(workers: int, tt_bits: int) -> ProcessPool:
    """The process's pool of ``workers`` (reused across solves, rebuilt on change)."""
    pool = get_coordinator("process", workers, tt_bits).backend
    assert isinstance(pool, ProcessPool)
    return pool


def shutdown_backends() -> None:
    """Stop the process's pool and Ray backend, if any."""
    for backend in list(_coordinators):
        _coordinators.pop(backend).backend.close()
