"""The package's structure, as the layout promises it (README, "How it works"):

* dependencies point one way: the import graph of ``parallel_mnk`` (imports
  inside functions included) has no cycle, and no module imports a module of a
  higher layer (kernels <- geometry/position <- engines <- parallel <- front ends);
* no module over 500 lines, no function over 100 lines (kernels included);
* ``import parallel_mnk`` does not import numba (the engines load it on first use);
* every public function and class of the package has a docstring.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "parallel_mnk"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 100

# the layers, bottom up: a module may import its own layer and those below
LAYERS = [
    ["kernels"],
    ["rules", "geometry", "position", "results", "options", "ttable"],
    ["runtime", "boards", "families"],
    ["probes", "search", "limited", "prover", "books"],
    ["parallel"],
    ["solver"],
    ["analysis", "play", "protocol", "commands"],
    ["jobs"],
    ["cli", "__main__", "serve", "book_cli", "verify_cli", "proofcheck"],
]


def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules ``name`` imports, at any place in the file."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            if t in known and t != name:
                found.add(t)
    # importing a submodule runs its package's __init__ too; that is not a dependency
    return {t for t in found if not name.startswith(t + ".") and t != "parallel_mnk"}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imported(name, path, known) for name, path in mods.items()}


def layer_of(name: str) -> int:
    parts = name.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    for i, layer in enumerate(LAYERS):
        if key in layer:
            return i
    raise AssertionError(f"{name} is in no layer of tests/test_structure.py")


def test_the_import_graph_has_no_cycle():
    g = graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g[n]):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(g):
        if n not in state:
            visit(n)


def test_dependencies_point_down_the_layers():
    upward = []
    for name, targets in graph().items():
        if name == "parallel_mnk":
            continue  # the package's face re-exports from every layer (lazily for the engines)
        for t in targets:
            if t != "parallel_mnk" and layer_of(t) > layer_of(name):
                upward.append(f"{name} -> {t}")
    assert not upward, "imports that climb a layer: " + ", ".join(sorted(upward))


def test_the_front_ends_reach_the_parallel_backends_only_through_the_solver():
    g = graph()
    for name in ("parallel_mnk.analysis", "parallel_mnk.play", "parallel_mnk.protocol", "parallel_mnk.cli",
                 "parallel_mnk.serve", "parallel_mnk.jobs", "parallel_mnk.commands"):
        assert not [t for t in g[name] if t.startswith("parallel_mnk.parallel")], name


@pytest.mark.parametrize("name", sorted(modules()))
def test_modules_and_functions_are_short(name):
    path = modules()[name]
    text = path.read_text()
    assert text.count("\n") <= MAX_MODULE_LINES, f"{path.name} has {text.count(chr(10))} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES, f"{name}.{node.name} has {length} lines"


@pytest.mark.parametrize("name", sorted(modules()))
def test_public_functions_and_classes_state_their_contract(name):
    tree = ast.parse(modules()[name].read_text())
    assert ast.get_docstring(tree), f"{name} has no module docstring"
    missing = [node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
               and not ast.get_docstring(node)]
    assert not missing, f"{name}: no docstring on {missing}"


def test_importing_the_package_does_not_load_numba():
    code = ("import sys, parallel_mnk\n"
            "from parallel_mnk import GameSpec, Position, Limit, Value, SolveResult\n"
            "Position.from_moves(GameSpec(7, 6, 4, True), '4453').outcome()\n"
            "assert 'numba' not in sys.modules, 'numba was imported'\n"
            "from parallel_mnk import solve\n"
            "assert 'numba' in sys.modules\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
