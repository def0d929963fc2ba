"""The Ray backend (parallel/ray_backend.py, ray_worker.py, ray_board.py) against
the process pool.

One local Ray for the whole session (``ray.init(num_cpus=2)``: it takes seconds
to start); every test that needs it skips with a reason when Ray (the
``cluster`` extra) is not installed. Checked:

* on a few dozen random small positions (the boards of checks.BOARDS):
  the same value and exact score as the pool and the serial solver, an optimal
  best move, the weak value, and the same accounting (one entry per worker slot
  plus the coordinator; per-worker nodes add up to the total);
* a real split: both slots work, the line keeps the score;
* a killed Ray worker process: its task runs again, the answer is right;
* a time limit: ``unknown``, and the backend still works;
* the CLI joining the session's Ray with ``--address``, and a checkpoint
  written by Ray and resumed by the pool; lines Ray's processes log meanwhile
  stay out of the CLI's stdout (one JSON object) and stderr;
* without Ray: a one-line error (exit 2), and the process backend never
  imports Ray.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import psutil
import pytest

from checks import (BOARDS, C4, KILL_MOVES, KILL_SCORE, check_accounting, check_best_move, check_pv,
                    random_positions, serial_score)
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_coordinator, shutdown_backends
from parallel_mnk.game.rules import value_of_score
from parallel_mnk import Limit, Options, Settings

ROOT = Path(__file__).resolve().parents[1]
TT_BITS = 16
POSITIONS_PER_BOARD = 4   # of each board of checks.BOARDS: 36 positions in all


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray", reason="Ray is not installed (the 'cluster' extra: pip install -e '.[cluster]')")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    shutdown_backends()
    ray.shutdown()


def pool_solve(pos: Position, workers: int = 2, weak: bool = False, tt_bits: int = TT_BITS,
               time_limit: Optional[float] = None, **options):
    """A solve that always splits (``serial_budget=0``) on ``workers`` of the process
    pool (``backend="ray"``: of Ray); ``options`` are :class:`Options` fields."""
    options.setdefault("progress", False)
    options.setdefault("serial_budget", 0)
    return solve(pos, Limit(time=time_limit), weak=weak,
                 options=Options(workers=workers, tt_size=8 << tt_bits, **options))


def ray_solve(pos: Position, workers: int = 2, **kw):
    return pool_solve(pos, workers, backend="ray", **kw)   # always split, so that the tasks go through Ray


def test_ray_agrees_with_the_pool_on_random_positions(ray_session):
    checked = used = 0
    for b, (spec, lo, hi, _) in enumerate(BOARDS):
        for i, pos in enumerate(random_positions(spec, POSITIONS_PER_BOARD, (lo, hi), seed=5000 + b)):
            where = f"{spec} moves={pos.move_stack}"
            expect = serial_score(pos)
            depth = (None, 1, 2)[(b + i) % 3]
            on_ray = ray_solve(pos, pv=i == 0, split_depth=depth)
            on_pool = pool_solve(pos, pv=False, split_depth=depth)
            assert (on_ray.value, on_ray.score) == (on_pool.value, on_pool.score), where
            assert (on_ray.value, on_ray.score) == (value_of_score(expect), expect), where
            check_best_move(pos, on_ray.best_move, on_ray.score, weak=False)
            if i == 0:
                check_pv(pos, on_ray.pv, on_ray.score)
            check_accounting(on_ray, 2)
            check_accounting(on_pool, 2)
            assert [w.worker for w in on_ray.workers] == [w.worker for w in on_pool.workers]
            assert on_ray.workers[0].tasks == 0  # the coordinator runs no tasks
            used += sum(w.tasks for w in on_ray.workers[1:]) > 0
            weak = ray_solve(pos, weak=True, pv=False, split_depth=depth)
            assert weak.value == value_of_score(expect) and weak.score is None, where
            check_best_move(pos, weak.best_move, expect, weak=True)
            check_accounting(weak, 2)
            checked += 1
    assert checked == POSITIONS_PER_BOARD * len(BOARDS)
    assert used >= checked // 2, f"only {used} of {checked} Ray solves ran tasks"


def test_ray_real_split_spreads_the_work(ray_session):
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "34")
    r = solve(pos, options=Options(workers=2, tt_size="8M", backend="ray", progress=False))  # the public entry point
    assert (r.value, r.score) == ("draw", 0)
    check_pv(pos, r.pv, r.score)
    check_accounting(r, 2)
    assert all(w.tasks > 0 and w.nodes > 0 for w in r.workers[1:]), r.workers
    # three slots on two CPUs: still one entry per slot, still right
    r3 = ray_solve(pos, workers=3, tt_bits=20, pv=False)
    assert r3.score == 0
    check_accounting(r3, 3)


def ray_task_processes() -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if cmd and cmd[0].startswith("ray::") and "run_remote" in cmd[0]:
            out.append(p)
    return out


def solve_while_a_ray_worker_is_killed(solve_it, busy_percent: float, first_s: float, join_s: float):
    """Run ``solve_it()`` in a thread, SIGKILL a Ray task process once one is busy (CPU
    over ``busy_percent``, within ``first_s`` seconds), and return the solve's result
    (it must end within ``join_s`` seconds, without an error)."""
    box = {}

    def run():
        try:
            box["result"] = solve_it()
        except BaseException as e:  # reported below
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + first_s
    victims = []
    while time.monotonic() < deadline and thread.is_alive() and not victims:
        time.sleep(0.3)
        victims = [p for p in ray_task_processes() if p.cpu_percent(0.05) > busy_percent]  # one busy with a task
    assert victims and thread.is_alive(), "the solve ended before a worker could be killed"
    os.kill(victims[0].pid, signal.SIGKILL)
    thread.join(join_s)
    assert not thread.is_alive(), "the solve hangs after a Ray worker was killed"
    assert "error" not in box, repr(box.get("error"))
    return box["result"]


KILL_TRIES = 4   # solves, each with one kill, until one kill is reported as a lost task


def test_killed_ray_worker_task_is_rerun(ray_session):
    """SIGKILL a busy Ray task process mid-solve: the answer is right and, on some
    try, the coordinator reports the worker lost and its task lost (a kill may
    land just after the task's reply went out: nothing was lost, and the solve
    is tried again, at most KILL_TRIES times)."""
    pos = Position.from_moves(C4, KILL_MOVES)
    faults = []
    while len(faults) < KILL_TRIES and not any(f["restarts"] for f in faults):
        r = solve_while_a_ray_worker_is_killed(lambda: ray_solve(pos, tt_bits=20, pv=False), 20, 60, 180)
        assert (r.value, r.score) == ("win", KILL_SCORE)
        check_accounting(r, 2)
        faults.append(get_coordinator("ray", 2, 20).fault_figures())
        assert faults[-1]["restarts"] <= 1 and faults[-1]["lost_tasks"] == faults[-1]["restarts"], faults[-1]
    assert any(f["restarts"] for f in faults), f"no kill of {len(faults)} was reported as a lost task"


def test_ray_time_limit_gives_unknown_and_the_backend_still_works(ray_session):
    pos = Position.from_moves(C4, "4453")  # about 8 s serially
    t = time.monotonic()
    r = ray_solve(pos, time_limit=0.3, pv=False)
    took = time.monotonic() - t
    assert r.value == "unknown" and r.score is None and r.pv == [] and r.bounds is not None
    assert r.best_move is None or r.best_move in pos.legal_moves   # the best move so far, not proved
    assert took < 5.0, f"a 0.3 s limit took {took:.2f} s"
    check_accounting(r, 2)
    small = Position.from_moves(GameSpec(6, 5, 4, True), "334")
    r = ray_solve(small)
    assert r.score == serial_score(small)


def test_cli_joins_a_running_ray_and_checkpoints(ray_session, tmp_path):
    address = ray_session.get_runtime_context().gcs_address
    journal = tmp_path / "ray.ckpt"
    args = ["solve", "--cols", "6", "--rows", "5", "--k", "4", "--gravity", "--moves", "34", "--workers", "2",
            "--tt-size", "8M", "--json", "--checkpoint", str(journal)]
    p = subprocess.run([sys.executable, "-m", "parallel_mnk.frontends.cli", *args, "--backend", "ray", "--address", address],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert (r["value"], r["score"]) == ("draw", 0)
    assert len(r["workers"]) == 3 and sum(w["nodes"] for w in r["workers"]) == r["nodes"]
    # the journal written through Ray serves the process backend (same tasks, same meaning)
    pos = Position.from_moves(GameSpec(6, 5, 4, True), "34")
    again = solve(pos, options=Options(workers=2, tt_size="512K", progress=False, checkpoint=journal))
    assert (again.value, again.score) == ("draw", 0) and again.nodes == 0


def test_cli_output_holds_no_ray_log_lines(ray_session):
    """Lines that Ray's processes write (a worker's stdout, the raylet's and the GCS's
    stderr) while the CLI solves through ``--address`` stay out of the CLI's output:
    stdout is the one JSON object (a lost node once put 22 lines of Ray statistics
    after it), stderr has none of them. Error messages the cluster sends its drivers
    (a lost node's "marked dead ... raylet crashes unexpectedly" once followed the JSON
    object) go to stderr."""
    from ray._private.utils import publish_error_to_driver   # what Ray's own processes call
    from ray._private.worker import _global_node, global_worker   # the session (no public way to ask)
    logs = Path(_global_node.get_logs_dir_path())
    address = ray_session.get_runtime_context().gcs_address
    planted: list[int] = []
    stop = threading.Event()

    def plant():
        while not stop.is_set():
            for f in [*logs.glob("worker-*.out"), *logs.glob("worker-*.err"), logs / "raylet.err",
                      logs / "gcs_server.err"]:
                if f.exists():
                    with open(f, "a") as out:
                        out.write(f"PLANTED LINE {len(planted)}\n")
            publish_error_to_driver("planted", f"PLANTED ERROR {len(planted)}", global_worker.gcs_client)
            planted.append(1)
            stop.wait(0.2)

    writer = threading.Thread(target=plant, daemon=True)
    writer.start()
    try:
        args = ["solve", "--cols", "6", "--rows", "5", "--k", "4", "--gravity", "--moves", "3", "--workers", "2",
                "--tt-size", "8M", "--json", "--backend", "ray", "--address", address]
        p = subprocess.run([sys.executable, "-m", "parallel_mnk.frontends.cli", *args],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
    finally:
        stop.set()
        writer.join()
    assert len(planted) > 5, "the solve ended before Ray could forward a line: the check saw nothing"
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 1, p.stdout[:1000]
    assert (json.loads(p.stdout)["value"]) == "draw"
    assert "PLANTED LINE" not in p.stderr, p.stderr[:1000]
    assert "PLANTED ERROR" in p.stderr, "no error message reached the CLI: the check saw nothing"


def test_address_needs_the_ray_backend():
    with pytest.raises(MnkError, match="ray backend"):
        solve(Position(GameSpec(3, 3, 3)), options=Options(workers=2, address="127.0.0.1:6379"))
    with pytest.raises(MnkError, match="unknown backend"):
        solve(Position(GameSpec(3, 3, 3)), options=Options(workers=2, backend="dask"))


def test_unreachable_address_is_refused_quickly():
    pytest.importorskip("ray", reason="Ray is not installed (the 'cluster' extra)")
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "parallel_mnk.frontends.cli", "solve", "--game", "tictactoe", "--moves", "b2",
                        "--backend", "ray", "--address", "127.0.0.1:1", "--workers", "2"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot reach a Ray cluster" in p.stderr, p.stderr
    assert time.monotonic() - t < 30


HIDE_RAY = ("import sys; sys.modules['ray'] = None\n"  # import ray now fails, as when it is not installed
            "from parallel_mnk.frontends.cli import main\n")


def test_missing_ray_is_a_one_line_error():
    code = HIDE_RAY + ("sys.exit(main(['solve', '--game', 'tictactoe', '--moves', 'b2', '--backend', 'ray', "
                       "'--workers', '2']))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and "parallel_mnk[cluster]" in p.stderr, p.stderr


def test_process_backend_never_imports_ray():
    code = ("import sys\nfrom parallel_mnk.frontends.cli import main\n"
            "rc = main(['solve', '--cols', '4', '--rows', '4', '--k', '4', '--moves', 'b2', '--workers', '2', "
            "'--json'])\n"
            "assert 'ray' not in sys.modules, 'ray was imported'\nsys.exit(rc)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr


def test_a_book_built_on_ray_holds_the_pools_entries(ray_session, tmp_path):
    from parallel_mnk.entrance import build_book

    spec = GameSpec(5, 4, 3, True)
    on_ray, report = build_book(spec, 4, tmp_path / "ray.sqlite", options=Options(workers=2, backend="ray", tt_size=8 << TT_BITS))
    on_pool, _ = build_book(spec, 4, tmp_path / "pool.sqlite", options=Options(workers=2, tt_size=8 << TT_BITS))
    scores = {key: score for key, _, score, _, _ in on_ray.rows()}
    assert scores == {key: score for key, _, score, _, _ in on_pool.rows()}
    assert sum(w[1] for w in report.per_worker) == report.leaves > 0   # every leaf a Ray task
    for key, _, score, _, _ in on_ray.rows()[:30]:
        pos = Position.from_board(spec, key)
        check_best_move(pos, on_ray.answer(pos).best_move, score, weak=False)


def test_pn_proofs_on_ray_give_naive_values_and_certificates_that_verify(ray_session, tmp_path, use_settings):
    """The proof-number prover's jobs as Ray tasks (its workers keep replicas of the
    settled store: tests/test_pn_replicas.py): weak values as naive.py's on random
    positions of small boards, and the empty (5,5,4)'s certificate, written from the
    merged store, verified by the independent checker; there, with jobs of 2^7 nodes in
    slices of 2^3, the jobs took the log the coordinator posted on the backend's actor
    while they ran."""
    from naive import naive_score
    from parallel_mnk.proofcheck import check_file
    opts = Options(workers=2, prover="pn", backend="ray", progress=False)
    for spec, stones in ((GameSpec(5, 5, 4), (13, 15)), (GameSpec(4, 4, 3), (4, 7))):
        for pos in random_positions(spec, 3, stones, seed=91, quiet=True):
            r = solve(pos, weak=True, options=opts)
            assert r.value == value_of_score(naive_score(spec, pos.x, pos.o)), pos.board_text()
            assert r.proof == "pn" and r.parallel["replicas"] is True
    use_settings(PN_JOB_NODES=1 << 7, PN_REPLICA_SYNC_NODES=1 << 3)
    r = solve(Position(GameSpec(5, 5, 4)), weak=True,
              options=Options(workers=2, prover="pn", backend="ray", progress=False, certificate=tmp_path))
    assert r.value == "draw" and sum(w.tasks for w in r.workers[1:]) == r.parallel["jobs"] + r.parallel["refused"]
    assert r.parallel["synced"] > 0
    assert [check_file(f).claim for f in sorted(tmp_path.glob("*.jsonl.xz"))] == ["cannot-win"]


# the pn prover's narrow threat budget past 64 cells: with the 15x15 board's own, the root's judgement
# proves the tests' position at once, with no job for Ray to run
NARROW = Settings(BIG_PN_THREES=1, BIG_PN_VCT_NODES=1 << 12)


def test_the_pn_prover_past_64_cells_runs_its_jobs_on_ray(ray_session, tmp_path):
    """The judgements of the proof-number prover past 64 cells as Ray tasks: a 15x15
    win needing threes, its move that of one process, its certificate verified."""
    from parallel_mnk.proofcheck import check_file
    from test_big_pn import threes_position
    pos = threes_position("15-two")
    alone = solve(pos, weak=True, options=Options(workers=1, prover="pn", progress=False, settings=NARROW))
    r = solve(pos, weak=True, options=Options(workers=2, prover="pn", backend="ray", progress=False,
                                              certificate=tmp_path, settings=NARROW))
    assert (r.value, r.best_move) == ("win", alone.best_move) and r.parallel["workers"] == 2
    assert sum(w.tasks for w in r.workers[1:]) > 0
    assert [check_file(f).claim for f in sorted(tmp_path.glob("*.jsonl.xz"))] == ["wins"]


@pytest.mark.timeout(180)
def test_a_stopped_ray_run_leaves_the_backend_working(ray_session):
    """A pn proof past 64 cells stopped by a node limit (its running jobs stopped by
    the backend's stop_all), then the same solve on the same Ray backend: the stop was
    cleared (RayBackend.begin), its jobs run, and it proves the win."""
    from test_big_pn import threes_position
    pos = threes_position("15-two")
    opts = Options(workers=2, prover="pn", backend="ray", progress=False, settings=NARROW)
    stopped = solve(pos, Limit(nodes=3000), weak=True, options=opts)
    assert stopped.value == "unknown"
    again = solve(pos, weak=True, options=opts)
    assert again.value == "win" and sum(w.tasks for w in again.workers[1:]) > 0


@pytest.mark.parametrize("first, then", [("ray", "process"), ("process", "ray")])
def test_a_pn_journal_goes_on_between_ray_and_the_pool(ray_session, tmp_path, first, then):
    """A pn proof stopped by a node limit (unknown, its journal committed) on one backend,
    then the same command on the other: it goes on from the journal's store (on Ray, the
    replicas start from it) to the value alpha-beta gives, and its certificate verifies."""
    from parallel_mnk.proofcheck import check_file
    pos = Position(GameSpec(5, 5, 4))
    journal, folder = tmp_path / "pn.db", tmp_path / "cert"
    stopped = solve(pos, Limit(nodes=1500), weak=True, options=Options(workers=2, prover="pn", backend=first,
                                                                      progress=False, checkpoint=journal))
    assert stopped.value == "unknown"
    done = solve(pos, weak=True, options=Options(workers=2, prover="pn", backend=then, progress=False,
                                                 checkpoint=journal, certificate=folder))
    assert done.value == "draw" and done.parallel["resumed"] > 0
    assert done.parallel["replicas"] is (then == "ray")
    assert [check_file(f).claim for f in sorted(folder.glob("*.jsonl.xz"))] == ["cannot-win"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_pn_job_whose_ray_worker_is_killed_runs_again(ray_session):
    """A Ray worker process killed mid-job (its replica of the store with it): the job
    is reported lost and runs again (a new process takes the whole log), and the proof
    ends with the value alpha-beta gives (the empty (4,8,4): a draw)."""
    pos = Position(GameSpec(4, 8, 4))
    r = solve_while_a_ray_worker_is_killed(
        lambda: solve(pos, weak=True, options=Options(workers=2, prover="pn", backend="ray", progress=False)),
        50, 120, 540)
    assert r.value == "draw" and r.proof == "pn" and r.parallel["lost"] >= 1, r.parallel
