"""parallel_mnk.kernels.cache_guard: numba's cache of the kernels is dropped when
any kernel source changes (numba itself only checks each function's own file)."""
from __future__ import annotations

import types
from pathlib import Path

from parallel_mnk import kernels
from parallel_mnk.kernels import cache_guard, negamax, root


class FakeCache:
    def __init__(self, path: Path) -> None:
        self._cache_path = str(path)


def fake_kernel_package(tmp_path: Path):
    """Two kernel modules ``a.py``/``b.py`` with one cached function each, and their
    cache directory holding their files and a stranger's."""
    src = tmp_path / "kernels"
    src.mkdir()
    cache = src / "__pycache__"
    cache.mkdir()
    modules = []
    for stem in ("a", "b"):
        (src / f"{stem}.py").write_text(f"# kernel {stem}\n")
        module = types.ModuleType(f"pkg.{stem}")
        module.__file__ = str(src / f"{stem}.py")
        func = type("Dispatcher", (), {})()
        func._cache = FakeCache(cache)
        func.__module__ = module.__name__
        module.f = func
        modules.append(module)
    return src, cache, modules


def cached_files(cache: Path) -> set[str]:
    return {p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")}


def test_fingerprint_follows_every_source_file(tmp_path):
    src, _, _ = fake_kernel_package(tmp_path)
    first = cache_guard.source_fingerprint(src)
    assert cache_guard.source_fingerprint(src) == first
    (src / "b.py").write_text("# kernel b, edited\n")
    assert cache_guard.source_fingerprint(src) != first


def test_stale_cache_is_dropped_and_only_ours(tmp_path):
    src, cache, modules = fake_kernel_package(tmp_path)
    ours = {"a.f-10.py311.nbi", "a.f-10.py311.1.nbc", "b.f-3.py311.nbi"}
    theirs = {"other.g-1.py311.nbi", "notes.txt"}
    for name in ours | theirs:
        (cache / name).write_text("x")
    assert cache_guard.cache_dirs(modules) == {cache}

    # no stamp yet: whatever is cached may be stale
    removed = cache_guard.drop_stale_cache(modules)
    assert {p.name for p in removed} == ours
    assert cached_files(cache) == {"other.g-1.py311.nbi"}
    assert (cache / "notes.txt").exists()
    assert (cache / cache_guard.STAMP_NAME).read_text() == cache_guard.source_fingerprint(src)

    # numba caches the kernels again; nothing changed: they stay
    for name in ours:
        (cache / name).write_text("x")
    assert cache_guard.drop_stale_cache(modules) == []
    assert ours <= cached_files(cache)

    # one file changes (the other's cache would keep inlined old code): all of ours go
    (src / "a.py").write_text("# kernel a, edited\n")
    assert {p.name for p in cache_guard.drop_stale_cache(modules)} == ours


def test_missing_cache_directory_is_created_with_its_stamp(tmp_path):
    src, cache, modules = fake_kernel_package(tmp_path)
    cache.rmdir()
    assert cache_guard.drop_stale_cache(modules) == []
    assert (cache / cache_guard.STAMP_NAME).read_text() == cache_guard.source_fingerprint(src)


def test_the_package_stamps_its_real_cache():
    """Importing the kernels checked their cache: its stamp is the current fingerprint."""
    dirs = cache_guard.cache_dirs([negamax, root])
    assert dirs, "the kernels are cached by numba (cache=True)"
    fingerprint = cache_guard.source_fingerprint(Path(kernels.__file__).parent)
    for directory in dirs:
        assert (directory / cache_guard.STAMP_NAME).read_text() == fingerprint
