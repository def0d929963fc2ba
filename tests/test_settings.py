"""The two sheets of settings: the kernel sheet (``parallel_mnk/settings/``: what the
kernels see as constants, each with its range, checked at import; the only settings
the kernels' cache fingerprints) and the runtime sheet (``parallel_mnk/api/settings.py``:
:class:`Settings`, which a solve may change). Every setting has its line of reason
and one home; a range refuses the values that would overrun where the value lives;
a runtime setting changed for a solve reaches the solve, on its workers too, and
``--json`` and ``--version`` show them."""
from __future__ import annotations

import ast
import dataclasses
import json
import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest

from parallel_mnk import GameSpec, MnkError, Options, Position, Settings, Value, solve
from parallel_mnk import settings as kernel_sheet
from parallel_mnk.api import settings as runtime_sheet
from parallel_mnk.api.settings import DEFAULTS, NAMES, applied, current
from parallel_mnk.frontends.cli import main
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.kernels.proofs.layout import VCF_MAX_MOVES
from parallel_mnk.runtime import cache_guard

PACKAGE = Path(kernel_sheet.__file__).resolve().parent.parent
KERNEL_SHEET = Path(kernel_sheet.__file__).resolve()
RUNTIME_SHEET = Path(runtime_sheet.__file__).resolve()


def kernel_values() -> dict:
    return {n: v for n, v in vars(kernel_sheet).items() if n in kernel_sheet.RANGES}


def imported_names(path: Path, module_suffix: str) -> set[str]:
    """The names ``path`` imports from a module whose dotted name ends with ``module_suffix``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(module_suffix):
            names |= {a.name for a in node.names}
    return names


# ---------------------------------------------------------------- one home, a reason each
def test_every_setting_says_why():
    for line in KERNEL_SHEET.read_text().splitlines():
        if re.match(r"^[A-Z][A-Z0-9_]* = ", line):
            assert "#" in line and len(line.split("#", 1)[1].strip()) > 10, line
    fields = [line for line in RUNTIME_SHEET.read_text().splitlines() if re.match(r"^    [A-Z][A-Z0-9_]*: ", line)]
    assert len(fields) == len(NAMES)
    for line in fields:
        assert "= setting(" in line and "#" in line and len(line.split("#", 1)[1].strip()) > 10, line


def test_the_kernel_sheet_holds_what_the_kernels_read_and_nothing_else():
    """Every name any module imports from the kernel sheet is a kernel constant; only
    the kernels and the context builder (game/geometry.py) import it; together they
    read every constant of it (none is dead)."""
    read = set()
    for path in PACKAGE.rglob("*.py"):
        names = imported_names(path, "settings") - {"Settings", "current", "DEFAULTS", "applied", "TABLE_BITS",
                                                     "POOL_SETTINGS", "to_carry", "SECONDS", "forget_after_fork"}
        if not names:
            continue
        relative = path.relative_to(PACKAGE).as_posix()
        assert relative.startswith("kernels/") or relative == "game/geometry.py", relative
        assert names <= set(kernel_sheet.RANGES), (relative, names)
        read |= names
    assert read == set(kernel_sheet.RANGES)
    assert not set(kernel_sheet.RANGES) & set(NAMES), "a setting in both sheets"


def test_no_module_redefines_a_setting():
    """A module-level assignment of a number to a setting's name outside the sheets
    would be a second home."""
    sheet_names = set(kernel_sheet.RANGES) | set(NAMES)
    for path in PACKAGE.rglob("*.py"):
        if path in (KERNEL_SHEET, RUNTIME_SHEET):
            continue
        tree = ast.parse(path.read_text())
        aliases = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                   and (node.module or "").endswith("settings") for a in node.names}
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.BinOp)):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assert target.id not in sheet_names or target.id in aliases, f"{path}: {target.id}"


def test_runtime_settings_are_read_where_they_are_used():
    """No module binds a runtime setting by name at import (it would miss a solve's
    change): every module reads :func:`current` where it uses one."""
    for path in PACKAGE.rglob("*.py"):
        bound = imported_names(path, "api.settings") & set(NAMES)
        assert not bound, (path.relative_to(PACKAGE).as_posix(), bound)
    with pytest.raises(AttributeError):
        getattr(runtime_sheet, "PN_JOB_NODES")   # (a setting is no module name of the sheet)


# ---------------------------------------------------------------- the kernel sheet's ranges
def test_the_kernel_sheet_passes_its_own_check():
    kernel_sheet.check(kernel_values())
    assert set(kernel_values()) == set(kernel_sheet.RANGES)


@pytest.mark.parametrize("name, value, says", [
    ("MAX_WORK", 16, "0 to 15"),
    ("MAX_WORK", -1, "0 to 15"),
    ("POLL_MASK", 1000, "2**j - 1"),
    ("POLL_MASK", 1 << 62, "2**j - 1"),
    ("PREFETCH_CHILDREN", 65, "0 to 64"),
    ("GRAVITY_ORDER_WEIGHTS", (1200, 500, 300), "four whole numbers"),
    ("GRAVITY_ORDER_WEIGHTS", (1200, -500, 300, 500), "four whole numbers"),
    ("GRAVITY_RULES_OFF", 8, "a subset of the bits"),
    ("GRAVITY_RULES_OFF", 32, "a subset of the bits"),
    ("ETC_MIN_EMPTY", 65, "0 to 64"),
    ("PAIRING_CAP", 0, "1 to"),
    ("VCF_MOVES", 32, "1 to 31"),
    ("VCF_NODE_CAP", 2.5, "1 to"),
    ("VCF_MIN_EMPTY", True, "0 to 64"),
])
def test_a_kernel_constant_out_of_its_range_is_refused_by_name(name, value, says):
    values = {**kernel_values(), name: value}
    with pytest.raises(kernel_sheet.KernelSettingError, match=re.escape(name)) as caught:
        kernel_sheet.check(values)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_sheet_with_a_constant_out_of_range_fails_to_import():
    """The sheet checks itself when it is run (imported): a copy with MAX_WORK = 16
    raises, naming the constant and its range; the file itself is not touched."""
    text = KERNEL_SHEET.read_text()
    edited = text.replace("MAX_WORK = 15 ", "MAX_WORK = 16 ")
    assert edited != text
    exec(compile(text, "sheet", "exec"), {"__name__": "sheet"})   # (the sheet as it is imports)
    with pytest.raises(ValueError, match=r"kernel setting MAX_WORK = 16 is out of its range: 0 to 15") as caught:
        exec(compile(edited, "sheet", "exec"), {"__name__": "sheet"})
    assert type(caught.value).__name__ == "KernelSettingError"


def test_a_kernel_constant_without_a_range_is_refused():
    with pytest.raises(kernel_sheet.KernelSettingError, match="NEW_KNOB has no range"):
        kernel_sheet.check({**kernel_values(), "NEW_KNOB": 3})


def test_the_ranges_are_the_fields_that_hold_the_values():
    """Each bound is the layout's: the table entry's work field (its width, and a 16
    would carry into the generation bits), the rule bits, the VCF line's room, the
    cells of a board."""
    R = kernel_sheet.RANGES
    work_bits = L.TT_GEN_SHIFT - L.TT_WORK_SHIFT
    assert R["MAX_WORK"][1] == (1 << work_bits) - 1 == 15
    generation = ((1 << (L.TT_KEY_SHIFT - L.TT_GEN_SHIFT)) - 1) << L.TT_GEN_SHIFT
    assert (R["MAX_WORK"][1] << L.TT_WORK_SHIFT) & generation == 0
    assert ((R["MAX_WORK"][1] + 1) << L.TT_WORK_SHIFT) & generation != 0   # the overrun the range refuses
    assert R["GRAVITY_RULES_OFF"][1] == L.RULES_ALL
    assert R["VCF_MOVES"][1] == VCF_MAX_MOVES
    assert kernel_sheet.CELLS == L.MAX_CELLS
    for name in ("PREFETCH_CHILDREN", "ETC_MIN_EMPTY", "PAIRING_MIN_EMPTY", "VCF_MIN_EMPTY"):
        assert R[name][1] == L.MAX_CELLS, name


def test_the_runtime_ranges_are_the_limits_they_feed():
    from parallel_mnk.api.options import MAX_SPLIT_DEPTH
    from parallel_mnk.engines.limited import MAX_DEPTH
    from parallel_mnk.runtime import ttable

    spec = {f.name: f.metadata for f in dataclasses.fields(Settings)}
    assert (ttable.MIN_TT_BITS, ttable.MAX_TT_BITS) == runtime_sheet.TABLE_BITS
    assert spec["DEFAULT_SPLIT_DEPTH"]["hi"] == MAX_SPLIT_DEPTH and spec["DEFAULT_DEPTH"]["hi"] == MAX_DEPTH
    for name in ("DEFAULT_TT_BITS", "LIMITED_TT_BITS", "MOVE_SEARCH_TT_BITS", "SIDE_POOL_TT_BITS"):
        assert (spec[name]["lo"], spec[name]["hi"]) == runtime_sheet.TABLE_BITS, name
    from parallel_mnk.kernels.grid.tss import MAX_FOURS   # (more fours than the line has room for: writes past it)
    assert spec["BIG_FOURS"]["hi"] == runtime_sheet.FOURS == MAX_FOURS


# ---------------------------------------------------------------- the cache guard counts the kernel sheet only
def package_copy(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The package's kernel folders and both sheets, copied: (kernels, kernel sheet, runtime sheet)."""
    root = tmp_path / "pkg"
    shutil.copytree(PACKAGE / "kernels", root / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "settings").mkdir()
    (root / "api").mkdir()
    shutil.copyfile(KERNEL_SHEET, root / "settings" / "__init__.py")
    shutil.copyfile(RUNTIME_SHEET, root / "api" / "settings.py")
    return root / "kernels", root / "settings" / "__init__.py", root / "api" / "settings.py"


def stamps(kernels: Path) -> dict[str, str]:
    return {f.name: cache_guard.source_fingerprint(cache_guard.closure(f)) for f in cache_guard.kernel_folders(kernels)}


def test_an_edit_of_the_runtime_sheet_leaves_every_kernel_stamp(tmp_path):
    kernels, _, runtime = package_copy(tmp_path)
    before = stamps(kernels)
    runtime.write_text(runtime.read_text().replace("setting(16, 0, MAX_CELLS)", "setting(12, 0, MAX_CELLS)"))
    assert "setting(12, 0, MAX_CELLS)" in runtime.read_text()
    assert stamps(kernels) == before


def test_an_edit_of_the_kernel_sheet_changes_every_kernel_stamp(tmp_path):
    kernels, sheet, _ = package_copy(tmp_path)
    before = stamps(kernels)
    sheet.write_text(sheet.read_text().replace("POLL_MASK = 1023 ", "POLL_MASK = 511  "))
    after = stamps(kernels)
    assert set(after) == set(before) and all(after[f] != before[f] for f in before)


# ---------------------------------------------------------------- the runtime settings
def test_a_wrong_name_type_or_value_is_one_line():
    cases = [(dict(SPLIT_MIN_EMTPY=12), "unknown setting 'SPLIT_MIN_EMTPY' (did you mean SPLIT_MIN_EMPTY?)"),
             (dict(SPLIT_MIN_EMPTY=65), "SPLIT_MIN_EMPTY must be a whole number from 0 to 64, got 65"),
             (dict(SPLIT_MIN_EMPTY="12"), "got '12'"),
             (dict(SPLIT_MIN_EMPTY=True), "got True"),
             (dict(SPLITS=0), "SPLITS must be True or False"),
             (dict(BUSY_MARKS=100), "BUSY_MARKS must be a power of two"),
             (dict(SPLIT_AFTER_S=float("nan")), "SPLIT_AFTER_S must be a number"),
             (dict(MAX_SIBLINGS=(1, 0, 0)), "MAX_SIBLINGS must be a pair"),
             (dict(THREAT_TIME_SHARE=1.5), "from 0.0 to 1.0")]
    for changes, says in cases:
        with pytest.raises(MnkError) as caught:
            Settings(**changes)
        assert says in str(caught.value) and "\n" not in str(caught.value), (changes, str(caught.value))
    with pytest.raises(MnkError, match="settings must be a Settings"):
        Options(settings={"SPLIT_MIN_EMPTY": 12})


def test_the_pn_provers_threat_budget_goes_by_the_board():
    """BIG_PN_THREES and BIG_PN_VCT_NODES at -1 (their defaults) take the narrow budget
    below BIG_PN_WIDE_CELLS cells and the wide one from it; a value given is kept
    whatever the board; -1 is refused where a setting is not by the board."""
    narrow, wide = runtime_sheet.BIG_PN_BUDGETS
    assert narrow[0] < wide[0] and narrow[1] < wide[1]
    assert (DEFAULTS.BIG_PN_THREES, DEFAULTS.BIG_PN_VCT_NODES) == (runtime_sheet.BY_BOARD,) * 2
    at = DEFAULTS.BIG_PN_WIDE_CELLS
    assert DEFAULTS.big_pn_budget(at - 1) == narrow and DEFAULTS.big_pn_budget(at) == wide == DEFAULTS.big_pn_budget(676)
    moved = Settings(BIG_PN_WIDE_CELLS=81)
    assert moved.big_pn_budget(80) == narrow and moved.big_pn_budget(81) == wide
    assert Settings(BIG_PN_THREES=2).big_pn_budget(225) == (2, wide[1])
    assert Settings(BIG_PN_VCT_NODES=7).big_pn_budget(80) == (narrow[0], 7)
    assert DEFAULTS.with_assignments(["BIG_PN_THREES=-1"]) == DEFAULTS
    for changes, says in [(dict(BIG_PN_THREES=-2), "from 0 to 1024, or -1 (by the board), got -2"),
                          (dict(BIG_PN_VCT_NODES=0), "at least 1, or -1 (by the board), got 0"),
                          (dict(BIG_PN_ZONE_THREES=-1), "from 0 to 1024, got -1"),
                          (dict(BIG_PN_WIDE_CELLS=64), "from 65 to 677, got 64")]:
        with pytest.raises(MnkError, match=re.escape(says)):
            Settings(**changes)


def test_settings_are_the_defaults_with_changes():
    s = Settings(SPLIT_MIN_EMPTY=12, SPLITS=False)
    assert s.SPLIT_MIN_EMPTY == 12 and not s.SPLITS and s.TURN_S == DEFAULTS.TURN_S
    assert s.changes() == {"SPLIT_MIN_EMPTY": 12, "SPLITS": False} and Settings() == DEFAULTS
    assert s.replace(SPLITS=True).changes() == {"SPLIT_MIN_EMPTY": 12}
    assert list(s.as_dict()) == list(NAMES) and len(NAMES) == len(set(NAMES))
    assert DEFAULTS.with_assignments(["MAX_SIBLINGS=2,0", "SPLITS=off", "SPLIT_AFTER_S=0.5", "SERIAL_BUDGET=0x10"]) \
        .changes() == {"MAX_SIBLINGS": (2, 0), "SPLITS": False, "SPLIT_AFTER_S": 0.5, "SERIAL_BUDGET": 16}
    for text, says in [("SPLIT_MIN_EMPTY", "NAME=VALUE"), ("SPLITS=maybe", "True or False"),
                       ("SPLIT_MIN_EMPTY=1.5", "a whole number"), ("NOPE=1", "unknown setting 'NOPE'")]:
        with pytest.raises(MnkError, match=re.escape(says)):
            DEFAULTS.with_assignments([text])


def test_one_set_of_settings_in_force_at_a_time():
    other = Settings(SPLIT_MIN_EMPTY=12)
    assert current() is DEFAULTS
    with applied(other):
        assert current() is other
        with applied(None), applied(Settings(SPLIT_MIN_EMPTY=12)):   # the same: nested
            assert current() == other
        with pytest.raises(MnkError, match="another search of this process runs with other settings"):
            with applied(DEFAULTS):
                pass
        assert current() is other
    assert current() is DEFAULTS


def test_a_solves_settings_reach_it_and_its_result():
    """DFPN_AUTO_BUDGET of a weak serial solve of a free position: df-pn answers
    within the default budget; with a budget of 1 node it gives up and alpha-beta
    (with its pairings) answers. The result records the settings; the process is back
    at the defaults."""
    pos = Position.from_moves(GameSpec(5, 5, 4), "c3")
    plain = solve(pos, weak=True, options=Options(tt_size="1M", pv=False))
    starved = solve(pos, weak=True, options=Options(tt_size="1M", pv=False, settings=Settings(DFPN_AUTO_BUDGET=1)))
    assert (plain.proof, starved.proof) == ("dfpn", "pairing") and plain.value == starved.value == "draw"
    assert plain.settings == DEFAULTS and starved.settings.changes() == {"DFPN_AUTO_BUDGET": 1}
    assert current() is DEFAULTS


def test_a_parallel_solves_settings_reach_the_coordinator():
    """SERIAL_BUDGET: a budget that covers the solve answers it serially (no split,
    ``parallel`` None); none splits it at once."""
    pos = Position(GameSpec(4, 4, 3))
    serial = solve(pos, options=Options(workers=2, tt_size="1M", settings=Settings(SERIAL_BUDGET=1 << 40)))
    split = solve(pos, options=Options(workers=2, tt_size="1M", settings=Settings(SERIAL_BUDGET=0)))
    assert serial.score == split.score
    assert serial.parallel is None and split.parallel is not None and split.parallel["tasks"] > 0


class EchoTask:
    """A task that answers with the settings in force where it runs (the worker's)."""

    live_window = None

    def __init__(self, task_id: int) -> None:
        self.task_id = task_id

    def run(self, env) -> "EchoResult":
        return EchoResult(self.task_id, current())


class EchoResult:
    def __init__(self, task_id: int, settings: Settings) -> None:
        self.task_id, self.settings = task_id, settings


def run_on_pool(pool, task_id: int) -> Settings:
    assert pool.start(1, EchoTask(task_id))
    for _ in range(100):
        for slot, result in pool.collect(1.0):
            assert isinstance(result, EchoResult) and result.task_id == task_id, result
            return result.settings
    raise AssertionError("the worker did not answer")


@pytest.mark.parametrize("backend", ["process", "thread"])
def test_a_pools_workers_run_each_task_with_the_settings_it_came_with(backend):
    """A process pool forked under changed settings runs a task of a solve with the
    defaults with the defaults, and one with changes with those changes."""
    from parallel_mnk.parallel.scheduling.registry import get_coordinator, shutdown_backends

    changed = Settings(SPLIT_MIN_EMPTY=12, MAX_SIBLINGS=(3, 2))
    try:
        with applied(changed):
            pool = get_coordinator(backend, 1, 12).backend
            assert run_on_pool(pool, 1) == changed
        assert run_on_pool(get_coordinator(backend, 1, 12).backend, 2) == DEFAULTS
        with applied(Settings(SPLIT_MIN_EMPTY=20)):
            assert run_on_pool(get_coordinator(backend, 1, 12).backend, 3).SPLIT_MIN_EMPTY == 20
    finally:
        shutdown_backends()


def test_a_pool_made_with_other_pool_settings_is_made_again():
    from parallel_mnk.parallel.scheduling.registry import get_coordinator, shutdown_backends

    try:
        first = get_coordinator("thread", 1, 12)
        assert get_coordinator("thread", 1, 12) is first
        with applied(Settings(BUSY_MARKS=1 << 6)):
            second = get_coordinator("thread", 1, 12)
            assert second is not first and second.backend.ctl[L.CTL_BUSY_MASK] == (1 << 6) - 1
    finally:
        shutdown_backends()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_pn_prover_runs_with_the_solves_settings(workers):
    """PN_JOB_NODES, PN_OPEN_DEPTH reach the pn prover's coordinator (read where it uses
    them): jobs of 2**8 nodes make a proof of more jobs than the default's, the value
    the same."""
    pos = Position(GameSpec(7, 7, 5))
    plain = solve(pos, weak=True, options=Options(workers=workers, prover="pn"))
    small = solve(pos, weak=True, options=Options(workers=workers, prover="pn",
                                                  settings=Settings(PN_JOB_NODES=1 << 8, PN_OPEN_DEPTH=1)))
    assert small.value == plain.value == Value.DRAW
    assert small.parallel["jobs"] > 2 * plain.parallel["jobs"], (small.parallel["jobs"], plain.parallel["jobs"])
    assert small.settings.PN_JOB_NODES == 1 << 8 and plain.settings == DEFAULTS


def test_many_workers_split_the_pn_tree_a_ply_deeper():
    """PN_MANY_WORKERS reaches the coordinator: from that many workers the tree opens a
    ply deeper before any job (more jobs, smaller), the value the same."""
    pos = Position(GameSpec(7, 7, 5))
    plain = solve(pos, weak=True, options=Options(workers=2, prover="pn"))
    many = solve(pos, weak=True, options=Options(workers=2, prover="pn", settings=Settings(PN_MANY_WORKERS=2)))
    assert many.value == plain.value == Value.DRAW
    assert many.parallel["jobs"] > 4 * plain.parallel["jobs"], (many.parallel["jobs"], plain.parallel["jobs"])


# ---------------------------------------------------------------- --setting, --json, --version
def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv, stdout=out)
    return code, out.getvalue(), err.getvalue()


def test_json_shows_the_settings_a_command_ran_with():
    """A result's ``settings``: those changed from the defaults (``{}`` for none), as the
    command line and the library give the same."""
    code, out, _ = cli(["best", "--game", "tictactoe", "--moves", "", "--json", "--book", "none"])
    plain = json.loads(out)
    assert code == 0 and plain["depth"] == DEFAULTS.DEFAULT_DEPTH and plain["settings"] == {}
    code, out, _ = cli(["best", "--game", "tictactoe", "--moves", "", "--json", "--book", "none",
                        "--setting", "DEFAULT_DEPTH=2", "--setting", "MAX_SIBLINGS=2,0"])
    changed = json.loads(out)
    assert code == 0 and changed["depth"] == 2
    assert changed["settings"] == {"DEFAULT_DEPTH": 2, "MAX_SIBLINGS": [2, 0]}
    code, out, _ = cli(["solve", "--game", "tictactoe", "--moves", "b2", "--json", "--workers", "1",
                        "--setting", "SPLIT_MIN_EMPTY=9"])
    assert code == 0 and json.loads(out)["settings"] == {"SPLIT_MIN_EMPTY": 9}
    library = solve(Position.from_moves(GameSpec(3, 3, 3), "b2"), options=Options(settings=Settings(SPLIT_MIN_EMPTY=9)))
    assert json.loads(json.dumps(library.to_dict()))["settings"] == {"SPLIT_MIN_EMPTY": 9}
    assert current() is DEFAULTS


@pytest.mark.parametrize("value, says", [("SPLIT_MIN_EMPTY=99", "from 0 to 64"),
                                         ("SPLIT_MIN_EMTPY=9", "did you mean SPLIT_MIN_EMPTY?"),
                                         ("SPLIT_MIN_EMPTY", "NAME=VALUE")])
def test_a_bad_set_is_one_line_and_exit_2(value, says):
    code, out, err = cli(["solve", "--game", "tictactoe", "--moves", "b2", "--workers", "1", "--setting", value])
    assert code == 2 and not out and says in err and err.count("\n") == 1, err


def test_version_lists_both_sheets():
    with pytest.raises(SystemExit) as done:
        cli(["--version"])
    assert done.value.code == 0
    from parallel_mnk.frontends.arguments import version_text

    lines = version_text().splitlines()
    for name, value in kernel_values().items():
        assert f"  {name} = {value!r}" in lines
    for name, value in DEFAULTS.as_dict().items():
        assert f"  {name} = {value!r}" in lines
    kernel_at = next(i for i, line in enumerate(lines) if line.startswith("kernel settings"))
    runtime_at = next(i for i, line in enumerate(lines) if line.startswith("runtime settings"))
    assert kernel_at < lines.index("  MAX_WORK = 15") < runtime_at < lines.index("  SPLIT_MIN_EMPTY = 16")
