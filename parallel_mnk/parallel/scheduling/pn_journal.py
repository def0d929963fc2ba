"""The journal of a proof by the proof-number prover (``--prover pn --checkpoint
FILE``): SQLite, so that a proof of hours resumes after Ctrl-C, a crash or a move to
another machine.

What a proof knows is its store: every node settled, with its value, zone and
record (:mod:`parallel_mnk.kernels.pns.settled_store`). The journal keeps, per question
(``x`` wins? ``o`` wins?), its salt (the store's keys are salted) and its answer once
settled, and *snapshots* of its store: every entry and the used part of its
pairing pool, compressed, written every ``PN_SNAPSHOT_S`` seconds, when the question
is settled, and when the run stops (a limit, Ctrl-C, SIGTERM). A run on the same
position loads the newest snapshot of the question it resumes into a fresh store
(the coordinator's tree is built again from the root: its expansions meet the
settled nodes) and goes on; a settled question is not asked again. A kill loses
what was settled since the last snapshot, and the workers' tables.

A snapshot is written in parts of at most ``PART_WORDS`` words of entries and of
pool each (SQLite takes no blob past 1 GB: a store of 31 M entries is more), the
first in its ``snapshots`` row, the others in ``snapshot_parts``; a journal of
format 1 (one part) reads the same.

Refused, one line each (:class:`MnkError`): a journal of another game, position or
prover; a damaged one (each snapshot carries a CRC-32 of its parts); one in use by a
live process of this host.
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

FORMAT = "pn-journal/2"
READS = ("pn-journal/1", FORMAT)   # (1: a snapshot in one part)
PART_WORDS = 1 << 24               # words of entries (or of pool) in one part of a snapshot: 128 MiB


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
            self.db.execute("CREATE TABLE IF NOT EXISTS snapshot_parts (seq INTEGER, part INTEGER, entries BLOB, "
                            "pool BLOB, PRIMARY KEY (seq, part))")
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
            older = isinstance(theirs, dict) and theirs.get("format") in READS and theirs.get("format") != FORMAT
            if older and {**theirs, "format": FORMAT} == self.fingerprint:   # (format 1: read the same)
                theirs = self.fingerprint
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (json.dumps(theirs),))
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
        """A snapshot of the question's store: its entries (rows of words) and pool, in
        parts; older snapshots of the question are dropped once it is written."""
        parts = max(1, -(-len(entries) // PART_WORDS), -(-len(pool) // PART_WORDS))
        blobs = [(zlib.compress(entries[i * PART_WORDS:(i + 1) * PART_WORDS].tobytes(), 1),
                  zlib.compress(pool[i * PART_WORDS:(i + 1) * PART_WORDS].tobytes(), 1)) for i in range(parts)]
        crc = 0
        for e, p in blobs:
            crc = zlib.crc32(p, zlib.crc32(e, crc))
        with self.db:
            self.db.execute("BEGIN")
            seq = self.db.execute("INSERT INTO snapshots (attacker, bits, entries, pool, crc, nodes) VALUES "
                                  "(?, ?, ?, ?, ?, ?)", (attacker, bits, *blobs[0], crc, nodes)).lastrowid
            self.db.executemany("INSERT INTO snapshot_parts (seq, part, entries, pool) VALUES (?, ?, ?, ?)",
                                [(seq, i, e, p) for i, (e, p) in enumerate(blobs) if i > 0])
            old = "SELECT seq FROM snapshots WHERE attacker = ? AND seq < ?"
            self.db.execute(f"DELETE FROM snapshot_parts WHERE seq IN ({old})", (attacker, seq))
            self.db.execute(f"DELETE FROM snapshots WHERE seq IN ({old})", (attacker, seq))

    def latest(self, attacker: str) -> Optional[tuple[int, np.ndarray, np.ndarray, int]]:
        """The newest snapshot of the question: ``(bits, entries, pool, nodes)``, or None."""
        row = self.db.execute("SELECT seq, bits, entries, pool, crc, nodes FROM snapshots WHERE attacker = ? "
                              "ORDER BY seq DESC LIMIT 1", (attacker,)).fetchone()
        if row is None:
            return None
        seq, bits, e, p, crc, nodes = row
        blobs = [(e, p)] + self.db.execute("SELECT entries, pool FROM snapshot_parts WHERE seq = ? ORDER BY part",
                                           (seq,)).fetchall()
        check = 0
        for e, p in blobs:
            check = zlib.crc32(p, zlib.crc32(e, check))
        if check != crc:
            raise MnkError(f"--checkpoint {self.path} is damaged (a snapshot's checksum fails); delete it")
        try:
            entries = np.concatenate([np.frombuffer(zlib.decompress(e), dtype=np.uint64) for e, _ in blobs])
            pool = np.concatenate([np.frombuffer(zlib.decompress(p), dtype=np.uint64) for _, p in blobs])
        except zlib.error:
            raise MnkError(f"--checkpoint {self.path} is damaged (a snapshot does not decompress); delete it") from None
        return int(bits), entries, pool, int(nodes or 0)

    def summary(self) -> dict:
        """What the journal holds: questions settled and the snapshots' sizes."""
        settled = self.db.execute("SELECT COUNT(*) FROM questions WHERE answer IS NOT NULL").fetchone()[0]
        snaps = self.db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(entries) + LENGTH(pool)), 0) FROM snapshots"
                                ).fetchone()
        parts = self.db.execute("SELECT COALESCE(SUM(LENGTH(entries) + LENGTH(pool)), 0) FROM snapshot_parts"
                                ).fetchone()
        return {"questions_settled": settled, "snapshots": snaps[0], "snapshot_bytes": snaps[1] + parts[0]}

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
