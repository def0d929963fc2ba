"""The kernel families: which compiled kernels each part of the solver needs, and
loading them once per process, from numba's on-disk cache or by compiling what is
missing.

| family | kernels | needed by |
|---|---|---|
| ``gravity`` | ``kernels/gravity`` | exact solves of gravity boards (Connect Four) |
| ``free`` | ``kernels/free`` (+ ``proofs/pairing``, ``proofs/threats``) | exact solves of free-placement boards |
| ``proofs`` | ``kernels/proofs`` | df-pn, pairing certificates and VCF (:mod:`parallel_mnk.engines.provers`) |
| ``pns`` | ``kernels/pns`` (+ ``proofs/pairing``, ``proofs/threats``) | the proof-number prover with zones (:mod:`parallel_mnk.engines.provers.pns`) |
| ``grid`` | ``kernels/grid`` | the array board and the depth-limited engine (``best``, big boards in ``play``/``serve``) |
| ``big`` | ``kernels/big`` (+ ``grid``, the array board) | exact solves of boards past 64 cells |
| ``expand`` | ``kernels/expand`` | a parallel solve's split expansion |
| ``book_search`` | ``kernels/book_search`` | searching Connect Four down to Thill's 12-ply database (:mod:`parallel_mnk.engines.books.thill`) |
| ``gravity@7x6k4`` | a per-board build of ``gravity`` (:mod:`.boards`) | exact solves of that board |

Each family's ``entry.py`` (``kernels/<family>/entry.py``) names its entry points and their one signature
(``SIGNATURES``); :func:`load` compiles (or loads) exactly those, then forbids
numba to compile any other signature of them, so a caller passing other types
fails at once instead of compiling a second copy. Whatever has to be compiled
says so on stderr in one line. On several cores the compile is shared out
between processes into the same cache (numba's compiler lock is per process, its
cache files are written atomically): the missing families, and the *parts* a
family declares (``PARTS`` in its ``entry.py``: the helpers its entry points
call, with their signatures), compiled first so that the entry points' own
compile, last, loads them from the cache.
"""
from __future__ import annotations

import functools
import importlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Iterable, Optional, TextIO

from ..api.options import SolveOptions
from ..game.position import Position
from ..game.rules import GameSpec
from . import boards

PACKAGE_DIR = Path(__file__).resolve().parents[1]
KERNELS_DIR = PACKAGE_DIR / "kernels"


@dataclass(frozen=True)
class Family:
    """A family of kernels: its ``name``, what it is (for the compile message), the
    module of its entry points, and the seconds its cold compile takes (relative
    weights, from bench/README.md's "Cold start"), to share a compile out between
    processes."""

    name: str
    what: str
    module: str
    cost: float


FAMILIES = {f.name: f for f in (
    Family("gravity", "gravity search", "parallel_mnk.kernels.gravity.entry", 10.0),
    Family("free", "free-placement search", "parallel_mnk.kernels.free.entry", 10.0),
    Family("proofs", "proof", "parallel_mnk.kernels.proofs.entry", 5.0),
    Family("pns", "proof-number prover", "parallel_mnk.kernels.pns.entry", 20.0),
    Family("grid", "array-board", "parallel_mnk.kernels.grid.entry", 9.0),
    Family("big", "big-board search", "parallel_mnk.kernels.big.entry", 2.0),
    Family("expand", "split expansion", "parallel_mnk.kernels.expand.entry", 1.5),
    Family("book_search", "book search", "parallel_mnk.kernels.book_search.entry", 2.0),
)}

CONNECT_FOUR = GameSpec(7, 6, 4, True)   # its per-board build is part of load_all (warm-up, tests)

_board_families: dict[str, Family] = {}   # the per-board builds met in this process
_loaded: set[str] = set()
_guarded: set[str] = set()   # kernel folders whose cache was checked in this process
announce_to: Optional[TextIO] = None   # where the compile message goes (None: sys.stderr at the time)


def family(name: str) -> Family:
    """The family called ``name``: one of :data:`FAMILIES`, or a per-board build
    ``gravity@<cols>x<rows>k<k>`` (:mod:`.boards`, generated here when missing).
    ValueError for any other name."""
    if name in FAMILIES:
        return FAMILIES[name]
    if name not in _board_families:
        if "@" not in name:
            raise ValueError(f"unknown kernel family {name!r}")
        spec = boards.spec_of(name)
        what = "Connect Four" if spec == CONNECT_FOUR else f"{spec.cols}x{spec.rows} k={spec.k} gravity"
        _board_families[name] = Family(name, f"{what} search", boards.entry_module(spec),
                                       FAMILIES[boards.FAMILY].cost)
    return _board_families[name]


def is_family(name: str) -> bool:
    """Whether ``name`` names a family (:func:`family`), without generating anything."""
    if name in FAMILIES:
        return True
    try:
        boards.spec_of(name)
    except ValueError:
        return False
    return True


def exact_family(spec: GameSpec) -> str:
    """The family that solves ``spec`` exactly: the gravity search (its per-board
    build where :func:`.boards.wanted` and it can be made) or the free-placement search."""
    if boards.wanted(spec) and boards.available(spec):
        return boards.family_name(spec)
    return "gravity" if spec.gravity else "free"


def for_solve(spec: GameSpec, opts: SolveOptions = SolveOptions(), position: Optional[Position] = None) -> list[str]:
    """The families an exact solve of ``spec`` (of ``position``, when given) with ``opts``
    needs: the exact search of ``spec`` (:func:`exact_family`), df-pn's where the solve
    may ask it first (:meth:`SolveOptions.may_ask_dfpn`), the pool's where it runs on
    workers (:attr:`SolveOptions.parallel`); past 64 cells the array board's and the
    big-board search's."""
    if not spec.exact_solvable:   # past 64 cells: the array board's search, on one process or several
        return ["grid", "big"]
    return ([exact_family(spec)] + (["proofs"] if opts.may_ask_dfpn(spec, position) else [])
            + (["pns"] if opts.may_ask_pn(spec) else [])
            + (["expand"] if opts.parallel else []))


@dataclass(frozen=True)
class Loaded:
    """What :func:`load_for_solve` made ready: the ``families`` in order, and the
    ``seconds`` it took (0 when all were loaded before in this process)."""

    families: tuple[str, ...]
    seconds: float


def load_for_solve(spec: GameSpec, opts: SolveOptions = SolveOptions(), announce: bool = True,
                   position: Optional[Position] = None) -> Loaded:
    """Load every family an exact solve of ``spec`` (of ``position``, when given) with
    ``opts`` runs (:func:`for_solve`; :func:`load`): the one call the front ends make
    before a solve. A compile says that it is not counted in the solve's time limit,
    if it has one."""
    names = for_solve(spec, opts, position)
    return Loaded(tuple(names), load(*names, announce=announce, aside=outside_the_limit(opts.limit.time)))


def outside_the_limit(seconds: Optional[float]) -> str:
    """The words a compile's line adds when a search with a time limit of ``seconds``
    waits for it: the limit starts after it ("" without a limit)."""
    return "" if seconds is None else f"not counted in the {seconds:g} s time limit"


# ------------------------------------------------------------------ the engines' kernels
# Each returns a family's entry-point module, loaded: an engine names the kernels it calls here.
def exact_kernels(spec: GameSpec) -> ModuleType:
    """The exact search of ``spec``: ``kernels/gravity/entry.py``, its per-board build
    (a generated package, imported by name) or ``kernels/free/entry.py``."""
    name = exact_family(spec)
    load(name)
    if name == "gravity":
        from ..kernels.gravity import entry as gravity
        return gravity
    if name == "free":
        from ..kernels.free import entry as free
        return free
    return importlib.import_module(family(name).module)


def proof_kernels() -> ModuleType:
    """df-pn and the proof finders: ``kernels/proofs/entry.py``."""
    load("proofs")
    from ..kernels.proofs import entry as proofs
    return proofs


def pns_kernels() -> ModuleType:
    """The proof-number prover: ``kernels/pns/entry.py``."""
    load("pns")
    from ..kernels.pns import entry as pns
    return pns


def big_kernels() -> ModuleType:
    """The exact search of boards past 64 cells: ``kernels/big/entry.py`` (with the
    array board's kernels, ``kernels/grid``)."""
    load("grid", "big")
    from ..kernels.big import entry as big
    return big


def expand_kernels() -> ModuleType:
    """A parallel solve's split expansion: ``kernels/expand/entry.py``."""
    load("expand")
    from ..kernels.expand import entry as expand
    return expand


def book_search_kernels() -> ModuleType:
    """The search down to Thill's database: ``kernels/book_search/entry.py``."""
    load("book_search")
    from ..kernels.book_search import entry as book_search
    return book_search


def entries(name: str) -> ModuleType:
    """The entry-point module of family ``name``, loaded (:func:`load`); for code
    that takes a family by name (warm-up, tests): an engine calls its own above."""
    load(name)
    return importlib.import_module(family(name).module)


def load(*names: str, announce: bool = True, aside: str = "") -> float:
    """Make the families ``names`` ready in this process: from numba's cache, or
    compiled (the missing ones in parallel processes when there are several,
    with one line on stderr while it lasts when ``announce``, ``aside`` in its
    parentheses). Once per family
    and process; returns the seconds it took (0 when all were loaded before)."""
    todo = [n for n in dict.fromkeys(names) if n not in _loaded]
    if not todo:
        return 0.0
    known_families = {n: family(n) for n in todo}   # ValueError for an unknown name
    started = time.perf_counter()
    modules = {n: importlib.import_module(known_families[n].module) for n in todo}
    known = cached(*todo)
    missing = [n for n in todo if n not in known]
    steps = _compile_steps(missing, _cpus()) if missing else []
    line = _Announcement(missing, max((len(step) for step in steps), default=1), announce, aside)
    children: list[subprocess.Popen] = []
    try:
        for here, *elsewhere in steps:
            children = [_compile_in_child(group) for group in elsewhere]
            for unit in here:
                _compile_unit(unit)
            for proc in children:
                proc.wait()
            children = []
        for n in todo:
            _compile(modules[n])   # from the cache the steps wrote (or here, if a child failed)
    except BaseException:
        for proc in children:
            proc.kill()
        line.done(failed=True)
        raise
    line.done()
    _loaded.update(todo)
    return time.perf_counter() - started


def cached(*names: str) -> set[str]:
    """Which of the families ``names`` are loaded or would load from numba's cache
    (nothing to compile); checks the cache's freshness first (:func:`load`)."""
    _guard_cache(list(names))
    out = set()
    for name in names:
        module = importlib.import_module(family(name).module)
        if name in _loaded or all(_is_cached(f, args) for f, args in _signatures(module)):
            out.add(name)
    return out


def all_names() -> list[str]:
    """Every family, with the per-board build of Connect Four when the policy gives
    it one (:func:`.boards.wanted`)."""
    return list(FAMILIES) + ([boards.family_name(CONNECT_FOUR)] if boards.wanted(CONNECT_FOUR) else [])


def load_all(announce: bool = True) -> float:
    """Every family of :func:`all_names` (the test run's and CI's warm-up): see :func:`load`."""
    return load(*all_names(), announce=announce)


# ------------------------------------------------------------------ compiling
def _signatures(module: ModuleType) -> list[tuple]:
    """``(dispatcher, argument types)`` of each entry point of a family module."""
    from numba.core import sigutils

    out = []
    for name, sig in module.SIGNATURES.items():
        args, _ = sigutils.normalize_signature(sig)
        out.append((getattr(module, name), tuple(args)))
    return out


def _jit_disabled() -> bool:
    from numba.core import config

    return bool(getattr(config, "DISABLE_JIT", False))


def _compile(module: ModuleType) -> None:
    """Compile (or load from the cache) every entry point of ``module`` for its
    signature, then forbid other signatures."""
    if _jit_disabled():
        return
    for dispatcher, args in _signatures(module):
        if args not in dispatcher.overloads:   # (an entry point two families share is compiled once)
            dispatcher.compile(args)
        dispatcher.disable_compile()


def _is_cached(dispatcher, args: tuple) -> bool:
    """Whether numba would load ``dispatcher`` for ``args`` from its cache (or has
    it in memory) rather than compile it. False when that cannot be told."""
    if _jit_disabled() or args in dispatcher.overloads:
        return True
    try:
        cache = dispatcher._cache
        key = cache._index_key(args, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:   # numba's internals moved: assume it compiles (the message is then just a note)
        return False


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _parts(name: str) -> tuple:
    """The parts family ``name`` declares (its entry module's ``PARTS``: helper kernels,
    each with the one signature its entry points call it with and a relative cost), or
    none."""
    return tuple(getattr(importlib.import_module(family(name).module), "PARTS", ()))


def _compile_steps(missing: list[str], cpus: int) -> list[list[list[str]]]:
    """How the families ``missing`` are compiled: steps one after the other, each a list
    of at most ``cpus`` groups of *units* compiled in parallel processes (the first
    group this process's). A unit is a family (its entry points) or ``"name#i"``, the
    ``i``-th of its parts. With one core, or no family declaring parts, one step of
    the families. Else two: the parts (and some families that declare none), then the
    entry points of the families with parts, which load their parts from the cache,
    beside each other family that lengthens that step by less than its share of the
    first (its cost over ``cpus``)."""
    in_parts = [n for n in missing if cpus > 1 and _parts(n)]
    if not in_parts:
        return [_share_out(missing, cpus, whole=True)]
    last = _share_out(in_parts, cpus) + [[] for _ in range(cpus - min(cpus, len(in_parts)))]
    loads = [sum(_cost(u) for u in group) for group in last]
    first = [f"{n}#{i}" for n in in_parts for i in range(len(_parts(n)))]
    for name in sorted((n for n in missing if n not in in_parts), key=lambda n: -_cost(n)):
        i = loads.index(min(loads))   # there, the step's time grows by less than its share of the first?
        if loads[i] + _cost(name) - max(loads) < _cost(name) / cpus:
            last[i].append(name)
            loads[i] += _cost(name)
        else:
            first.append(name)
    return [_share_out(first, cpus), [group for group in last if group]]


def _cost(unit: str, whole: bool = False) -> float:
    """The relative cost of compiling ``unit`` (:func:`_compile_steps`): a part's own,
    a family's less its parts' (``whole``: with them)."""
    name, _, part = unit.partition("#")
    parts = () if whole else _parts(name)
    return parts[int(part)][2] if part else max(0.5, family(name).cost - sum(p[2] for p in parts))


def _share_out(units: list[str], cpus: int, whole: bool = False) -> list[list[str]]:
    """The units ``units`` (families, or parts: :func:`_compile_steps`) in at most
    ``cpus`` groups of about equal compile cost (:func:`_cost`, families ``whole``:
    with their parts; the costliest first to the cheapest group); the first group
    is this process's."""
    groups: list[list[str]] = [[] for _ in range(max(1, min(cpus, len(units))))]
    loads = [0.0] * len(groups)
    for unit in sorted(units, key=lambda u: -_cost(u, whole)):
        i = loads.index(min(loads))
        groups[i].append(unit)
        loads[i] += _cost(unit, whole)
    return groups


def _compile_unit(unit: str) -> None:
    """Compile (or load from the cache) ``unit``: a family's entry points
    (:func:`_compile`) or one of its parts, for its signature."""
    name, _, part = unit.partition("#")
    if not part:
        _compile(importlib.import_module(family(name).module))
    elif not _jit_disabled():
        kernel, args, _ = _parts(name)[int(part)]
        if tuple(args) not in kernel.overloads:
            kernel.compile(tuple(args))


def _compile_in_child(units: list[str]) -> subprocess.Popen:
    """Start a process that compiles the units ``units`` (:func:`_compile_steps`) into
    numba's cache."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_DIR.parent)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                                     else []))
    code = "import sys; from parallel_mnk.runtime import families; families.compile_here(sys.argv[1:])"
    return subprocess.Popen([sys.executable, "-c", code, *units], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def compile_here(units: Iterable[str]) -> None:
    """Compile the units ``units`` (families or parts: :func:`_compile_steps`) into
    numba's cache in this process, quietly (what :func:`load` runs in its helper
    processes)."""
    units = list(units)
    _guard_cache(sorted({u.partition("#")[0] for u in units}))
    for unit in units:
        _compile_unit(unit)


def _guard_cache(names: list[str]) -> None:
    """Drop the cached kernels of the folders families ``names`` compile whose
    sources (or the sources they inline) changed, each folder once per process
    (:mod:`.cache_guard`)."""
    from . import cache_guard

    folders: set[str] = set()
    for name in names:
        if name in FAMILIES:   # (a per-board build's package name holds its sources' fingerprint: .boards)
            folders.update(_folders_of(name))
    todo = folders - _guarded
    if todo:
        cache_guard.drop_stale_caches(KERNELS_DIR, only=todo)
        _guarded.update(todo)


@functools.cache
def _folders_of(name: str) -> frozenset[str]:
    """The kernel folders family ``name`` compiles: its own and those it imports (read
    from the sources once per process: :func:`.cache_guard.closure`)."""
    from . import cache_guard

    return frozenset(f.name for f in cache_guard.closure(KERNELS_DIR / FAMILIES[name].module.split(".")[-2]))


class _Announcement:
    """The one stderr line of a compile: ``compiling the gravity search kernels
    (first run only)...`` when it starts, ``done in 9.8 s`` when it ends."""

    def __init__(self, missing: list[str], processes: int, show: bool, aside: str = "") -> None:
        self.stream = (announce_to or sys.stderr) if missing and show else None
        self.started = time.perf_counter()
        if self.stream is not None:
            what = [family(n).what for n in missing]
            names = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
            extra = (f", {processes} processes" if processes > 1 else "") + (f"; {aside}" if aside else "")
            self.stream.write(f"compiling the {names} kernels (first run only{extra})... ")
            self.stream.flush()

    def done(self, failed: bool = False) -> None:
        """End the line: the time it took, or that it was stopped."""
        if self.stream is not None:
            self.stream.write("stopped\n" if failed else f"done in {time.perf_counter() - self.started:.1f} s\n")
            self.stream.flush()
