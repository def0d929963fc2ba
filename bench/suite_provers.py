"""Which prover wins where: weak solves of free-placement boards by alpha-beta
(``--prover search``), df-pn (``dfpn``, serial), the proof-number prover with zones
(``pn``) and the default (``auto``), each a fresh ``parallel-mnk solve --json``
process (its compile excluded: the cache is warmed first), on 1 and 2 workers.

One row per board, prover and worker count: value, nodes, the solve's own time
(``time_s`` of its JSON, what the search took), the whole command's wall time, and the
peak memory of the command. A prover that does not settle a board within the time
limit says ``unknown``. docs/how-it-works.md ("Which prover") quotes these rows.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

# (cols, rows, k, moves): empty boards and a few openings; quick: the first QUICK of them
CASES = [
    (6, 6, 5, ""),
    (7, 7, 5, ""),
    (8, 6, 5, ""),
    (4, 7, 4, ""),
    (4, 8, 4, ""),
    (9, 6, 5, ""),
    (8, 8, 5, "d4"),
    (4, 10, 4, ""),
    (9, 7, 5, ""),
]
QUICK = 4
PROVERS = ("search", "dfpn", "pn", "auto")
TIME_LIMIT_S = 300.0


def solve_command(cols: int, rows: int, k: int, moves: str, prover: str, workers: int, time_limit: float,
                  extra: tuple[str, ...] = ()) -> dict:
    """One fresh ``parallel-mnk solve`` process, weak (``extra``: more of its arguments):
    its JSON answer's value, nodes, times, proof and jobs (with the pn prover: its share
    of idle worker time, its refused jobs and those started again), its workers' CPU seconds, the command's
    wall time and peak RSS (with its workers'); ``error`` if it failed."""
    cmd = [sys.executable, "-m", "parallel_mnk", "solve", "--cols", str(cols), "--rows", str(rows), "--k", str(k),
           "--moves", moves, "--weak", "--prover", prover, "--workers", str(workers), "--time-limit",
           str(time_limit), "--json", *extra]
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, text=True)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)   # (its own peak memory, which Popen.wait would not give)
        p.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        err = errors.read()
    wall = time.perf_counter() - t
    if p.returncode not in (0, 3):   # (3: unknown within the time limit, still a JSON answer)
        return {"error": (err.strip().splitlines() or ["exit %d" % p.returncode])[-1], "wall_s": wall}
    answer = json.loads(out)
    workers_rss = sum(w.get("peak_rss", 0) for w in answer.get("workers", [])[1:])   # the pool's processes
    return {"value": answer["value"], "nodes": answer["nodes"], "time_s": answer.get("time_s"), "wall_s": wall,
            "proof": answer.get("proof"), "peak_mb": round(usage.ru_maxrss / 1024 + workers_rss / 2**20, 1),
            "jobs": (answer.get("parallel") or {}).get("jobs"), "idle": (answer.get("parallel") or {}).get("idle"),
            "refused": (answer.get("parallel") or {}).get("refused"),
            "restarts": (answer.get("parallel") or {}).get("restarts"),
            "worker_cpu_s": sum(w.get("cpu_s", 0.0) for w in answer.get("workers", [])[1:])}


def run(quick: bool = False, workers_list=(1, 2), provers=PROVERS, time_limit: float = TIME_LIMIT_S,
        log=print) -> list[dict]:
    """One row per case, prover and worker count (df-pn is serial: 1 worker only)."""
    subprocess.run([sys.executable, "-m", "parallel_mnk", "warm-up"], capture_output=True)   # compile before timing
    rows = []
    for cols, rows_, k, moves in CASES[:QUICK] if quick else CASES:
        case = f"({cols},{rows_},{k})" + (f" after {moves}" if moves else " empty")
        for prover in provers:
            for workers in workers_list:
                if prover == "dfpn" and workers > 1:
                    continue
                r = solve_command(cols, rows_, k, moves, prover, workers, time_limit)
                row = {"suite": "provers", "case": case, "prover": prover, "workers": workers, **r}
                log(f"provers: {case} {prover} {workers} worker(s): " +
                    (r["error"] if "error" in r else f"{r['value']}, {r['nodes']:,} nodes, {r['time_s']:.2f} s "
                     f"(command {r['wall_s']:.2f} s, {r['peak_mb']} MB), proof {r['proof']}"))
                rows.append(row)
    return rows


if __name__ == "__main__":   # python -m bench.suite_provers [quick]
    run(quick="quick" in sys.argv[1:])
