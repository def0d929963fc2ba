"""What the engines need to run the kernels: loading them (:mod:`.families`, the
one home of kernel loading; :mod:`.boards`, per-board builds; :mod:`.cache_guard`,
numba's cache checked against the sources), their transposition tables
(:mod:`.ttable`) and running them so that a time limit or Ctrl-C stops them
(:mod:`.running`)."""

from typing import Any


def __getattr__(name: str) -> Any:
    """The old module ``parallel_mnk.runtime``'s names (now :mod:`.running`), with a
    DeprecationWarning."""
    import importlib
    import warnings

    running = importlib.import_module(f"{__name__}.running")
    if name.startswith("_") or not hasattr(running, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} is now {__name__}.running.{name}: the old path will be removed",
                  DeprecationWarning, stacklevel=2)
    return getattr(running, name)
