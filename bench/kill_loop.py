"""Random kills of the process pool's workers, in a loop: every answer right, no
orphan, no hang.

Each round solves a position on the local process pool (``serial_budget=0``: the
tasks go to the workers) while a killer thread waits a random delay, then sends
SIGKILL to a random worker process of the pool (a child of this process, one of
the pool's ``pids()``). The pool must restart the worker and run its lost task
again. Checked per round: the value and the exact score against the serial
solver (reference computed once per position, before the loop); the solve must
end within ``--timeout`` s (past it, faulthandler prints every thread's stack and
ends the process with status 1: a hang). After the loop and ``shutdown_backends()``: no
worker process seen during the run is left, this process has no children, and
no new entry in /dev/shm (the pool uses anonymous shared mappings; any new entry
is reported, ours or not).

Positions: Connect Four positions from random quiet games (tests/checks.py
``random_positions``) whose parallel solve takes long enough to be killed in the
middle (``--min-s`` .. ``--max-s``), plus KILL_MOVES (checks.py, known score).
A kill that lands after the solve ended is not counted (the round is played
again); a kill of a worker that had no task at that moment counts as idle.

    python bench/kill_loop.py --kills 100 --json kill_loop.json

prints kills done, kills that hit a running task vs an idle worker, wrong
answers, hangs, orphans and seconds (and writes them as JSON with ``--json``).
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))   # checks.py: random_positions, KILL_MOVES

from checks import C4, KILL_MOVES, KILL_SCORE, random_positions  # noqa: E402

from parallel_mnk import Position, solve  # noqa: E402
from parallel_mnk.parallel.scheduling.registry import get_pool, shutdown_backends  # noqa: E402

TT_BITS = 20
SHM = Path("/dev/shm")


def pick_positions(count: int, seed: int, workers: int, min_s: float, max_s: float) -> list[tuple[str, Position, int, float]]:
    """Up to ``count`` random Connect Four positions whose parallel solve (unkilled)
    takes ``min_s``..``max_s`` s, plus KILL_MOVES; each as (moves, position,
    serial score, parallel seconds). The serial solver gives the reference score."""
    out = []
    kill = Position.from_moves(C4, KILL_MOVES)
    out.append((KILL_MOVES, kill, KILL_SCORE, _timed_solve(kill, workers)[1]))
    for pos in random_positions(C4, count * 6, (6, 12), seed=seed, quiet=True, exact=False):
        if len(out) > count:
            break
        r, took = _timed_solve(pos, workers, time_limit=max_s)
        if r.score is None or took < min_s:
            continue
        serial = solve(pos, workers=1, pv=False, progress=False)
        assert serial.score == r.score, f"serial {serial.score} != parallel {r.score} on {pos.move_stack}"
        out.append(("".join(str(m + 1) for m in pos.move_stack), pos, serial.score, took))
    return out


def _timed_solve(pos: Position, workers: int, time_limit: Optional[float] = None):
    t = time.perf_counter()
    r = solve(pos, workers=workers, tt_bits=TT_BITS, pv=False, progress=False, serial_budget=0,
              time_limit=time_limit)
    return r, time.perf_counter() - t


def _shm_names() -> set[str]:
    try:
        return set(os.listdir(SHM))
    except OSError:
        return set()


def kill_loop(kills: int, positions: list[tuple[str, Position, int, float]], *, seed: int = 1, workers: int = 2,
              timeout: float = 120.0, log=None) -> dict:
    """Solve random ``positions`` with one SIGKILL of a random pool worker each,
    until ``kills`` kills landed during a solve; returns the figures (see the
    module docstring). A solve past ``timeout`` s ends the process (status 1, every
    thread's stack printed)."""
    rng = random.Random(seed)
    children_before = {c.pid for c in psutil.Process().children(recursive=True)}   # (a Ray or a server of the caller's)
    shm_before = _shm_names()
    pool = get_pool(workers, TT_BITS)
    seen_pids: set[int] = set(pool.pids())
    done = hit_running = hit_idle = missed = wrong = rounds = 0
    records = []
    t0 = time.perf_counter()
    while done < kills:
        name, pos, score, est = rng.choice(positions)
        delay = rng.uniform(0.0, 0.9 * est)
        me = psutil.Process()
        box: dict = {}
        finished = threading.Event()

        def killer() -> None:
            if finished.wait(delay):   # the solve ended first: no kill this round
                return
            pids = [c.pid for c in me.children() if c.pid in pool.pids()]
            if not pids:
                return
            victim = rng.choice(pids)
            busy = {pool.pids()[w - 1] for w in pool.busy_workers()}
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                return
            box["victim"], box["busy"] = victim, victim in busy

        thread = threading.Thread(target=killer, daemon=True)
        faulthandler.dump_traceback_later(timeout, exit=True)
        thread.start()
        t = time.perf_counter()
        r = solve(pos, workers=workers, tt_bits=TT_BITS, pv=False, progress=False, serial_budget=0)
        took = time.perf_counter() - t
        finished.set()
        faulthandler.cancel_dump_traceback_later()
        thread.join()
        seen_pids.update(pool.pids())
        rounds += 1
        ok = r.score == score and r.value == ("win" if score > 0 else "loss" if score < 0 else "draw")
        if "victim" not in box:
            missed += 1
            wrong += not ok
            continue
        done += 1
        hit_running += box["busy"]
        hit_idle += not box["busy"]
        wrong += not ok
        records.append({"moves": name, "delay_s": round(delay, 3), "solve_s": round(took, 3), "busy": box["busy"],
                        "score": r.score, "expected": score, "ok": ok})
        if log is not None and (done % 10 == 0 or not ok):
            log(f"{done} kills: {hit_running} on a running task, {hit_idle} on an idle worker, {wrong} wrong")
    shutdown_backends()
    time.sleep(0.5)
    left = [p for p in seen_pids if _alive(p)]
    children = [c.pid for c in psutil.Process().children(recursive=True)
                if c.pid not in children_before and _alive(c.pid)]
    shm_new = sorted(_shm_names() - shm_before)
    return {"kills": done, "hit_running": hit_running, "hit_idle": hit_idle, "missed_rounds": missed,
            "rounds": rounds, "wrong": wrong, "hangs": 0, "orphans": len(set(left) | set(children)),
            "orphan_pids": sorted(set(left) | set(children)), "shm_new": shm_new,
            "positions": [(n, s, round(e, 3)) for n, _, s, e in positions], "workers": workers,
            "seconds": round(time.perf_counter() - t0, 1), "records": records}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def main(argv: Optional[list[str]] = None) -> int:
    """Command line: run the loop, print the figures; exit 1 on a wrong answer, an
    orphan or a hang (then from faulthandler, with the stacks)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=100, help="kills that land during a solve (default 100)")
    ap.add_argument("--positions", type=int, default=8, help="random positions besides KILL_MOVES (default 8)")
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--min-s", type=float, default=0.3, help="shortest parallel solve kept (s)")
    ap.add_argument("--max-s", type=float, default=3.0, help="longest parallel solve kept (s)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one solve may take before it is a hang")
    ap.add_argument("--json", metavar="PATH", help="write the figures (and one record per kill) here")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    positions = pick_positions(args.positions, args.seed, args.workers, args.min_s, args.max_s)
    print(f"{len(positions)} positions in {time.perf_counter() - t:.1f} s: "
          + ", ".join(f"{n} ({s:+d}, {e:.2f} s)" for n, _, s, e in positions), flush=True)
    out = kill_loop(args.kills, positions, seed=args.seed, workers=args.workers, timeout=args.timeout,
                    log=lambda s: print(s, flush=True))
    print(f"kills {out['kills']} (running task {out['hit_running']}, idle worker {out['hit_idle']}; "
          f"{out['missed_rounds']} rounds ended before the kill), wrong answers {out['wrong']}, hangs 0, "
          f"orphans {out['orphans']}, new /dev/shm entries {len(out['shm_new'])}, {out['seconds']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 1 if out["wrong"] or out["orphans"] else 0


if __name__ == "__main__":
    sys.exit(main())
