"""Big boards: exact answers past 64 cells (bench/README.md, "Big boards").

Each position is solved by a fresh ``parallel-mnk solve --json`` process (search
time from its JSON, the kernels' start-up apart), one worker unless asked, by the
big-board search (``--prover search``: weak free solves past 64 cells go to the pn
prover by default, measured by :mod:`.suite_big_pn` and :mod:`.suite_pn_budgets`):

* ``fours``: k=5 positions on 9x9 to 19x19 whose side to move wins by 3-14
  continuous fours (:func:`.big_positions.fours_positions`), weak, with
  ``--certificate``; each certificate checked by the checker as a whole process
  (:func:`.suite_certificates.check`): solved share, seconds, nodes, bytes, check seconds;
* ``threats``: 15x15 positions that need threes too (threat-space search), the same;
* ``wide``: 9x8, 8x9, 10x7 Connect Four positions with 9-13 empty cells, weak
  within ``--time-limit 30``, each value compared with naive.py's plain minimax.
A row per position; ``ok`` says whether it met its target (solved in time, the
certificate verified, the value naive.py's).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from parallel_mnk import GameSpec, Position

from . import common
from .big_positions import endgames, fours_positions, threes_positions
from .suite_certificates import check

FOURS_SIZES = [9, 11, 13, 15, 17, 19]
WIDE = [GameSpec(9, 8, 4, True), GameSpec(8, 9, 4, True), GameSpec(10, 7, 4, True)]
TIME_LIMIT = 30.0
SEED = 2026


def _solve(pos: Position, workers: int, *extra: str, timeout: float = 600) -> dict:
    """A fresh ``parallel-mnk solve --json`` of ``pos``: its JSON, or ``error``."""
    spec = pos.spec
    argv = [sys.executable, "-m", "parallel_mnk", "solve", "--cols", str(spec.cols), "--rows", str(spec.rows),
            "--k", str(spec.k), *(["--gravity"] if spec.gravity else []), "--board", pos.board_text(), "--weak",
            "--json", "--workers", str(workers), *extra]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer in {timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if not lines:
        return {"error": proc.stderr.strip()[-200:]}
    return json.loads(lines[-1])


def _certified_row(suite: str, case: str, pos: Position, workers: int, log) -> dict:
    """Solve ``pos`` with a certificate and check it."""
    with tempfile.TemporaryDirectory() as tmp:
        answer = _solve(pos, workers, "--certificate", tmp, "--prover", "search")
        row = {"suite": "big", "case": f"{suite} {case}", "stones": pos.ply, "value": answer.get("value"),
               "proof": answer.get("proof"), "time_s": answer.get("time_s"), "nodes": answer.get("nodes"),
               "workers": workers}
        files = sorted(Path(tmp).glob("*.jsonl.xz"))
        if "error" in answer or not files:
            row.update(ok=False, error=answer.get("error", "no certificate"))
        else:
            row["bytes"] = files[0].stat().st_size
            row.update(check(files[0]))
            row["ok"] = row["value"] == "win" and "error" not in row and row["time_s"] <= TIME_LIMIT
    log(f"  {row}")
    return row


def _wide_row(pos: Position, workers: int, log) -> dict:
    """Solve ``pos`` weak within the time limit and compare with naive.py."""
    sys.path.insert(0, str(common.REPO / "tests"))
    from naive import naive_score   # the independent reference (tests/naive.py)
    answer = _solve(pos, workers, "--time-limit", str(TIME_LIMIT))
    truth = naive_score(pos.spec, pos.x, pos.o)
    want = "win" if truth > 0 else "loss" if truth < 0 else "draw"
    row = {"suite": "big", "case": f"wide {pos.spec.describe()}", "empty": pos.spec.cells - pos.ply,
           "value": answer.get("value"), "naive": want, "time_s": answer.get("time_s"),
           "nodes": answer.get("nodes"), "workers": workers, "ok": answer.get("value") == want}
    log(f"  {row}")
    return row


def run(quick: bool = False, workers: int = 1, log=print) -> list[dict]:
    """The rows of the suite (module docstring); ``quick``: 15x15 and 9x8 only, fewer positions."""
    rows = []
    per_size = 3 if quick else 10
    for size in [15] if quick else FOURS_SIZES:
        for i, (pos, fours) in enumerate(fours_positions(size, per_size, seed=SEED + size)):
            rows.append(_certified_row("fours", f"{size}x{size} #{i} ({fours} fours)", pos, workers, log))
    for i, (pos, threes) in enumerate(threes_positions(15, 2 if quick else 6, seed=SEED)):
        rows.append(_certified_row("threats", f"15x15 #{i} ({threes} threes)", pos, workers, log))
    for spec in WIDE[:1] if quick else WIDE:
        for pos in endgames(spec, 3 if quick else 10, seed=SEED, empty=(9, 13)):
            rows.append(_wide_row(pos, workers, log))
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """One line per kind and board: positions, share that met the target, seconds (median, max)."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        if r["suite"] == "big":
            kind = " ".join(r["case"].split()[:2])
            groups.setdefault(kind, []).append(r)
    out = []
    for kind, rs in groups.items():
        times = sorted(r["time_s"] for r in rs if r.get("time_s") is not None)
        sizes = sorted(r["bytes"] for r in rs if r.get("bytes") is not None)
        checks = [r["check_s"] for r in rs if r.get("check_s") is not None]
        out.append({"case": kind, "positions": len(rs), "ok": f"{sum(bool(r.get('ok')) for r in rs)}/{len(rs)}",
                    "median_s": times[len(times) // 2] if times else None, "max_s": times[-1] if times else None,
                    "median_bytes": sizes[len(sizes) // 2] if sizes else None,
                    "max_check_s": max(checks) if checks else None})
    return out
