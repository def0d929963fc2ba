"""Mutation testing of the modules that decide values, with cosmic-ray (the dev extra).

For each target module, cosmic-ray lists every mutant (an operator changed, a number
replaced, a condition negated, ...); this script keeps a seeded random sample of them,
runs the module's tests on each in a copy of the project (cosmic-ray edits files in
place: never the checkout itself), and prints the share killed, with every survivor's
diff (an equivalent mutant, or a test to write). The tests run per module are a part
of the default run, so a module's figure is a lower bound of what the whole default
run kills.

    python bench/mutation.py                      # every target, 25 mutants each
    python bench/mutation.py --sample 10 --only rules --json out.json --workdir /tmp/mnk-mutation
    python bench/mutation.py --no-jit --only lines node-rules --sample 20   # kernels, no compile a mutant
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -m 'not slow' -n 0"
# name -> (module, the tests of the default run that cover it)
TARGETS = {
    "rules": ("parallel_mnk/game/rules.py", "tests/test_rules.py tests/test_position.py"),
    "split": ("parallel_mnk/parallel/scheduling/split.py", "tests/test_split.py tests/test_resplit.py"),
    "checker": ("parallel_mnk/proofcheck/__init__.py",
                "tests/test_proofcheck.py tests/test_certificates.py tests/test_fuzz_certificates.py"),
    "checker-board": ("parallel_mnk/proofcheck/checked_game.py",
                      "tests/test_proofcheck.py tests/test_certificates.py tests/test_fuzz_certificates.py"),
    "protocol": ("parallel_mnk/frontends/protocol.py", "tests/test_protocol.py"),
    "bounds": ("parallel_mnk/kernels/core/bounds.py", "tests/test_negamax.py tests/test_negamax_contract.py"),
}
# kernel modules that decide values, with the small-board tests that reach them against naive.py: run with
# --no-jit (the kernels plain Python: a mutant compiles nothing, where a compiled one recompiles its family)
KERNEL_TESTS = ("tests/test_negamax.py tests/test_negamax_contract.py tests/test_gravity_search.py "
                "tests/test_solver.py::test_random_positions_match_the_naive_solver tests/test_kernel_paths.py")
TARGETS.update({
    "lines": ("parallel_mnk/kernels/core/lines.py", KERNEL_TESTS),
    "node-rules": ("parallel_mnk/kernels/core/node_rules.py", KERNEL_TESTS),
    "gravity-search": ("parallel_mnk/kernels/gravity/search.py", KERNEL_TESTS),
    "free-search": ("parallel_mnk/kernels/free/search.py", KERNEL_TESTS),
})


def copy_project(to: Path) -> None:
    """The tracked files of the checkout (as they are now) under ``to``."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, to / name)


def sample_session(session: Path, size: int, seed: int) -> int:
    """Keep ``size`` of the session's mutants, drawn with ``seed``; returns how many there were."""
    with sqlite3.connect(session) as db:
        ids = sorted(row[0] for row in db.execute("SELECT job_id FROM work_items"))
        drop = set(ids) - set(random.Random(seed).sample(ids, min(size, len(ids))))
        for table in ("mutation_specs", "work_results", "work_items"):
            db.executemany(f"DELETE FROM {table} WHERE job_id = ?", [(i,) for i in drop])
    return len(ids)


def run_target(name: str, copy: Path, size: int, seed: int, timeout: float) -> dict:
    """Mutants of one target: how many exist, and the sample's outcomes (survivors' diffs)."""
    module, tests = TARGETS[name]
    config, session = copy / f"cr-{name}.toml", copy / f"cr-{name}.sqlite"
    config.write_text(f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = {timeout}\nexcluded-modules = []\n'
                      f'test-command = "{PYTEST} {tests}"\n\n[cosmic-ray.distributor]\nname = "local"\n')
    session.unlink(missing_ok=True)
    subprocess.run(["cosmic-ray", "init", str(config), str(session)], cwd=copy, check=True, capture_output=True)
    total = sample_session(session, size, seed)
    began = time.perf_counter()
    subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=copy, check=True, capture_output=True)
    dump = subprocess.run(["cosmic-ray", "dump", str(session)], cwd=copy, check=True, capture_output=True, text=True)
    outcomes: dict[str, int] = {}
    survivors = []
    for line in dump.stdout.splitlines():
        item, result = json.loads(line)
        outcome = (result or {}).get("test_outcome") or (result or {}).get("worker_outcome") or "not run"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "survived":
            survivors.append(result.get("diff", ""))
    killed = outcomes.get("killed", 0)
    decided = killed + outcomes.get("survived", 0)
    return {"target": name, "module": module, "tests": tests, "mutants": total, "sampled": sum(outcomes.values()),
            "outcomes": outcomes, "killed_share": round(killed / decided, 3) if decided else None,
            "seconds": round(time.perf_counter() - began, 1), "survivors": survivors}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=sorted(TARGETS), help="targets (default: all)")
    ap.add_argument("--sample", type=int, default=25, help="mutants per target (default 25)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant's tests (past it: killed)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--workdir", type=Path, help="the project's copy, kept between runs (its numba cache with it); "
                                                 "default: a temporary folder")
    ap.add_argument("--no-jit", action="store_true", help="run the tests with NUMBA_DISABLE_JIT=1: the kernels as "
                                                          "plain Python, no mutant compiled (kernel targets)")
    args = ap.parse_args(argv)
    if args.sample < 1 or args.timeout <= 0:
        ap.error("--sample must be at least 1 and --timeout positive")
    if shutil.which("cosmic-ray") is None:
        print("mutation: cosmic-ray is not installed (pip install -e '.[dev]')", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="mnk-mutation-") as tmp:
        copy = args.workdir or Path(tmp)
        copy.mkdir(parents=True, exist_ok=True)
        copy_project(copy)
        os.environ["PYTHONPATH"] = str(copy)   # the copy's package, never the checkout's (an editable install)
        os.environ["NUMBA_CACHE_DIR"] = str(copy / ".numba-cache")
        if args.no_jit:
            os.environ["NUMBA_DISABLE_JIT"] = "1"
        for name in args.only or sorted(TARGETS):
            row = run_target(name, copy, args.sample, args.seed, args.timeout)
            rows.append(row)
            print(f"{name:14} {row['module']:45} {row['mutants']:5} mutants, {row['sampled']:3} run: "
                  f"{row['outcomes']} killed {row['killed_share']} ({row['seconds']} s)", flush=True)
    killed = sum(r["outcomes"].get("killed", 0) for r in rows)
    decided = killed + sum(r["outcomes"].get("survived", 0) for r in rows)
    print(f"all: {killed} of {decided} mutants killed ({killed / max(decided, 1):.1%})")
    for r in rows:
        for diff in r["survivors"]:
            print(f"\n--- survivor in {r['module']}\n{diff}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "killed": killed, "decided": decided}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
