#!/usr/bin/env python
"""Soak of the web board: ``parallel-mnk serve`` under a mixed load for many minutes.

    python bench/soak_serve.py                          # 30 minutes, 8 client threads
    python bench/soak_serve.py --minutes 2 --warmup 20 --json /tmp/soak.json

Starts ``parallel-mnk serve --port 0 --max-time 5 --book none`` as a subprocess
(stderr to a file) and sends it, from ``--threads`` client threads for
``--minutes`` (warm-up included), a random mix of: analyses, solves and best
moves of small positions (free and gravity boards, Connect Four some moves in),
status, info and the page; bad requests (junk queries, bad numbers, huge boards,
unknown paths, oversize URLs, bad methods, malformed request lines, a foreign
Host); clients that leave mid-request or mid-answer; and a ``client=`` id whose
second request stops its own long search (which must end 409). Every answer is
checked: a status expected for its kind, API bodies JSON (errors exactly
``{"error": one line}``), and any value or score the server found equal to this
process's own analyze/solve of that position (computed once, up front).

psutil samples the server's RSS (and its children's), open files, threads and
children at the start, after the warm-up (caches and pools filled) with every
client paused and the server idle; every ``--sample`` seconds under load; and
at the end, idle again. The server must then answer ``/api/info`` and exit 0 on
SIGINT, with no "Traceback" on its stderr. Prints answers by status (and client
errors), requests per kind, the refused share, the longest, p50 and p99 wait, memory, open files
and threads at start and end (change in %), tracebacks and every failure; exits
1 on a traceback, a wrong value, an unexpected status or client error, memory or
open files grown over 10 %, more threads, or a server that does not answer or
stop cleanly. ``--json PATH`` writes the figures. The refused share is the
503s (queue full, or no turn within the queue's 30 s) over every search
request that got an answer (analyze, solve, best and the long searches a
page replaces; not those of clients that leave, which get none).
"""
from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))   # bench.soak_load when run as a script

from bench.soak_load import Load, exchange, positions, request  # noqa: E402

MAX_TIME = 5.0            # the server's --max-time
SEARCH_KINDS = ("analyze", "solve", "best", "replaced")   # the requests that ask for a search (and may get 503)
GROWTH = 10.0             # % of memory or open files the end may exceed the start by
COMPILING = re.compile(r"^compiling the .* kernels \(first run only\)\.\.\. done in [0-9.]+ s$")


# ---------------------------------------------------------------- the server process
def sample(proc: psutil.Process) -> dict[str, Any]:
    """RSS (MiB, the server's and its children's), open files, threads and children of the server now."""
    children = proc.children(recursive=True)
    child_rss = 0
    for child in children:
        try:
            child_rss += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return {"t": round(time.time(), 1), "rss_mib": round(proc.memory_info().rss / 2 ** 20, 1),
            "children_rss_mib": round(child_rss / 2 ** 20, 1), "fds": proc.num_fds(),
            "threads": proc.num_threads(), "children": len(children)}


def start_server(stderr_path: Path, workers: int) -> tuple[subprocess.Popen, int]:
    """``parallel-mnk serve`` on a free loopback port (stderr to ``stderr_path``), once it answers."""
    proc = subprocess.Popen([sys.executable, "-m", "parallel_mnk", "serve", "--port", "0", "--max-time", str(MAX_TIME),
                             "--book", "none", "--workers", str(workers)], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=stderr_path.open("w"), text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()   # "parallel-mnk serve: http://127.0.0.1:PORT/ (...)" once it listens
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not found:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}; stderr: {stderr_path.read_text()[-2000:]}")
    port = int(found.group(1))
    for _ in range(100):
        try:
            if exchange(port, request("/api/info"), timeout=10)[0] == 200:
                return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not answer /api/info")


def pause_and_sample(load: Load, proc: psutil.Process, clients: list[threading.Thread]) -> dict[str, Any]:
    """Park every client thread, wait until the server has no search running or
    waiting, then sample it (the same idle state at the start and the end)."""
    load.go.clear()
    with load.lock:
        load.lock.wait_for(lambda: load.parked >= sum(t.is_alive() for t in clients), timeout=180)
    for _ in range(100):
        status = json.loads(exchange(load.port, request("/api/status"))[2])
        if status["running"] == 0 and status["waiting"] == 0:
            break
        time.sleep(0.2)
    time.sleep(1.0)   # the last handler threads close their connections
    return sample(proc)


def percentile(values: list[float], p: float) -> float:
    """The ``p`` quantile (0..1) of ``values`` by rank (0 when empty)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0.0


def grew(start: float, end: float) -> float:
    """The change from ``start`` to ``end`` in % of ``start``."""
    return round(100.0 * (end - start) / start, 1) if start else 0.0


def stop_server(server: subprocess.Popen, port: int, stderr_path: Path) -> tuple[list[str], dict[str, Any]]:
    """Ask the server for /api/info, stop it with SIGINT, read its stderr: ``(failures, figures)``."""
    failures = []
    try:
        alive = exchange(port, request("/api/info"), timeout=30)[0] == 200
    except OSError:
        alive = False
    server.send_signal(signal.SIGINT)
    try:
        clean = server.communicate(timeout=30)[0].rstrip().endswith("stopped") and server.returncode == 0
    except subprocess.TimeoutExpired:
        server.kill()
        clean = False
    stderr = stderr_path.read_text(errors="replace")   # less numba's first-run notes (a fresh tree or cache)
    stderr = "".join(line for line in stderr.splitlines(True) if not COMPILING.match(line))
    tracebacks = stderr.count("Traceback")
    for problem, text in [(not alive, "the server did not answer /api/info at the end"),
                          (not clean, f"the server did not stop cleanly on SIGINT (exit status {server.returncode})"),
                          (tracebacks, f"{tracebacks} tracebacks on its stderr; the first:\n"
                                       + stderr[stderr.find("Traceback"):][:3000]),
                          (stderr.strip() and not tracebacks, f"its stderr is not empty: {stderr[:500]!r}")]:
        if problem:
            failures.append(text)
    return failures, {"tracebacks": tracebacks, "answered_info_at_end": alive, "stopped_cleanly": clean}


def summary(load: Load, wall: float, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the answers (by status, by kind, waits) and of the samples (start, end, change)."""
    by_status: dict[str, int] = {}
    by_kind: dict[str, dict[str, int]] = {}
    for kind, status, _ in load.results:
        by_status[str(status)] = by_status.get(str(status), 0) + 1
        by_kind.setdefault(kind, {})[str(status)] = by_kind.get(kind, {}).get(str(status), 0) + 1
    waits = {"wait_s": [s for _, status, s in load.results if isinstance(status, int)],
             "quick_wait_s": [s for kind, status, s in load.results if isinstance(status, int)
                              and kind not in SEARCH_KINDS]}
    searches = [status for kind, status, _ in load.results if kind in SEARCH_KINDS and isinstance(status, int)]
    refused = sum(status == 503 for status in searches)
    start, end = samples[0], samples[-1]
    return {"requests": len(load.results), "requests_per_s": round(len(load.results) / wall, 1),
            "by_status": by_status, "by_kind": by_kind, "unknown_values": load.unknown,
            "refused": {"503": refused, "search_requests": len(searches),
                        "share_pct": round(100.0 * refused / len(searches), 1) if searches else 0.0},
            **{name: {"max": round(max(w, default=0), 3), "p50": round(percentile(w, 0.5), 3),
                      "p99": round(percentile(w, 0.99), 3)} for name, w in waits.items()},
            "start": start, "end": end, "samples": samples,
            "change": {"rss_pct": grew(start["rss_mib"] + start["children_rss_mib"],
                                       end["rss_mib"] + end["children_rss_mib"]),
                       "fds_pct": grew(start["fds"], end["fds"]), "threads": end["threads"] - start["threads"],
                       "children": end["children"] - start["children"]}}


def main(argv: Optional[list[str]] = None) -> int:
    """Run the soak (see the module doc); the exit status: 0 when every check passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="length of the run, warm-up included (default 30)")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds of load before the start sample (default 60)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--sample", type=float, default=60.0, help="seconds between samples under load (default 60)")
    parser.add_argument("--workers", type=int, default=1, help="the server's --workers (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the positions and the load")
    parser.add_argument("--json", metavar="PATH", help="write the figures to PATH")
    args = parser.parse_args(argv)
    total_s = args.minutes * 60
    if args.warmup >= total_s:
        parser.error(f"--warmup ({args.warmup:g} s) must be shorter than the run ({total_s:g} s)")
    began = time.monotonic()
    pool = positions(args.seed)
    print(f"soak: {len(pool)} positions with reference values ({time.monotonic() - began:.0f} s)", flush=True)
    with tempfile.TemporaryDirectory(prefix="soak-serve-") as tmp:
        stderr_path = Path(tmp) / "stderr.txt"
        server, port = start_server(stderr_path, args.workers)
        proc, load = psutil.Process(server.pid), Load(port, pool, args.seed)
        clients = [threading.Thread(target=load.client, args=(i,), daemon=True) for i in range(args.threads)]
        began = time.monotonic()
        load.go.set()
        for t in clients:
            t.start()
        print(f"soak: server pid {server.pid}, port {port}; {args.threads} clients for {args.minutes:g} min; the "
              f"start sample after a warm-up of {args.warmup:g} s, with the server idle", flush=True)
        time.sleep(args.warmup)
        samples = [pause_and_sample(load, proc, clients)]
        load.go.set()
        print(f"soak: start (after the warm-up) {samples[0]}", flush=True)
        while time.monotonic() - began < total_s - 1:
            time.sleep(max(0.0, min(args.sample, total_s - (time.monotonic() - began))))
            samples.append(sample(proc))
            print(f"soak: {len(load.results)} requests; {samples[-1]}", flush=True)
        samples[-1] = pause_and_sample(load, proc, clients)   # the end, idle
        load.stop.set()
        load.go.set()
        for t in clients:
            t.join(180)
        wall = time.monotonic() - began
        failures, ends = stop_server(server, port, stderr_path)
    figures = {"minutes": round(wall / 60, 2), "warmup_s": args.warmup, "threads": args.threads,
               "workers": args.workers, "positions": len(pool), **summary(load, wall, samples), **ends}
    change = figures["change"]
    for problem, text in [(change["rss_pct"] > GROWTH, f"memory grew by {change['rss_pct']} % (over {GROWTH:g} %)"),
                          (change["fds_pct"] > GROWTH, f"open files grew by {change['fds_pct']} % (over {GROWTH:g} %)"),
                          (change["threads"] > 0 or change["children"] > 0, f"threads or children grew: {change}")]:
        if problem:
            failures.append(text)
    figures.update(failures=load.failures + failures, passed=not (load.failures or failures))
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0 if figures["passed"] else 1


def report(f: dict[str, Any]) -> None:
    """Print the figures of a run: a few lines, a table per kind, then every failure."""
    s, e, c, w, q = f["start"], f["end"], f["change"], f["wait_s"], f["quick_wait_s"]
    print(f"\nsoak of parallel-mnk serve: {f['requests']} requests in {f['minutes']} min ({f['requests_per_s']}/s), "
          f"{f['threads']} client threads, server --workers {f['workers']} --max-time {MAX_TIME:g}\nby status: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(f["by_status"].items())) + "\n\n| kind | requests | by status |"
          "\n|---|---|---|")
    for kind, counts in sorted(f["by_kind"].items()):
        print(f"| {kind} | {sum(counts.values())} | " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + " |")
    r = f["refused"]
    print(f"\nrefused (503): {r['503']} of {r['search_requests']} search requests ({r['share_pct']} %)")
    print(f"\nwait (s): max {w['max']}, p50 {w['p50']}, p99 {w['p99']}; without searches: max {q['max']}, p50 "
          f"{q['p50']}, p99 {q['p99']}; searches not settled within their time: {f['unknown_values']}\n"
          f"server idle, start (after the {f['warmup_s']:g} s warm-up) -> end: RSS {s['rss_mib']} -> {e['rss_mib']} "
          f"MiB (children {s['children_rss_mib']} -> {e['children_rss_mib']}; {c['rss_pct']:+} %), open files "
          f"{s['fds']} -> {e['fds']} ({c['fds_pct']:+} %), threads {s['threads']} -> {e['threads']}, children "
          f"{s['children']} -> {e['children']}\nunder load: peak RSS {max(x['rss_mib'] for x in f['samples'])} MiB, "
          f"most open files {max(x['fds'] for x in f['samples'])}, most threads "
          f"{max(x['threads'] for x in f['samples'])}\ntracebacks on the server's stderr: {f['tracebacks']}; "
          f"/api/info at the end: {'answered' if f['answered_info_at_end'] else 'NO ANSWER'}; SIGINT: "
          f"{'exit 0' if f['stopped_cleanly'] else 'NOT CLEAN'}")
    for failure in f["failures"][:30]:
        print(f"FAIL {failure}")
    print("PASSED" if f["passed"] else f"FAILED ({len(f['failures'])} problems)")


if __name__ == "__main__":
    sys.exit(main())
