"""The journal of a proof by the proof-number prover past 64 cells (``--prover pn
--checkpoint FILE`` on a board of more than 64 cells): SQLite, so that a proof of
hours or days resumes after Ctrl-C, a crash or a move to another machine.

What that proof knows is the positions it settled (:attr:`parallel_mnk.parallel.uses.big_pn.ThreatProof.settled`:
a position's key up to symmetry, its state, and a proven attacker's position's
winning cell). The journal keeps them per question (``x`` wins? ``o`` wins?),
appended as they come (every ``PN_SNAPSHOT_S`` seconds and when the run stops),
with the question's nodes over every run. A run on the same position loads them
and builds its tree again from the root: its expansions meet the settled
positions. A kill loses what was settled since the last write.

Refused, one line each (:class:`MnkError`): a file SQLite cannot read, a journal
of another game, position or prover.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ...game.position import Position
from ...game.rules import MnkError

FORMAT = "big-pn-journal/1"

Settled = dict[tuple[int, int], tuple[int, int]]


class BigPnJournal:
    """The journal at ``path`` of a proof of ``position`` (made when missing)."""

    def __init__(self, path: Path, position: Position) -> None:
        self.path = Path(path)
        spec = position.spec
        self.fingerprint = {"format": FORMAT, "cols": spec.cols, "rows": spec.rows, "k": spec.k,
                            "gravity": spec.gravity, "root": position.board_text()}
        self.written: dict[str, int] = {}   # entries of each question's dict already in the file
        self.base_nodes: dict[str, int] = {}   # each question's nodes before this run
        try:
            self.db = sqlite3.connect(self.path, timeout=5.0)
            self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self.db.execute("CREATE TABLE IF NOT EXISTS questions (attacker TEXT PRIMARY KEY, nodes INTEGER)")
            self.db.execute("CREATE TABLE IF NOT EXISTS settled (attacker TEXT, x TEXT, o TEXT, state INTEGER, "
                            "move INTEGER, PRIMARY KEY (attacker, x, o))")
            row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        except sqlite3.Error as e:
            raise MnkError(f"--checkpoint {self.path}: not a journal SQLite can read ({e}); delete it") from None
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(self.fingerprint),))
            self.db.commit()
            return
        try:
            theirs = json.loads(row[0])
        except ValueError:
            theirs = None
        if theirs != self.fingerprint:
            what = "an unreadable fingerprint" if not isinstance(theirs, dict) else \
                f"{theirs.get('format')}, {theirs.get('cols')}x{theirs.get('rows')} k={theirs.get('k')} from " \
                f"{theirs.get('root')}"
            raise MnkError(f"--checkpoint {self.path} is the journal of another proof ({what}), not of "
                           f"{spec.describe()} from {position.board_text()} by the pn prover past 64 cells; "
                           "give another file or delete it")
        self.base_nodes = {a: int(n) for a, n in self.db.execute("SELECT attacker, nodes FROM questions")}

    def settled(self, attacker: str) -> Settled:
        """The positions the question of ``attacker`` settled in earlier runs."""
        rows = self.db.execute("SELECT x, o, state, move FROM settled WHERE attacker = ?", (attacker,)).fetchall()
        out = {(int(x, 16), int(o, 16)): (int(state), int(move)) for x, o, state, move in rows}
        self.written[attacker] = len(out)
        return out

    def nodes(self, attacker: str) -> int:
        """The question's nodes over the earlier runs."""
        row = self.db.execute("SELECT nodes FROM questions WHERE attacker = ?", (attacker,)).fetchone()
        return 0 if row is None else int(row[0])

    def snapshot(self, attacker: str, settled: Settled, nodes: int) -> None:
        """Append what the question settled since the last write (the dict keeps its
        insertion order), and its nodes over every run (``nodes``: this run's)."""
        done = self.written.get(attacker, 0)
        items = list(settled.items())[done:]
        self.db.executemany("INSERT OR REPLACE INTO settled VALUES (?, ?, ?, ?, ?)",
                            [(attacker, f"{x:x}", f"{o:x}", s, m) for (x, o), (s, m) in items])
        self.written[attacker] = len(settled)
        total = self.base_nodes.get(attacker, 0) + nodes
        self.db.execute("INSERT OR REPLACE INTO questions VALUES (?, ?)", (attacker, total))
        self.db.commit()

    def close(self) -> None:
        self.db.close()
