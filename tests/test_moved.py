"""The module paths from before the layer folders (parallel_mnk/moved.py): each old
path imports the new module itself, with a DeprecationWarning naming the new path."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from parallel_mnk.moved import MOVED

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module_with_a_warning(old):
    new = importlib.import_module(f"parallel_mnk.{MOVED[old]}")
    assert not (ROOT / "parallel_mnk" / (old.replace(".", "/") + ".py")).exists(), "an old path names a module of today"
    code = (f"import warnings, parallel_mnk\n"
            f"with warnings.catch_warnings(record=True) as seen:\n"
            f"    warnings.simplefilter('always')\n"
            f"    import parallel_mnk.{old}\n"
            f"print([str(w.message) for w in seen if w.category is DeprecationWarning])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f"parallel_mnk.{old} is now {new.__name__}" in out.stdout
    with pytest.warns(DeprecationWarning):
        sys.modules.pop(f"parallel_mnk.{old}", None)
        assert importlib.import_module(f"parallel_mnk.{old}") is new
    assert new.__spec__.name == new.__name__   # the real module's spec is untouched


def test_patching_through_an_old_path_patches_the_real_module(monkeypatch):
    monkeypatch.delitem(sys.modules, "parallel_mnk.parallel.coordinator", raising=False)
    with pytest.warns(DeprecationWarning):
        import parallel_mnk.parallel.coordinator  # noqa: F401  (an old path; warns once)
    monkeypatch.setattr("parallel_mnk.parallel.coordinator.SPLIT_AFTER_S", 1.5)
    from parallel_mnk.parallel.scheduling import coordinator
    assert coordinator.SPLIT_AFTER_S == 1.5


def test_the_old_runtime_names_are_found_in_running():
    from parallel_mnk import runtime
    from parallel_mnk.runtime import running
    with pytest.warns(DeprecationWarning, match="running.peak_rss"):
        assert runtime.peak_rss is running.peak_rss
    with pytest.raises(AttributeError):
        runtime.no_such_name
