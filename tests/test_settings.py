"""The sheet of settings (``parallel_mnk/settings/``): the one home of the tunables.
Every setting has its line of reason; no module defines a tunable of its own with a
setting's value under that name (each reads the sheet's); the kernels' cache is
stamped with the sheet, so an edited setting is compiled in again."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from parallel_mnk import settings
from parallel_mnk.runtime import cache_guard

SHEET = Path(settings.__file__)
PACKAGE = SHEET.parent.parent


def names() -> list[str]:
    return [n for n in vars(settings) if n.isupper()]


def test_every_setting_says_why():
    for line in SHEET.read_text().splitlines():
        if re.match(r"^[A-Z][A-Z0-9_]* = ", line):
            assert "#" in line and len(line.split("#", 1)[1].strip()) > 10, line


def test_no_module_redefines_a_setting():
    """A module-level assignment of a number to a setting's name (or to an alias the
    module imports it as) outside the sheet would be a second home."""
    sheet_names = set(names())
    for path in PACKAGE.rglob("*.py"):
        if path == SHEET:
            continue
        tree = ast.parse(path.read_text())
        aliases = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                   and (node.module or "").endswith("settings") for a in node.names}
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.BinOp)):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assert target.id not in sheet_names or target.id in aliases, f"{path}: {target.id}"


def test_the_modules_read_the_sheets_values():
    from parallel_mnk.engines.exact import big
    from parallel_mnk.parallel.scheduling import coordinator, driver
    assert coordinator.SPLIT_MIN_EMPTY is settings.SPLIT_MIN_EMPTY and driver.MIN_TASKS is settings.MIN_TASKS
    assert big.THREES is settings.BIG_THREES


def test_the_kernel_cache_stamp_counts_the_sheet(tmp_path):
    kernels = tmp_path / "pkg" / "kernels"
    (kernels / "fam").mkdir(parents=True)
    (kernels / "fam" / "__init__.py").write_text("")
    (kernels / "fam" / "k.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "settings").mkdir()
    sheet = tmp_path / "pkg" / "settings" / "__init__.py"
    sheet.write_text("POLL_MASK = 1023   # the kernels read the abort word this often\n")
    first = cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam"))
    sheet.write_text("POLL_MASK = 511   # the kernels read the abort word this often\n")
    assert cache_guard.source_fingerprint(cache_guard.closure(kernels / "fam")) != first
