"""Campaigns (``parallel-mnk campaign``): a whole board's "x wins" proved reply class by
reply class, then its certificate checked.

One fresh ``parallel-mnk campaign`` process per row, in a fresh folder, on the 9x9 k=4
board from e5 (seconds; the 15x15 campaign is the same code over hours): an open class's
tree kept between its slices (the default ``CAMPAIGN_TREE_NODES``) against none kept
(each slice built again from its journal), then ``parallel-mnk verify`` of the whole
proof. Each row: the classes proved, nodes, the hardest class's jobs, the command's wall
time, the certificate's records and its check time.

``python -m bench.suite_campaign [WORKERS]``
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOARD = ["--cols", "9", "--rows", "9", "--k", "4"]


def row(label: str, settings: list[str], workers: int) -> dict:
    """One campaign in a fresh folder, and the check of its whole certificate."""
    with tempfile.TemporaryDirectory() as folder:
        cmd = [sys.executable, "-m", "parallel_mnk", "campaign", *BOARD, "--folder", folder, "--workers",
               str(workers), "--no-progress", "--json", *settings]
        t = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if run.returncode != 0:
            return {"case": label, "error": (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]}
        state = json.loads(run.stdout)
        classes = state["classes"]
        t = time.perf_counter()
        check = subprocess.run([sys.executable, "-m", "parallel_mnk", "verify",
                                str(Path(folder) / "x-wins.jsonl.xz")], capture_output=True, text=True)
        return {"case": label, "workers": workers, "proved": sum(c["state"] == "proved" for c in classes),
                "classes": len(classes), "nodes": sum(c["nodes"] for c in classes),
                "hardest_jobs": max(c["jobs"] for c in classes), "wall_s": round(wall, 2),
                "verified": check.returncode == 0, "check_s": round(time.perf_counter() - t, 2),
                "check": check.stdout.strip().splitlines()[-1] if check.stdout.strip() else check.stderr.strip()}


def run(workers: int = 1, log=print) -> list[dict]:
    """The rows, printed as they come."""
    rows = []
    for label, settings in (("trees kept", []), ("rebuilt each slice", ["--setting", "CAMPAIGN_TREE_NODES=0"])):
        rows.append(row(label, settings, workers))
        log(json.dumps(rows[-1]))
    return rows


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
