"""parallel_mnk.parallel.pools.procpool (with worker.py and shm.py): the process pool.

* reuse: one pool per (workers, tt_bits), rebuilt (and the old workers gone) on
  a change;
* faults: a worker killed mid-search, a worker killed while idle, every worker
  dead at once, workers started from a thread that has ended;
* the shared table on huge pages where Linux allows them;
* Ctrl-C on the CLI (no worker outlives it); ``time_limit`` (``unknown``, never
  a guess, and the pool still works afterwards).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from checks import (BIG_TT_BITS, C4, INTERRUPT_MOVES, KILL_MOVES, KILL_SCORE, TT_BITS, alive, check_accounting, check_best_move,
                    check_pv, kill_mid_search, pool_tasks, serial_score, split_solve)
from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.runtime import ttable
from parallel_mnk.parallel.scheduling.registry import get_coordinator, get_pool
from parallel_mnk.parallel.scheduling.registry import shutdown_backends as shutdown_pool
from parallel_mnk.game.rules import value_of_score
from parallel_mnk import Limit, Options

ROOT = Path(__file__).resolve().parents[1]


def test_pool_is_reused_and_rebuilt_on_change():
    a = get_pool(2, TT_BITS)
    pids = a.pids()
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    solve(Position.from_moves(GameSpec(4, 4, 3), "b3"), options=Options(workers=2, tt_size=8 << TT_BITS, pv=False))
    assert get_pool(2, TT_BITS) is a and a.pids() == pids
    b = get_pool(3, TT_BITS)
    assert b is not a and len(b.pids()) == 3
    assert a.closed
    for p in pids:
        assert not alive(p, timeout=2.0), f"worker {p} of the replaced pool is still running"


# ---------------------------------------------------------------- faults
KILL_TRIES = 5   # solves at most, until a kill loses a task its rerun must decide (see below)


def solve_killing_a_searcher(pos, pool, coordinator):
    """Solve ``pos`` on ``pool`` in a thread and SIGKILL a worker as soon as one is
    inside the search of a task the coordinator still wants (waited for, not
    timed: checks.kill_mid_search); the result and ``(worker, task id, pid)``."""
    box = {}

    def run():
        try:
            box["result"] = solve(pos, options=Options(workers=2, tt_size=8 << BIG_TT_BITS, pv=False, progress=False))
        except BaseException as e:  # reported below
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)  # a hang fails the test instead of blocking it
    thread.start()
    killed = None
    while killed is None and thread.is_alive():
        killed = kill_mid_search(pool, coordinator)
        time.sleep(0.001)
    assert killed is not None, "the solve ended before a worker was inside the search of a task"
    thread.join(120)
    assert not thread.is_alive(), "the solve hangs after a worker was killed"
    assert "error" not in box, repr(box.get("error"))
    return box["result"], killed


def test_killed_worker_task_is_rerun():
    """SIGKILL a worker inside the search of a task the coordinator still wants:
    the coordinator records that task lost on that worker, its search begun, the
    pool starts a new worker, the task's node is handed out again, and the
    answer is right. A lost task may legitimately need no rerun: its answer no
    longer wanted by the time the death is noticed (a result that came in
    between made it useless: abandoned), or its node made useless by a cutoff
    before a rerun decided it (unneeded; its rerun, if any, abandoned); the
    solve is repeated, at most KILL_TRIES times, until a lost task is decided by
    its rerun."""
    pos = Position.from_moves(C4, KILL_MOVES)
    pool = get_pool(2, BIG_TT_BITS)
    coordinator = get_coordinator("process", 2, BIG_TT_BITS)
    outcomes = []
    try:
        while len(outcomes) < KILL_TRIES and "rerun" not in outcomes:
            r, (worker, task, victim) = solve_killing_a_searcher(pos, pool, coordinator)
            assert (r.value, r.score) == ("win", KILL_SCORE), (r.value, r.score)
            check_best_move(pos, r.best_move, r.score, weak=False)
            check_accounting(r, 2)
            p = r.parallel
            lost = {(t["worker"], t["task_id"]): t for t in p["lost"]}
            assert (worker, task) in lost, f"killed worker {worker} inside task {task}; the coordinator lost {p['lost']}"
            mine = lost[worker, task]
            assert mine["started"] is True, mine   # (its line carried the task)
            assert p["restarts"] == 1 and p["lost_tasks"] == 1, p
            outcomes.append(mine["outcome"])
            if mine["wanted"]:
                assert mine["outcome"] in ("rerun", "unneeded"), mine
                assert mine["reruns"] >= 1 or mine["outcome"] == "unneeded", mine
            else:
                assert mine["outcome"] == "abandoned" and mine["reruns"] == 0, mine
            assert p["rerun_done"] == (mine["outcome"] == "rerun"), p
            assert sum(w.tasks > 0 for w in r.workers[1:]) == 2
            assert get_pool(2, BIG_TT_BITS) is pool
            assert victim not in pool.pids() and len(pool.pids()) == 2
            assert not alive(victim, timeout=2.0)
            # (the replacement was forked by the solve's thread, which has ended: see
            # test_pool_started_in_a_thread_outlives_the_thread)
        assert "rerun" in outcomes, f"in {len(outcomes)} solves no lost task was decided by its rerun: {outcomes}"
    finally:
        shutdown_pool()


def test_worker_killed_while_idle_is_replaced():
    pool = get_pool(2, TT_BITS)
    victim = pool.pids()[1]
    os.kill(victim, signal.SIGKILL)
    assert not alive(victim, timeout=2.0)
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "33443")
    r = split_solve(pos, 2, pv=False)
    assert r.score == serial_score(pos)
    # it held no task: none lost, or (when the coordinator handed one to it before its death
    # was seen: it happened under load) that one, never started, and done again or not needed
    lost = r.parallel["lost"]
    assert r.parallel["restarts"] == 1 and len(lost) <= 1, r.parallel
    assert all(t["started"] is False and t["outcome"] in ("rerun", "helper", "unneeded", "abandoned") for t in lost), lost
    assert victim not in pool.pids() and all(alive(p) for p in pool.pids())
    r = split_solve(pos, 2, pv=False)  # and again, on the new worker
    assert r.score == serial_score(pos)
    assert pool_tasks(r) > 0


def test_solve_after_every_idle_worker_died():
    pool = get_pool(2, TT_BITS)
    victims = pool.pids()
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    try:
        assert not any(alive(p, timeout=2.0) for p in victims)
        pos = Position.from_moves(GameSpec(6, 5, 4, True), "33443")
        r = split_solve(pos, 2, pv=False)
        assert r.score == serial_score(pos)
    finally:
        shutdown_pool()


def test_pool_started_in_a_thread_outlives_the_thread():
    shutdown_pool()
    thread = threading.Thread(target=lambda: get_pool(2, TT_BITS))
    thread.start()
    thread.join()
    pool = get_pool(2, TT_BITS)
    try:
        time.sleep(0.3)
        assert all(alive(p) for p in pool.pids()), "workers died with the thread that started them"
    finally:
        shutdown_pool()


@pytest.mark.slow
def test_killed_worker_answer_matches_serial():
    """The answer of the kill tests (here, in test_checkpoint and test_cluster),
    recomputed by the serial solver (a few seconds)."""
    assert serial_score(Position.from_moves(C4, KILL_MOVES)) == KILL_SCORE


# ---------------------------------------------------------------- huge pages
def _huge_page_kib_of(address: int) -> int:
    """ShmemPmdMapped (KiB) of this process's mapping that holds ``address``."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= address < hi
        elif inside and head == "ShmemPmdMapped:":
            return int(line.split()[1])
    return 0


def test_shared_table_gets_huge_pages_where_the_system_allows_them():
    policy = ttable.shared_huge_pages()
    if policy not in ("advise", "always"):
        pytest.skip(f"shared memory huge pages are {policy!r} here (needs 'advise' or 'always' in "
                    "/sys/kernel/mm/transparent_hugepage/shmem_enabled)")
    shutdown_pool()
    pool = get_pool(2, 22)  # 32 MiB
    try:
        pool.tt[:] = 0  # touch every page
        assert _huge_page_kib_of(pool.tt.ctypes.data) >= 16 * 1024
    finally:
        shutdown_pool()


# ---------------------------------------------------------------- Ctrl-C
def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "parallel_mnk.frontends.cli", *args]


def test_cli_module_runs():
    p = subprocess.run(cli_command("solve", "--game", "tictactoe", "--moves", "b2,a1", "--workers", "2", "--json"),
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert '"value"' in p.stdout


@pytest.mark.parametrize("target", ["process", "group"])
def test_ctrl_c_stops_the_cli_and_every_worker(target):
    """SIGINT to the CLI alone, or to its whole process group (a terminal's Ctrl-C)."""
    proc = subprocess.Popen(cli_command("solve", "--game", "connect4", "--moves", INTERRUPT_MOVES, "--workers", "2",
                                        "--book", "none"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        children = []
        while time.monotonic() < deadline and proc.poll() is None:
            children = parent.children(recursive=True)
            if len(children) >= 2:
                break
            time.sleep(0.05)
        assert len(children) >= 2, f"no workers appeared (exit {proc.poll()})"
        time.sleep(0.5)  # into the search
        assert proc.poll() is None, "the solve ended before it could be interrupted"
        child_pids = [c.pid for c in parent.children(recursive=True)]
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the CLI still runs 3 s after SIGINT (children {child_pids})")
        assert proc.returncode != 0, (proc.returncode, out, err)
        assert "Traceback" not in err, err
        deadline = time.monotonic() + 2.0
        left = [p for p in child_pids if alive(p, timeout=max(0.0, deadline - time.monotonic()))]
        assert not left, f"worker processes {left} outlived the interrupted CLI"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_the_console_script_stops_the_workers_before_it_exits(monkeypatch, capsys):
    """``parallel-mnk``'s wrapper: the command's status, its pools stopped before the
    interpreter's clean-up; a Ctrl-C that lands while they stop (after the answer)
    changes neither the status nor the output."""
    from parallel_mnk import entrance
    from parallel_mnk.frontends import cli

    stops = []
    monkeypatch.setattr(cli, "main", lambda: 3)
    monkeypatch.setattr(entrance, "shutdown", lambda: stops.append("stopped"))
    with pytest.raises(SystemExit) as done:
        cli.entry()
    assert done.value.code == 3 and stops == ["stopped"]

    def interrupted() -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(entrance, "shutdown", interrupted)
    with pytest.raises(SystemExit) as done:
        cli.entry()
    assert done.value.code == 3 and capsys.readouterr() == ("", "")


# ---------------------------------------------------------------- time limit
@pytest.mark.parametrize("weak", [False, True])
def test_time_limit_gives_unknown_and_pool_still_works(weak):
    pos = Position.from_moves(C4, "4453")  # about 8 s serially
    t = time.monotonic()
    r = solve(pos, Limit(time=0.05), weak=weak, options=Options(workers=2, tt_size=8 << TT_BITS, progress=False))
    took = time.monotonic() - t
    assert r.value == "unknown" and r.score is None, (r.value, r.score)
    assert r.pv == [] and (r.best_move is None or r.best_move in pos.legal_moves)   # (the best so far, if any)
    assert took < 2.0, f"a 0.05 s limit took {took:.2f} s"
    check_accounting(r, 2)
    assert get_coordinator("process", 2, TT_BITS).running == 0, "a task is still out after the time-out"
    small = Position.from_moves(GameSpec(6, 5, 4, True), "334")
    r = solve(small, weak=weak, options=Options(workers=2, tt_size=8 << TT_BITS, progress=False))
    assert r.value == value_of_score(serial_score(small))
    if not weak:
        assert r.score == serial_score(small)
        check_pv(small, r.pv, r.score)


def test_generous_time_limit_gives_the_answer():
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "3344")
    r = solve(pos, Limit(time=60), options=Options(workers=2, tt_size=8 << TT_BITS, pv=False, progress=False))
    assert r.score == serial_score(pos)

