"""Resumable solves (``--checkpoint``, parallel/checkpoint.py).

* a CLI solve killed with SIGKILL halfway resumes from its journal: the answer
  is the uninterrupted one, the resumed run takes tasks from the journal and
  hands out none of the tasks (probe window, position) finished before;
* the same in-process after a time limit, with a different number of workers
  and split depth (options that do not change what is true);
* a finished journal answers at once; a weak run reuses an exact run's journal;
* journals of another position or game, of another program, or in use by a
  live process are refused with a clear message.
"""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from checks import C4, INTERRUPT_MOVES, RESUME_MOVES, RESUME_SCORE
from fuzzing import run_cli
from parallel_mnk import GameSpec, MnkError, Position, solve
from parallel_mnk.engines.books import thill
from parallel_mnk.parallel.scheduling.checkpoint import journal_keys
from parallel_mnk import Limit, Options

ROOT = Path(__file__).resolve().parents[1]
SMALL = Position.from_moves(GameSpec(6, 5, 4, True), "34")  # a draw, about a million nodes


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "parallel_mnk.frontends.cli", *args]


def rows(path, sql: str):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def journaled_tasks(path) -> int:
    try:
        return rows(path, "SELECT COUNT(*) FROM tasks")[0][0]
    except sqlite3.Error:  # not created yet, or being created
        return 0


# ---------------------------------------------------------------- killed and resumed
def test_killed_cli_solve_resumes_without_searching_finished_tasks(tmp_path):
    journal = tmp_path / "solve.ckpt"
    command = cli("solve", "--game", "connect4", "--moves", RESUME_MOVES, "--workers", "2", "--tt-size", "64M",
                  "--checkpoint", str(journal), "--json")
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and journaled_tasks(journal) < 12:
            time.sleep(0.05)
        assert proc.poll() is None, f"the solve ended before it could be killed: {proc.communicate()}"
        children = psutil.Process(proc.pid).children(recursive=True)
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its workers, no chance to clean up
        proc.wait(10)
        psutil.wait_procs(children, timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        proc.stdout.close()
        proc.stderr.close()
    first = journal_keys(journal, run=1)
    assert len(first) >= 12
    assert rows(journal, "SELECT COUNT(*) FROM result")[0][0] == 0, "the killed run had finished"

    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert (r["value"], r["score"]) == ("win", RESUME_SCORE)  # what an uninterrupted run gives
    assert sum(w["nodes"] for w in r["workers"]) == r["nodes"]
    c = r["checkpoint"]
    assert c["run"] == 2 and c["tasks_from_journal"] > 0, c
    handed = journal_keys(journal, run=2, table="handed")
    assert c["tasks_searched"] == len(rows(journal, "SELECT * FROM handed WHERE run = 2"))
    assert not handed & first, f"{len(handed & first)} tasks finished before the kill were searched again"
    assert not journal_keys(journal, run=2) & first
    # the best move keeps the score: the child's exact score, from Thill's database when the
    # books extra is installed (a fraction of a second), else by the pool (4-5 s)
    pos = Position.from_moves(C4, RESUME_MOVES)
    child = pos.copy()
    child.push(r["best_move"])
    book = "auto" if thill.installed_path() is not None else None
    assert solve(child, options=Options(workers=2, tt_size="8M", pv=False, progress=False, book=book)).score == -RESUME_SCORE

    # run 3: the journal holds the answer; nothing is searched
    again = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    r3 = json.loads(again.stdout)
    assert (r3["value"], r3["score"], r3["pv"]) == (r["value"], r["score"], r["pv"])
    assert r3["nodes"] == 0 and r3["checkpoint"]["tasks_searched"] == 0


def test_ctrl_c_commits_the_journal(tmp_path):
    """SIGINT (a terminal's Ctrl-C): exit 130, and every task finished so far is in the
    journal, which is released for the next run."""
    journal = tmp_path / "int.ckpt"
    proc = subprocess.Popen(cli("solve", "--game", "connect4", "--moves", INTERRUPT_MOVES, "--workers", "2", "--tt-size",
                                "64M", "--checkpoint", str(journal)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and journaled_tasks(journal) < 5:
            time.sleep(0.05)
        seen = journaled_tasks(journal)
        assert proc.poll() is None, "the solve ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
    assert journaled_tasks(journal) >= seen
    assert rows(journal, "SELECT value FROM meta WHERE key = 'owner'") == []  # released


def test_resume_after_a_time_limit_with_other_options(tmp_path):
    """Stopped by a time limit (the journal keeps what finished), resumed with more
    workers and another split depth: the right answer, no finished task again."""
    pos = Position(GameSpec(6, 5, 4, True))  # a draw; about 5 M nodes, half a second on 2 workers
    for limit in (0.2, 0.1, 0.05, 0.3, 0.5):
        journal = tmp_path / f"empty-{limit}.ckpt"
        first = solve(pos, Limit(time=limit), options=Options(workers=2, tt_size="2M", pv=False, progress=False, checkpoint=journal, serial_budget=0))
        open_probe_rows = rows(journal, "SELECT COUNT(*) FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM probes p "
                                        "WHERE p.alpha = t.probe_alpha AND p.beta = t.probe_beta)")[0][0]
        if first.value == "unknown" and open_probe_rows > 0:  # stopped inside a probe, after some tasks
            break
    else:
        pytest.fail("no time limit stopped the solve after some tasks had finished")
    resumed = solve(pos, options=Options(workers=3, tt_size="2M", pv=True, progress=False, checkpoint=journal, split_depth=2, serial_budget=0))
    assert (resumed.value, resumed.score) == ("draw", 0)
    assert resumed.checkpoint["run"] == 2 and resumed.checkpoint["tasks_from_journal"] > 0
    assert not journal_keys(journal, run=2, table="handed") & journal_keys(journal, run=1)
    assert len(resumed.workers) == 4 and sum(w.nodes for w in resumed.workers) == resumed.nodes


def test_weak_run_reuses_an_exact_journal_and_a_finished_one_answers_at_once(tmp_path):
    journal = tmp_path / "j.ckpt"
    exact = solve(SMALL, options=Options(workers=2, tt_size="2M", progress=False, checkpoint=journal, serial_budget=0))
    assert exact.score == 0 and exact.checkpoint["tasks_searched"] > 0
    weak = solve(SMALL, weak=True, options=Options(workers=2, tt_size="2M", pv=False, progress=False, checkpoint=journal, serial_budget=0))
    assert weak.value == "draw" and weak.score is None
    assert weak.checkpoint["tasks_searched"] == 0  # the exact probes decide the weak value
    again = solve(SMALL, options=Options(workers=2, tt_size="2M", progress=False, checkpoint=journal))
    assert (again.value, again.score, again.pv) == (exact.value, exact.score, exact.pv)
    assert again.nodes == 0 and len(again.workers) == 3
    # a serial solve with a checkpoint goes through a pool of one worker
    one = solve(SMALL, options=Options(workers=1, tt_size="2M", pv=False, progress=False, checkpoint=tmp_path / "one.ckpt", serial_budget=0))
    assert one.score == 0 and len(one.workers) == 2 and one.checkpoint["tasks_searched"] > 0


# ---------------------------------------------------------------- refusals
def test_checkpoint_of_another_position_or_game_is_refused(tmp_path):
    journal = tmp_path / "a.ckpt"
    solve(Position.from_moves(GameSpec(4, 4, 3), "b3"), options=Options(workers=2, tt_size="512K", progress=False, checkpoint=journal))
    with pytest.raises(MnkError, match="another game or position"):
        solve(Position.from_moves(GameSpec(4, 4, 3), "c3"), options=Options(workers=2, tt_size="512K", checkpoint=journal))
    with pytest.raises(MnkError, match="another game or position"):
        solve(Position.from_moves(GameSpec(4, 4, 4), "b3"), options=Options(workers=2, tt_size="512K", checkpoint=journal))
    p = subprocess.run(cli("solve", "--cols", "4", "--rows", "4", "--k", "3", "--moves", "c3", "--workers", "2",
                           "--checkpoint", str(journal)), capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "another game or position" in p.stderr, p.stderr
    assert "4x4 k=3, 1 stone" in p.stderr
    # the right position still resumes
    r = solve(Position.from_moves(GameSpec(4, 4, 3), "b3"), options=Options(workers=2, tt_size="512K", progress=False, checkpoint=journal))
    assert r.checkpoint["run"] == 2


def test_not_a_journal_is_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some words\n" * 20)
    with pytest.raises(MnkError, match="not a parallel-mnk journal"):
        solve(SMALL, options=Options(workers=2, tt_size="512K", checkpoint=text))
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE songs (title TEXT)")
    db.commit()
    db.close()
    with pytest.raises(MnkError, match="something else"):
        solve(SMALL, options=Options(workers=2, tt_size="512K", checkpoint=other))


def test_journal_in_use_by_a_live_process_is_refused(tmp_path):
    journal = tmp_path / "busy.ckpt"
    solve(SMALL, options=Options(workers=2, tt_size="512K", pv=False, progress=False, checkpoint=journal))
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        db = sqlite3.connect(journal)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('owner', ?)", (f"{sleeper.pid}@{os.uname().nodename}",))
        db.commit()
        db.close()
        with pytest.raises(MnkError, match=f"in use by process {sleeper.pid}"):
            solve(SMALL, options=Options(workers=2, tt_size="512K", checkpoint=journal))
    finally:
        sleeper.kill()
        sleeper.wait()
    # the owner is gone (as after a crash): the journal opens again
    assert solve(SMALL, options=Options(workers=2, tt_size="512K", pv=False, progress=False, checkpoint=journal)).score == 0


def test_cli_checkpoint_needs_one_position(tmp_path):
    p = subprocess.run(cli("solve", "--game", "tictactoe", "--checkpoint", str(tmp_path / "x.ckpt")),
                       input="b2\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 2 and "--checkpoint" in p.stderr and p.stderr.count("\n") == 1


@pytest.mark.parametrize("where", ["missing folder", "folder"])
def test_a_journal_that_cannot_be_kept_is_one_error_line_before_any_note(tmp_path, where):
    """A checkpoint path with no folder, or a folder, is refused before the notes of a
    preset changed by a size (bad input is one line) and before any search."""
    path = tmp_path / "none" / "j.sqlite" if where == "missing folder" else tmp_path
    p = subprocess.run(cli("solve", "--game", "connect4", "--cols", "3", "--rows", "3", "--k", "3", "--moves", "",
                           "--checkpoint", str(path)), capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("parallel-mnk: error: checkpoint") and not (tmp_path / "none").exists()
    with pytest.raises(MnkError, match="checkpoint"):
        solve(Position.from_moves(GameSpec(3, 3, 3), ""), options=Options(workers=2, checkpoint=path))


def test_cli_human_output_names_the_journal(tmp_path):
    journal = tmp_path / "h.ckpt"
    args = ["solve", "--game", "tictactoe", "--moves", "b2", "--workers", "2", "--checkpoint", str(journal)]
    (code1, out1, err1), (code2, out2, err2) = run_cli(args), run_cli(args)   # the CLI in this process, twice
    assert code1 == code2 == 0, (err1, err2)
    assert "value: draw" in out1 and f"checkpoint {journal} (run 1)" in out1
    assert "value: draw" in out2 and f"checkpoint {journal} (run 2)" in out2


def test_a_stopped_task_leaves_its_finished_subtrees_in_the_journal(tmp_path, use_settings):
    """Snapshots of running tasks' lines (parallel/scheduling/snapshots.py): a solve
    stopped inside its tasks has journaled positions below them (rows of 0 nodes),
    each bound true by the serial solver; the resumed run seeds its table with every
    journaled bound and answers right."""
    use_settings(SNAPSHOT_EVERY_S=0.02)
    pos = Position(GameSpec(4, 8, 4))   # a draw; about a million nodes, weak
    for limit in (0.3, 0.6, 1.0, 1.5):
        journal = tmp_path / f"free-{limit}.ckpt"
        first = solve(pos, Limit(time=limit), weak=True, options=Options(workers=2, tt_size="8M", pv=False, progress=False, checkpoint=journal, serial_budget=0))
        snapped = rows(journal, "SELECT own, opp, ply, value, kind FROM tasks WHERE nodes = 0")
        if first.value == "unknown" and snapped:
            break
    else:
        pytest.fail("no time limit stopped the solve after a snapshot of a running task")
    assert first.checkpoint["line_positions_journaled"] == len(snapped)
    spec = pos.spec
    for own, opp, ply, value, kind in snapped[:12]:
        x, o = (own, opp) if ply % 2 == 0 else (opp, own)
        position = Position(spec)
        position.x, position.o = x, o
        truth = solve(position, weak=True, options=Options(workers=1, pv=False, progress=False)).value
        sign = {"win": 1, "draw": 0, "loss": -1}[str(truth)]
        if kind in (1, 3):   # a lower bound of the score from the side to move
            assert sign >= (value > 0) - (value < 0), (own, opp, value, kind, truth)
        if kind in (2, 3):
            assert sign <= (value > 0) - (value < 0), (own, opp, value, kind, truth)
    resumed = solve(pos, weak=True, options=Options(workers=2, tt_size="8M", pv=False, progress=False, checkpoint=journal, serial_budget=0))
    assert resumed.value == "draw"
    assert resumed.checkpoint["bounds_seeded"] >= len({(r[0], r[1]) for r in snapped})


def test_a_running_tasks_progress_reads_its_line_as_an_odometer():
    """The status line's estimate (snapshots.progress_text): finished moves of the
    task's root, plus the running move's share of its own node, and so on down."""
    from parallel_mnk.parallel.scheduling.snapshots import progress_text

    assert progress_text(1, [(0, 10)]).endswith("about 0.0 %")
    assert progress_text(1, [(5, 10)]).endswith("about 50.0 %")
    assert progress_text(3, [(16, 40), (3, 22), (0, 18)]) == \
        "task at ply 3: moves done 16/40 3/22 0/18, about 40.3 %"
    text = progress_text(1, [(1, 2)] * 8)
    assert text.count("1/2") == 6 and " ..." in text and text.endswith("about 99.6 %")
    assert progress_text(1, [(0, 0)]).endswith("about 0.0 %")   # (a node without moves: no division by zero)
