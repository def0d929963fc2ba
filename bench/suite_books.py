"""Opening books: answers from Thill's 12-ply Connect Four database, and books of our
own built on the pool (README "Opening books", bench/README.md "Books").

* ``analyze empty 7x6``: ``parallel-mnk analyze --game connect4 --moves ''`` as a whole
  process (Python, numba's import, the book's kernels from the cache, the database
  read) and the analysis inside it;
* ``web start``: the page's first request, ``/api/analyze`` of the empty board, on a
  server started with the book (what the page waits for before it shows the scores);
* ``200 positions``: 200 random positions of 0-12 plies of Pons' Test_L1 sets (their
  exact scores), each solved with the book (``solve(book="auto")``): wrong answers,
  mean and slowest time;
* builds (``parallel-mnk book build``, in this process): time, nodes, entries, file
  size; the same build with 1 and 2 workers (independent positions: the speed-up
  against the machine's ceiling), and on a local Ray when the ``cluster`` extra is
  installed; 7x6 up to 4 plies on the database's leaves, and without it the rate of a
  sample of its 4-ply positions and the time the whole build would take on 16 cores.

Rows carry ``error`` where the ``books`` extra (or Ray) is missing.
"""
from __future__ import annotations

import json
import multiprocessing as mp
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.engines.books import thill
from parallel_mnk.engines.books.base import positions_by_ply
from parallel_mnk.entrance import build_book, shutdown
from parallel_mnk import Options

from . import common

C4 = GameSpec(7, 6, 4, True)
# (case, spec, plies, workers, backend, leaf book)
BUILDS = [
    ("6x6 k=4 gravity, 5 plies", GameSpec(6, 6, 4, True), 5, 1, "process", "none"),
    ("6x6 k=4 gravity, 5 plies", GameSpec(6, 6, 4, True), 5, 2, "process", "none"),
    ("6x6 k=4 gravity, 5 plies", GameSpec(6, 6, 4, True), 5, 2, "ray", "none"),
    ("6x6 k=4 gravity, 8 plies", GameSpec(6, 6, 4, True), 8, 2, "process", "none"),
    ("(5,5,4), 4 plies", GameSpec(5, 5, 4), 4, 2, "process", "none"),
    ("(6,6,5), 4 plies", GameSpec(6, 6, 5), 4, 2, "process", "none"),
    ("7x6 k=4 gravity, 4 plies, Thill's leaves", C4, 4, 2, "process", "auto"),
]
QUICK_BUILDS = [BUILDS[0], BUILDS[1], ("(5,5,4), 2 plies", GameSpec(5, 5, 4), 2, 2, "process", "none")]
TT_SIZE = "256M"
SAMPLE_4PLY = 6   # 7x6 positions of 4 plies solved without the database, for its rate


def _thill_missing(case: str) -> list[dict]:
    return [{"suite": "books", "case": case, "error": "bitbully-databases (the 'books' extra) is not installed"}]


def run_analyze_empty(log=print) -> list[dict]:
    """The whole-process analysis of the empty board with the book (best of 3 runs)."""
    if thill.installed_path() is None:
        return _thill_missing("analyze empty 7x6")
    best = None
    for _ in range(3):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "parallel_mnk.frontends.cli", "analyze", "--game", "connect4", "--moves",
                              "", "--json", "--workers", "1"], capture_output=True, text=True, check=True).stdout
        wall = time.perf_counter() - t
        d = json.loads(out)
        if best is None or wall < best["time_s"]:
            best = {"suite": "books", "case": "analyze empty 7x6", "time_s": round(wall, 3),
                    "in_process_s": d["time_s"], "nodes": d["nodes"], "scores": d["scores"], "proof": d["proof"]}
    log(f"  analyze empty 7x6: {best['time_s']} s whole process, {best['in_process_s']} s analysis, "
        f"scores {best['scores']}")
    return [best]


def run_web_start(log=print) -> list[dict]:
    """The page's first analysis on a warm server with the book (best of 3 requests on fresh servers)."""
    if thill.installed_path() is None:
        return _thill_missing("web start")
    from parallel_mnk.frontends.serve import Server

    times = []
    for _ in range(3):
        server = Server("127.0.0.1", 0, book="auto")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        t = time.perf_counter()
        with urllib.request.urlopen(server.url + "api/analyze?game=connect4&moves=") as r:
            d = json.loads(r.read())
        times.append(time.perf_counter() - t)
        server.shutdown()
        server.server_close()
    row = {"suite": "books", "case": "web start", "time_s": round(min(times), 3), "max_s": round(max(times), 3),
           "scores": d["scores"], "proof": d["proof"]}
    log(f"  web start: all seven scores in {row['time_s']} s (worst {row['max_s']} s)")
    return [row]


def run_positions(count: int = 200, log=print) -> list[dict]:
    """``count`` random positions of 0-12 plies of Pons' Test_L1 sets, solved with the book."""
    if thill.installed_path() is None:
        return _thill_missing(f"{count} positions")
    lines = []
    for name in ("Test_L1_R1", "Test_L1_R2", "Test_L1_R3"):
        path = common.connect4_set(name)
        if path is None:
            return [{"suite": "books", "case": f"{count} positions", "error": "Pons' sets are not in ../shared/data"}]
        lines += [(m, int(s)) for m, s in (line.split() for line in path.read_text().splitlines()) if len(m) <= 12]
    sample = random.Random(1).sample(lines, count)
    for warm in ("", lines[0][0] if len(lines[0][0]) == 12 else next(m for m, _ in lines if len(m) == 12)):
        solve(Position.from_moves(C4, warm), options=Options(book="auto", pv=False, tt_size=TT_SIZE))   # database, kernels loaded
    wrong, times, book_hits = 0, [], 0
    for moves, score in sample:
        t = time.perf_counter()
        r = solve(Position.from_moves(C4, moves), options=Options(book="auto", pv=False, tt_size=TT_SIZE))
        times.append(time.perf_counter() - t)
        wrong += r.score != score
        book_hits += r.proof == "book"
    row = {"suite": "books", "case": f"{count} positions of 0-12 plies", "positions": count, "wrong": wrong,
           "book_answers": book_hits, "mean_time_s": round(sum(times) / count, 5), "max_s": round(max(times), 4)}
    log(f"  {count} positions: {wrong} wrong, {book_hits} from the book, mean {row['mean_time_s']} s, "
        f"slowest {row['max_s']} s")
    return [row]


def run_builds(builds, log=print) -> list[dict]:
    """One row per build (fresh file each)."""
    rows = []
    for case, spec, plies, workers, backend, leaves in builds:
        row = {"suite": "books", "case": case, "workers": workers, "backend": backend}
        if backend == "ray":
            try:
                import ray  # noqa: F401
            except ImportError:
                rows.append({**row, "error": "Ray (the 'cluster' extra) is not installed"})
                continue
        if leaves == "auto" and thill.installed_path() is None:
            rows.append({**row, **_thill_missing(case)[0]})
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "book.sqlite"
            book, r = build_book(spec, plies, out, options=Options(workers=workers, backend=backend, tt_size=TT_SIZE, book=leaves, progress=False))
            info = book.stats()
            book.close()
        shutdown()
        row.update(entries=info["entries"], leaves_searched=r.leaves, leaves_split=r.split_leaves,
                   nodes=r.leaf_nodes, time_s=round(r.time_s, 2), bytes=info["bytes"],
                   per_worker_tasks=[w[1] for w in r.per_worker])
        log(f"  {case}, {workers} worker(s), {backend}: {info['entries']:,} entries, {r.leaf_nodes / 1e6:.1f} M "
            f"nodes, {r.time_s:.1f} s, {info['bytes']:,} bytes")
        rows.append(row)
    _speed_ups(rows, builds)
    for r in rows:
        if "of_ceiling" in r:
            log(f"  {r['case']}, {r['workers']} workers ({r['backend']}): speed-up {r['speed_up']} over 1 worker, "
                f"{r['of_ceiling']} of the machine's ceiling {r['ceiling']}")
    return rows


def _build_in_child(spec: GameSpec, plies: int, start, out) -> None:
    start.wait()
    with tempfile.TemporaryDirectory() as tmp:
        out.put(build_book(spec, plies, Path(tmp) / "b.sqlite", options=Options(tt_size=TT_SIZE, book="none", progress=False))[1].time_s)


def machine_ceiling(spec: GameSpec, plies: int, copies: int, alone: float) -> float:
    """What this machine gives ``copies`` independent 1-worker builds at once (each its
    own process, table and file) over one alone (``alone`` seconds): the bound of a
    ``copies``-worker speed-up here (as the scaling suite's ceiling)."""
    ctx = mp.get_context("fork")
    out, start = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_build_in_child, args=(spec, plies, start, out)) for _ in range(copies)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    t = time.perf_counter()
    start.set()
    for p in procs:
        p.join()
    return copies * alone / (time.perf_counter() - t)


def _speed_ups(rows: list[dict], builds) -> None:
    """The speed-up of each build over the same build with 1 worker (process backend),
    and its share of the machine's ceiling for that many workers."""
    serial = {r["case"]: r["time_s"] for r in rows if r.get("workers") == 1 and "time_s" in r}
    specs = {case: (spec, plies) for case, spec, plies, *_ in builds}
    ceilings: dict = {}
    for r in rows:
        if r["case"] in serial and r.get("workers", 1) > 1 and "time_s" in r:
            key = (r["case"], r["workers"])
            if key not in ceilings:
                ceilings[key] = machine_ceiling(*specs[r["case"]], r["workers"], serial[r["case"]])
            r["speed_up"] = round(serial[r["case"]] / r["time_s"], 3)
            r["ceiling"] = round(ceilings[key], 3)
            r["of_ceiling"] = round(r["speed_up"] / ceilings[key], 3)


def run_c4_without_database(log=print) -> list[dict]:
    """The rate of 7x6 4-ply positions solved without the database (a sample, 2 workers
    each) and the time the 4-ply book would take on 16 cores at that rate."""
    layer = dict(positions_by_ply(C4, 4))[4]
    sample = random.Random(4).sample(layer, SAMPLE_4PLY)
    t, nodes = time.perf_counter(), 0
    for p in sample:
        nodes += solve(p, options=Options(workers=2, pv=False, progress=False, tt_size=TT_SIZE, book="none")).nodes
    seconds = time.perf_counter() - t
    shutdown()
    per = seconds / len(sample)
    row = {"suite": "books", "case": "7x6 k=4 gravity, 4 plies, no database", "positions": len(layer),
           "sampled": len(sample), "mean_time_s_2_workers": round(per, 2), "mean_nodes": nodes // len(sample),
           "projected_2_cores_s": round(per * len(layer)), "projected_16_cores_s": round(per * len(layer) * 2 / 16)}
    log(f"  7x6 4 plies without the database: {len(layer)} positions, {per:.1f} s each on 2 workers: "
        f"~{row['projected_2_cores_s']} s here, ~{row['projected_16_cores_s']} s on 16 cores")
    return [row]


def run(quick: bool = False, log=print) -> list[dict]:
    """The rows of the suite (module docstring)."""
    rows = run_analyze_empty(log) + run_web_start(log) + run_positions(50 if quick else 200, log)
    rows += run_builds(QUICK_BUILDS if quick else BUILDS, log)
    if not quick:
        rows += run_c4_without_database(log)
    return rows
