"""parallel_mnk.runtime.families and ``parallel-mnk warm-up``: a command compiles only the
kernel families it needs, each entry point for its one signature, says so on stderr
in one line while it compiles, and finds them in the cache afterwards."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parallel_mnk import GameSpec, Position
from parallel_mnk.api.options import SolveOptions
from parallel_mnk.runtime import families
from parallel_mnk.frontends.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, cache_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


@pytest.mark.parametrize("family,allowed", [
    ("gravity", {"core", "gravity"}),
    ("free", {"core", "free", "proofs"}),     # the free search uses pairing certificates and VCF at its nodes
    ("expand", {"core", "expand"}),
    ("grid", {"core", "grid"}),
])
def test_a_family_reaches_no_other_familys_kernels(tmp_path, family, allowed):
    """What a family's entry points can compile is what its modules import: a
    Connect Four solve never loads df-pn, the free search or the array board."""
    code = (f"import sys; from parallel_mnk.runtime import families; families.load({family!r}); "
            "print(' '.join(m for m in sys.modules if m.startswith('parallel_mnk.kernels.')))")
    proc = run_python(code, tmp_path, NUMBA_DISABLE_JIT="1")
    assert proc.returncode == 0, proc.stderr
    # the layouts are plain Python that the game layer reads (geometry fills every context)
    kernels = {m.split(".", 2)[2] for m in proc.stdout.split()} - {"cache_guard"}
    jitted = {m for m in kernels if "." in m and not m.endswith("layout")}
    assert {m.split(".")[0] for m in jitted} == allowed, sorted(jitted)
    if family == "free":   # of the proof kernels, only those the search calls
        assert {m for m in jitted if m.startswith("proofs.")} == {"proofs.pairing", "proofs.threats"}


def test_warm_up_compiles_once_says_so_in_one_line_then_finds_the_cache(tmp_path):
    # (the smallest family: book_search compiles in about 3 s)
    warm = "from parallel_mnk.frontends.cli import main; import sys; sys.exit(main(['warm-up', '--families', 'book_search']))"
    first = run_python(warm, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == "book_search: compiled"
    line = first.stderr.strip()
    assert line.startswith("compiling the book search kernels (first run only)... done in ") and "\n" not in line
    second = run_python(warm, tmp_path)
    assert second.returncode == 0 and second.stderr == ""
    assert second.stdout.splitlines()[0] == "book_search: in the cache"


def test_warm_up_refuses_an_unknown_family_in_one_line(capsys):
    assert main(["warm-up", "--families", "gravity,nope"], stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err == ("parallel-mnk: error: not a kernel family: nope (choose from gravity, free, proofs, pns, grid, big, "
                   "expand, book_search, or gravity@COLSxROWSkK for a board's own build)\n")


def test_every_entry_point_has_one_signature_and_refuses_others():
    families.load_all()
    assert "gravity@7x6k4" in families.all_names()
    for name in families.all_names():
        module = families.entries(name)
        for entry, args in families._signatures(module):
            assert entry.signatures == [args], (name, entry)
    ctx, out = np.zeros(64, dtype=np.uint64), np.zeros(64, dtype=np.int64)
    with pytest.raises(TypeError):   # a strided view is another array type: refused, never compiled
        families.entries("expand").expand(ctx, ctx, np.uint64(0), np.uint64(0), 0, out[::2])


def test_missing_families_are_shared_out_by_cost():
    groups = families._share_out(list(families.FAMILIES), 2, whole=True)
    assert sorted(n for g in groups for n in g) == sorted(families.FAMILIES)
    costs = [sum(families.FAMILIES[n].cost for n in g) for g in groups]
    assert max(costs) - min(costs) <= max(f.cost for f in families.FAMILIES.values())
    assert families._share_out(["expand", "gravity"], 8) == [["gravity"], ["expand"]]
    assert families._share_out(["free", "proofs"], 1, whole=True) == [["free", "proofs"]]


def test_a_cold_start_compiles_a_familys_parts_first_then_its_entry_points():
    parts = [f"free#{i}" for i in range(len(families._parts("free")))]
    assert len(parts) >= 10
    first, last = families._compile_steps(["free", "proofs"], 2)
    assert sorted(u for group in first for u in group) == sorted(parts) and len(first) == 2
    assert last == [["free"], ["proofs"]]   # df-pn's family beside the entry point: shorter than a share of the parts
    assert families._compile_steps(["free", "proofs"], 1) == [[["free", "proofs"]]]   # one core: nothing to share
    assert families._compile_steps(["proofs", "expand"], 2) == [[["proofs"], ["expand"]]]   # no parts: one step
    every = families.all_names()
    every_part = [f"{n}#{i}" for n in every for i in range(len(families._parts(n)))]
    assert {u.split("#")[0] for u in every_part} >= {"free", "gravity", "gravity@7x6k4"}
    for cpus in (2, 3, 8):
        steps = families._compile_steps(every, cpus)
        units = [u for step in steps for group in step for u in group]
        assert sorted(units) == sorted(every + every_part), cpus   # each once
        assert all(0 < len(step) <= cpus and all(step) for step in steps)
        assert not any("#" in u for group in steps[-1] for u in group)   # the parts before the entry points
    costs = [families._cost(u) for u in parts]
    assert all(c > 0 for c in costs) and sum(costs) < families.FAMILIES["free"].cost


def test_each_part_is_declared_with_the_signature_its_entry_points_call_it_with():
    """A part's declared signature is the one the family's entry points call: once the
    families are loaded, numba's cache holds that signature of the part and no other
    (a wrong one would leave the cache without it, or a second signature compiled in
    vain on every cold start)."""
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        pytest.skip("nothing is compiled with the JIT off")
    families.load_all()
    checked = 0
    for name in families.all_names():
        for kernel, args, _ in families._parts(name):
            cached = [key[0] for key in kernel._cache._cache_file._load_index()]
            assert cached == [tuple(args)], (name, kernel.py_func.__qualname__, cached)
            checked += 1
    assert checked >= 10


def test_an_unknown_family_is_a_value_error():
    with pytest.raises(ValueError, match="unknown kernel family"):
        families.load("gravity", "nope")


def test_a_solve_loads_what_it_may_call():
    c4, free, small = GameSpec(7, 6, 4, True), GameSpec(5, 5, 4), GameSpec(5, 4, 4, True)
    assert families.for_solve(c4) == ["gravity@7x6k4"]   # Connect Four has a build of its own (boards.py)
    assert families.for_solve(c4, SolveOptions(workers=2, weak=True)) == ["gravity@7x6k4", "expand"]
    assert families.for_solve(c4, SolveOptions(backend="thread")) == ["gravity@7x6k4", "expand"]
    assert families.for_solve(small) == ["gravity"]
    assert families.for_solve(free) == ["free"]
    assert families.for_solve(free, SolveOptions(weak=True)) == ["free", "proofs"]   # df-pn may answer first
    assert families.for_solve(free, SolveOptions(weak=True, prover="search")) == ["free"]
    assert families.for_solve(free, SolveOptions(workers=2, weak=True)) == ["free", "expand"]
    empty = Position(free)
    assert families.for_solve(free, SolveOptions(weak=True), empty) == ["free"]   # df-pn is never asked there
    assert families.for_solve(free, SolveOptions(weak=True, prover="dfpn"), empty) == ["free", "proofs"]
    empty.push("c3")
    assert families.for_solve(free, SolveOptions(weak=True), empty) == ["free", "proofs"]


def test_one_call_loads_a_solves_kernels_and_says_what_and_how_long():
    free = GameSpec(5, 5, 4)
    loaded = families.load_for_solve(free, SolveOptions(weak=True))
    assert loaded.families == ("free", "proofs") and loaded.seconds >= 0
    assert families.load_for_solve(free, SolveOptions(weak=True)).seconds == 0.0   # once a process
    assert families.exact_kernels(free) is families.entries("free")
    assert families.proof_kernels() is families.entries("proofs")


@pytest.mark.parametrize("spec,expected", [(GameSpec(3, 3, 3), "free grid"),
                                           (GameSpec(7, 6, 4, True), "gravity@7x6k4 grid"),
                                           (GameSpec(15, 15, 5), "grid")], ids=str)
def test_play_loads_both_engines_before_the_first_move(tmp_path, spec, expected):
    """The depth-limited engine answers whenever the exact one runs out of time: its
    compile must not fall inside a move's time budget."""
    code = ("from parallel_mnk import GameSpec; from parallel_mnk.runtime import families; from parallel_mnk.frontends.play import Engine; "
            f"Engine(GameSpec{(spec.cols, spec.rows, spec.k, spec.gravity)}).load(); "
            "print(' '.join(sorted(families._loaded)))")
    proc = run_python(code, tmp_path, NUMBA_DISABLE_JIT="1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


def _literal_calls(module) -> list[str]:
    """Calls in ``module``'s kernels of another kernel (not pasted by numba, see
    kernels/core/jit.py) with a Python int or bool as an argument: a constant
    (``3``, ``-1``, ``False``) or a module's global holding one (``TT_LOWER``)."""
    import ast
    import inspect

    from numba.core.registry import CPUDispatcher

    def value(node):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            node = node.operand
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return getattr(module, node.id, None)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return getattr(getattr(module, node.value.id, None), node.attr, None)
        return None

    found = []
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if not isinstance(node, ast.Call):
            continue
        callee = value(node.func)
        if not isinstance(callee, CPUDispatcher) or callee.targetoptions.get("inline", "never") == "always":
            continue
        for arg in node.args:
            v = value(arg)
            if isinstance(v, (bool, int)) and not isinstance(v, np.generic):
                found.append(f"{module.__name__}:{node.lineno} {ast.unparse(node)[:80]}")
                break
    return found


def _kernel_packages() -> list[str]:
    """The kernel folders (kernels/core, kernels/free, ...), by name."""
    import pkgutil

    import parallel_mnk.kernels as kernels
    return sorted(info.name for info in pkgutil.iter_modules(kernels.__path__) if info.ispkg)


@pytest.mark.parametrize("package", _kernel_packages())
def test_no_kernel_passes_a_literal_to_another(package):
    """numba types a constant argument of a kernel-to-kernel call as a literal: one more
    compile of the callee for every value, and, where the callee is an entry point of
    another family, a second signature (the grid family's candidate_moves, called
    with False by the big-board search) that the one-signature test sees only in some
    orders of compiling. Every such argument is typed (np.int64(3), np.bool_(False))."""
    import importlib
    import pkgutil

    folder = importlib.import_module(f"parallel_mnk.kernels.{package}")
    found = []
    for info in pkgutil.walk_packages(folder.__path__, folder.__name__ + "."):
        if not info.name.endswith("board_constant"):   # (a per-board build's; the same calls as board.py)
            found += _literal_calls(importlib.import_module(info.name))
    assert not found, "\n".join(found)


def test_a_helper_that_only_kernels_call_refuses_python():
    """An inlined or called kernel has no Python wrapper (core/jit.py): a call from Python
    is a TypeError, never a jump to missing code; a test gets a callable copy."""
    from numba.core import config
    from parallel_mnk.kernels.core.jit import callable_from_python
    from parallel_mnk.kernels.pns.settled_store import _home
    if getattr(config, "DISABLE_JIT", False):
        pytest.skip("kernels are plain Python functions under NUMBA_DISABLE_JIT")
    with pytest.raises(TypeError, match="only kernels call"):
        _home(np.uint64(6), np.uint64(7))
    assert callable_from_python(_home)(np.uint64(6), np.uint64(7)) == 3


COPIED = '''
from parallel_mnk.kernels.core.jit import entry, expanded, inlined_copy

@expanded
def twice(x):
    return 2 * x

twice_for_caller = inlined_copy(twice, "caller")

@entry
def caller(x):
    return twice_for_caller(x) + 1
'''


def test_an_inlined_copy_keeps_a_cache_entry_of_its_own(tmp_path):
    """core/jit.py's inlined_copy: the copy of a helper is a function of its own name,
    with its own file in numba's cache. A process compiles a caller of the copy
    (cached: the copy without a Python wrapper); the next process, on the same cache,
    calls the original from Python and gets its answer (a copy sharing the
    original's cache entry would be loaded there: a jump to missing code)."""
    from numba.core import config
    if getattr(config, "DISABLE_JIT", False):
        pytest.skip("kernels are plain Python functions under NUMBA_DISABLE_JIT")
    (tmp_path / "copied_kernels.py").write_text(COPIED)
    cache = tmp_path / "cache"

    def run(code: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)

    first = run("import copied_kernels as m; print(m.caller(20))")
    assert (first.returncode, first.stdout.strip()) == (0, "41"), first.stderr[-2000:]
    names = sorted(p.name.split("-")[0] for p in cache.rglob("*.nbi"))
    assert names == ["copied_kernels.caller", "copied_kernels.twice__caller"], names
    second = run("import copied_kernels as m; print(m.twice(21))")
    assert (second.returncode, second.stdout.strip()) == (0, "42"), (second.returncode, second.stderr[-2000:])
