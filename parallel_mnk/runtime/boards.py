"""Per-board builds of the gravity search: the kernels with one board's geometry
compiled in.

The generic gravity search reads the board's size, masks and shifts from the
kernel context at every node. A per-board build is a copy of the kernels it
compiles (``kernels/gravity`` and what it imports, ``kernels/core``) in a
package of its own, where ``core/board.py`` is replaced by
``core/board_constant.py`` and a generated ``core/board_values.py`` holds the
board's values, taken from the board's own kernel context (the same slots the
generic build reads, so the two agree by construction). numba freezes those
values into the code: shifts and masks become immediates, loops over the
directions unroll, the branches of other ``k`` disappear, and a node costs less
(bench/README.md, "Settings and their figures").

Which boards get one (:func:`wanted`): gravity boards of at least
``BOARD_BUILD_MIN_CELLS`` cells (a runtime setting) and ``k >= 4``, where a solve is long enough to repay a
compile of its own (once: the build is cached on disk like every kernel); the
generic build serves the others. ``PARALLEL_MNK_BOARD_KERNELS`` overrides it:
``off`` (the generic build everywhere), ``all`` (every gravity board), ``auto``
(the default).

Where builds live (:func:`builds_root`): ``$NUMBA_CACHE_DIR/parallel_mnk-boards``
when numba's cache is redirected (so that an empty cache means everything is
compiled again), else ``$XDG_CACHE_HOME/parallel_mnk/boards`` (``~/.cache``), in a
folder of each checkout of the package (as numba keeps the caches of each source
folder apart): two checkouts of other sources never remove each other's builds.
A build's package name carries a fingerprint of the kernel sources it copies:
an edited kernel gives a new package, and the builds of older sources of the
same board (in the same checkout's folder) are removed when it is made.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np

from ..game.rules import GameSpec, MnkError
from ..kernels.core import layout as L
from . import cache_guard
from ..api.settings import current

KERNELS_DIR = Path(__file__).resolve().parents[1] / "kernels"
FAMILY = "gravity"          # the family that has per-board builds
ENV = "PARALLEL_MNK_BOARD_KERNELS"
MODES = ("auto", "all", "off")
VALUES_MODULE = "board_values.py"


def mode() -> str:
    """The policy in force: ``auto``, ``all`` or ``off`` (:data:`ENV`; MnkError, a
    one-line message for the user, on anything else)."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value not in MODES:
        raise MnkError(f"{ENV}={value!r} is not a policy: use one of {', '.join(MODES)}")
    return value


# k of 3 or less: won in a few hundred nodes on any board, never worth a compile of its own
BUILD_MIN_K = 4


def wanted(spec: GameSpec) -> bool:
    """Whether an exact solve of ``spec`` uses a per-board build (module docstring)."""
    if not spec.gravity:
        return False
    m = mode()
    return m == "all" or (m == "auto" and spec.cells >= current().BOARD_BUILD_MIN_CELLS and spec.k >= BUILD_MIN_K)


def available(spec: GameSpec) -> bool:
    """Whether ``spec``'s build is there or could be made now (:func:`ensure`); False
    when its folder cannot be written, and then the generic build serves. Asked once
    per board and process."""
    if spec not in _available:
        try:
            ensure(spec)
            _available[spec] = True
        except OSError:
            _available[spec] = False
    return _available[spec]


_available: dict[GameSpec, bool] = {}


def board_tag(spec: GameSpec) -> str:
    """The board's part of a family name: ``7x6k4``."""
    return f"{spec.cols}x{spec.rows}k{spec.k}"


def family_name(spec: GameSpec) -> str:
    """The name of ``spec``'s per-board family: ``gravity@7x6k4``."""
    return f"{FAMILY}@{board_tag(spec)}"


def spec_of(name: str) -> GameSpec:
    """The gravity board of a per-board family name (ValueError if it is not one)."""
    family, _, tag = name.partition("@")
    try:
        cols, rest = tag.split("x")
        rows, k = rest.split("k")
        spec = GameSpec(int(cols), int(rows), int(k), True)
        spec.require_exact()   # at most 64 cells: what the bitboard kernels hold
    except ValueError:
        raise ValueError(f"unknown kernel family {name!r}") from None
    if family != FAMILY or board_tag(spec) != tag:
        raise ValueError(f"unknown kernel family {name!r}")
    return spec


def builds_root() -> Path:
    """The folder the per-board packages of this checkout are generated in (module docstring)."""
    checkout = hashlib.sha256(str(KERNELS_DIR).encode()).hexdigest()[:12]
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return Path(numba_dir) / "parallel_mnk-boards" / checkout
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "parallel_mnk" / "boards" / checkout


def _folders() -> list[Path]:
    """The kernel folders a build copies: the family's and those it imports."""
    return cache_guard.closure(KERNELS_DIR / FAMILY)


def package_name(spec: GameSpec) -> str:
    """The Python package of ``spec``'s build: board and source fingerprint."""
    fingerprint = cache_guard.source_fingerprint(_folders())[:12]
    return f"pmnk_{FAMILY}_{board_tag(spec)}_{fingerprint}"


def entry_module(spec: GameSpec) -> str:
    """The module of the build's entry points, its package made and importable
    (:func:`ensure`)."""
    return f"{ensure(spec)}.{FAMILY}.entry"


def ensure(spec: GameSpec, root: Optional[Path] = None) -> str:
    """Generate ``spec``'s build under ``root`` (default :func:`builds_root`) unless it
    is there, put ``root`` on ``sys.path``, and return the package name. Safe when
    several processes do it at once (each writes a folder of its own and renames
    it into place)."""
    root = root or builds_root()
    name = package_name(spec)
    target = root / name
    if not (target / "__init__.py").is_file():
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
        try:
            _write_package(spec, staging)
            try:
                staging.rename(target)
            except OSError:   # another process made it first
                if not (target / "__init__.py").is_file():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        _remove_older(root, spec, name)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return name


def _write_package(spec: GameSpec, out: Path) -> None:
    """The build's files under ``out``: the copied kernel folders, ``board.py``
    replaced, ``board_values.py`` written."""
    (out / "__init__.py").write_text(f'"""Per-board build of the gravity search for {board_tag(spec)} '
                                     '(generated by parallel_mnk.runtime.boards; do not edit)."""\n')
    for folder in _folders():
        dest = out / folder.name
        dest.mkdir()
        for path in sorted(folder.glob("*.py")):
            shutil.copyfile(path, dest / path.name)
    core = out / "core"
    shutil.copyfile(core / "board_constant.py", core / "board.py")
    (core / VALUES_MODULE).write_text(values_source(spec))


def _remove_older(root: Path, spec: GameSpec, keep: str) -> None:
    """Remove the builds of ``spec`` made from other kernel sources."""
    prefix = f"pmnk_{FAMILY}_{board_tag(spec)}_"
    for path in root.glob(prefix + "*"):
        if path.name != keep and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def _array(values: np.ndarray) -> str:
    return "np.array([" + ", ".join(str(int(v)) for v in values) + "], dtype=np.uint64)"


def values_source(spec: GameSpec) -> str:
    """The text of a build's ``core/board_values.py``: the slots of ``spec``'s
    kernel context that ``core/board.py`` reads, as constants."""
    from ..game.geometry import build_context

    ctx = build_context(spec)
    pre = ctx[L.OFF_PRE:L.OFF_PRE + L.N_DIR * 2 * (L.MAX_CELLS + 1)]
    shift = ctx[L.OFF_SHIFT:L.OFF_SHIFT + L.N_DIR * (L.MAX_CELLS + 1)]
    static = ctx[L.OFF_STATIC:L.OFF_STATIC + L.MAX_CELLS]
    return "\n".join([
        f'"""The geometry of {board_tag(spec)} with gravity, from its kernel context (generated)."""',
        "import numpy as np",
        "",
        f"BOARD = ({spec.cols}, {spec.rows}, {spec.k}, True)",
        f"COLS = np.uint64({int(ctx[L.C_COLS])})",
        f"ROWS = np.int64({int(ctx[L.C_ROWS])})",
        f"K = np.int64({int(ctx[L.C_K])})",
        f"CELLS = np.int64({int(ctx[L.C_CELLS])})",
        f"NSYM = np.int64({int(ctx[L.C_NSYM])})",
        f"BOARD_MASK = np.uint64({int(ctx[L.C_BOARD])})",
        f"BOTTOM = np.uint64({int(ctx[L.C_BOTTOM])})",
        f"EVEN = np.uint64({int(ctx[L.C_EVEN])})",
        f"PRE = {_array(pre)}",
        f"SHIFT = {_array(shift)}",
        f"STATIC = {_array(static)}",
        "",
    ])
