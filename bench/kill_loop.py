"""Random kills of the process pool's workers, in a loop: every answer right,
every lost task run again, no orphan, no hang (each measured).

Each round solves a position on the local process pool (``serial_budget=0``: the
tasks go to the workers) in a thread while this one waits a random delay, then
sends SIGKILL to a worker process of the pool (a child of this process, one of
the pool's ``pids()``): with ``--target any`` a random one, idle or not; with
``--target searching`` one inside the search of a task the coordinator still
wants (waited for; tests/checks.py ``kill_mid_search``). The pool must restart
the worker and run its lost task again. Checked per round, from the solve's
result: the value and the exact score against the serial solver (reference
computed once per position, before the loop); whether the kill hit a running
task (the coordinator recorded a task lost on the victim, ``parallel["lost"]``,
whose search had begun), a task just sent to it (lost, not begun) or an idle
worker (unknown when the solve raised: a wrong answer); what became
of each lost task (still wanted when the death was noticed, or abandoned by
then; handed out again; decided by a rerun, no longer needed once the probe was
over, or neither: a fault); and whether the solve
ended within ``--timeout`` s of its start. A solve past it is a hang: counted,
every thread's stack printed, the pool shut down (the next round gets a fresh
one; the hung thread is left behind) and the loop goes on; only a hang that never
lets the loop's thread run again ends the process (faulthandler, status 1, a
minute later). After the loop and ``shutdown_backends()``: no worker process
seen during the run is left, this process has no children, and no new entry in
/dev/shm (the pool uses anonymous shared mappings; any new entry is reported,
ours or not).

Positions: Connect Four positions from random quiet games (tests/checks.py
``random_positions``) whose parallel solve takes long enough to be killed in the
middle (``--min-s`` .. ``--max-s``), plus KILL_MOVES (checks.py, known score).
A round whose solve ended before the kill is not counted (the round is played
again); a hung round counts as a kill round.

    python bench/kill_loop.py --kills 100 --json kill_loop.json

prints kills done, kills that hit a running task vs an idle worker, the lost
tasks and what became of them, wrong answers, hangs, orphans and seconds (and
writes them as JSON with ``--json``, one record per kill round); exit status 1
on a wrong answer, a hang, a lost task neither rerun nor unneeded, or an orphan.
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

from checks import C4, KILL_MOVES, KILL_SCORE, kill_mid_search, random_positions  # noqa: E402

from parallel_mnk import Position, solve  # noqa: E402
from parallel_mnk.parallel.scheduling.registry import get_coordinator, get_pool, shutdown_backends  # noqa: E402
from parallel_mnk import Limit, Options

TT_BITS = 20
SHM = Path("/dev/shm")
BACKSTOP_S = 60.0   # past a round's timeout: faulthandler ends the process (a hang that holds the GIL)


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
        serial = solve(pos, options=Options(workers=1, pv=False, progress=False))
        assert serial.score == r.score, f"serial {serial.score} != parallel {r.score} on {pos.move_stack}"
        out.append(("".join(str(m + 1) for m in pos.move_stack), pos, serial.score, took))
    return out


def _timed_solve(pos: Position, workers: int, time_limit: Optional[float] = None):
    t = time.perf_counter()
    r = solve(pos, Limit(time=time_limit), options=Options(workers=workers, tt_size=8 << TT_BITS, pv=False, progress=False, serial_budget=0))
    return r, time.perf_counter() - t


def _shm_names() -> set[str]:
    try:
        return set(os.listdir(SHM))
    except OSError:
        return set()


def kill_loop(kills: int, positions: list[tuple[str, Position, int, float]], *, seed: int = 1, workers: int = 2,
              timeout: float = 120.0, target: str = "any", log=None) -> dict:
    """Solve random ``positions`` with one SIGKILL of a pool worker each, until
    ``kills`` rounds had a kill land during their solve (or hung); returns the
    figures (see the module docstring). ``target``: ``"any"``, a random worker
    (idle or not); ``"searching"``, a worker inside the search of a task the
    coordinator still wants (:func:`checks.kill_mid_search`), waited for after the
    delay. Whether a kill hit a running task is what the solve's coordinator
    recorded (``parallel["lost"]``: a task lost on the victim), not a guess made
    before the kill. A solve still running ``timeout`` s after it started is a
    hang: every thread's stack goes to stderr, the pool is shut down (a fresh one
    serves the next round, the hung thread is left behind) and the loop goes on."""
    if target not in ("any", "searching"):
        raise ValueError(f"target {target!r}: 'any' or 'searching'")
    rng = random.Random(seed)
    children_before = {c.pid for c in psutil.Process().children(recursive=True)}   # (a Ray or a server of the caller's)
    shm_before = _shm_names()
    pool = get_pool(workers, TT_BITS)
    seen_pids: set[int] = set(pool.pids())
    done = hit_running = hit_unstarted = hit_idle = hit_unknown = missed = wrong = rounds = hangs = 0
    lost_tasks = lost_wanted = rerun_tasks = rerun_done = unneeded = not_rerun = 0
    records = []
    t0 = time.perf_counter()
    me = psutil.Process()
    while done < kills:
        name, pos, score, est = rng.choice(positions)
        delay = rng.uniform(0.0, 0.9 * est)
        pool = get_pool(workers, TT_BITS)
        coordinator = get_coordinator("process", workers, TT_BITS)
        seen_pids.update(pool.pids())
        box: dict = {}

        def run() -> None:
            try:
                box["result"] = solve(pos, options=Options(workers=workers, tt_size=8 << TT_BITS, pv=False, progress=False, serial_budget=0))
            except BaseException as e:   # (reported as a wrong answer)
                box["error"] = e

        thread = threading.Thread(target=run, name=f"kill-loop-solve-{rounds}", daemon=True)
        # the last resort, for a hang that never lets this thread run again (the GIL held):
        # every thread's stack, and the process ends with status 1
        faulthandler.dump_traceback_later(timeout + BACKSTOP_S, exit=True)
        t = time.perf_counter()
        thread.start()
        thread.join(delay)
        victim = None   # (worker, task id or 0 for any, pid)
        while victim is None and thread.is_alive():
            if target == "searching":
                victim = kill_mid_search(pool, coordinator, choose=rng.choice)
            else:
                pids = [c.pid for c in me.children() if c.pid in pool.pids()]
                if not pids:
                    break
                pid = rng.choice(pids)
                worker = pool.pids().index(pid) + 1
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    break
                victim = (worker, 0, pid)
            if victim is None:
                time.sleep(0.001)
        thread.join(max(0.0, timeout - (time.perf_counter() - t)))
        faulthandler.cancel_dump_traceback_later()
        took = time.perf_counter() - t
        seen_pids.update(pool.pids())
        rounds += 1
        if thread.is_alive():   # a hang: measured, reported, and the loop goes on
            hangs += 1
            done += 1
            faulthandler.dump_traceback(all_threads=True)
            records.append({"moves": name, "delay_s": round(delay, 3), "solve_s": round(took, 3), "hang": True,
                            "victim": None if victim is None else victim[0]})
            if log is not None:
                log(f"round {rounds} ({name}) still runs after {timeout} s: a hang; a fresh pool for the next round")
            shutdown_backends()
            continue
        r = box.get("result")
        ok = r is not None and r.score == score and r.value == ("win" if score > 0 else "loss" if score < 0 else "draw")
        if victim is None:
            missed += 1
            wrong += not ok
            continue
        done += 1
        lost = [] if r is None or r.parallel is None else r.parallel["lost"]
        # the task the coordinator lost on the victim: "running" when its search had begun,
        # "unstarted" when it was sent just before the death, "idle" when none was lost,
        # None when the solve raised (no record)
        mine = [x for x in lost if x["worker"] == victim[0] and (not victim[1] or x["task_id"] == victim[1])]
        hit = None if r is None else ("idle" if not mine else "running" if mine[0]["started"] else "unstarted")
        hit_running += hit == "running"
        hit_unstarted += hit == "unstarted"
        hit_idle += hit == "idle"
        hit_unknown += hit is None
        wrong += not ok
        lost_tasks += len(lost)
        lost_wanted += sum(x["wanted"] for x in lost)
        rerun_tasks += sum(x["reruns"] > 0 for x in lost)
        rerun_done += sum(x["outcome"] == "rerun" for x in lost)
        unneeded += sum(x["outcome"] == "unneeded" for x in lost)
        not_rerun += sum(x["wanted"] and x["outcome"] not in ("rerun", "unneeded", "helper") for x in lost)
        records.append({"moves": name, "delay_s": round(delay, 3), "solve_s": round(took, 3), "victim": victim[0],
                        "hit": hit, "lost": lost, "score": None if r is None else r.score, "expected": score,
                        "ok": ok, **({"error": repr(box["error"])} if "error" in box else {})})
        if log is not None and (done % 10 == 0 or not ok):
            log(f"{done} kills: {hit_running} on a running task, {hit_idle} on an idle worker, {wrong} wrong, "
                f"{hangs} hangs")
    shutdown_backends()
    time.sleep(0.5)
    left = [p for p in seen_pids if _alive(p)]
    children = [c.pid for c in psutil.Process().children(recursive=True)
                if c.pid not in children_before and _alive(c.pid)]
    shm_new = sorted(_shm_names() - shm_before)
    return {"kills": done, "target": target, "hit_running": hit_running, "hit_unstarted": hit_unstarted,
            "hit_idle": hit_idle,
            "hit_unknown": hit_unknown, "missed_rounds": missed, "rounds": rounds, "wrong": wrong, "hangs": hangs,
            "lost_tasks": lost_tasks, "lost_wanted": lost_wanted, "rerun_tasks": rerun_tasks, "rerun_done": rerun_done, "lost_unneeded": unneeded,
            "lost_not_rerun": not_rerun,
            "orphans": len(set(left) | set(children)),
            "orphan_pids": sorted(set(left) | set(children)), "shm_new": shm_new,
            "positions": [(n, s, round(e, 3)) for n, _, s, e in positions], "workers": workers,
            "seconds": round(time.perf_counter() - t0, 1), "records": records}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def main(argv: Optional[list[str]] = None) -> int:
    """Command line: run the loop, print the figures; exit 1 on a wrong answer, a
    hang, a lost task neither run again nor unneeded, or an orphan."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=100, help="kills that land during a solve (default 100)")
    ap.add_argument("--positions", type=int, default=8, help="random positions besides KILL_MOVES (default 8)")
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--min-s", type=float, default=0.3, help="shortest parallel solve kept (s)")
    ap.add_argument("--max-s", type=float, default=3.0, help="longest parallel solve kept (s)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one solve may take before it is a hang")
    ap.add_argument("--target", choices=("any", "searching"), default="any",
                    help="kill a random worker (default), or one inside the search of a task still wanted")
    ap.add_argument("--json", metavar="PATH", help="write the figures (and one record per kill) here")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    positions = pick_positions(args.positions, args.seed, args.workers, args.min_s, args.max_s)
    print(f"{len(positions)} positions in {time.perf_counter() - t:.1f} s: "
          + ", ".join(f"{n} ({s:+d}, {e:.2f} s)" for n, _, s, e in positions), flush=True)
    out = kill_loop(args.kills, positions, seed=args.seed, workers=args.workers, timeout=args.timeout,
                    target=args.target, log=lambda s: print(s, flush=True))
    print(f"kills {out['kills']} (running task {out['hit_running']}, a task sent just before "
          f"{out['hit_unstarted']}, idle worker {out['hit_idle']}, "
          f"unknown {out['hit_unknown']}; "
          f"{out['missed_rounds']} rounds ended before the kill), lost tasks {out['lost_tasks']} (still wanted "
          f"{out['lost_wanted']}: handed out again {out['rerun_tasks']}; decided by a rerun {out['rerun_done']}, "
          f"unneeded {out['lost_unneeded']}, neither {out['lost_not_rerun']}), "
          f"wrong answers {out['wrong']}, hangs {out['hangs']}, orphans {out['orphans']}, "
          f"new /dev/shm entries {len(out['shm_new'])}, {out['seconds']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 1 if out["wrong"] or out["hangs"] or out["lost_not_rerun"] or out["orphans"] else 0


if __name__ == "__main__":
    sys.exit(main())
