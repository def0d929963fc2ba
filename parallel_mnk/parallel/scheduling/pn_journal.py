"""The journal of a proof by the proof-number prover (``--prover pn --checkpoint
FILE``): SQLite, so that a proof of hours resumes after Ctrl-C, a crash or a move to
another machine.

What a proof knows is its store: every node settled, with its value, zone and
record (:mod:`parallel_mnk.kernels.pns.pns_store`). The journal keeps, per question
(``x`` wins? ``o`` wins?), its salt (the store's keys are salted) and its answer once
settled, and *snapshots* of its store: every entry and the used part of its
pairing pool, compressed, written every ``PN_SNAPSHOT_S`` seconds, when the question
is settled, and when the run stops (a limit, Ctrl-C, SIGTERM). A run on the same
position loads the newest snapshot of the question it resumes into a fresh store
(the coordinator's tree is built again from the root: its expansions meet the
settled nodes) and goes on; a settled question is not asked again. A kill loses
what was settled since the last snapshot, and the workers' tables.

Refused, one line each (:class:`MnkError`): a journal of another game, position or
prover; a damaged one (each blob carries a CRC-32); one in use by a live process
of this host.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import zlib
from pathlib import Path
from typing import Optional

import numpy as np

from ...game.position import Position
from ...game.rules import MnkError

FORMAT = "pn-journal/1"


class PnJournal:
    """The journal at ``path`` of a proof of ``position`` (made when missing)."""

    def __init__(self, path: Path, position: Position) -> None:
        self.path = Path(path)
        spec = position.spec
        self.fingerprint = {"format": FORMAT, "cols": spec.cols, "rows": spec.rows, "k": spec.k,
                            "gravity": spec.gravity, "root": position.board_text()}
        try:
            self.db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self.db.execute("CREATE TABLE IF NOT EXISTS questions (attacker TEXT PRIMARY KEY, salt TEXT, "
                            "answer INTEGER, move INTEGER, nodes INTEGER)")
            self.db.execute("CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                            "attacker TEXT, bits INTEGER, entries BLOB, pool BLOB, crc INTEGER, nodes INTEGER)")
            row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        except sqlite3.Error as e:
            raise MnkError(f"--checkpoint {self.path}: not a journal SQLite can read ({e}); delete it") from None
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(self.fingerprint),))
        else:
            try:
                theirs = json.loads(row[0])
            except ValueError:
                theirs = None
            if theirs != self.fingerprint:
                raise MnkError(f"--checkpoint {self.path} is the journal of another proof ({_describe(theirs)}), "
                               f"not of {spec.describe()} from {position.board_text()} by the pn prover; "
                               "give another file or delete it")
        self._claim()

    def _claim(self) -> None:
        """Refuse a journal a live process of this host has open; mark it ours."""
        me = f"{socket.gethostname()}:{os.getpid()}"
        row = self.db.execute("SELECT value FROM meta WHERE key = 'owner'").fetchone()
        if row is not None and row[0] != me:
            host, _, pid = row[0].rpartition(":")
            if host == socket.gethostname() and pid.isdigit() and _alive(int(pid)):
                raise MnkError(f"--checkpoint {self.path} is in use by process {pid}; wait for it or give "
                               "another file")
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('owner', ?)", (me,))

    def question(self, attacker: str) -> tuple[Optional[int], Optional[int], Optional[bool], Optional[int]]:
        """``(salt, move, answer, nodes)`` journaled for the question of ``attacker``
        (None where unknown)."""
        row = self.db.execute("SELECT salt, move, answer, nodes FROM questions WHERE attacker = ?",
                              (attacker,)).fetchone()
        if row is None:
            return None, None, None, None
        salt, move, answer, nodes = row
        return int(salt), move, None if answer is None else bool(answer), nodes

    def begin(self, attacker: str, salt: int) -> None:
        """The question of ``attacker`` starts with ``salt`` (kept if journaled before)."""
        self.db.execute("INSERT OR IGNORE INTO questions (attacker, salt) VALUES (?, ?)", (attacker, str(salt)))

    def settled(self, attacker: str, answer: bool, move: Optional[int], nodes: int) -> None:
        """The question's answer (and the root's move)."""
        self.db.execute("UPDATE questions SET answer = ?, move = ?, nodes = ? WHERE attacker = ?",
                        (int(answer), move, nodes, attacker))

    def snapshot(self, attacker: str, bits: int, entries: np.ndarray, pool: np.ndarray, nodes: int) -> None:
        """A snapshot of the question's store: its entries (rows of words) and pool;
        older snapshots of the question are dropped once it is written."""
        e = zlib.compress(entries.tobytes(), 1)
        p = zlib.compress(pool.tobytes(), 1)
        crc = zlib.crc32(p, zlib.crc32(e))
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO snapshots (attacker, bits, entries, pool, crc, nodes) VALUES (?, ?, ?, ?, ?, ?)",
                            (attacker, bits, e, p, crc, nodes))
            self.db.execute("DELETE FROM snapshots WHERE attacker = ? AND seq < (SELECT MAX(seq) FROM snapshots "
                            "WHERE attacker = ?)", (attacker, attacker))

    def latest(self, attacker: str) -> Optional[tuple[int, np.ndarray, np.ndarray, int]]:
        """The newest snapshot of the question: ``(bits, entries, pool, nodes)``, or None."""
        row = self.db.execute("SELECT bits, entries, pool, crc, nodes FROM snapshots WHERE attacker = ? "
                              "ORDER BY seq DESC LIMIT 1", (attacker,)).fetchone()
        if row is None:
            return None
        bits, e, p, crc, nodes = row
        if zlib.crc32(p, zlib.crc32(e)) != crc:
            raise MnkError(f"--checkpoint {self.path} is damaged (a snapshot's checksum fails); delete it")
        try:
            entries = np.frombuffer(zlib.decompress(e), dtype=np.uint64).copy()
            pool = np.frombuffer(zlib.decompress(p), dtype=np.uint64).copy()
        except zlib.error:
            raise MnkError(f"--checkpoint {self.path} is damaged (a snapshot does not decompress); delete it") from None
        return int(bits), entries, pool, int(nodes or 0)

    def summary(self) -> dict:
        """What the journal holds: questions settled and the snapshots' sizes."""
        settled = self.db.execute("SELECT COUNT(*) FROM questions WHERE answer IS NOT NULL").fetchone()[0]
        snaps = self.db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(entries) + LENGTH(pool)), 0) FROM snapshots"
                                ).fetchone()
        return {"questions_settled": settled, "snapshots": snaps[0], "snapshot_bytes": snaps[1]}

    def close(self) -> None:
        """Release the journal (another process may open it then)."""
        try:
            self.db.execute("DELETE FROM meta WHERE key = 'owner'")
            self.db.close()
        except sqlite3.Error:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _describe(fp: object) -> str:
    if not isinstance(fp, dict):
        return "unreadable"
    if fp.get("format") != FORMAT:
        return f"format {fp.get('format')!r}"
    return f"{fp.get('cols')}x{fp.get('rows')} k={fp.get('k')} from {fp.get('root')}"
