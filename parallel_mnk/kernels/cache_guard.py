"""Keep numba's on-disk cache of the kernels in step with their source.

numba checks a cached function against the time stamp and size of *its own*
file only. A kernel that calls or inlines kernels of other files (``run_task``
in ``root.py`` inlines ``negamax.py``'s code) is loaded from the cache with the
old code after only those other files changed: after a ``git pull`` on an
editable install, for instance. So one fingerprint covers the source of every
kernel module, and when it differs from the one stored next to the cache, our
cached kernels are removed (numba then compiles them again, once).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from types import ModuleType

STAMP_NAME = "parallel_mnk-kernels.sha256"


def source_fingerprint(directory: Path) -> str:
    """SHA-256 over the names and contents of the ``*.py`` files of ``directory``."""
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_dirs(modules: list[ModuleType]) -> set[Path]:
    """The directories numba caches the jitted functions of ``modules`` in."""
    dirs = set()
    for module in modules:
        for obj in vars(module).values():
            path = getattr(getattr(obj, "_cache", None), "_cache_path", None)
            if path is not None and getattr(obj, "__module__", None) == module.__name__:
                dirs.add(Path(path))
    return dirs


def drop_stale_cache(modules: list[ModuleType]) -> list[Path]:
    """Remove the cached kernels of ``modules`` if their sources changed since they
    were cached (see the module docstring); returns the files removed. Never
    fails: a cache that cannot be read or written is left to numba."""
    stems = {Path(str(m.__file__)).stem for m in modules}
    fingerprint = source_fingerprint(Path(str(modules[0].__file__)).parent)
    removed = []
    for directory in cache_dirs(modules):
        stamp = directory / STAMP_NAME
        try:
            if stamp.read_text() == fingerprint:
                continue
        except OSError:
            pass
        try:
            if directory.is_dir():
                for path in directory.iterdir():
                    if path.suffix in (".nbi", ".nbc") and path.name.split(".", 1)[0] in stems:
                        path.unlink(missing_ok=True)
                        removed.append(path)
            directory.mkdir(parents=True, exist_ok=True)
            tmp = directory / f"{STAMP_NAME}.{os.getpid()}"
            tmp.write_text(fingerprint)
            os.replace(tmp, stamp)
        except OSError:
            continue
    return removed
