"""parallel_mnk.parallel: the split tree (split.py) and the worker pool (pool.py).

* agreement of ``solve(workers=2..4)`` with the serial solver (and, on small
  boards, with the naive reference) on random positions: value, score, weak
  value, an optimal best move, a principal variation that keeps the score;
* per-worker accounting (nodes add up, one entry per process);
* faults: a worker killed mid-search, a worker killed while idle, every worker
  dead at once, workers started from a thread;
* Ctrl-C on the CLI (no worker outlives it), ``time_limit`` (``unknown``, never
  a guess, and the pool still works afterwards);
* ``Task``/``TaskResult`` pickling;
* ``SplitTree`` with a fake expander (pure Python, no kernels): bound
  propagation, ``done``/``result()``, young-brothers-wait order, cutoffs making
  tasks unneeded, and a randomised simulation of a pool against exact minimax.

Most parallel solves here go through ``solve_parallel(serial_budget=0)``: the
public ``solve`` first tries a position serially for a few thousand nodes, so
that small positions would otherwise never reach the pool. One pool per
(workers, tt_bits) is kept by the package between solves; the module fixture
shuts it down at the end.
"""
from __future__ import annotations

import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from naive import naive_solver
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.kernels.layout import TT_EXACT, TT_LOWER, TT_UPPER
from parallel_mnk import ttable
from parallel_mnk.parallel import coordinator as coordinator_module
from parallel_mnk.parallel.backends import get_coordinator, get_pool
from parallel_mnk.parallel.backends import shutdown_backends as shutdown_pool
from parallel_mnk.parallel.split import SplitTree
from parallel_mnk.parallel.task import DEFER_MIN_EMPTY, Task, TaskResult
from parallel_mnk.rules import generic_bounds, value_of_score

ROOT = Path(__file__).resolve().parents[1]
C4 = GameSpec(7, 6, 4, True)
TT_BITS = 16          # small shared tables: light pools for the many small solves
BIG_TT_BITS = 20      # for the few searches of several seconds
WORKER_COUNTS = (2, 3, 4)


@pytest.fixture(scope="module", autouse=True)
def pool_lifecycle():
    """Warm the kernels once; stop the package's pool (and its processes) at the end."""
    solve(Position(GameSpec(3, 3, 3)))
    yield
    shutdown_pool()


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


# ---------------------------------------------------------------- references
_serial_cache: dict[tuple, int] = {}


def serial_score(pos: Position) -> int:
    """Exact score from the side to move by the serial solver (cached)."""
    key = (pos.spec, pos.x, pos.o)
    if key not in _serial_cache:
        r = solve(pos, workers=1, pv=False)
        assert r.score is not None, r
        _serial_cache[key] = r.score
    return _serial_cache[key]


def worth(spec: GameSpec, ply: int) -> int:
    return (spec.cells + 2 - ply) // 2


def check_best_move(pos: Position, move: int, score: int, weak: bool) -> None:
    """``move`` is optimal: it wins at once, or the child's serial score is
    ``-score`` (weak: the child's value is the opposite of ``sign(score)``)."""
    assert move in pos.legal_moves(), (move, pos.legal_moves())
    child = pos.copy()
    mover = child.turn
    child.push(move)
    out = child.outcome()
    if out is not None:
        if out.winner == mover:
            got = worth(pos.spec, child.ply)
        else:
            assert out.winner is None, "a move cannot make the opponent win"
            got = 0
        if weak:
            assert sign(got) == sign(score), (move, got, score)
        else:
            assert got == score, (move, got, score)
        return
    child_score = serial_score(child)
    if weak:
        assert sign(-child_score) == sign(score), (move, child_score, score)
    else:
        assert -child_score == score, (move, child_score, score)


def check_pv(pos: Position, pv: list[int], score: int) -> None:
    """Each move of ``pv`` is legal and keeps the score; the line ends the game."""
    assert pv, "empty principal variation"
    cur = pos.copy()
    s = score
    for i, move in enumerate(pv):
        assert move in cur.legal_moves(), (i, move, pv)
        check_best_move(cur, move, s, weak=False)
        cur.push(move)
        s = -s
        if cur.is_game_over():
            assert i == len(pv) - 1, f"the line goes on after the game ended at move {i}: {pv}"
    assert cur.is_game_over(), f"the line stops before the end: {pv}"


def split_solve(pos: Position, workers: int, **kw):
    """A parallel solve that always splits (no serial try first: ``serial_budget=0``),
    so that even easy positions go through the split tree and the pool."""
    kw.setdefault("tt_bits", TT_BITS)
    kw.setdefault("progress", False)
    return solve(pos, workers=workers, serial_budget=0, **kw)


def pool_tasks(result) -> int:
    return sum(w.tasks for w in result.workers[1:])


def check_accounting(result, workers: int) -> None:
    assert len(result.workers) == workers + 1
    assert [w.worker for w in result.workers] == list(range(workers + 1))
    assert sum(w.nodes for w in result.workers) == result.nodes
    for w in result.workers:
        assert w.nodes >= 0 and w.tasks >= 0 and w.cpu_s >= 0 and w.peak_rss >= 0, w


# ---------------------------------------------------------------- random positions
# (spec, fewest stones, most stones, positions); the ranges keep every serial solve
# well under a tenth of a second.
BOARDS = [
    (GameSpec(3, 3, 3), 0, 6, 30),
    (GameSpec(4, 4, 3), 0, 10, 48),
    (GameSpec(4, 4, 4), 0, 10, 48),
    (GameSpec(5, 4, 4), 2, 12, 48),
    (GameSpec(4, 4, 3, True), 0, 10, 48),
    (GameSpec(4, 4, 4, True), 0, 10, 48),
    (GameSpec(5, 4, 4, True), 0, 12, 48),
    (GameSpec(6, 5, 4, True), 10, 26, 48),
    (GameSpec(7, 6, 4, True), 24, 36, 48),
]
SPLIT_DEPTHS = (None, 1, 2, 3)
NAIVE_MAX_EMPTY = 10   # naive minimax where it is cheap (boards of <= 16 cells)
DEEP_SPLIT_MAX_EMPTY = 10  # split depth 3 on free boards only with this many empty cells at most


def random_positions(spec: GameSpec, lo: int, hi: int, count: int, seed: int) -> list[Position]:
    """``count`` distinct random positions (not over) with ``lo..hi`` stones."""
    rng = random.Random(seed)
    seen, out = set(), []
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        pos = Position(spec)
        for _ in range(rng.randint(lo, hi)):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves()))
        if pos.is_game_over() or (pos.x, pos.o) in seen:
            continue
        seen.add((pos.x, pos.o))
        out.append(pos)
    assert len(out) == count
    return out


def board_id(b) -> str:
    spec = b[0]
    return f"{spec.cols}x{spec.rows}k{spec.k}{'g' if spec.gravity else ''}"


@pytest.mark.parametrize("board", BOARDS, ids=board_id)
def test_parallel_agrees_with_serial_on_random_positions(board):
    spec, lo, hi, count = board
    positions = random_positions(spec, lo, hi, count, seed=1000 + BOARDS.index(board))
    serial = {}
    for pos in positions:
        serial[(pos.x, pos.o)] = serial_score(pos)
        if spec.cells <= 16 and spec.cells - pos.ply <= NAIVE_MAX_EMPTY:
            x, o = pos.x, pos.o
            assert naive_solver(spec).score(x, o) == serial[(x, o)], pos.move_stack
    split_solves = used_tasks = 0
    helped = {}
    for workers in WORKER_COUNTS:
        for i, pos in enumerate(positions):
            before = (pos.x, pos.o, list(pos.move_stack))
            expect = serial[(pos.x, pos.o)]
            depth = SPLIT_DEPTHS[(i + workers) % len(SPLIT_DEPTHS)]
            if depth == 3 and not spec.gravity and spec.cells - pos.ply > DEEP_SPLIT_MAX_EMPTY:
                depth = 2  # thousands of tasks for a few ms of search: too slow for this loop
            want_pv = i % 12 == 0
            where = f"{spec} moves={pos.move_stack} workers={workers} split_depth={depth}"

            # always split: exact score, optimal move, (sometimes) the line
            helpers_before = get_coordinator("process", workers, TT_BITS).helper_jobs
            r = split_solve(pos, workers, pv=want_pv, split_depth=depth)
            helped[workers] = (helped.get(workers, 0) + get_coordinator("process", workers, TT_BITS).helper_jobs
                               - helpers_before)
            assert (r.value, r.score) == (value_of_score(expect), expect), where
            check_best_move(pos, r.best_move, r.score, weak=False)
            assert r.pv[0] == r.best_move, where
            if want_pv:
                check_pv(pos, r.pv, r.score)
            else:
                assert r.pv == [r.best_move], where
            check_accounting(r, workers)
            split_solves += 1
            used_tasks += pool_tasks(r) > 0

            # always split, weak: the sign, and a move that keeps it
            w = split_solve(pos, workers, weak=True, pv=False, split_depth=depth)
            assert w.value == value_of_score(expect) and w.score is None, where
            check_best_move(pos, w.best_move, expect, weak=True)
            check_accounting(w, workers)

            # the public entry point (easy positions are tried serially first)
            p = solve(pos, workers=workers, tt_bits=TT_BITS, pv=False, split_depth=depth, progress=False)
            assert (p.value, p.score) == (value_of_score(expect), expect), where
            check_best_move(pos, p.best_move, p.score, weak=False)
            check_accounting(p, workers)
            assert (pos.x, pos.o, pos.move_stack) == before, "solve changed the position"
    # not a vacuous test: a good share of the split solves ran pool tasks, and idle
    # workers joined running tasks (ABDADA on the shared table)
    assert used_tasks >= split_solves // 10, f"only {used_tasks} of {split_solves} split solves ran pool tasks"
    assert helped[max(WORKER_COUNTS)] > 0, f"no worker ever joined a running task: {helped}"


@pytest.mark.parametrize("workers", WORKER_COUNTS)
def test_node_accounting_on_a_real_split(workers):
    """Empty 6x5 gravity board (a draw, a few million nodes): the work is spread."""
    pos = Position(GameSpec(6, 5, 4, True))
    r = solve(pos, workers=workers, tt_bits=BIG_TT_BITS, pv=False, progress=False)
    assert (r.value, r.score) == ("draw", 0)
    check_accounting(r, workers)
    pool_entries = r.workers[1:]
    assert sum(w.tasks for w in pool_entries) >= workers
    assert sum(w.nodes for w in pool_entries) > 0
    assert sum(w.tasks > 0 for w in pool_entries) >= 2, "only one worker ever got a task"
    assert r.workers[0].tasks == 0  # the coordinator runs no tasks


def test_helpers_share_a_task_and_agree_with_serial():
    """Root splitting on a 4-column board leaves 4 workers with at most 4 tasks: the
    others join running ones (the same task, ABDADA on the shared table). Every
    answer is the serial one, and joining really happened."""
    spec = GameSpec(4, 5, 4, True)
    positions = random_positions(spec, 2, 8, 12, seed=77)
    coordinator = get_coordinator("process", 4, BIG_TT_BITS)
    before = coordinator.helper_jobs
    for pos in positions:
        expect = serial_score(pos)
        r = split_solve(pos, 4, tt_bits=BIG_TT_BITS, pv=False, split_depth=1)
        assert r.score == expect, pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
        check_accounting(r, 4)
    assert coordinator.helper_jobs > before, "no worker joined a running task"
    assert DEFER_MIN_EMPTY <= spec.cells - 8, "the busy marks were never consulted"


def test_at_most_one_speculative_task_runs_and_answers_agree(monkeypatch):
    """With helpers, idle workers start a task young-brothers-wait holds back only
    while fewer than ``MAX_SPECULATIVE`` such tasks run; the others join running
    tasks. Checked after every dispatch of real 4-worker splits (eligibility only
    grows, so the count of distinct held-back tasks under way can only come from
    dispatching), and the answers are the serial ones."""
    seen = {"dispatches": 0, "speculative_max": 0}
    original = coordinator_module.Coordinator._dispatch

    def checked_dispatch(self, tree, spec, salt):
        original(self, tree, spec, salt)
        running = {id(s.job.node): s.job.node for s in self.slots if s.job is not None and s.job.node is not None}
        speculative = sum(1 for node in running.values() if not tree.eligible(node))
        assert speculative <= coordinator_module.MAX_SPECULATIVE, speculative
        seen["dispatches"] += 1
        seen["speculative_max"] = max(seen["speculative_max"], speculative)

    monkeypatch.setattr(coordinator_module.Coordinator, "_dispatch", checked_dispatch)
    spec = GameSpec(5, 4, 4, True)
    for pos in random_positions(spec, 0, 6, 10, seed=31):
        expect = serial_score(pos)
        r = split_solve(pos, 4, pv=False, split_depth=3)
        assert r.score == expect, pos.move_stack
        check_best_move(pos, r.best_move, r.score, weak=False)
    assert seen["dispatches"] > 0 and seen["speculative_max"] == coordinator_module.MAX_SPECULATIVE, seen


@pytest.mark.parametrize("depth", [1, 2, 3, 4, None])
@pytest.mark.parametrize("spec, moves, known", [
    (GameSpec(6, 5, 4, True), "34", 0),
    (C4, "24345155", -3),            # Pons' Test_L1_R3, line 10
], ids=["6x5g-34", "c4-24345155"])
def test_split_depths_on_a_real_split(spec, moves, known, depth):
    """Positions of about a million nodes, every split depth: exact score, optimal
    move and line."""
    pos = Position.from_moves(spec, moves)
    expect = serial_score(pos)
    assert expect == known
    r = split_solve(pos, 2, tt_bits=BIG_TT_BITS, pv=True, split_depth=depth)
    assert r.score == expect
    assert pool_tasks(r) > 0
    check_best_move(pos, r.best_move, r.score, weak=False)
    check_pv(pos, r.pv, r.score)
    check_accounting(r, 2)


def test_deep_split_coordinator_overhead():
    """Coordinator CPU per task stays small on a deep split of a free board (5x4 k=4,
    split depth 3: ~1450 tasks). Regression guard: when ``SplitTree.record``
    refreshed the windows of the whole tree after every result, this took 4.7 s of
    coordinator CPU (3.2 ms per task) against 0.06 s for the whole serial solve."""
    pos = Position(GameSpec(5, 4, 4))
    r = split_solve(pos, 2, pv=False, split_depth=3)
    assert r.score == 0
    tasks = pool_tasks(r)
    assert tasks > 500
    per_task = r.workers[0].cpu_s / tasks
    assert per_task < 1e-3, f"coordinator CPU {r.workers[0].cpu_s:.2f} s for {tasks} tasks"


def test_bad_split_depth_is_refused():
    with pytest.raises(MnkError):
        split_solve(Position(GameSpec(4, 4, 4)), 2, split_depth=0)


def test_finished_game_is_not_searched_in_parallel():
    pos = Position.from_moves(GameSpec(3, 3, 3), [0, 3, 1, 4, 2])  # X has the top row
    r = solve(pos, workers=2, tt_bits=TT_BITS)
    assert r.terminal and r.value == "loss" and r.score == -worth(pos.spec, 5)
    assert r.best_move is None and r.pv == []


def test_pool_is_reused_and_rebuilt_on_change():
    a = get_pool(2, TT_BITS)
    pids = a.pids()
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    solve(Position.from_moves(GameSpec(4, 4, 3), [5]), workers=2, tt_bits=TT_BITS, pv=False)
    assert get_pool(2, TT_BITS) is a and a.pids() == pids
    b = get_pool(3, TT_BITS)
    assert b is not a and len(b.pids()) == 3
    assert a.closed
    for p in pids:
        assert not alive(p, timeout=2.0), f"worker {p} of the replaced pool is still running"


# ---------------------------------------------------------------- faults
def alive(pid: int, timeout: float = 0.0) -> bool:
    """Whether ``pid`` still runs (zombies count as dead) after up to ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            running = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            running = False
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.05)


# Pons' Test_L1_R3, line 18: exact score 2; about 2.5 s on 2 workers here.
KILL_MOVES, KILL_SCORE = "53476", 2


def test_killed_worker_task_is_rerun():
    """SIGKILL a busy worker half a second into a solve of a few seconds: the pool
    starts a new worker, the lost task is run again and the answer is right."""
    pos = Position.from_moves(C4, KILL_MOVES)
    pool = get_pool(2, BIG_TT_BITS)
    box = {}

    def run():
        try:
            box["result"] = solve(pos, workers=2, tt_bits=BIG_TT_BITS, pv=False, progress=False)
        except BaseException as e:  # reported below
            box["error"] = e

    try:
        thread = threading.Thread(target=run, daemon=True)  # a hang fails the test instead of blocking it
        thread.start()
        time.sleep(0.5)
        assert thread.is_alive(), "the solve ended too soon to kill a worker during it"
        coordinator = get_coordinator("process", 2, BIG_TT_BITS)
        busy = [pool.pids()[s.index - 1] for s in coordinator.slots if s.job is not None]  # prefer one with a task
        victim = busy[0] if busy else pool.pids()[0]
        os.kill(victim, signal.SIGKILL)
        thread.join(120)
        assert not thread.is_alive(), "the solve hangs after a worker was killed"
        assert "error" not in box, repr(box.get("error"))
        r = box["result"]
        assert (r.value, r.score) == ("win", KILL_SCORE), (r.value, r.score)
        check_best_move(pos, r.best_move, r.score, weak=False)
        check_accounting(r, 2)
        assert sum(w.tasks > 0 for w in r.workers[1:]) == 2
        assert get_pool(2, BIG_TT_BITS) is pool
        assert victim not in pool.pids() and len(pool.pids()) == 2
        assert not alive(victim, timeout=2.0)
        # (the replacement was forked by the solve's thread, which has ended: see
        # test_pool_started_in_a_thread_outlives_the_thread)
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


def test_shared_huge_page_policy_is_read_from_the_kernel_setting(tmp_path, monkeypatch):
    setting = tmp_path / "shmem_enabled"
    for text, chosen in [("always within_size advise [never] deny force\n", "never"),
                         ("always within_size [advise] never deny force\n", "advise"),
                         ("[always] never\n", "always")]:
        setting.write_text(text)
        monkeypatch.setattr(ttable, "SHMEM_THP", str(setting))
        assert ttable.shared_huge_pages() == chosen
    monkeypatch.setattr(ttable, "SHMEM_THP", str(tmp_path / "missing"))
    assert ttable.shared_huge_pages() is None


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


@pytest.mark.slow
def test_killed_worker_answer_matches_serial():
    """The answer used above, recomputed by the serial solver (a few seconds)."""
    assert serial_score(Position.from_moves(C4, KILL_MOVES)) == KILL_SCORE


# ---------------------------------------------------------------- Ctrl-C
def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "parallel_mnk.cli", *args]


def test_cli_module_runs():
    p = subprocess.run(cli_command("solve", "--game", "tictactoe", "--moves", "b2,a1", "--workers", "2", "--json"),
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert '"value"' in p.stdout


@pytest.mark.parametrize("target", ["process", "group"])
def test_ctrl_c_stops_the_cli_and_every_worker(target):
    """SIGINT to the CLI alone, or to its whole process group (a terminal's Ctrl-C)."""
    proc = subprocess.Popen(cli_command("solve", "--game", "connect4", "--moves", "4453", "--workers", "2"),
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
        sent = time.monotonic()
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


# ---------------------------------------------------------------- time limit
@pytest.mark.parametrize("weak", [False, True])
def test_time_limit_gives_unknown_and_pool_still_works(weak):
    pos = Position.from_moves(C4, "4453")  # about 8 s serially
    t = time.monotonic()
    r = solve(pos, workers=2, tt_bits=TT_BITS, time_limit=0.05, weak=weak, progress=False)
    took = time.monotonic() - t
    assert r.value == "unknown" and r.score is None, (r.value, r.score)
    assert r.best_move is None and r.pv == []
    assert took < 2.0, f"a 0.05 s limit took {took:.2f} s"
    check_accounting(r, 2)
    assert get_coordinator("process", 2, TT_BITS).running == 0, "a task is still out after the time-out"
    small = Position.from_moves(GameSpec(6, 5, 4, True), "334")
    r = solve(small, workers=2, tt_bits=TT_BITS, weak=weak, progress=False)
    assert r.value == value_of_score(serial_score(small))
    if not weak:
        assert r.score == serial_score(small)
        check_pv(small, r.pv, r.score)


def test_generous_time_limit_gives_the_answer():
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "3344")
    r = solve(pos, workers=2, tt_bits=TT_BITS, time_limit=60, pv=False, progress=False)
    assert r.score == serial_score(pos)


# ---------------------------------------------------------------- task records
def test_task_and_result_records_pickle():
    task = Task(task_id=7, cols=7, rows=6, k=4, gravity=True, salt=(1 << 64) - 3, own=(1 << 41) | 5, opp=1 << 40,
                ply=3, alpha=-2, beta=-1, path=(38, 31, 39))
    back = pickle.loads(pickle.dumps(task))
    assert back == task and hash(back) == hash(task) and back is not task
    assert isinstance(back.path, tuple)
    res = TaskResult(task_id=7, worker=2, value=-1, kind=TT_UPPER, abandoned=False, nodes=12345, cpu_s=0.25,
                     peak_rss=1 << 27)
    assert pickle.loads(pickle.dumps(res)) == res
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(task, protocol=proto)) == task


@pytest.mark.parametrize("spec", [GameSpec(3, 3, 3), GameSpec(4, 4, 4), GameSpec(4, 4, 3, True), GameSpec(5, 4, 4, True)],
                         ids=lambda s: f"{s.cols}x{s.rows}k{s.k}{'g' if s.gravity else ''}")
def test_task_results_are_labelled_as_strongly_as_their_window_allows(spec):
    """A worker's result for a task is a fail-soft value and its kind. A value
    strictly inside the task's window must be labelled exact, even when the
    kernel narrowed the window itself (to the position's score bounds, or to a
    table entry): a split-tree node given a mere bound there can never settle,
    and the same task was handed out again forever (a livelock seen on 4x4 k4).
    Each position is searched with a run of windows on one table, so later
    searches meet the entries the earlier ones stored."""
    import numpy as np

    from parallel_mnk.kernels import layout as L
    from parallel_mnk.parallel.task import WorkerEnv

    tt = np.zeros(1 << 16, dtype=np.uint64)
    ctl = np.zeros(L.CTL_WORKERS + 2 * L.CTL_PER_WORKER, dtype=np.int64)
    env = WorkerEnv(1, tt, ctl, L.CTL_WORKERS + L.CTL_PER_WORKER)
    rng = random.Random(7)
    solver = naive_solver(spec)
    checked = {TT_EXACT: 0, TT_LOWER: 0, TT_UPPER: 0}
    for i, pos in enumerate(random_positions(spec, 4, 10, 40, seed=11)):
        own, opp = pos.stones()
        true = solver.score(pos.x, pos.o)
        lo, hi = generic_bounds(spec.cells, pos.ply)
        for j in range(8):
            alpha = rng.randint(lo - 1, hi)
            beta = alpha + 1 if j % 2 else rng.randint(alpha + 1, hi + 1)
            task = Task(1 + 8 * i + j, spec.cols, spec.rows, spec.k, spec.gravity, 12345, own, opp, pos.ply,
                        alpha, beta, ())
            r = task.run(env)
            assert not r.abandoned
            where = (pos.move_stack, (alpha, beta), r.value, r.kind, true)
            if alpha < r.value < beta:
                assert r.kind == TT_EXACT, where
            if r.kind == TT_EXACT:
                assert r.value == true, where
            elif r.kind == TT_LOWER:
                assert r.value >= beta and true >= r.value, where
            else:
                assert r.kind == TT_UPPER and r.value <= alpha and true <= r.value, where
            checked[r.kind] += 1
    assert min(checked.values()) > 0, checked


# ---------------------------------------------------------------- split tree, fake games
FAKE_CELLS = 30     # board size the tree believes in (generic bounds +-15 at the root)
WIDE = (-100, 100)  # a window wider than any score


class FakeGame:
    """A game tree from nested lists: an int is a finished position's score (from
    its side to move), a list holds the children. Every edge has its own cell, so a
    node is known by the union ``own | opp`` of the cells on its path."""

    def __init__(self, tree, rng=None, static=False):
        self.tree = tree
        self.nodes = {}        # union of path cells -> subtree
        self.child_cells = {}  # union -> cells of the children, in order
        self.static = {}       # union -> (lo, hi) the expander reports (default: no information)
        next_cell = [0]

        def walk(sub, union):
            self.nodes[union] = sub
            if not isinstance(sub, list):
                return
            if static:
                v = self.value(sub)
                self.static[union] = (v - rng.randint(0, 3), v + rng.randint(0, 3))
            cells = self.child_cells[union] = []
            for child in sub:
                cells.append(next_cell[0])
                next_cell[0] += 1
                walk(child, union | 1 << cells[-1])
        walk(tree, 0)

    @staticmethod
    def value(sub) -> int:
        if isinstance(sub, int):
            return sub
        return max(-FakeGame.value(c) for c in sub)

    def true_value(self, node) -> int:
        return self.value(self.nodes[node.own | node.opp])

    def expander(self, own: int, opp: int, ply: int):
        union = own | opp
        sub = self.nodes[union]
        if isinstance(sub, int):
            return 0, sub, sub, [0]
        lo, hi = self.static.get(union, WIDE)
        cells = self.child_cells[union]
        return len(cells), lo, hi, list(cells)


def make_tree(game: FakeGame, alpha: int, beta: int, depth: int, ybw: bool = True, **kw) -> SplitTree:
    return SplitTree(FAKE_CELLS, game.expander, 0, 0, 0, alpha, beta, depth=depth, ybw=ybw, **kw)


def all_nodes(tree: SplitTree):
    stack = [tree.root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def naive_next_tasks(tree: SplitTree) -> list:
    """Twin of SplitTree.next_tasks: open task leaves in move order (every
    ancestor needed, open and unsettled), those ``eligible`` allows first."""
    def open_(n):
        return n.needed and not n.settled() and n.alpha < n.beta

    def leaves(n):
        if not open_(n):
            return []
        if not n.children:
            return [n] if n.is_task and not n.running else []
        return [leaf for c in n.children for leaf in leaves(c)]

    found = leaves(tree.root)
    return [n for n in found if tree.eligible(n)] + [n for n in found if not tree.eligible(n)]


def paths(nodes) -> list[tuple[int, ...]]:
    return [n.path() for n in nodes]


#   root (ply 0)
#   +- A: a1 = 2            A = -2, root via A = 2
#   +- B: b1 = 1, b2 = -3   B = max(-1, 3) = 3, root via B = -3
#   +- C: c1 = 5, c2 = 0    C = max(-5, 0) = 0, root via C = 0
#   root = 2 (move A); cells: A 0, a1 1, B 2, b1 3, b2 4, C 5, c1 6, c2 7
ABC = [[2], [1, -3], [5, 0]]


def abc_nodes(tree):
    A, B, C = tree.root.children
    return A, B, C, A.children[0], B.children[0], B.children[1], C.children[0], C.children[1]


def test_fake_game_is_built_as_intended():
    g = FakeGame(ABC)
    tree = make_tree(g, *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert paths([a1, b1, b2, c1, c2]) == [(0, 1), (2, 3), (2, 4), (5, 6), (5, 7)]
    assert [g.true_value(n) for n in (tree.root, A, B, C, a1, b1, b2, c1, c2)] == [2, -2, 3, 0, 2, 1, -3, 5, 0]
    assert tree.depth == 2 and tree.tasks_total == 5
    assert all(n.is_task for n in (a1, b1, b2, c1, c2)) and not any(n.is_task for n in (tree.root, A, B, C))


def test_split_tree_bounds_propagate_and_root_is_exact():
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert not tree.done
    lo0, hi0 = generic_bounds(FAKE_CELLS, 0)
    assert lo0 <= tree.root.lo <= 2 <= tree.root.hi <= hi0
    tree.record(a1, 2, TT_EXACT)
    assert (A.lo, A.hi) == (-2, -2) and tree.root.lo == 2
    assert (B.alpha, B.beta) == (-tree.root.hi, -2)  # a finished sibling lowers the others' beta
    assert not tree.done
    tree.record(b1, 1, TT_LOWER)       # b1 >= 1 says nothing about B's lower bound (that needs b1 <= ..)
    assert b1.lo == 1 and not B.settled() and b2.needed
    tree.record(b1, 1, TT_EXACT)       # B >= -1 >= B.beta = -2: B fails high, b2 is cut off
    assert B.lo == -1 and B.settled()
    assert not b2.needed and tree.live_window(b2) is None
    assert b2 not in list(tree.next_tasks())
    assert not tree.done               # C may still beat 2
    tree.record(c2, 0, TT_EXACT)       # C >= 0 >= C.beta = -2: C fails high too
    assert C.settled() and not c1.needed
    assert tree.done
    assert (tree.root.lo, tree.root.hi) == (2, 2) and tree.result() == 2
    assert tree.best_child() is A
    assert list(tree.next_tasks()) == []


def test_split_tree_null_window_fail_high_and_low():
    # is root > 1 ?  a1 >= 2 (a lower bound, as a fail-soft worker reports it) decides it at once
    tree = make_tree(FakeGame(ABC), 1, 2, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert (a1.alpha, a1.beta) == (1, 2)
    tree.record(a1, 2, TT_LOWER)
    assert tree.done and tree.result() >= 2
    assert not any(n.needed for n in (A, B, C, a1, b1, b2, c1, c2))
    assert list(tree.next_tasks()) == []
    # is root > 2 ?  no: every child must be refuted; upper bounds come back
    tree = make_tree(FakeGame(ABC), 2, 3, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    assert (a1.alpha, a1.beta) == (2, 3)
    tree.record(a1, 2, TT_UPPER)       # a1 <= 2 -> A >= -2 -> root via A <= 2
    assert A.settled() and not tree.done
    assert (B.alpha, B.beta) == (-3, -2)
    tree.record(b1, 1, TT_EXACT)       # B >= -1 >= B.beta = -2: root via B <= 1
    assert B.settled()
    assert not tree.done
    tree.record(c1, 5, TT_LOWER)       # c1 >= 5: only C <= ... bounds, C stays open
    assert not C.settled() and not tree.done
    assert (c2.alpha, c2.beta) == (2, 3)
    tree.record(c2, 2, TT_UPPER)       # c2 <= 2: C >= -2 = C.beta: settled
    assert C.settled() and tree.done
    assert tree.result() == 2 and tree.root.hi == 2  # fail low: root <= 2


def test_a_result_that_decides_nothing_is_an_internal_error():
    """Every finished task search decides its node (fail-soft contract). A result
    that does not (a bound inside the window) would otherwise have the same task
    handed out again forever: the coordinator stops with an internal error."""
    class OneSlot:
        n, helpers, closed = 1, False, False

    tree = make_tree(FakeGame(ABC), 1, 2, depth=2)
    a1 = abc_nodes(tree)[3]
    coordinator = coordinator_module.Coordinator(OneSlot())
    w = coordinator.slots[0]
    task = Task(5, 7, 6, 4, True, 0, a1.own, a1.opp, a1.ply, a1.alpha, a1.beta, a1.path())
    coordinator._assign(w, a1, task)
    with pytest.raises(RuntimeError, match="internal error: task 5 .* does not decide its window"):
        coordinator._record(w, TaskResult(5, 1, 1, TT_LOWER, False, 10, 0.0, 0), tree)
    # the same value as an exact score decides it
    coordinator._assign(w, a1, replace(task, task_id=6))
    coordinator._record(w, TaskResult(6, 1, 1, TT_EXACT, False, 10, 0.0, 0), tree)
    assert a1.settled() and w.job is None


def test_young_brothers_wait_order():
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    A, B, C, a1, b1, b2, c1, c2 = abc_nodes(tree)
    # nothing settled: only the leftmost line is eligible, the rest follows as speculation
    assert list(tree.next_tasks()) == [a1, b1, b2, c1, c2]
    assert tree.eligible(a1) and not any(tree.eligible(n) for n in (b1, b2, c1, c2))
    tree.record(a1, 2, TT_EXACT)
    # A settled: B and C may start; their first children come first, then the waiting ones
    assert [n for n in (b1, b2, c1, c2) if tree.eligible(n)] == [b1, c1]
    assert list(tree.next_tasks()) == [b1, c1, b2, c2]
    b1.running = True                  # handed out: b2 still waits for it, c1 goes before b2
    assert list(tree.next_tasks()) == [c1, b2, c2]
    # without young-brothers-wait: plain depth-first order
    flat = make_tree(FakeGame(ABC), *WIDE, depth=2, ybw=False)
    fA, fB, fC, fa1, fb1, fb2, fc1, fc2 = abc_nodes(flat)
    flat.record(fa1, 2, TT_EXACT)
    fb1.running = True
    assert list(flat.next_tasks()) == [fb2, fc1, fc2]


def test_static_decisions_and_errors():
    # a root decided by the expander: nothing to do
    g = FakeGame(4)
    tree = make_tree(g, *WIDE, depth=2)
    assert tree.done and tree.result() == 4 and tree.tasks_total == 0 and list(tree.next_tasks()) == []
    # children decided at expansion (finished positions) take part in the bounds at once
    tree = make_tree(FakeGame([-3, [1, 2]]), *WIDE, depth=2)
    first, second = tree.root.children
    x1, x2 = second.children
    assert not first.is_task and (first.lo, first.hi) == (-3, -3) and tree.root.lo == 3
    assert tree.tasks_total == 2 and list(tree.next_tasks()) == [x1, x2]  # first is settled: no waiting
    tree.record(x1, 1, TT_EXACT)       # second >= -1: worse than first's 3 for the root
    assert second.settled() and not x2.needed
    assert tree.done and tree.result() == 3 and tree.best_child() is first
    # bad records
    tree = make_tree(FakeGame(ABC), *WIDE, depth=2)
    a1 = tree.root.children[0].children[0]
    with pytest.raises(ValueError):
        tree.record(a1, 1, 0)
    tree.record(a1, 2, TT_EXACT)
    with pytest.raises(RuntimeError):
        tree.record(a1, 3, TT_LOWER)


def test_min_tasks_expands_deeper():
    # a uniform tree of branching 3 and depth 4: 3, 9, 27, 81 nodes per ply
    def full(d):
        return 0 if d == 0 else [full(d - 1) for _ in range(3)]
    g = FakeGame(full(4))
    assert make_tree(g, *WIDE, depth=1).tasks_total == 3
    tree = make_tree(g, *WIDE, depth=1, min_tasks=20, max_depth=4)
    assert tree.depth == 3 and tree.tasks_total == 27
    assert make_tree(g, *WIDE, depth=1, min_tasks=1000, max_depth=2).depth == 2


def random_game(rng: random.Random, depth: int):
    if depth == 0 or (depth < 4 and rng.random() < 0.15):
        return rng.randint(-6, 6)
    return [random_game(rng, depth - 1) for _ in range(rng.randint(1, 4))]


def simulate(tree: SplitTree, game: FakeGame, rng: random.Random, slots: int) -> int:
    """A pool of ``slots`` fake workers: hand out tasks in next_tasks order, finish
    them in random order with fail-soft results for the window they ran with (the
    dispatch window, or a live window narrowed meanwhile), drop abandoned ones."""
    running = []
    steps = 0
    while not tree.done:
        steps += 1
        assert steps < 10_000
        offered = list(tree.next_tasks())
        assert offered == naive_next_tasks(tree)
        for node in offered:
            if len(running) >= slots:
                break
            node.running = True
            running.append((node, node.alpha, node.beta))
        assert running, "not done, but no task to run"
        node, a, b = running.pop(rng.randrange(len(running)))
        node.running = False
        live = tree.live_window(node)
        if live is None and rng.random() < 0.7:
            continue                                   # abandoned: no result
        if live is not None and rng.random() < 0.5:
            a, b = live
        v = game.true_value(node)
        if rng.random() < 0.1:
            value, kind = v, TT_EXACT
        elif v <= a:
            value, kind = rng.randint(v, a), TT_UPPER
        elif v >= b:
            value, kind = rng.randint(b, v), TT_LOWER
        else:
            value, kind = v, TT_EXACT
        tree.record(node, value, kind)
        for n in all_nodes(tree):                       # proven bounds stay proven
            assert n.lo <= game.true_value(n) <= n.hi, (n.path(), n.lo, n.hi, game.true_value(n))
    for node, _, _ in running:
        node.running = False
    return tree.result()


def test_split_tree_simulated_pool_matches_minimax():
    rng = random.Random(12345)
    for case in range(300):
        game = FakeGame(random_game(rng, rng.randint(1, 4)), rng=rng, static=rng.random() < 0.5)
        truth = FakeGame.value(game.tree)
        kind = rng.choice(["wide", "null", "random"])
        if kind == "wide":
            alpha, beta = WIDE
        elif kind == "null":
            alpha = rng.randint(-7, 6)
            beta = alpha + 1
        else:
            alpha = rng.randint(-8, 6)
            beta = rng.randint(alpha + 1, 8)
        depth = rng.randint(1, 3)
        ybw = rng.random() < 0.7
        tree = make_tree(game, alpha, beta, depth=depth, ybw=ybw)
        where = f"case {case}: tree={game.tree} window=({alpha},{beta}) depth={depth} ybw={ybw}"
        result = simulate(tree, game, rng, slots=rng.randint(1, 4))
        if result <= alpha:
            assert truth <= result, where
        elif result >= beta:
            assert truth >= result, where
        else:
            assert truth == result, where
        child = tree.best_child()
        if child is not None:
            assert -game.true_value(child) >= -child.hi >= tree.root.lo, where
            if kind == "wide":
                assert -game.true_value(child) == truth, where
