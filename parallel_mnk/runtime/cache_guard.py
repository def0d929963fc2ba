"""Keep numba's on-disk cache of the kernels in step with their source, folder by folder.

numba checks a cached function against *its own* file only. A kernel that calls
or inlines kernels of other files (every search inlines ``core``'s helpers) would
be loaded from the cache with the old code after only those other files changed:
after a ``git pull`` on an editable install, for instance. So each kernel folder
(a family, or ``core``) gets a fingerprint of its sources and of the sources of
every kernel folder it imports, directly or not; when it differs from the one
stored next to that folder's cache, the folder's cached kernels are removed
(numba compiles them again, once). An edit to ``grid/`` leaves the gravity
search cached; an edit to ``core/`` or to the kernel sheet of settings
(``parallel_mnk/settings/__init__.py``, whose values the kernels compile in or find
in every context) recompiles everything. The runtime settings
(``parallel_mnk/api/settings.py``) are no kernel's source: an edit there leaves every
stamp as it was.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import re
from pathlib import Path
from typing import Iterable

STAMP_NAME = "parallel_mnk-kernels.sha256"
SETTINGS_NAME = "settings/__init__.py"   # the kernel sheet (parallel_mnk/settings/): part of every family's sources


def kernel_folders(kernels_dir: Path) -> list[Path]:
    """The folders of kernel modules under ``kernels_dir``."""
    return sorted(p for p in kernels_dir.iterdir() if p.is_dir() and (p / "__init__.py").is_file())


# a line that starts a relative import from a sibling folder: ``from ..name`` or
# ``from ..name.module`` (also inside a function, or one quoted in a docstring: a
# folder named too many only makes a fingerprint cover more sources)
_SIBLING_IMPORT = re.compile(r"^[ \t]*from[ \t]+\.\.([A-Za-z_]\w*)", re.MULTILINE)


def imported_folders(folder: Path) -> set[str]:
    """Names of the sibling kernel folders the modules of ``folder`` import (relative
    imports ``from ..name`` or ``from ..name.module``), read off their text, not
    parsed: every process that loads kernels asks (parsing took about 0.3 s a process)."""
    return {name for path in folder.glob("*.py") for name in _SIBLING_IMPORT.findall(path.read_text())}


def closure(folder: Path) -> list[Path]:
    """``folder`` and every sibling kernel folder it imports, directly or not."""
    seen: dict[str, Path] = {}
    todo = [folder]
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        seen[f.name] = f
        todo += [f.parent / n for n in imported_folders(f) if (f.parent / n).is_dir()]
    return [seen[n] for n in sorted(seen)]


def source_fingerprint(folders: list[Path]) -> str:
    """SHA-256 over the names and contents of the ``*.py`` files of ``folders``, and of
    the package's kernel sheet of settings (``settings/__init__.py`` beside the kernel
    folders' parent, when there is one): the kernels compile its values in."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            digest.update(f"{folder.name}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    sheet = folders[0].parent.parent / SETTINGS_NAME if folders else None
    if sheet is not None and sheet.is_file():
        digest.update(SETTINGS_NAME.encode() + b"\0" + sheet.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_dir(folder: Path, package: str) -> Path | None:
    """Where numba caches the jitted functions of the modules of ``folder`` (the
    package ``package``): numba's own choice (its cache locators) for a function
    of that folder, without importing its modules; if numba's internals moved,
    read off a function of one of them. None when it holds none."""
    try:
        from numba.core.caching import CompileResultCacheImpl

        def located() -> None:   # pragma: no cover - never called, only located
            pass

        located.__code__ = located.__code__.replace(co_filename=str(folder / "__init__.py"))
        located.__module__ = package
        return Path(CompileResultCacheImpl(located).locator.get_cache_path())
    except Exception:   # pragma: no cover - numba's internals moved
        pass
    for path in sorted(folder.glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"{package}.{path.stem}")
        for obj in vars(module).values():
            where = getattr(getattr(obj, "_cache", None), "_cache_path", None)
            if where is not None and getattr(obj, "__module__", None) == module.__name__:
                return Path(where)
    return None


def drop_stale_caches(kernels_dir: Path, package: str = "parallel_mnk.kernels",
                      only: Iterable[str] | None = None) -> list[Path]:
    """Remove the cached kernels of each folder of ``kernels_dir`` (or of those named
    in ``only``) whose sources, or those of a folder it imports, changed since they
    were cached (module docstring); returns the files removed. Never fails: a
    cache that cannot be read or written is left to numba."""
    removed = []
    for folder in kernel_folders(kernels_dir):
        if only is not None and folder.name not in only:
            continue
        directory = cache_dir(folder, f"{package}.{folder.name}")
        if directory is None:
            continue
        fingerprint = source_fingerprint(closure(folder))
        stamp = directory / STAMP_NAME
        try:
            if stamp.read_text() == fingerprint:
                continue
        except OSError:
            pass
        stems = {p.stem for p in folder.glob("*.py")}
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
