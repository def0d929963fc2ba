"""The package's structure, as the layout promises it (docs/design.md, "5. Layers"):

* each folder of the package is one layer, and dependencies point one way: the
  import graph of ``parallel_mnk`` (imports inside functions included) has no
  cycle, no module imports a module of a higher layer (:data:`LAYERS`), and the
  packages (folders) import each other without a loop;
* the map of docs/design.md names the layers of :data:`LAYERS` in their order, and every
  module of every layer in its row;
* no module over 500 lines, no function over 100 lines (kernels included);
* a module's or folder's name is unique (but for one concept's layers and the roles of a
  kernel folder's modules) and never repeats its folder's name; ``limited`` names no kernel
  folder or module (the array board is ``kernels/grid``);
* ``import parallel_mnk`` does not import numba (the engines load it on first use);
* every public function and class of the package has a docstring.
"""
from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "parallel_mnk"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 100

# the layers, bottom up, by the folders (or top-level modules) they hold: a module may
# import its own layer and those below; the map of docs/design.md has one row a layer, in this order
LAYERS = [
    ["settings"],                # the sheet of settings: plain numbers, imports nothing
    ["kernels", "proofcheck"],   # numba kernels; the certificate checker, which imports nothing of ours
    ["game"],
    ["api"],
    ["runtime"],
    ["engines"],
    ["parallel"],
    ["entrance"],                # the library's functions: solve, analyze, best_move, build_book
    ["frontends", "__main__"],
]


@functools.cache   # (asked once per edge of the import graph: one walk of the tree a test run)
def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the package (read it, never change it)."""
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


def package_of(name: str) -> str:
    """The package (folder) a module lives in: itself for a package's ``__init__`` and for
    a module at the package's top (``entrance``, ``__main__``: a layer's unit of its own)."""
    path = modules()[name]
    if path.name == "__init__.py" or path.parent == PACKAGE:
        return name
    return name.rpartition(".")[0]


def test_the_packages_import_each_other_without_a_loop():
    """Folders, not only modules: a folder that imports another one is never imported
    back by it (so each folder reads as one step of its layer)."""
    edges: dict[str, set[str]] = {}
    for name, targets in graph().items():
        if name == "parallel_mnk":
            continue   # the package's face
        here = package_of(name)
        edges.setdefault(here, set()).update(package_of(t) for t in targets if package_of(t) != here)
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            p = todo.pop()
            assert p != start, f"the packages {start} and {sorted(edges[start])} import each other in a loop"
            if p not in seen:
                seen.add(p)
                todo.extend(edges.get(p, ()))


def test_the_certificate_checker_imports_nothing_of_the_solver():
    for name, targets in graph().items():
        if name.startswith("parallel_mnk.proofcheck"):
            assert all(t.startswith("parallel_mnk.proofcheck") for t in targets), name


def readme_map() -> list[str]:
    """The rows of the map of the modules (the first table of docs/design.md, "5. Layers")."""
    text = (ROOT / "docs" / "design.md").read_text()
    section = text[text.index("## 5. Layers"):]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start + 2:end]


def test_the_readme_map_is_the_layers_in_order_and_names_every_module():
    rows = readme_map()
    assert len(rows) == len(LAYERS), f"the map has {len(rows)} rows, LAYERS {len(LAYERS)}"
    for row, layer in zip(rows, LAYERS):
        named = {n.removesuffix(".py") for n in re.findall(r"`([\w.]+)/?`", row.split("|")[2])}
        assert named == set(layer), f"map row {row[:40]!r}: folders {sorted(named)}, LAYERS {layer}"
        for key in layer:
            folder = PACKAGE / key
            if not folder.is_dir():
                continue
            inside = sorted(p for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()) if \
                key == "kernels" else sorted(p for p in folder.rglob("*.py") if p.name != "__init__.py")
            for path in inside:
                stem = path.relative_to(folder).with_suffix("").as_posix()
                parent, _, base = stem.rpartition("/")
                named = f"`{stem}`" in row or f"`{stem}/`" in row or (f"`{parent}/`" in row and f"`{base}`" in row)
                assert named, f"docs/design.md's map does not name {key}/{stem}"


def test_no_file_points_outside_the_repository():
    """The design lives in docs/: no module, doc or benchmark names a file of
    ../shared or of one machine (the third-party data folder ../shared/data, which
    the tests and benchmarks read when present, is the one exception)."""
    outside = re.compile(r"\.\./shared(?!/data)|/work/|/home/|/root/")
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "docs").glob("*.md"), *(ROOT / "bench").glob("*.py"),
             ROOT / "README.md", ROOT / "bench" / "README.md", ROOT / "pyproject.toml", ROOT / "run_bench.py"]
    found = [f"{path.relative_to(ROOT)}:{i}" for path in files
             for i, line in enumerate(path.read_text().splitlines(), 1) if outside.search(line)]
    assert not found, "lines that point outside the repository: " + ", ".join(found)


def test_dependencies_point_down_the_layers():
    upward = []
    for name, targets in graph().items():
        if name == "parallel_mnk":
            continue  # the package's face re-exports from every layer (lazily for the engines)
        for t in targets:
            if t != "parallel_mnk" and layer_of(t) > layer_of(name):
                upward.append(f"{name} -> {t}")
    assert not upward, "imports that climb a layer: " + ", ".join(sorted(upward))


def test_the_front_ends_reach_the_engines_and_pools_only_through_the_entrance():
    """The front ends call the library's functions (``parallel_mnk/entrance.py``), never a
    parallel backend or an exact engine's solve themselves."""
    g = graph()
    for name in [n for n in g if n.startswith("parallel_mnk.frontends.")]:
        assert not [t for t in g[name] if t.startswith("parallel_mnk.parallel")], name
        assert not [t for t in g[name] if t in ("parallel_mnk.engines.serial", "parallel_mnk.engines.analysis")], name


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


# One concept at several layers, the only names two modules may share: a prover's kernel and
# its validated wrapper, the depth-limited engine's and big boards' kernels, engine and pool use,
# and the two sheets of settings (the kernels' constants at the bottom, the runtime ones in api/).
LAYERED = {"dfpn": 2, "pairing": 2, "threats": 2, "limited": 2, "big": 3, "pns": 2, "settings": 2}
# The roles a module of a kernel folder may have in any family, named by the role alone (its
# folder says whose): its entry points, the layout of its arrays, its search.
KERNEL_ROLES = {"entry", "layout", "search"}


def named(package: Path) -> list[Path]:
    """The modules and folders (packages) below ``package`` that have names of their own:
    every ``*.py`` but ``__init__`` and ``__main__``, every folder with an ``__init__.py``
    (a folder left holding only numba's ``__pycache__`` is none)."""
    return [path for path in sorted(package.rglob("*"))
            if "__pycache__" not in path.parts and path.name not in ("__init__.py", "__main__.py")
            and (path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists()))]


def test_no_two_modules_or_folders_share_a_name():
    """One word a thing (docs/design.md): a module's or folder's name is unique in the
    package (``split`` is the split tree's, ``search`` outside the kernels the exact
    search's), but for the layers of one concept in :data:`LAYERED` and the roles of a
    kernel folder's modules (:data:`KERNEL_ROLES`: ``kernels/gravity/search``)."""
    names: dict[str, list[str]] = {}
    for path in named(PACKAGE):
        if path.suffix == ".py" and path.parent.parent == PACKAGE / "kernels" and path.stem in KERNEL_ROLES:
            continue
        names.setdefault(path.stem, []).append(path.relative_to(PACKAGE).as_posix())
    shared = {name: sorted(paths) for name, paths in names.items() if len(paths) > 1}
    assert {name: len(paths) for name, paths in shared.items()} == LAYERED, shared


def _stutters(package: Path) -> list[str]:
    """The modules and folders under ``package`` whose name repeats the name of the folder
    they are in: its first word again (``gravity/gravity_search``, ``book_search/book_layout``,
    ``pns/pns.py``)."""
    return [path.relative_to(package).as_posix() for path in named(package)
            if path.parent != package and path.stem.split("_")[0] == path.parent.name.split("_")[0]]


def test_no_name_stutters_and_limited_names_the_depth_limited_engine_only():
    """Names say what things are, once (docs/design.md): no module or folder repeats its
    folder's name (``kernels/gravity/search.py``, not ``kernels/gravity/gravity_search.py``;
    the folder says whose), and no kernel folder or module is called ``limited``: the word
    is the depth-limited engine's (``engines/limited``), the array board's kernels are
    ``kernels/grid/``."""
    assert _stutters(PACKAGE) == []
    kernels = PACKAGE / "kernels"
    assert [p.relative_to(kernels).as_posix() for p in named(kernels) if "limited" in p.stem] == []


def test_the_library_loads_a_solves_kernels_in_one_place():
    """One load of the kernels a solve: above the runtime, ``load_for_solve`` is called
    only in ``entrance.KernelLoad`` (solve, analyze and build_book go through it)."""
    calls = {p.relative_to(PACKAGE).as_posix(): p.read_text().count("load_for_solve(")
             for p in [*PACKAGE.glob("*.py"), *(PACKAGE / "frontends").glob("*.py"), *(PACKAGE / "engines").rglob("*.py"),
                       *(PACKAGE / "parallel").rglob("*.py")]}
    assert {p: n for p, n in calls.items() if n} == {"entrance.py": 1}
