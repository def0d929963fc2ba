"""Resumable solves: an SQLite journal of finished tasks (``--checkpoint FILE``).

What is written
---------------
A parallel solve is a sequence of *probes* (window searches of the root: the
null windows ``(m, m+1)`` of the exact score, or of 0 and 1 when weak: ``probes.weak_value``), each
run as a split tree whose leaves are *tasks* (``parallel/split.py``). The
journal keeps, as they finish:

* ``tasks``: one row per finished task: the probe's window, the task's position
  (``own``/``opp`` bitboards, ``ply``), the window it was handed out with, and
  its fail-soft result (``value`` and ``kind``: lower bound, upper bound or
  exact) with the nodes it cost. Abandoned tasks prove nothing and are not
  written.
* ``handed``: every task handed out to a worker (probe window and position),
  finished or not: what each run searched (for inspection and tests).
* ``probes``: each finished probe: its window, the root's value, and the root
  child that proved the root's lower bound (for the best move).
* ``result``: the final answer (score or weak value, and the line) once a
  solve completes.
* ``meta``: the fingerprint (journal format, game, position) and ``runs`` one
  row per run.

What "the same task" means
--------------------------
Windows change from probe to probe, and inside a probe the live windows narrow
while tasks run, so a task's window is not a stable identity. Its *result* is:
a fail-soft value with its kind is a proven bound on the exact score of the
task's position, true whatever window produced it (the same fact the split
tree relies on). So rows are written per (probe window, task position, window
handed out), and read back per position: all bounds ever proven for a position
are combined (highest lower bound, lowest upper bound). When a run builds a
split tree, every task leaf with journaled bounds gets them recorded before
anything is handed out (:meth:`Checkpoint.apply`); in a null-window probe the
windows of a probe's nodes never change except to close, so a task finished
in that probe settles its leaf again and is not searched again. Finished probes
come back as proven bounds of the root (:meth:`Checkpoint.root_bounds`), so the
probe loop starts where the interrupted run was, and their best children as
candidates for the best move. Only bounds journaled by *earlier* runs are
applied (a run does not re-read its own rows; its table has them).

Long tasks
----------
One task can run for hours on a big free board. While a journal is open, the
driver walks the line each running task publishes (``pools/shm.path_of``) every
``SNAPSHOT_EVERY_S`` seconds (``driver.py``) and writes, as ``tasks`` rows with 0
nodes, each position one move off that line whose bound the shared table proves
in a search of one node (``Search.settled_at_once``): the subtrees the task
finished. A later run stores every journaled bound in its table before it
searches (:meth:`Checkpoint.earlier_bounds`, ``Search.seed_bound``), so the task
searched again finds its finished subtrees there: a kill loses the work since the
last snapshot and below the deepest node of the line, not the whole task.

Because everything stored is a proven bound of some position of this game,
options that change how the search runs but not what is true (workers, split
depth, backend, table size, weak or exact) may differ between runs; the game or
the root position may not: a checkpoint made for another one is refused. The
final answer is then the one an uninterrupted run gives (the score is unique;
the best move is an optimal one, maybe another optimal one).

Integrity: every row of ``tasks``, ``probes`` and ``result`` carries a CRC-32 of the
journal's fingerprint and its fields (``checksum``), checked as it is read with the
types of its fields: a damaged page, an edited row or a row of another journal is
an error (a one-line :class:`MnkError`, "delete it"), never a bound or an answer
taken on trust; so is anything SQLite cannot read.

Durability: WAL mode, commits at most every quarter second and after each
probe, so a kill (even SIGKILL) loses at most the last quarter second of
results; Ctrl-C and time limits lose nothing finished. One process at a time:
a journal in use by a live process on this host is refused.

Not journaled: the coordinator's short serial try before splitting (a few
thousand nodes) and the best move and line searches after the score is known
(recomputed on resume, on a table that may be cold: the cost of one serial
search per move of the line).
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
import zlib
from pathlib import Path
from typing import Optional, Sequence

from ...api.results import counted
from ...game.position import Position
from ...game.rules import MnkError
from ...kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER
from ..task import Task, TaskResult
from .split import SplitTree
from ...api.settings import current

FORMAT = 2   # 1 had no checksums

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run INTEGER PRIMARY KEY, started REAL, pid INTEGER, host TEXT);
CREATE TABLE IF NOT EXISTS tasks (
    run INTEGER NOT NULL, probe_alpha INTEGER NOT NULL, probe_beta INTEGER NOT NULL,
    own INTEGER NOT NULL, opp INTEGER NOT NULL, ply INTEGER NOT NULL,
    alpha INTEGER NOT NULL, beta INTEGER NOT NULL,
    value INTEGER NOT NULL, kind INTEGER NOT NULL, nodes INTEGER NOT NULL, checksum INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS tasks_position ON tasks (own, opp);
CREATE TABLE IF NOT EXISTS handed (
    run INTEGER NOT NULL, probe_alpha INTEGER NOT NULL, probe_beta INTEGER NOT NULL,
    own INTEGER NOT NULL, opp INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS probes (
    run INTEGER NOT NULL, alpha INTEGER NOT NULL, beta INTEGER NOT NULL, value INTEGER NOT NULL,
    best_bound INTEGER, best_cell INTEGER, checksum INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS result (weak INTEGER PRIMARY KEY, score INTEGER NOT NULL, pv TEXT NOT NULL,
                                   full_pv INTEGER NOT NULL, checksum INTEGER NOT NULL);
"""


def _signed(v: int) -> int:
    """A 64-bit bitboard as SQLite's signed 64-bit integer."""
    return v - (1 << 64) if v >= 1 << 63 else v


def _unsigned(v: int) -> int:
    return v + (1 << 64) if v < 0 else v


def fingerprint(position: Position) -> dict:
    """What a journal is valid for: the game and the root position."""
    spec = position.spec
    return {"format": FORMAT, "game": [spec.cols, spec.rows, spec.k, bool(spec.gravity)],
            "x": str(position.x), "o": str(position.o)}


def _describe(fp: object) -> str:
    """The game and stone count a fingerprint names (or that it is damaged)."""
    try:
        cols, rows, k, gravity = fp["game"]  # type: ignore[index]
        x, o = int(fp["x"]), int(fp["o"])  # type: ignore[index]
        return f"{cols}x{rows} k={k}{' gravity' if gravity else ''}, {counted(bin(x | o).count('1'), 'stone')}"
    except (TypeError, KeyError, ValueError):
        return "a damaged fingerprint"


def _ints(row: tuple, *nullable: int) -> bool:
    """Whether every field of ``row`` is an int (those at the ``nullable`` indexes may be None)."""
    return all(type(v) is int or v is None and i in nullable for i, v in enumerate(row))


class Checkpoint:
    """The journal of one root position (see the module docstring). Opening it
    starts a new run; :meth:`close` commits."""

    def __init__(self, path, position: Position) -> None:
        self.path = str(path)
        self.position = position
        fp = fingerprint(position)
        self._fp_text = json.dumps(fp, sort_keys=True)
        self._closed = True   # (until the run is opened: close() has nothing to release)
        try:
            self.db = sqlite3.connect(self.path, timeout=5.0)
        except sqlite3.Error as e:
            raise MnkError(f"checkpoint {self.path} cannot be opened ({e})") from None
        try:
            error = self._open_run(fp)
            if error is None:
                self._known = self._read_bounds()
        except (sqlite3.Error, UnicodeDecodeError) as e:   # (a damaged TEXT value is not UTF-8)
            error = f"checkpoint {self.path} is damaged or not a parallel-mnk journal ({e}); delete it to start afresh"
        except MnkError as e:
            error = str(e)
        if error is not None:
            self.db.close()
            raise MnkError(error)
        self.taken = 0                 # task leaves settled or bounded by earlier runs' rows
        self.handed = 0                # tasks handed out to workers in this run
        self.journaled = 0             # rows written in this run
        self.from_lines = 0            #   of them, positions below running tasks (snapshots of their lines)
        self.seeded = 0                # bounds of earlier runs handed to the table (earlier_bounds)
        self._last_commit = time.monotonic()
        self._closed = False

    def _open_run(self, fp: dict) -> Optional[str]:
        """Check the file is this position's journal and free, and start a run in it;
        the reason it cannot be used, or None."""
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            return f"checkpoint {self.path} is an SQLite file of something else (no parallel-mnk journal)"
        with self.db:
            self.db.executescript(_SCHEMA)
            stored = dict(self.db.execute("SELECT key, value FROM meta"))
            if "fingerprint" not in stored:
                self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (self._fp_text,))
            else:
                try:
                    old = json.loads(stored["fingerprint"])
                except (TypeError, ValueError):
                    old = None
                if not isinstance(old, dict):
                    return f"checkpoint {self.path} has a damaged fingerprint; delete it to start afresh"
                if old.get("format") != FORMAT:
                    return (f"checkpoint {self.path} has journal format {str(old.get('format'))[:20]}, "
                            f"this version writes {FORMAT}; use another file")
                if old != fp:
                    return (f"checkpoint {self.path} was made for another game or position "
                            f"({_describe(old)}; this one: {_describe(fp)}); give another file, "
                            "or delete it to start afresh")
            error = self._owner_error(stored.get("owner"))
            if error is None:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('owner', ?)", (self._me(),))
                self.run = self.db.execute("INSERT INTO runs (started, pid, host) VALUES (?, ?, ?)",
                                           (time.time(), os.getpid(), socket.gethostname())).lastrowid
            return error

    def _checksum(self, table: str, *fields: object) -> int:
        """The CRC-32 of a row's fields, its table and this journal's fingerprint."""
        return zlib.crc32(f"{self._fp_text}|{table}|{'|'.join(map(str, fields))}".encode())

    def _damaged(self, table: str) -> MnkError:
        return MnkError(f"checkpoint {self.path} is damaged (a row of {table} fails its checksum); "
                        "delete it to start afresh")

    def _read_bounds(self) -> dict[tuple[int, int], list[Optional[int]]]:
        """The bounds proven by earlier runs, per position: ``(own, opp) -> [lo, hi]``."""
        known: dict[tuple[int, int], list[Optional[int]]] = {}
        for row in self.db.execute("SELECT probe_alpha, probe_beta, own, opp, ply, alpha, beta, value, kind, "
                                   "checksum FROM tasks"):
            if not _ints(row) or row[8] not in (TT_LOWER, TT_UPPER, TT_EXACT) or \
                    row[9] != self._checksum("tasks", *row[:9]):
                raise self._damaged("tasks")
            own, opp, kind, value = row[2], row[3], row[8], row[7]
            b = known.setdefault((_unsigned(own), _unsigned(opp)), [None, None])
            if kind in (TT_LOWER, TT_EXACT):
                b[0] = value if b[0] is None else max(b[0], value)
            if kind in (TT_UPPER, TT_EXACT):
                b[1] = value if b[1] is None else min(b[1], value)
        return known

    # ------------------------------------------------------------ one run at a time
    @staticmethod
    def _me() -> str:
        return f"{os.getpid()}@{socket.gethostname()}"

    def _owner_error(self, owner: Optional[str]) -> Optional[str]:
        """Why the journal cannot be used now (a live process on this host has
        it open), or None."""
        if not owner:
            return None
        pid_text, _, host = owner.partition("@")
        if host != socket.gethostname() or not (pid_text.isascii() and pid_text.isdigit()) \
                or int(pid_text) == os.getpid():
            return None
        try:
            os.kill(int(pid_text), 0)
        except (ProcessLookupError, OverflowError):
            return None  # the previous run is gone (crash, kill), or never was a process: resume
        except PermissionError:
            pass
        return f"checkpoint {self.path} is in use by process {pid_text} (a solve still running?)"

    # ------------------------------------------------------------ reading
    def root_bounds(self, lo: int, hi: int) -> tuple[int, int, list[tuple[int, int]]]:
        """``lo``/``hi`` tightened by the finished probes of earlier runs, and their
        best root children as (proven lower bound, cell)."""
        proven = []
        for row in self._rows("SELECT alpha, beta, value, best_bound, best_cell, checksum FROM probes "
                              "WHERE run < ? ORDER BY rowid", (self.run,)):
            if not _ints(row, 3, 4) or row[5] != self._checksum("probes", *row[:5]):
                raise self._damaged("probes")
            alpha, beta, value, bound, cell = row[:5]
            if value <= alpha:
                hi = min(hi, value)
            elif value >= beta:
                lo = max(lo, value)
            else:
                lo = hi = value
            if cell is not None:
                proven.append((bound, cell))
        if lo > hi:
            raise MnkError(f"checkpoint {self.path} contradicts itself (root bounds {lo} > {hi}); delete it")
        return lo, hi, proven

    def apply(self, tree: SplitTree) -> int:
        """Record in ``tree`` the journaled bounds of its task leaves (before any is
        handed out); returns how many leaves had some."""
        count = 0
        stack = [tree.root]
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(node.children)
                continue
            if not node.is_task:
                continue
            bounds = self._known.get((node.own, node.opp))
            if bounds is None:
                continue
            lo, hi = bounds
            if lo is not None and lo == hi:
                tree.record(node, lo, TT_EXACT)
            else:
                if lo is not None:
                    tree.record(node, lo, TT_LOWER)
                if hi is not None:
                    tree.record(node, hi, TT_UPPER)
            count += 1
        self.taken += count
        return count

    def earlier_bounds(self) -> list[tuple[int, int, int, int]]:
        """Every bound earlier runs proved, as ``(own, opp, value, kind)``: what a run
        seeds its table with before it searches (a position's lower and upper bound
        are two rows, or one exact row when they meet)."""
        rows = []
        for (own, opp), (lo, hi) in self._known.items():
            if lo is not None and lo == hi:
                rows.append((own, opp, lo, TT_EXACT))
                continue
            if lo is not None:
                rows.append((own, opp, lo, TT_LOWER))
            if hi is not None:
                rows.append((own, opp, hi, TT_UPPER))
        self.seeded = len(rows)
        return rows

    def final_result(self, weak: bool, pv: bool) -> Optional[tuple[int, list[int]]]:
        """The answer of an earlier complete run with the same ``weak``, as
        (score or weak value, line), when its line is what is asked for."""
        rows = self._rows("SELECT score, pv, full_pv, checksum FROM result WHERE weak = ?", (int(weak),))
        if not rows:
            return None
        row = tuple(rows[0])
        if not (_ints(row[:1] + row[2:]) and isinstance(row[1], str)) or \
                row[3] != self._checksum("result", int(weak), *row[:3]):
            raise self._damaged("result")
        if pv and not row[2]:
            return None
        line = [int(m) for m in row[1].split(",")] if row[1] else []
        if not line:
            return None
        return row[0], line if pv else line[:1]

    def _rows(self, sql: str, args: tuple = ()) -> list:
        """The rows of a query; a one-line :class:`MnkError` where SQLite cannot read the file."""
        try:
            return self.db.execute(sql, args).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as e:   # (a damaged TEXT value is not UTF-8)
            raise MnkError(f"checkpoint {self.path} is damaged ({e}); delete it to start afresh") from None

    # ------------------------------------------------------------ writing
    def handed_out(self, tree: SplitTree, task: Task) -> None:
        self.handed += 1
        self._write("INSERT INTO handed VALUES (?, ?, ?, ?, ?)",
                    (self.run, tree.alpha0, tree.beta0, _signed(task.own), _signed(task.opp)))

    def task_done(self, tree: SplitTree, task: Task, result: TaskResult) -> None:
        self.bound_proven(tree, task.own, task.opp, task.ply, task.alpha, task.beta, result.value, result.kind,
                          result.nodes)

    def bound_proven(self, tree: SplitTree, own: int, opp: int, ply: int, alpha: int, beta: int, value: int,
                     kind: int, nodes: int = 0) -> None:
        """A ``tasks`` row: the fail-soft ``value`` (what it proves: ``kind``) of a
        position searched with the window ``(alpha, beta)`` in the probe of ``tree``;
        a finished task's, or one below a running task that the shared table proves
        (a snapshot of the task's line: ``nodes`` 0)."""
        fields = (tree.alpha0, tree.beta0, _signed(own), _signed(opp), ply, alpha, beta, value, kind)
        self._write("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (self.run, *fields, nodes, self._checksum("tasks", *fields)))
        self.journaled += 1
        self.from_lines += nodes == 0
        if time.monotonic() - self._last_commit >= current().COMMIT_EVERY_S:
            self.commit()

    def probe_done(self, alpha: int, beta: int, value: int, best: Optional[tuple[int, int]]) -> None:
        fields = (alpha, beta, value, None if best is None else best[0], None if best is None else best[1])
        self._write("INSERT INTO probes VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (self.run, *fields, self._checksum("probes", *fields)))
        self.commit()

    def set_final_result(self, weak: bool, value: str, score: Optional[int], line: Sequence[int], full: bool) -> None:
        stored = (1 if value == "win" else -1 if value == "loss" else 0) if weak else score
        text = ",".join(str(int(m)) for m in line)  # moves as the Python API gives them
        fields = (int(weak), stored, text, int(full))
        self._write("INSERT OR REPLACE INTO result VALUES (?, ?, ?, ?, ?)",
                    (*fields, self._checksum("result", *fields)))
        self.commit()

    def _write(self, sql: str, args: tuple) -> None:
        """One write; a one-line :class:`MnkError` where SQLite cannot write the file."""
        try:
            self.db.execute(sql, args)
        except sqlite3.Error as e:
            raise MnkError(f"checkpoint {self.path} cannot be written ({e})") from None

    def commit(self) -> None:
        try:
            self.db.commit()
        except sqlite3.Error as e:
            raise MnkError(f"checkpoint {self.path} cannot be written ({e})") from None
        self._last_commit = time.monotonic()

    def summary(self) -> dict:
        """The figures reported with the result (JSON ``checkpoint``)."""
        total = self._rows("SELECT COUNT(*) FROM tasks")[0][0]
        return {"file": self.path, "run": self.run, "tasks_from_journal": self.taken,
                "tasks_searched": self.handed, "tasks_journaled": self.journaled, "tasks_in_journal": total,
                "line_positions_journaled": self.from_lines, "bounds_seeded": self.seeded}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.db.execute("DELETE FROM meta WHERE key = 'owner' AND value = ?", (self._me(),))
            self.db.commit()
        except sqlite3.Error:
            pass   # a file that went bad under us: the rows committed so far are what it keeps
        finally:
            self.db.close()


def journal_keys(path, run: Optional[int] = None, table: str = "tasks") -> set[tuple[int, int, int, int]]:
    """(probe_alpha, probe_beta, own, opp) of the tasks finished (``table``
    ``"tasks"``) or handed out (``"handed"``) in the journal ``path``, by one
    ``run`` or all; for tests and inspection."""
    if table not in ("tasks", "handed"):
        raise ValueError(table)
    db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        sql = f"SELECT probe_alpha, probe_beta, own, opp FROM {table}" + ("" if run is None else " WHERE run = ?")
        rows = db.execute(sql, () if run is None else (run,)).fetchall()
    finally:
        db.close()
    return {(a, b, _unsigned(o), _unsigned(p)) for a, b, o, p in rows}
