"""The process's backends: one process pool, one thread pool and one Ray backend at
most, each with its coordinator, made on first use, reused across solves (workers keep their
loaded kernels and the table its pages) and rebuilt when the worker count, the
table size, the cluster address or a runtime setting a pool keeps from its start
(:data:`~parallel_mnk.api.settings.POOL_SETTINGS`) changes.
"""
from __future__ import annotations

from typing import Optional

from ...api.options import BACKENDS
from ...api.settings import POOL_SETTINGS, current as settings_now
from ...game.rules import MnkError
from ..pools.backend import Backend
from ..pools.procpool import ProcessPool
from ..pools.ray_backend import RayBackend
from ..pools.threadpool import ThreadPool
from .coordinator import Coordinator

_coordinators: dict[str, Coordinator] = {}
_made_with: dict[str, tuple] = {}   # backend -> the pool settings it was made with


def get_coordinator(backend: str, workers: int, tt_bits: int, address: Optional[str] = None) -> Coordinator:
    """The coordinator of the process's ``backend`` (``"process"``, ``"thread"`` or ``"ray"``) with
    ``workers`` slots and a table of ``2**tt_bits`` entries; Ray is imported only
    for the Ray backend (``address``: a running cluster, default a local Ray)."""
    if backend not in BACKENDS:
        raise MnkError(f"unknown backend {backend!r} ({' or '.join(BACKENDS)})")
    current = _coordinators.get(backend)
    pool_settings = tuple(getattr(settings_now(), name) for name in POOL_SETTINGS)
    if current is not None:
        b = current.backend
        if b.closed or (b.n, b.tt_bits, getattr(b, "address", None)) != (workers, tt_bits, address) \
                or _made_with.get(backend) != pool_settings:
            b.close()
            del _coordinators[backend]
            current = None
    if current is None:
        made: Backend
        if backend == "process":
            made = ProcessPool(workers, tt_bits)
        elif backend == "thread":
            made = ThreadPool(workers, tt_bits)
        else:
            made = RayBackend(workers, tt_bits, address)
        current = _coordinators[backend] = Coordinator(made)
        _made_with[backend] = pool_settings
    return current


def get_pool(workers: int, tt_bits: int) -> ProcessPool:
    """The process's pool of ``workers`` (reused across solves, rebuilt on change)."""
    pool = get_coordinator("process", workers, tt_bits).backend
    assert isinstance(pool, ProcessPool)
    return pool


def shutdown_backends() -> None:
    """Stop the process's pool and Ray backend, if any."""
    for backend in list(_coordinators):
        _coordinators.pop(backend).backend.close()
