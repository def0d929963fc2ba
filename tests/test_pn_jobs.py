"""Proofs of the proof-number prover on the worker pool, by jobs (parallel/uses/pn_jobs):
the answers of the serial prover and naive.py, certificates the checker verifies, a
worker killed mid-job, a journal stopped and resumed, and what is refused.
"""
from __future__ import annotations

import json
import lzma
import os
import signal
import subprocess

import pytest

from checks import random_positions
from fuzzing import run_cli
from naive import naive_score

from parallel_mnk import GameSpec, Limit, Options, solve
from parallel_mnk.entrance import analyze
from parallel_mnk.game.position import Position
from parallel_mnk.game.rules import MnkError, Value
from parallel_mnk.proofcheck import check_file

PN2 = Options(workers=2, prover="pn")


def _value(score: int) -> Value:
    return Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW


def test_values_on_the_pool_are_naive_ones():
    """Weak values by jobs on 2 workers, as naive.py's, on random positions of small boards."""
    for spec, stones in ((GameSpec(5, 5, 4), (15, 16)), (GameSpec(6, 4, 4), (14, 15)), (GameSpec(4, 4, 3), (5, 8))):
        for pos in random_positions(spec, 4, stones, seed=31, quiet=True):
            r = solve(pos, weak=True, options=PN2)
            assert r.value == _value(naive_score(spec, pos.x, pos.o)), pos.board_text()
            assert r.proof == "pn"


def test_many_workers_with_small_jobs_give_the_values_of_alpha_beta_and_checked_certificates(tmp_path,
                                                                                             use_settings):
    """Six workers and jobs of 2^6 nodes: many under way at once, so that the tree's
    virtual numbers (a job counted as its leaf's disproof) steer most hand-outs. The
    values are alpha-beta's (tests/test_pn.py checks the prover against naive.py where
    naive reaches), and the certificate of an empty board verifies."""
    use_settings(PN_JOB_NODES=1 << 6)
    many, search = Options(workers=6, prover="pn"), Options(workers=1, prover="search")
    values, jobs = set(), []
    for spec, stones in ((GameSpec(5, 5, 4), (4, 5)), (GameSpec(6, 5, 4), (6, 7)), (GameSpec(4, 7, 4), (5, 6))):
        for pos in random_positions(spec, 6, stones, seed=61, quiet=True):
            r = solve(pos, weak=True, options=many)
            assert r.value == solve(pos, weak=True, options=search).value, pos.board_text()
            values.add(r.value)
            jobs.append(r.parallel["jobs"])
    assert values == {Value.WIN, Value.DRAW, Value.LOSS} and max(jobs) > 100, (values, jobs)
    r = solve(Position(GameSpec(5, 5, 4)), weak=True, options=Options(workers=6, prover="pn", certificate=tmp_path))
    assert r.value == Value.DRAW and r.parallel["jobs"] > 100
    assert [check_file(p).claim for p in sorted(tmp_path.glob("*.jsonl.xz"))] == ["cannot-win"]


@pytest.mark.parametrize("board,moves", [((6, 5, 4), ""), ((5, 4, 4), ""), ((4, 6, 4), ""), ((5, 5, 4), "c3"),
                                         ((5, 5, 4), "c3,c2"), ((6, 5, 4), "c3")])
def test_symmetric_positions_on_many_workers_keep_their_values_and_certificates(tmp_path, use_settings, board,
                                                                                moves):
    """Positions with symmetries (wins, draws and a loss), where the tree keeps one child
    of mirror-image moves (parallel/scheduling/pn_tree.py): eight workers, so the tree
    for many (a ply deeper, no zone wait), jobs of 2^6 nodes, the value of alpha-beta
    (itself checked against naive.py) and certificates that verify."""
    use_settings(PN_JOB_NODES=1 << 6, PN_MANY_WORKERS=8)
    spec = GameSpec(*board)
    pos = Position.from_moves(spec, moves)
    r = solve(pos, weak=True, options=Options(workers=8, prover="pn", certificate=tmp_path))
    truth = solve(pos, weak=True, options=Options(workers=1, prover="search")).value
    assert r.value == truth and r.proof == "pn" and r.parallel["jobs"] > 0, (board, moves, r.value, truth)
    files = sorted(tmp_path.glob("*.jsonl.xz"))
    assert files and all(check_file(p).claim for p in files)


@pytest.mark.parametrize("board", [(8, 6, 5), (4, 7, 4)])
def test_empty_boards_by_jobs_with_certificates(tmp_path, board):
    """Empty boards' draws by jobs: the certificate the jobs' store gives verifies. (The
    empty 7x7 k=5 board's: test_a_worker_killed_mid_job and test_snapshots_while_workers_write.)"""
    spec = GameSpec(*board)
    r = solve(Position(spec), weak=True, options=Options(workers=2, prover="pn", certificate=tmp_path))
    assert r.value == Value.DRAW
    assert r.parallel["jobs"] > 0
    verdicts = [check_file(p) for p in sorted(tmp_path.glob("*.jsonl.xz"))]
    assert [(v.attacker, v.claim) for v in verdicts] == [("x", "cannot-win")]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_finished_game_gets_its_result_as_from_alpha_beta(workers):
    """A position whose game is over (CI's fuzz: 1x1 k=1 after a1, a traceback looking
    for the loser's move on a full board): the result every engine gives, no search."""
    for spec, moves in ((GameSpec(1, 1, 1), "a1"), (GameSpec(3, 3, 3), "a1,b1,b2,c1,c3")):
        pos = Position.from_moves(spec, moves)
        assert pos.is_game_over()
        r = solve(pos, weak=True, options=Options(workers=workers, prover="pn"))
        ab = solve(pos, weak=True, options=Options(workers=1, prover="search"))
        assert (r.value, r.best_move, r.nodes, r.terminal) == (ab.value, ab.best_move, 0, True) == \
            (Value.LOSS, None, 0, True), (spec, moves)


def test_a_worker_killed_mid_job(tmp_path, monkeypatch):
    """A worker killed while its job runs (SIGKILL right after its third job is
    handed out): the job is handed out again, the worker restarted, and the answer and
    the certificate are those of a run without it."""
    from parallel_mnk.parallel.uses import pn_jobs

    spec = GameSpec(7, 7, 5)
    killed: list[int] = []
    started: list[int] = []
    hand_out = pn_jobs.JobProof._hand_out

    def hand_out_and_kill(self, tree, running_jobs, *args):
        before = set(running_jobs)
        hand_out(self, tree, running_jobs, *args)
        started.extend(set(running_jobs) - before)
        if not killed and len(started) >= 3 and running_jobs:
            slot = started[-1] if started[-1] in running_jobs else next(iter(running_jobs))
            pid = self.backend.pids()[slot - 1]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    monkeypatch.setattr(pn_jobs.JobProof, "_hand_out", hand_out_and_kill)
    r = solve(Position(spec), weak=True, options=Options(workers=2, prover="pn", certificate=tmp_path))
    assert killed
    assert r.value == Value.DRAW
    assert r.parallel["lost"] >= 1
    assert check_file(tmp_path / "x-cannot-win.jsonl.xz").claim == "cannot-win"


def test_journal_stop_and_resume(tmp_path):
    """A journaled proof stopped by its node limit resumes where it was: what was
    settled is loaded, the answer is the same, and a third run reads it from the journal."""
    spec = GameSpec(4, 7, 4)   # a draw in about 63 k nodes
    journal = tmp_path / "j.db"
    first = solve(Position(spec), Limit(nodes=20_000), weak=True,
                  options=Options(workers=2, prover="pn", checkpoint=journal))
    assert first.value == Value.UNKNOWN
    second = solve(Position(spec), weak=True, options=Options(workers=2, prover="pn", checkpoint=journal))
    assert second.value == Value.DRAW
    assert second.parallel["resumed"] > 0
    third = solve(Position(spec), weak=True, options=Options(workers=1, prover="pn", checkpoint=journal))
    assert third.value == Value.DRAW and third.nodes == 0


def test_snapshots_while_workers_write(tmp_path, use_settings):
    """Snapshots taken every 0.05 s while both workers settle nodes into the store
    (more entries than counted when the snapshot began: the export stops where its
    buffer ends), and a run resumed from the last one: the same value, and a
    certificate that verifies."""
    use_settings(PN_SNAPSHOT_S=0.05, PN_JOB_NODES=1 << 12)   # (many short jobs: many snapshots, quickly)
    spec = GameSpec(7, 7, 5)
    journal = tmp_path / "j.db"
    first = solve(Position(spec), Limit(nodes=4_000), weak=True,
                  options=Options(workers=2, prover="pn", checkpoint=journal))
    assert first.value == Value.UNKNOWN
    assert first.parallel["proof_nodes"] == {"x": first.nodes}
    second = solve(Position(spec), weak=True, options=Options(workers=2, prover="pn", checkpoint=journal,
                                                              certificate=tmp_path))
    assert second.value == Value.DRAW and second.parallel["resumed"] > 0
    checked = check_file(tmp_path / "x-cannot-win.jsonl.xz")
    assert checked.claim == "cannot-win"
    header = json.loads(lzma.open(tmp_path / "x-cannot-win.jsonl.xz", "rt").readline())
    assert header["nodes"] == second.parallel["proof_nodes"]["x"] > first.nodes   # every run's nodes, the first's too
    third = solve(Position(spec), weak=True, options=Options(workers=1, prover="pn", checkpoint=journal))
    assert third.parallel["proof_nodes"]["x"] == header["nodes"]   # (the answer read from the journal)


def test_a_store_export_stops_where_its_buffer_ends():
    """export_entries copies at most the rows its buffer holds (a snapshot taken while
    workers write may meet more entries than it counted)."""
    import numpy as np
    from parallel_mnk.engines.provers.pns import PnProver
    from parallel_mnk.kernels.pns import layout as PL

    prover = PnProver(GameSpec(5, 5, 4), 12, 12)
    pos = Position.from_moves(GameSpec(5, 5, 4), "c3 b2")
    prover.ask(pos, True)
    mask = np.uint64((1 << 12) - 1)
    stored = int(prover.kernels.count_entries(prover.st, mask))
    assert stored > 3
    out = np.zeros(3 * PL.ST_WORDS + PL.ST_WORDS - 1, dtype=np.uint64)   # room for 3 rows, not 4
    assert int(prover.kernels.export_entries(prover.st, mask, out)) == 3


def test_a_store_exported_and_imported_is_the_same_store():
    """A journal's round trip: the entries of a store exported and imported into an
    empty one are the same entries, word for word, each where the kernels' find reaches
    it (no empty slot between its key's first slot and its own: linear probing). (Not
    slot for slot: an entry that had wrapped past the table's end may come home.)"""
    import numpy as np
    from parallel_mnk.engines.provers.pns import PnProver, new_store
    from parallel_mnk.kernels.pns import layout as PL

    spec = GameSpec(5, 5, 4)
    prover = PnProver(spec, 14, 14)
    prover.ask(Position.from_moves(spec, "c3"), False)
    mask = np.uint64((1 << 14) - 1)
    n = int(prover.kernels.count_entries(prover.st, mask))
    assert n > 100
    out = np.zeros((n + 1) * PL.ST_WORDS, dtype=np.uint64)
    assert int(prover.kernels.export_entries(prover.st, mask, out)) == n
    again = new_store(14)
    assert int(prover.kernels.import_entries(again, mask, out[:n * PL.ST_WORDS], n)) == n
    slots = (1 << 14) * PL.ST_WORDS

    def rows(st):
        table = st[:slots].reshape(-1, PL.ST_WORDS)
        return table, sorted(map(tuple, table[table[:, 0] & np.uint64(1) == 1].tolist()))

    table, entries = rows(again)
    assert entries == rows(prover.st)[1]
    size = 1 << 14
    for i in np.flatnonzero(table[:, 0] & np.uint64(1)):
        j = (int(table[i, 0]) >> 1) & (size - 1)   # the first slot its find looks at
        while j != i:
            assert table[j, 0] != 0, f"entry at slot {i} is past an empty slot {j}: find stops there"
            j = (j + 1) % size


def test_a_journal_of_another_position_is_refused(tmp_path):
    journal = tmp_path / "j.db"
    spec = GameSpec(5, 5, 4)
    solve(Position(spec), weak=True, options=Options(workers=1, prover="pn", checkpoint=journal))
    other = Position.from_moves(spec, "c3")
    with pytest.raises(MnkError, match="another proof"):
        solve(other, weak=True, options=Options(workers=1, prover="pn", checkpoint=journal))


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``parallel-mnk args`` run in this process (tests/fuzzing.py's run_cli: an exception
    escaping the CLI fails the test), as a finished process: 0.1 s where a process of its
    own took 1-2 s to start, and the process itself is not what these tests check."""
    code, out, err = run_cli(list(args))
    return subprocess.CompletedProcess(["parallel-mnk", *args], code, out, err)


@pytest.mark.timeout(300)   # (in this process: a board that is not refused is searched, a hang)
@pytest.mark.parametrize("command, args, says", [
    ("solve", ["--game", "connect4", "--moves", "4", "--weak"], "free placement"),
    ("solve", ["--cols", "5", "--rows", "5", "--k", "4", "--moves", ""], "weak"),
    ("analyze", ["--game", "connect4", "--moves", "4", "--weak"], "free placement"),
    ("analyze", ["--cols", "5", "--rows", "5", "--k", "4", "--moves", ""], "weak"),
    ("analyze", ["--cols", "9", "--rows", "8", "--k", "5", "--moves", "", "--weak"], "past 64 cells"),
])
def test_what_the_prover_cannot_take(command, args, says):
    """--prover pn on gravity, without --weak, analyze past 64 cells (solve past them:
    tests/test_big_pn.py): one line, exit 2."""
    done = _cli(command, *args, "--prover", "pn", "--workers", "1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr


def test_cli_answer_and_progress_json(tmp_path):
    """The CLI's pn answer: JSON with the prover, the jobs' figures, the certificate."""
    done = _cli("solve", "--cols", "6", "--rows", "6", "--k", "5", "--moves", "", "--weak", "--prover", "pn",
                "--workers", "2", "--json", "--certificate", str(tmp_path))
    assert done.returncode == 0, done.stderr
    d = json.loads(done.stdout)
    assert d["value"] == "draw" and d["proof"] == "pn" and d["certified"] == "value"
    assert check_file(tmp_path / "x-cannot-win.jsonl.xz").claim == "cannot-win"


@pytest.mark.parametrize("workers", [1, 2])
def test_auto_answers_big_free_boards_by_the_pn_prover(workers):
    """prover='auto' on a weak solve of a free board of 50-64 cells is the pn prover's
    (on one worker serial, on two by jobs), with the value alpha-beta gives; on 49
    cells and on exact scores it stays alpha-beta."""
    spec = GameSpec(10, 5, 4)
    pos = Position.from_moves(spec, "e3 f3 e2 f4")
    auto = solve(pos, weak=True, options=Options(workers=workers))
    search = solve(pos, weak=True, options=Options(workers=workers, prover="search"))
    assert auto.proof == "pn" and auto.value == search.value and auto.value.known
    assert auto.best_move is not None
    assert solve(pos, options=Options(workers=workers)).proof != "pn"
    assert solve(Position.from_moves(GameSpec(7, 7, 5), "d4 d5"), weak=True,
                 options=Options(workers=workers)).proof != "pn"


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_pn_solve_has_bounds_and_a_move(workers):
    """Stopped by its time limit, the pn prover answers unknown with the bounds of the
    empty board (the first player never loses) and a legal move, not proved."""
    pos = Position(GameSpec(8, 8, 5))
    r = solve(pos, Limit(time=1.0), weak=True, options=Options(workers=workers, prover="pn"))   # (unsettled anywhere)
    assert not r.value.known
    assert r.bounds == (0, 1)
    assert r.best_move is not None and r.best_move in pos.legal_moves


@pytest.mark.parametrize("workers", [1, 2])
def test_analyze_by_the_pn_prover_gives_naive_values(workers):
    """analyze with prover "pn": every move's weak value is minus naive.py's of its child."""
    spec = GameSpec(5, 5, 4)
    for pos in random_positions(spec, 3, (14, 16), seed=47 + workers, quiet=True):
        a = analyze(pos, weak=True, options=Options(workers=workers, prover="pn"))
        assert len(a.moves) == len(pos.legal_moves)
        for m in a.moves:
            child = pos.copy()
            child.push(m.move)
            assert m.value == _value(-naive_score(spec, child.x, child.o)), (pos.board_text(), str(m.move))


def test_analyze_asks_the_pn_prover_when_told(monkeypatch):
    """A weak analysis with prover "pn" solves every move that does not end the game by
    the pn prover, naive.py's values; "auto" (on a 50-cell free board, where solve would
    take pn) and "search" by alpha-beta, the same values."""
    from parallel_mnk import entrance
    asked = []
    real = entrance.solve_pn
    monkeypatch.setattr(entrance, "solve_pn", lambda child, opts, *a: asked.append(child) or real(child, opts, *a))
    spec = GameSpec(10, 5, 4)
    pos = random_positions(spec, 1, 41, seed=5, quiet=True)[0]
    want = {}
    for m in pos.legal_moves:
        child = pos.copy()
        child.push(m)
        want[str(m)] = _value(-naive_score(spec, child.x, child.o))
    a = analyze(pos, weak=True, options=Options(workers=1, prover="pn"))
    searched = [m for m in a.moves if not m.at_once]
    assert searched and len(asked) == len(searched)
    assert {str(m.move): m.value for m in a.moves} == want
    asked.clear()
    for prover in ("auto", "search"):
        b = analyze(pos, weak=True, options=Options(workers=1, prover=prover))
        assert {str(m.move): m.value for m in b.moves} == want
    assert asked == []


def test_a_snapshot_in_parts_and_a_format_1_journal(tmp_path, monkeypatch):
    """A snapshot bigger than a part (SQLite takes no blob past 1 GB) is written in parts
    and read back whole, the older one's parts dropped; a journal of format 1 (one part,
    no parts table) reads the same and is taken as format 2; a damaged part is refused."""
    import sqlite3
    import numpy as np
    from parallel_mnk.parallel.scheduling import pn_journal

    monkeypatch.setattr(pn_journal, "PART_WORDS", 8)
    pos = Position(GameSpec(5, 5, 4))
    journal = pn_journal.PnJournal(tmp_path / "j.db", pos)
    rng = np.random.default_rng(3)
    for size in (37, 61):   # (two snapshots: the first's parts go)
        entries = rng.integers(0, 1 << 63, size * 4, dtype=np.uint64)
        pool = rng.integers(0, 1 << 63, 21, dtype=np.uint64)
        journal.snapshot("x", 16, entries, pool, 1234)
    bits, got_entries, got_pool, nodes = journal.latest("x")
    assert (bits, nodes) == (16, 1234)
    assert np.array_equal(got_entries, entries) and np.array_equal(got_pool, pool)
    parts = journal.db.execute("SELECT COUNT(*) FROM snapshot_parts").fetchone()[0]
    assert parts == -(-len(entries) // 8) - 1                        # (the first part is in the row)
    journal.db.execute("UPDATE snapshot_parts SET entries = X'00' WHERE part = 3")
    with pytest.raises(MnkError, match="damaged"):
        journal.latest("x")
    journal.close()

    old = tmp_path / "old.db"   # format 1, as written before parts
    db = sqlite3.connect(old)
    fingerprint = {"format": "pn-journal/1", "cols": 5, "rows": 5, "k": 4, "gravity": False, "root": pos.board_text()}
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(fingerprint),))
    db.execute("CREATE TABLE snapshots (seq INTEGER PRIMARY KEY AUTOINCREMENT, attacker TEXT, bits INTEGER, "
               "entries BLOB, pool BLOB, crc INTEGER, nodes INTEGER)")
    import zlib
    e, p = zlib.compress(entries.tobytes()), zlib.compress(pool.tobytes())
    db.execute("INSERT INTO snapshots (attacker, bits, entries, pool, crc, nodes) VALUES ('x', 16, ?, ?, ?, 9)",
               (e, p, zlib.crc32(p, zlib.crc32(e))))
    db.commit()
    db.close()
    again = pn_journal.PnJournal(old, pos)
    bits, got_entries, got_pool, nodes = again.latest("x")
    assert nodes == 9 and np.array_equal(got_entries, entries) and np.array_equal(got_pool, pool)
    again.close()
    with pytest.raises(MnkError, match="another proof"):
        pn_journal.PnJournal(old, Position.from_moves(GameSpec(5, 5, 4), "c3"))
