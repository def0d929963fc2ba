"""Cold start: what numba's compile costs a first run, per family of kernels and for
whole commands, with an empty cache (cold) and then with that cache filled (warm).

Every figure is a fresh process with its own ``NUMBA_CACHE_DIR`` (an empty
temporary folder for the cold run, the same folder for the warm one), so what
the machine's own cache holds never counts. Rows:

* ``startup`` per family (:mod:`parallel_mnk.runtime.families`): the wall time of a
  process that loads that family alone, and ``in_process_s``, the load itself;
* ``startup`` ``all families`` (not with ``--quick``): every family at once, as
  the test run and CI warm-up load them (the missing ones in parallel processes);
* ``startup-cli`` (not with ``--quick``): whole ``parallel-mnk`` commands of the
  cold-start issue, cold and warm;
* ``compile`` (not with ``--quick``): one cold process loading every family one
  after another, per kernel: numba's own compile events, exclusive of the
  compiles nested in it (:mod:`bench.compile_profile`): front end (numba's
  Python passes) and LLVM.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Optional

from .common import REPO

FAMILIES = ["gravity", "free", "proofs", "pns", "grid", "big", "expand", "book_search"]
CLI_COMMANDS = [
    ("connect4 4453 (README), default workers", ["solve", "--game", "connect4", "--moves", "4453"]),
    ("connect4 4453, 1 worker", ["solve", "--game", "connect4", "--moves", "4453", "--workers", "1"]),
    ("connect4 4453, 2 workers", ["solve", "--game", "connect4", "--moves", "4453", "--workers", "2"]),
    ("connect4 4453, no book, default workers", ["solve", "--game", "connect4", "--moves", "4453", "--book", "none"]),
    ("connect4 4453, no book, 1 worker", ["solve", "--game", "connect4", "--moves", "4453", "--book", "none",
                                          "--workers", "1"]),
    ("tictactoe, default workers", ["solve", "--game", "tictactoe", "--moves", ""]),
    ("5x5 k4 c3 weak, 1 worker", ["solve", "--cols", "5", "--rows", "5", "--k", "4", "--moves", "c3", "--weak",
                                  "--workers", "1"]),
    ("5x5 k4 c3 weak, 2 workers", ["solve", "--cols", "5", "--rows", "5", "--k", "4", "--moves", "c3", "--weak",
                                   "--workers", "2"]),
]
LOAD = ("import sys, time; t = time.perf_counter(); from parallel_mnk.runtime import families; "
        "families.load(*sys.argv[1:]); print(time.perf_counter() - t)")


def _env(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run(argv: list[str], cache_dir: str) -> tuple[float, str]:
    """Wall seconds of a fresh process (raises with its stderr when it fails) and its stdout."""
    t = time.perf_counter()
    proc = subprocess.run(argv, env=_env(cache_dir), capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])}... failed: {proc.stderr.strip()[-500:]}")
    return wall, proc.stdout


def family_rows(names: list[str], case: Optional[str] = None, log=print) -> list[dict]:
    """Cold then warm process loading the families ``names`` (one row each)."""
    case = case or " + ".join(names)
    rows = []
    with tempfile.TemporaryDirectory() as cache_dir:
        for state in ("cold", "warm"):
            wall, out = _run([sys.executable, "-c", LOAD, *names], cache_dir)
            rows.append({"suite": "startup", "case": case, "cache": state, "time_s": wall,
                         "in_process_s": float(out.strip().splitlines()[-1])})
            log(f"startup: {case}: {state} {wall:.2f} s (load {rows[-1]['in_process_s']:.2f} s)")
    return rows


def cli_rows(log=print) -> list[dict]:
    """Cold then warm whole ``parallel-mnk`` commands (:data:`CLI_COMMANDS`)."""
    rows = []
    for case, args in CLI_COMMANDS:
        with tempfile.TemporaryDirectory() as cache_dir:
            for state in ("cold", "warm"):
                wall, out = _run([sys.executable, "-m", "parallel_mnk", *args], cache_dir)
                startup = next((float(w) for line in out.splitlines() if "start-up:" in line
                                for w in line.split("start-up:")[1].split()[:1]), 0.0)
                rows.append({"suite": "startup-cli", "case": case, "cache": state, "time_s": wall,
                             "in_process_s": startup})
                log(f"startup-cli: {case}: {state} {wall:.2f} s (kernel start-up {startup:.2f} s)")
    return rows


def compile_rows(log=print) -> list[dict]:
    """Per kernel, one cold process compiling every family in turn (:mod:`bench.compile_profile`)."""
    with tempfile.TemporaryDirectory() as cache_dir:
        _, out = _run([sys.executable, "-m", "bench.compile_profile", *FAMILIES], cache_dir)
    rows = [dict(r, suite="compile") for r in json.loads(out)]
    total = sum(r["exclusive_s"] for r in rows)
    log(f"compile: {len(rows)} kernels, {total:.1f} s in all (front end "
        f"{sum(r['front_end_s'] for r in rows):.1f} s, LLVM {sum(r['llvm_s'] for r in rows):.1f} s)")
    return rows


def run(quick: bool = False, families: Optional[list[str]] = None, log=print) -> list[dict]:
    """The rows of the suite (module docstring); ``families``: only those, one at a time."""
    rows = []
    for name in families or FAMILIES:
        rows += family_rows([name], log=log)
    if not quick and families is None:
        rows += family_rows(FAMILIES, "all families", log=log)
        rows += cli_rows(log)
        rows += compile_rows(log)
    return rows
