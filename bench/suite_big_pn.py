"""The proof-number prover past 64 cells against the big-board alpha-beta search.

Positions past 64 cells, weak, each a fresh ``parallel-mnk solve --json`` process
per prover (one worker, ``--time-limit``): ``--prover pn`` (proof-number search
over threats, docs/big-boards.md section 6) and ``--prover search`` (alpha-beta
with threat-space search at the root and VCF at its nodes, section 2). One row per
position and prover: value, nodes, jobs, the solve's time, the command's wall time
(its kernels' load included) and peak memory. The positions: 15x15 and 10x10
games whose win needs threes (``big_positions.threes_positions``) and the 15x15
opening ``h8 a1 i9 a2`` (x two stones up, o's on the edge).

``--workers`` 1 unless ``workers=N,M,...`` is given (then the pn prover once per count,
alpha-beta with the first: the jobs on the pool's processes, one leaf a job).

``python -m bench.suite_big_pn [TIME_LIMIT_S] [workers=1,2] [SETTING=VALUE ...]``
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from .big_positions import threes_positions

TIME_LIMIT_S = 60.0


def cases() -> list[tuple[str, int, str]]:
    """(name, board size, board text) of the suite's positions."""
    from parallel_mnk import GameSpec, Position
    out = [(f"{s}x{s} threes seed {seed} ({need} needed)", s, pos.board_text())
           for s, seed, stones in ((10, 2, (8, 20)), (15, 4, (12, 34)), (15, 9, (12, 34)))
           for pos, need in threes_positions(s, 1, seed=seed, stones=stones)]
    opening = Position.from_moves(GameSpec(15, 15, 5), "h8 a1 i9 a2")
    return out + [("15x15 h8 a1 i9 a2", 15, opening.board_text())]


def solve(size: int | tuple[int, int, int], board: str, prover: str, time_limit: float, settings: tuple[str, ...],
          workers: int = 1) -> dict:
    """One fresh weak solve process on a ``size`` x ``size`` board, k = 5 (or ``(cols,
    rows, k)``): its answer's figures, or ``error``."""
    cols, rows, k = (size, size, 5) if isinstance(size, int) else size
    cmd = [sys.executable, "-m", "parallel_mnk", "solve", "--cols", str(cols), "--rows", str(rows), "--k", str(k),
           "--board", board, "--weak", "--prover", prover, "--time-limit", str(time_limit), "--json",
           "--workers", str(workers)]
    for s in settings:
        cmd += ["--setting", s]
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, text=True)
        out = p.stdout.read() if p.stdout is not None else ""
        _, status, usage = os.wait4(p.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        err = errors.read()
    wall = time.perf_counter() - t
    if code not in (0, 3):
        return {"error": (err.strip().splitlines() or [f"exit {code}"])[-1], "wall_s": wall}
    answer = json.loads(out)
    return {"value": answer["value"], "nodes": answer["nodes"], "time_s": answer.get("time_s"),
            "jobs": (answer.get("parallel") or {}).get("jobs"), "wall_s": round(wall, 2),
            "peak_mb": round(usage.ru_maxrss / 1024, 1)}


def run(time_limit: float = TIME_LIMIT_S, settings: tuple[str, ...] = (), log=print,
        workers: tuple[int, ...] = (1,)) -> list[dict]:
    """Every position by both provers (pn with each count of ``workers``); the rows,
    printed as they come."""
    rows = []
    for name, size, board in cases():
        for prover, count in [("pn", w) for w in workers] + [("search", workers[0])]:
            row = {"position": name, "prover": prover, "workers": count,
                   **solve(size, board, prover, time_limit, settings, count)}
            rows.append(row)
            log(json.dumps(row))
    return rows


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = float(args[0]) if args and "=" not in args[0] else TIME_LIMIT_S
    counts = next((tuple(int(n) for n in a.split("=", 1)[1].split(",")) for a in args if a.startswith("workers=")),
                  (1,))
    run(limit, tuple(a for a in args if "=" in a and not a.startswith("workers=")), workers=counts)
