"""Certificates: writing a solved value's mnk-proof/1 files and checking them
(README "Certificates", bench/README.md "Certificates").

For each board: a weak solve (in this process, 1 worker, its time apart), then the
extraction of each claim the value needs (``prover.certificate.extract``: records,
``m`` and ``pairs`` records, positions walked, leaves the checker's rules settle,
search nodes, depth, bytes, seconds), then the checker on each file as a whole
process (``python -m parallel_mnk.proofcheck``: its seconds, positions, positions a
second and peak memory). A row whose check did not print ``verified`` carries
``error``.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.engines.provers.certificate import claims_of, extract
from parallel_mnk.entrance import shutdown
from parallel_mnk import Options

from . import common

# (case, spec): empty boards, weak values
QUICK = [
    ("(5,5,4)", GameSpec(5, 5, 4)),
    ("(6,6,5)", GameSpec(6, 6, 5)),
    ("(7,7,5)", GameSpec(7, 7, 5)),
    ("(4,7,4)", GameSpec(4, 7, 4)),
]
FULL = QUICK + [
    ("(4,8,4)", GameSpec(4, 8, 4)),
    ("(4,9,4)", GameSpec(4, 9, 4)),
]
TT_BITS = 24


# the checker alone, as a copy of its folder runs (``python -m proofcheck``): the solver's package (numpy,
# numba) is not imported, so the peak is the checker's own (VmHWM: ru_maxrss would keep the forking
# parent's peak across exec)
CHECKER = ("import sys\nsys.path.insert(0, sys.argv.pop(1))\nfrom proofcheck import main\n"
           "rc = main(sys.argv[1:])\n"
           "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
           "print('peak_kb', peak[0] if peak else '', file=sys.stderr)\nsys.exit(rc)")


def check(path: Path) -> dict:
    """The checker on ``path`` as a whole process, from a copy of its folder beside
    the file: seconds, its verdict line, peak RSS."""
    copy = path.parent / "checker"
    if not copy.exists():
        shutil.copytree(common.REPO / "parallel_mnk" / "proofcheck", copy / "proofcheck",
                        ignore=shutil.ignore_patterns("__pycache__"))
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHECKER, str(copy), str(path)], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak = [line.split()[1] for line in proc.stderr.splitlines()
            if line.startswith("peak_kb ") and len(line.split()) > 1]
    row = {"check_s": round(seconds, 2), "check_peak_mb": round(int(peak[0]) / 1024) if peak else None}
    first = (proc.stdout.splitlines() or [proc.stderr.strip()])[0]
    if not first.startswith("verified:"):
        row["error"] = first[:200]
        return row
    positions = int(first.split("(")[-1].split()[0])
    row.update(checked_positions=positions, check_positions_per_s=round(positions / seconds))
    return row


def run_board(case: str, spec: GameSpec, log=print) -> list[dict]:
    """The rows of one board: one per claim of its value."""
    pos = Position(spec)
    started = time.perf_counter()
    result = solve(pos, weak=True, options=Options(pv=False, tt_size=8 << TT_BITS, workers=1))
    solve_s = time.perf_counter() - started
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for attacker, claim in claims_of(pos, result.value):
            cert = extract(pos, attacker, claim, Path(tmp), TT_BITS)
            row = {"suite": "certificates", "case": case, "value": result.value.name.lower(),
                   "claim": f"{attacker} {claim}", "solve_s": round(solve_s, 2), "solve_nodes": result.nodes,
                   "records": cert.records, "move_records": cert.moves, "pairing_records": cert.pairings,
                   "positions": cert.positions, "rule_leaves": cert.leaves, "search_nodes": cert.nodes,
                   "depth": cert.depth, "bytes": cert.path.stat().st_size, "extract_s": round(cert.seconds, 2)}
            row.update(check(cert.path))
            log(f"  {case} {attacker} {claim}: {row}")
            rows.append(row)
    return rows


def run(quick: bool = False, log=print) -> list[dict]:
    """The rows of the suite (module docstring)."""
    rows = []
    try:
        for case, spec in QUICK if quick else FULL:
            rows += run_board(case, spec, log)
    finally:
        shutdown()
    return rows
