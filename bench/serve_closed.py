#!/usr/bin/env python
"""How soon ``parallel-mnk serve`` stops a search whose client closed its connection.

    python bench/serve_closed.py                      # 10 of each kind, 1 and 2 workers
    python bench/serve_closed.py --repeat 20 --workers 1 --json /tmp/closed.json

Starts ``parallel-mnk serve --port 0 --book none --max-time 60 --workers N`` as a
subprocess. For each kind of search (a solve and an analysis of Connect Four
after ``4``, tens of seconds each; a best move of a 15x15 position to depth 40)
and each repetition: one raw connection sends the request, ``/api/status`` is
polled until the search runs, it runs 0.2-0.5 s, the socket is closed
(``close``: a FIN, or ``reset``: an RST) and ``/api/status`` is polled every 2 ms
until no search runs (the search function has returned and the pool is free).
The latency is the time from the close to that answer (it includes up to one
poll, about 3 ms); then a tic-tac-toe analysis is sent and timed (the next
request is served at once). A first search of each kind is not counted (a pool
made for it, the table's pages). Prints the median and the longest latency per
kind and worker count, and how many were over 0.1 s.
"""
from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parents[1]

KINDS = {"solve": "/api/solve?game=connect4&moves=4&time_limit=60",
         "analyze": "/api/analyze?game=connect4&moves=4&time_limit=60",
         "best": "/api/best?cols=15&rows=15&k=5&moves=h8,i9,h9&depth=40&time_limit=60"}
BOUND_S = 0.1   # the requirement (issue 47)


def get(port: int, path: str) -> tuple[int, Any]:
    """``(status, JSON body)`` of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def running(port: int) -> int:
    """Searches running on the server now."""
    return get(port, "/api/status")[1]["running"]


def one(port: int, path: str, how: str, rng: random.Random) -> tuple[float, float]:
    """Close one connection mid-search: ``(seconds until no search runs, seconds of the next request)``."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    deadline = time.monotonic() + 60
    while not running(port):
        if time.monotonic() > deadline:
            raise SystemExit("the search did not start in 60 s")
        time.sleep(0.002)
    time.sleep(rng.uniform(0.2, 0.5))
    if how == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    t0 = time.perf_counter()
    sock.close()
    while running(port):
        if time.perf_counter() - t0 > 90:
            raise SystemExit("the search did not stop in 90 s")
        time.sleep(0.002)
    stopped = time.perf_counter() - t0
    t1 = time.perf_counter()
    assert get(port, "/api/analyze?game=tictactoe&moves=b2")[0] == 200
    return stopped, time.perf_counter() - t1


def run(workers: int, repeat: int, rng: random.Random) -> list[dict[str, Any]]:
    """Every kind, ``repeat`` times (FIN and reset in turn), on a server of ``workers``."""
    server = subprocess.Popen([sys.executable, "-m", "parallel_mnk", "serve", "--port", "0", "--max-time", "60",
                               "--book", "none", "--workers", str(workers)], cwd=REPO, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            raise SystemExit(f"the server did not start: {line!r}")
        port = int(found.group(1))
        rows = []
        for kind, path in KINDS.items():
            one(port, path, "close", rng)   # not counted (a pool made for this kind, the table's pages)
            got = [(how, *one(port, path, how, rng)) for how in ["close", "reset"] * ((repeat + 1) // 2)][:repeat]
            stops, nexts = [g[1] for g in got], [g[2] for g in got]
            rows.append({"workers": workers, "kind": kind, "n": len(got),
                         "stop_p50_s": round(statistics.median(stops), 3), "stop_max_s": round(max(stops), 3),
                         "over_bound": sum(s > BOUND_S for s in stops),
                         "stop_max_close_s": round(max(s for h, s, _ in got if h == "close"), 3),
                         "stop_max_reset_s": round(max((s for h, s, _ in got if h == "reset"), default=0), 3),
                         "next_max_s": round(max(nexts), 3)})
            print(f"| {workers} | {kind} | {len(got)} | {rows[-1]['stop_p50_s']} | {rows[-1]['stop_max_s']} "
                  f"| {rows[-1]['over_bound']} | {rows[-1]['next_max_s']} |", flush=True)
        return rows
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv: Optional[list[str]] = None) -> int:
    """Measure (see the module doc); exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="closes per kind and worker count (default 10)")
    parser.add_argument("--workers", default="1,2", help="the server's worker counts (default 1,2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="PATH", help="write the rows to PATH")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"| workers | kind | closes | stop p50 (s) | stop max (s) | over {BOUND_S:g} s | next request max (s) |\n"
          "|---:|---|---:|---:|---:|---:|---:|", flush=True)
    rows = [row for w in args.workers.split(",") for row in run(int(w), args.repeat, rng)]
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
