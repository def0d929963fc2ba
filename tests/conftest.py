"""Fixtures of every test module.

* ``warm_kernels`` (session, autouse): load (or compile) every family of numba
  kernels once, before the first test, so that no test's time includes it; the
  test run's processes (pytest-xdist's workers, ``-n auto`` in pyproject.toml) take
  turns, so that the first compiles into numba's cache and the others load it;
* ``stop_pools`` (module, autouse): stop the process's worker pool (and Ray
  backend) at the end of each module, so that no module leaves processes to
  the next (the package keeps one pool per worker count and table size between
  solves);
* ``use_settings``: ``use_settings(NAME=value, ...)`` puts runtime settings in force
  in the test's process until the test ends (or the next call), as a solve's
  ``Options(settings=...)`` would for the solve.

Tests marked ``minutes`` (a few slow ones of minutes each) are collected first, so
that on several processes the longest start at once and the short ones fill in after.

``-n auto`` (pyproject.toml) starts one test process more than the cores this
process may run on (:func:`pytest_xdist_auto_num_workers`): a test spends part of
its time waiting (on the CLIs it starts, a pool's pipes, a server, a time limit),
and the extra process fills those waits.

A test run started as a background job of a shell (``nohup pytest &``) inherits
SIGINT *ignored*, and so would every CLI it starts: its Ctrl-C tests would see
an interrupt do nothing. The handler is put back here, so the CLIs the tests
start get SIGINT as a terminal gives it.

Shared helpers are in checks.py, the reference solver in naive.py.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import tempfile
from pathlib import Path

import pytest

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config) -> int:
    """The processes ``-n auto`` starts: the cores this process may run on (the machine's
    where the system cannot say: macOS), plus one."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``minutes`` first, the others in their order (a stable sort): every
    process of the run collects the same order, and pytest-xdist hands them out in it."""
    items.sort(key=lambda item: item.get_closest_marker("minutes") is None)


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Load every family of kernels once per session, compiling what numba's
    cache lacks in parallel processes (:func:`parallel_mnk.runtime.families.load_all`)."""
    import parallel_mnk
    from parallel_mnk.runtime import families

    where = f"{Path(parallel_mnk.__file__).resolve().parent}|{os.environ.get('NUMBA_CACHE_DIR', '')}"
    lock = Path(tempfile.gettempdir()) / f"parallel-mnk-warm-up-{hashlib.sha1(where.encode()).hexdigest()[:12]}.lock"
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)   # (released when the file closes)
        families.load_all()


@pytest.fixture
def use_settings():
    """A function that puts the defaults with ``NAME=value`` changes in force in this
    process for the rest of the test (:func:`parallel_mnk.api.settings.applied`)."""
    from parallel_mnk.api.settings import DEFAULTS, applied

    with contextlib.ExitStack() as stack:
        def change(**changes):
            stack.close()
            return stack.enter_context(applied(DEFAULTS.replace(**changes)))
        yield change


@pytest.fixture(scope="module", autouse=True)
def stop_pools():
    """Shut the worker pools down at the end of the module (nothing when none runs)."""
    yield
    from parallel_mnk.parallel.scheduling.registry import shutdown_backends

    shutdown_backends()
