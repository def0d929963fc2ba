"""The proof-number prover by jobs on many workers: its nodes against one worker's.

Empty free boards, weak, ``--prover pn``, each a fresh ``parallel-mnk solve --json``
process at 1, 2, 4, 8 and 16 workers (``--workers``), on whatever cores the machine
has: the workers time-share them where they are fewer, which leaves the nodes a
proof takes (what the overhead counts) nearly as they would be on as many cores.
One row per board and worker count: value, nodes, ``overhead`` (nodes over the
one-worker solve's), jobs, ``idle`` (the share of the workers' time without a job:
the tree had no leaf worth a job), ``rate`` (the workers' nodes a CPU second over the
one-worker solve's), the solve's time and the command's; and ``model_16``, what the
speed-up model predicts for as many real cores: ``workers x (1 - idle) x rate_16 /
overhead``, with ``rate_16`` the process pool's busy rate at 16 workers of a measured
16-core machine (``bench/machines/xeon16.json``; where 16 cores are at hand, the
many-cores suite measures it).

``ways``: how the workers meet the settled store: ``shared`` (they map it: the process
pool), ``replicas`` (each keeps a replica, the pool with the setting ``PN_REPLICAS``),
``ray`` (the Ray backend, a local Ray: replicas, kept in step during a job),
``ray-whole-jobs`` (the same, a replica taking the log at a job's start only); the base
of ``overhead`` is one worker's shared proof. ``refused`` counts the jobs whose delta the
store refused, ``restarts`` those started again mid-job.
"""
from __future__ import annotations

import sys

import json
from pathlib import Path

from .suite_provers import solve_command

MACHINE = Path(__file__).with_name("machines") / "xeon16.json"

CASES = [(7, 7, 5), (4, 8, 4), (9, 6, 5)]   # empty boards, weak: 7.3 k, 0.77 M and 0.50 M nodes on one worker
WORKERS = (1, 2, 4, 8, 16)
TIME_LIMIT_S = 600.0


WAYS = {"shared": (), "replicas": ("--setting", "PN_REPLICAS=true"), "ray": ("--backend", "ray"),
        "ray-whole-jobs": ("--backend", "ray", "--setting", f"PN_REPLICA_SYNC_NODES={1 << 40}")}


def run(workers_list=WORKERS, log=print, ways=("shared",)) -> list[dict]:
    """One row per board, way and worker count (one worker's shared proof first: the
    base of ``overhead``)."""
    rows = []
    counts = sorted(set(workers_list) | {1})
    machine_rate = json.loads(MACHINE.read_text())["rate"]["process"]
    for cols, rows_, k in CASES:
        case = f"({cols},{rows_},{k}) empty"
        base = None
        for way, workers in [("shared", 1)] + [(w, n) for w in ways for n in counts if (w, n) != ("shared", 1)]:
            r = solve_command(cols, rows_, k, "", "pn", workers, TIME_LIMIT_S, WAYS[way])
            if "error" not in r:
                rate = r["nodes"] / max(r["worker_cpu_s"], 1e-9)
                base = (r["nodes"], rate) if workers == 1 else base
                if base:
                    r["overhead"] = round(r["nodes"] / base[0], 2)
                    r["rate"] = round(rate / base[1], 2)
                    busy_rate = machine_rate.get(str(workers), 1.0) if workers > 1 else 1.0
                    r["model_16"] = round(workers * (1 - (r["idle"] or 0)) * busy_rate / r["overhead"], 1)
            rows.append({"suite": "pn-workers", "case": case, "way": way, "workers": workers, **r})
            log(f"pn-workers: {case} {way} {workers} worker(s): " + (r["error"] if "error" in r else
                f"{r['value']}, {r['nodes']:,} nodes ({r.get('overhead')}x), {r['jobs']} jobs "
                f"({r.get('refused') or 0} refused, {r.get('restarts') or 0} restarted), idle {r['idle']}, "
                f"rate {r.get('rate')}, model {r.get('model_16')}x, {r['time_s']:.2f} s "
                f"(command {r['wall_s']:.2f} s)"))
    return rows


if __name__ == "__main__":   # python -m bench.suite_pn_workers [1,2,16 [shared,replicas,ray]]
    try:
        counts = tuple(int(w) for w in sys.argv[1].split(",")) if len(sys.argv) > 1 else WORKERS
    except ValueError:
        print(f"suite_pn_workers: worker counts are whole numbers, as 1,2,16, not {sys.argv[1]!r}", file=sys.stderr)
        sys.exit(2)
    chosen = tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else ("shared",)
    if not set(chosen) <= set(WAYS) or min(counts, default=0) < 1:
        print(f"suite_pn_workers: ways are among {', '.join(WAYS)}; worker counts at least 1", file=sys.stderr)
        sys.exit(2)
    run(counts, ways=chosen)
