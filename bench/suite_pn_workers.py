"""The proof-number prover by jobs on many workers: its nodes against one worker's.

Empty free boards, weak, ``--prover pn``, each a fresh ``parallel-mnk solve --json``
process at 1, 2, 4, 8 and 16 workers (``--workers``), on whatever cores the machine
has: the workers time-share them where they are fewer, which leaves the nodes a
proof takes (what the overhead counts) nearly as they would be on as many cores.
One row per board and worker count: value, nodes, ``overhead`` (nodes over the
one-worker solve's), jobs, ``idle`` (the share of the workers' time without a job:
the tree had no leaf worth a job), the solve's time and the command's.
"""
from __future__ import annotations

import sys

from .suite_provers import solve_command

CASES = [(7, 7, 5), (4, 8, 4), (9, 6, 5)]   # empty boards, weak: 7.3 k, 0.77 M and 0.50 M nodes on one worker
WORKERS = (1, 2, 4, 8, 16)
TIME_LIMIT_S = 600.0


def run(workers_list=WORKERS, log=print) -> list[dict]:
    """One row per board and worker count (one worker first: the base of ``overhead``)."""
    rows = []
    counts = sorted(set(workers_list) | {1})
    for cols, rows_, k in CASES:
        case = f"({cols},{rows_},{k}) empty"
        base = None
        for workers in counts:
            r = solve_command(cols, rows_, k, "", "pn", workers, TIME_LIMIT_S)
            if "error" not in r:
                base = r["nodes"] if workers == 1 else base
                r["overhead"] = round(r["nodes"] / base, 2) if base else None
            rows.append({"suite": "pn-workers", "case": case, "workers": workers, **r})
            log(f"pn-workers: {case} {workers} worker(s): " + (r["error"] if "error" in r else
                f"{r['value']}, {r['nodes']:,} nodes ({r['overhead']}x), {r['jobs']} jobs, idle {r['idle']}, "
                f"{r['time_s']:.2f} s (command {r['wall_s']:.2f} s)"))
    return rows


if __name__ == "__main__":   # python -m bench.suite_pn_workers [1,2,16]
    run(tuple(int(w) for w in sys.argv[1].split(",")) if len(sys.argv) > 1 else WORKERS)
