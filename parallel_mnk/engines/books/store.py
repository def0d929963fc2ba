"""Our own opening books: one SQLite file per book.

Tables::

    meta(name TEXT PRIMARY KEY, value TEXT)   format, cols, rows, k, gravity, plies,
                                              complete (1 once every position is in)
    entries(key TEXT PRIMARY KEY,             the canonical board text (.base.canonical)
            ply INTEGER, score INTEGER,       exact score from the side to move
            best_move INTEGER,                on the keyed image (column or cell)
            nodes INTEGER,                    searched for it (0: from its children)
            checksum INTEGER)                 CRC-32 of the game, key, ply, score and best move

A lookup answers only from an entry whose fields are integers, whose checksum
matches and whose best move is legal: any other (a damaged page, an edited row, a
book of another game relabelled) is an error, never a wrong answer; an error too
is a file SQLite cannot read. Each entry is committed as it comes (write-ahead log, no fsync per commit: a
killed build loses no entry it committed, a power cut at most the last ones, and
the file stays whole); a finished book is one plain file. Lookups are one indexed
select.
"""
from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path
from typing import Iterable, Optional, Union

from ...api.results import counted
from ...game.moves import Move
from ...game.position import Position
from ...game.rules import GameSpec, MnkError
from .base import Book, BookAnswer, canonical

FORMAT = "parallel-mnk-book/2"   # /1 had no checksums: such a book is refused (build it again)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries(key TEXT PRIMARY KEY, ply INTEGER NOT NULL, score INTEGER NOT NULL,
                                   best_move INTEGER NOT NULL, nodes INTEGER NOT NULL, checksum INTEGER NOT NULL);
"""

Row = tuple[str, int, int, int, int]   # key, ply, score, best_move (keyed image), nodes


class BookFile(Book):
    """An opened book file. :meth:`open` reads an existing book; :meth:`create`
    starts (or, with ``resume``, reopens) one being built. Raises :class:`MnkError`
    with one line for a file that is not a book."""

    def __init__(self, path: Path, db: sqlite3.Connection, spec: GameSpec, plies: int, complete: bool) -> None:
        self.path, self.db, self.spec, self.plies, self.complete = path, db, spec, plies, complete
        self.name = path.name

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: Union[str, Path]) -> "BookFile":
        """Open the book at ``path`` read-only."""
        path = Path(path)
        if not path.is_file():
            raise MnkError(f"no book file {path}")
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            meta = dict(db.execute("SELECT name, value FROM meta").fetchall())
        except (sqlite3.Error, UnicodeDecodeError) as e:   # (a damaged TEXT value is not UTF-8)
            raise MnkError(f"{path} is not a parallel-mnk book ({e})") from None
        return cls._from_meta(path, db, meta)

    @classmethod
    def create(cls, path: Union[str, Path], spec: GameSpec, plies: int, resume: bool) -> "BookFile":
        """A book of ``spec`` up to ``plies`` being built at ``path``: a new file, or
        with ``resume`` the finished entries of an earlier build of the same book
        (an existing file is not overwritten without it)."""
        path = Path(path)
        if path.exists() and not resume:
            raise MnkError(f"{path} exists (--checkpoint resumes its build; or choose another --out)")
        existed = path.exists()
        try:
            db = sqlite3.connect(str(path))
            db.execute("PRAGMA journal_mode=WAL")     # a commit per entry without an fsync each (see finish)
            db.execute("PRAGMA synchronous=NORMAL")   # a killed process loses nothing committed
            db.executescript(_SCHEMA)
            meta = dict(db.execute("SELECT name, value FROM meta").fetchall())
        except (sqlite3.Error, UnicodeDecodeError) as e:   # (a damaged TEXT value is not UTF-8)
            raise MnkError(f"cannot build a book at {path} ({e})") from None
        if existed and meta:
            book = cls._from_meta(path, db, meta)
            if (book.spec, book.plies) != (spec, plies):
                raise MnkError(f"{path} is a book of {book.spec.describe()} up to {counted(book.plies, 'ply', 'plies')}, "
                               f"not of {spec.describe()} up to {counted(plies, 'ply', 'plies')}")
            return book
        rows = {"format": FORMAT, "cols": spec.cols, "rows": spec.rows, "k": spec.k, "gravity": int(spec.gravity),
                "plies": plies, "complete": 0}
        with db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, str(v)) for k, v in rows.items()])
        return cls(path, db, spec, plies, False)

    @classmethod
    def _from_meta(cls, path: Path, db: sqlite3.Connection, meta: dict) -> "BookFile":
        if meta.get("format") != FORMAT:
            raise MnkError(f"{path} is not a parallel-mnk book (format {meta.get('format')!r})")
        try:
            spec = GameSpec(int(meta["cols"]), int(meta["rows"]), int(meta["k"]), meta["gravity"] == "1")
            plies = int(meta["plies"])
        except (KeyError, ValueError, TypeError, MnkError) as e:
            raise MnkError(f"{path}: a damaged book header ({e})") from None
        return cls(path, db, spec, plies, meta.get("complete") == "1")

    # ------------------------------------------------------------ reading
    def _checksum(self, key: str, ply: int, score: int, best_move: int) -> int:
        """The CRC-32 of an entry's fields and this book's game (so that a relabelled book fails too)."""
        s = self.spec
        return zlib.crc32(f"{FORMAT}|{s.cols}|{s.rows}|{s.k}|{int(s.gravity)}|{key}|{ply}|{score}|{best_move}".encode())

    def _select(self, sql: str, args: tuple = ()) -> list:
        """The rows of a query; :class:`MnkError` (one line) where SQLite cannot read the file."""
        try:
            return self.db.execute(sql, args).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as e:   # (a damaged TEXT value is not UTF-8)
            raise MnkError(f"{self.path}: cannot read the book ({e})") from None

    def _row(self, key: str, ply: int) -> Optional[tuple[int, int]]:
        """``(score, best_move)`` of the entry ``key`` (None when absent); :class:`MnkError` for a damaged one."""
        found = self._select("SELECT ply, score, best_move, checksum FROM entries WHERE key = ?", (key,))
        if not found:
            return None
        row = tuple(found[0])
        if not all(type(v) is int for v in row) or row[0] != ply or row[3] != self._checksum(key, *row[:3]):
            raise MnkError(f"{self.path}: the entry of {key} is damaged (its checksum does not match); "
                           f"build the book again")
        return row[1], row[2]

    def score(self, position: Position) -> Optional[int]:
        """The stored exact score of ``position``, or None when it is not in the book."""
        answer = self.answer(position)
        return None if answer is None else answer.score

    def answer(self, position: Position) -> Optional[BookAnswer]:
        """The stored score and best move of ``position`` (None when not in the book)."""
        if position.spec != self.spec or position.ply > self.plies:
            return None
        c = canonical(position)
        row = self._row(c.key, position.ply)
        if row is None:
            return None
        score, keyed = row
        move = c.move_from_key(self.spec, keyed) if 0 <= keyed < self.spec.cells else None
        if move is None or move not in {int(m) for m in position.legal_moves}:
            raise MnkError(f"{self.path}: the entry of {c.key} is damaged (its best move is not legal)")
        return BookAnswer(score, Move(self.spec, move), self.name)

    def damaged(self) -> list[str]:
        """The keys of the entries a lookup would refuse (fields not integers, a ply not the
        key's stone count, a checksum that does not match): a full scan."""
        out = []
        for key, ply, score, best_move, checksum in self._select(
                "SELECT key, ply, score, best_move, checksum FROM entries"):
            fields = (ply, score, best_move, checksum)
            if not isinstance(key, str) or not all(type(v) is int for v in fields) or \
                    ply != key.count("x") + key.count("o") or checksum != self._checksum(key, ply, score, best_move):
                out.append(str(key))
        return out

    def keys(self) -> set[str]:
        """The keys of every stored entry."""
        return {k for (k,) in self._select("SELECT key FROM entries")}

    def rows(self) -> list[Row]:
        """Every entry as ``(key, ply, score, best_move, nodes)``."""
        return [tuple(r) for r in self._select("SELECT key, ply, score, best_move, nodes FROM entries")]

    def stats(self) -> dict:
        """Entries per ply, nodes, and whether the build finished."""
        per_ply = dict(self._select("SELECT ply, COUNT(*) FROM entries GROUP BY ply ORDER BY ply"))
        count, nodes = self._select("SELECT COUNT(*), COALESCE(SUM(nodes), 0) FROM entries")[0]
        return {"game": self.spec.describe(), "cols": self.spec.cols, "rows": self.spec.rows, "k": self.spec.k,
                "gravity": self.spec.gravity, "plies": self.plies, "complete": self.complete,
                "entries": count, "entries_per_ply": {str(p): n for p, n in per_ply.items()}, "nodes": nodes,
                "bytes": self.path.stat().st_size}

    # ------------------------------------------------------------ writing
    def add(self, rows: Iterable[Row]) -> None:
        """Store ``rows`` in one transaction."""
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                                [(*row, self._checksum(*row[:4])) for row in rows])

    def finish(self) -> None:
        """Mark the book complete."""
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")
        self.db.execute("PRAGMA journal_mode=DELETE")   # one plain file again, readable from a read-only folder
        self.complete = True

    def close(self) -> None:
        """Close the file."""
        self.db.close()
