"""parallel_mnk.runtime.cache_guard: numba's cache of a kernel folder is dropped when
a source of that folder, or of a folder it imports, changes (numba itself only
checks each function's own file); the caches of other folders stay."""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest
from numba.core import config as numba_config

from parallel_mnk.runtime import families
from parallel_mnk.runtime import cache_guard

KERNEL = "from numba import njit\n{imports}\n\n@njit(cache=True)\ndef f(x):\n    return x + {n}\n"


@pytest.fixture
def fake_kernels(tmp_path, monkeypatch):
    """A package ``fakepkg.kernels`` with folders ``core`` (module ``a``), ``fam``
    (module ``b``, importing ``core``) and ``other`` (module ``c``), each with one
    cached numba function; yields the kernels directory and each folder's cache."""
    kernels = tmp_path / "fakepkg" / "kernels"
    sources = {"core": ("a", ""), "fam": ("b", "from ..core.a import f as g"), "other": ("c", "")}
    for i, (folder, (stem, imports)) in enumerate(sources.items()):
        (kernels / folder).mkdir(parents=True)
        (kernels / folder / "__init__.py").write_text("")
        (kernels / folder / f"{stem}.py").write_text(KERNEL.format(imports=imports, n=i))
    (kernels.parent / "__init__.py").write_text("")
    (kernels / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(tmp_path / "numba-cache"))   # not the real one's
    caches = {f: cache_guard.cache_dir(kernels / f, f"fakepkg.kernels.{f}") for f in sources}
    yield kernels, caches
    for name in [m for m in sys.modules if m.startswith("fakepkg")]:
        del sys.modules[name]


def plant(caches: dict[str, Path]) -> dict[str, set[str]]:
    """Put cache files of each folder's module (and a stranger's) in its cache directory."""
    stems = {"core": "a", "fam": "b", "other": "c"}
    planted = {}
    for folder, directory in caches.items():
        directory.mkdir(parents=True, exist_ok=True)
        ours = {f"{stems[folder]}.f-4.py311.nbi", f"{stems[folder]}.f-4.py311.1.nbc"}
        for name in ours | {"stranger.g-1.py311.nbi", "notes.txt"}:
            (directory / name).write_text("x")
        planted[folder] = ours
    return planted


def removed_by_folder(removed: list[Path], caches: dict[str, Path]) -> dict[str, set[str]]:
    return {f: {p.name for p in removed if p.parent == d} for f, d in caches.items()}


def test_closure_follows_the_imports_between_folders(fake_kernels):
    kernels, _ = fake_kernels
    assert [p.name for p in cache_guard.kernel_folders(kernels)] == ["core", "fam", "other"]
    assert [p.name for p in cache_guard.closure(kernels / "fam")] == ["core", "fam"]
    assert [p.name for p in cache_guard.closure(kernels / "core")] == ["core"]
    assert [p.name for p in cache_guard.closure(kernels / "other")] == ["other"]


def parsed_imports(folder: Path) -> set[str]:
    """The reference: the sibling folders the parsed modules of ``folder`` import."""
    found = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_imports_read_off_the_text_are_those_the_parser_finds(tmp_path):
    """Every kernel folder: the same sibling folders as parsing finds (or more, never
    fewer); and the forms a reader could miss: inside a function, parenthesised over
    lines, a submodule, beside other levels of relative import."""
    for folder in cache_guard.kernel_folders(families.KERNELS_DIR):
        assert cache_guard.imported_folders(folder) == parsed_imports(folder), folder.name
    (tmp_path / "m.py").write_text(
        "from . import x\nfrom .. import skipped\nfrom ...far import y\nimport os\n"
        "def f():\n    from ..inner.deep import (\n        a,\n        b)\nif x:\n\tfrom  ..tabbed import c\n"
        "from ..top import d\n")
    assert cache_guard.imported_folders(tmp_path) == parsed_imports(tmp_path) == {"inner", "tabbed", "top"}


def test_fingerprint_follows_every_source_file_of_the_closure(fake_kernels):
    kernels, _ = fake_kernels
    first = cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam"))
    assert cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam")) == first
    (kernels / "core" / "a.py").write_text("# edited\n")
    assert cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam")) != first


def test_only_the_caches_an_edit_can_reach_are_dropped(fake_kernels):
    kernels, caches = fake_kernels
    planted = plant(caches)
    # no stamps yet: whatever is cached may be stale; strangers' files stay
    removed = removed_by_folder(cache_guard.drop_stale_caches(kernels, "fakepkg.kernels"), caches)
    assert removed == planted
    for folder, directory in caches.items():
        assert (directory / "stranger.g-1.py311.nbi").exists() and (directory / "notes.txt").exists()
        fingerprint = cache_guard.source_fingerprint(cache_guard.closure(kernels / folder))
        assert (directory / cache_guard.STAMP_NAME).read_text() == fingerprint

    # numba caches them again; nothing changed: they stay
    plant(caches)
    assert cache_guard.drop_stale_caches(kernels, "fakepkg.kernels") == []

    # an edit of a folder nobody imports drops that folder's cache only
    (kernels / "other" / "c.py").write_text(KERNEL.format(imports="", n=7))
    removed = removed_by_folder(cache_guard.drop_stale_caches(kernels, "fakepkg.kernels"), caches)
    assert removed == {"core": set(), "fam": set(), "other": planted["other"]}

    # an edit of core reaches the folder that imports it (whose cache holds core's code inlined)
    plant(caches)
    (kernels / "core" / "a.py").write_text(KERNEL.format(imports="", n=9))
    removed = removed_by_folder(cache_guard.drop_stale_caches(kernels, "fakepkg.kernels"), caches)
    assert removed == {"core": planted["core"], "fam": planted["fam"], "other": set()}


def test_a_missing_cache_directory_is_created_with_its_stamp(fake_kernels):
    kernels, caches = fake_kernels
    assert not caches["fam"].exists() or not any(caches["fam"].iterdir())
    assert cache_guard.drop_stale_caches(kernels, "fakepkg.kernels") == []
    fingerprint = cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam"))
    assert (caches["fam"] / cache_guard.STAMP_NAME).read_text() == fingerprint


def test_the_package_stamps_its_real_caches():
    """Loading the kernels checked their caches: each folder's stamp is the
    fingerprint of its sources and of those it imports."""
    families.load_all()
    for folder in cache_guard.kernel_folders(families.KERNELS_DIR):
        directory = cache_guard.cache_dir(folder, f"parallel_mnk.kernels.{folder.name}")
        if directory is None:
            continue
        importlib.import_module(f"parallel_mnk.kernels.{folder.name}")
        fingerprint = cache_guard.source_fingerprint(cache_guard.closure(folder))
        assert (directory / cache_guard.STAMP_NAME).read_text() == fingerprint, folder.name
