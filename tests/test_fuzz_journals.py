"""Generated damage to checkpoint journals, the SQLite files of ``solve --checkpoint``
(tests/fuzzing.py is the harness): real journals of a parallel solve (whole, or
without their final result so that a resume reads the tasks and probes), then a
table dropped, the fingerprint or the owner changed (junk, another game or
position, another format, a process of this host), a task's, a probe's or the
result's field changed (another number, text, NULL, a huge one), rows added or
deleted; or the file's bytes flipped, a page zeroed, the file cut or followed by
junk, or replaced by random bytes.

Whatever the file, the same command resumes to the right answer (the score of a
solve without a journal) or stops with one error line (exit 2); never a
traceback, never a hang.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, byte_damage, damage_file, fresh_copy, fuzz, memory_folder, one_line_error, run_cli

GAME = ["--cols", "6", "--rows", "4", "--k", "4", "--gravity", "--moves="]   # 21 tasks, 2 probes
HOST = socket.gethostname()
values = st.one_of(st.integers(-3, 40), st.sampled_from([10 ** 30, -2 ** 63, 2 ** 63 - 1, 1.5, None, b"\x00", "",
                                                         "x", "1,2", "0,0,0,99"]), st.text(max_size=5))
fingerprints = st.one_of(values, st.sampled_from([
    '{"format": 1, "game": [6, 4, 4, true], "o": "0", "x": "0"}', '{"format": 1}', '[]', '{}', 'nul',
    '{"format": 2, "game": [6, 4, 4, true], "o": "0", "x": "0"}', '{"format": 1, "game": [7, 6, 4, true], "o": "0",'
    ' "x": "0"}', '{"format": 1, "game": [6, 4, 4, true], "o": "0", "x": "x"}', '{"format": 1, "game": "6x4"}']))
owners = st.sampled_from([f"1@{HOST}", f"{10 ** 30}@{HOST}", f"{os.getpid()}@{HOST}", f"-5@{HOST}", "7@elsewhere",
                          "@", "", f"{2 ** 31}@{HOST}"])
TABLES = {"tasks": ["probe_alpha", "probe_beta", "own", "opp", "ply", "alpha", "beta", "value", "kind", "nodes"],
          "probes": ["alpha", "beta", "value", "best_bound", "best_cell"], "result": ["weak", "score", "pv", "full_pv"]}
damage = st.one_of(
    st.tuples(st.just("drop"), st.sampled_from(["meta", "tasks", "probes", "result", "runs", "handed"])),
    st.tuples(st.just("fingerprint"), fingerprints),
    st.tuples(st.just("owner"), owners),
    st.tuples(st.just("field"), st.sampled_from(sorted(TABLES)), st.integers(0, 100), st.integers(0, 100), values),
    st.tuples(st.just("field"), st.sampled_from(["tasks", "probes"]), st.integers(0, 100), st.sampled_from([7, 8]),
              st.integers(-12, 12)),   # a task's or probe's value
    st.tuples(st.just("delete"), st.sampled_from(sorted(TABLES)), st.integers(0, 100)),
    st.tuples(st.just("copy"), st.sampled_from(["tasks", "probes"]), st.integers(0, 100)),
    byte_damage)
cases = st.tuples(st.booleans(), st.lists(damage, min_size=1, max_size=3)).map(list)


def solve_with(path) -> tuple[int, str, str]:
    return run_cli(["solve", *GAME, "--workers", "2", "--checkpoint", str(path), "--json", "--no-progress"])


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    """``(whole journal, journal without its result, the score without a journal)``."""
    folder = tmp_path_factory.mktemp("journals")
    code, out, err = run_cli(["solve", *GAME, "--workers", "1", "--json", "--no-progress"])
    assert code == 0, err
    # the value is Tromp's (6x4 Connect Four: the second player wins); the exact score has no
    # reference that shares no code with the solver (naive.py would take hours on 24 cells): it
    # is the serial solve's, and what is tested is that a journal, damaged or not, gives it again
    assert json.loads(out)["value"] == "loss", out
    score = json.loads(out)["score"]
    whole = folder / "whole.sqlite"
    code, out, err = solve_with(whole)
    assert code == 0 and json.loads(out)["score"] == score, err
    partial = folder / "partial.sqlite"
    shutil.copyfile(whole, partial)
    with sqlite3.connect(partial) as db:
        db.execute("DELETE FROM result")
        assert db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0] > 0
    db.close()
    return whole, partial, score


def _edit(db, how) -> None:
    """One SQL damage of a journal: a table, the fingerprint, the owner, a row (a field, deleted, copied)."""
    name = how[0]
    if name == "drop":
        db.execute(f"DROP TABLE {how[1]}")
    elif name == "fingerprint":
        db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (how[1],))
    elif name == "owner":
        db.execute("INSERT OR REPLACE INTO meta VALUES ('owner', ?)", (how[1],))
    else:
        rowids = [r for (r,) in db.execute(f"SELECT rowid FROM {how[1]} ORDER BY rowid")]
        if rowids:
            rowid = rowids[how[2] % len(rowids)]
            if name == "field":
                fields = TABLES[how[1]]
                db.execute(f"UPDATE OR REPLACE {how[1]} SET {fields[how[3] % len(fields)]} = ? WHERE rowid = ?",
                           (how[4], rowid))
            elif name == "delete":
                db.execute(f"DELETE FROM {how[1]} WHERE rowid = ?", (rowid,))
            else:
                db.execute(f"INSERT INTO {how[1]} SELECT * FROM {how[1]} WHERE rowid = ?", (rowid,))


def apply(path, how) -> None:
    """Damage the journal at ``path`` as ``how`` says (SQL on the file, or its bytes)."""
    damage_file(path, how, _edit)


def journal_property(journals, tmp_dir):
    whole, partial, score = journals

    def prop(case) -> bool:   # True: the solve answered from what is left of the journal
        which, damages = case
        path = tmp_dir / "damaged.sqlite"
        fresh_copy(whole if which else partial, path)
        for how in damages:
            apply(path, how)
        code, out, err = solve_with(path)
        assert "Traceback" not in err and code in (0, 2), (code, out, err)
        if code == 2:
            one_line_error(err)
            return False
        assert json.loads(out)["score"] == score, (out, damages)
        return True
    return prop


@pytest.mark.parametrize("examples", BUDGETS)
def test_damaged_journals(examples, journals, tmp_path):
    with memory_folder(tmp_path) as folder:   # (the damaged copies in memory: no disk syncs)
        fuzz("journals", cases, journal_property(journals, folder), examples)
