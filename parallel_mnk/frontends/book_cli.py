"""The command line of opening books: ``parallel-mnk book build|info|check``, and the
``--book`` option that solve, analyze, best, play and serve share. Parsing and
presentation only (:func:`parallel_mnk.entrance.build_book` builds)."""
from __future__ import annotations

import argparse
import json
import random
import time
from typing import Optional, TextIO

from .. import entrance
from ..api.options import Options
from ..api.results import counted
from ..engines.books.base import BookAnswer
from ..engines.books.choose import AUTO, open_book
from ..engines.books.store import BookFile
from ..engines.books.thill import ThillBook
from ..game.moves import Move
from ..game.position import Position
from ..game.rules import MnkError, move_name, win_score
from .commands import game_spec, table_size

BOOK_HELP = ("opening book: a file of 'parallel-mnk book build', 'auto' (default: Thill's 12-ply database for "
             "Connect Four when the 'books' extra is installed) or 'none'")


def add_book_arg(p: argparse.ArgumentParser) -> None:
    """``--book FILE|auto|none`` on a command that answers positions."""
    p.add_argument("--book", default=AUTO, metavar="FILE", help=BOOK_HELP)


def best_from_book(position: Position, choice: Optional[str]) -> Optional[tuple[BookAnswer, dict]]:
    """The book's move for ``position`` and ``best --json``'s object for it, or None."""
    if not position.spec.exact_solvable:
        return None
    book = open_book(position.spec, choice)
    answer = None if book is None else book.answer(position)
    if answer is None:
        return None
    return answer, {"best_move": move_name(position.spec, answer.best_move), "score": answer.score,
                    "proof": "book", "book": answer.name}


def cmd_book(args, stdin: TextIO, stdout: TextIO) -> int:
    """Build, describe or check an opening book. 'book build GAME --plies N --out FILE': every
    position of up to N stones (one per symmetry class, games already over left out) with its exact
    score and a best move, in a SQLite file; the last ply's positions are solved one a task on the
    workers (--backend ray: on a Ray cluster), the lower plies from their children. Resumable with
    --checkpoint after a kill or Ctrl-C. 'book info FILE': its game, plies, entries per ply, size.
    'book check FILE --sample K': checks every entry's checksum, then re-solves K random entries by
    search and compares score and move (exit 1 for a damaged or a wrong entry)."""
    return {"build": _build, "info": _info, "check": _check}[args.action](args, stdout)


def _build(args, stdout: TextIO) -> int:
    if args.out is None or args.plies is None:
        raise MnkError("book build needs --plies N and --out FILE")
    spec = game_spec(args.game, args.cols, args.rows, args.k, args.gravity)
    started = time.perf_counter()
    options = Options(workers=args.workers, backend=args.backend, address=args.address,
                      tt_size=table_size(args.tt_size, args.tt_bits), book=args.leaf_book,
                      progress=False if args.json else None)
    book, r = entrance.build_book(spec, args.plies, args.out, options=options, resume=args.checkpoint,
                                  task_nodes=args.task_nodes)
    info = book.stats()
    book.close()
    report = {**info, "file": args.out, "new_entries": r.entries, "resumed_entries": r.resumed,
              "leaves_searched": r.leaves, "leaves_split": r.split_leaves, "derived": r.derived,
              "leaf_nodes": r.leaf_nodes, "time_s": round(r.time_s, 3),
              "total_s": round(time.perf_counter() - started, 3), "workers": r.per_worker}
    if args.json:
        stdout.write(json.dumps(report) + "\n")
    else:
        stdout.write(f"book {args.out}: {info['game']} up to {counted(info['plies'], 'ply', 'plies')}, "
                     f"{counted(info['entries'], 'entry', 'entries')} "
                     f"({r.entries:,} new, {r.resumed:,} from the file), {info['bytes']:,} bytes\n"
                     f"  {counted(r.leaves, 'position')} searched one a task, {r.split_leaves} by the pool's split, "
                     f"{r.derived:,} from their children; {counted(r.leaf_nodes, 'node')}, {r.time_s:.1f} s\n")
    return 0


def _open_any(path: Optional[str]):
    if path is None:
        raise MnkError("give the book file (or 'thill')")
    if path == "thill" or path.endswith(".dat"):
        return ThillBook(None if path == "thill" else path)
    return BookFile.open(path)


def _info(args, stdout: TextIO) -> int:
    book = _open_any(args.file)
    info: dict
    if isinstance(book, ThillBook):
        info = {"game": book.spec.describe(), "plies": book.plies, "entries": book.entries, "file": str(book.path),
                "complete": True, "entries_per_ply": {str(book.plies): book.entries},
                "bytes": book.path.stat().st_size}
    else:
        info = book.stats()
    if args.json:
        stdout.write(json.dumps(info) + "\n")
        return 0
    per_ply = ", ".join(f"{p}: {n:,}" for p, n in info["entries_per_ply"].items())
    stdout.write(f"{args.file}: {info['game']} up to {counted(info['plies'], 'ply', 'plies')}, "
                 f"{counted(info['entries'], 'entry', 'entries')} "
                 f"({per_ply}), {info['bytes']:,} bytes{'' if info['complete'] else ', build not finished'}\n")
    return 0


def _check(args, stdout: TextIO) -> int:
    book = _open_any(args.file)
    if isinstance(book, ThillBook):
        raise MnkError("book check takes a book file of 'parallel-mnk book build'")
    if args.sample < 1:
        raise MnkError(f"--sample must be at least 1, got {args.sample}")
    damaged = book.damaged()
    rows = [row for row in book.rows() if row[0] not in set(damaged)]
    sample = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
    wrong = []
    started = time.perf_counter()
    options = Options(workers=args.workers, pv=False, progress=False)   # (and no book)
    for key, _, score, _, _ in sample:
        position = Position.from_board(book.spec, key)
        answer = book.answer(position)
        assert answer is not None
        solved = entrance.solve(position, options=options).score
        position.push(Move(book.spec, answer.best_move))
        outcome = position.outcome()
        kept = (0 if outcome.winner is None else win_score(book.spec, position.ply)) if outcome else \
            -int(entrance.solve(position, options=options).score or 0)
        if solved != score or kept != score:
            wrong.append({"key": key, "stored": score, "solved": solved, "after_best_move": kept})
    result = {"checked": len(sample), "wrong": wrong, "damaged": damaged,
              "time_s": round(time.perf_counter() - started, 3)}
    if args.json:
        stdout.write(json.dumps(result) + "\n")
    else:
        stdout.write(f"{args.file}: {counted(len(damaged), 'damaged entry', 'damaged entries')} (checksums), "
                     f"{counted(len(sample), 'entry', 'entries')} re-solved, "
                     f"{len(wrong)} wrong, {result['time_s']} s\n")
        for key in damaged[:20]:
            stdout.write(f"  {key}: damaged\n")
        for w in wrong:
            stdout.write(f"  {w['key']}: stored {w['stored']}, solved {w['solved']}, "
                         f"after its best move {w['after_best_move']}\n")
    return 1 if wrong or damaged else 0


def add_book_parser(sub, add_game_args, add_table_args, description, add_settings_arg) -> None:
    """The ``book`` subcommand and its actions."""
    p = sub.add_parser("book", help="build, describe or check an opening book", description=description(cmd_book))
    p.add_argument("action", choices=("build", "info", "check"))
    p.add_argument("file", nargs="?", help="info/check: the book file ('thill': Thill's database)")
    add_game_args(p)
    p.add_argument("--plies", type=int, help="build: positions of up to N stones")
    p.add_argument("--out", metavar="FILE", help="build: the book file to write")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: the physical cores)")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="build: where the positions are solved (ray: the 'cluster' extra)")
    p.add_argument("--address", help="build with --backend ray: the cluster to join")
    p.add_argument("--checkpoint", action="store_true", help="build: resume the build in --out (a killed build "
                                                             "loses no finished entry)")
    p.add_argument("--task-nodes", type=int, default=200_000_000,
                   help="build: a position past this many nodes is solved by the whole pool (default 2e8)")
    p.add_argument("--leaf-book", default=AUTO, metavar="FILE",
                   help="build: read the last ply's positions from this book where it covers them (" + BOOK_HELP[14:])
    p.add_argument("--sample", type=int, default=20, help="check: entries to re-solve (default 20)")
    p.add_argument("--seed", type=int, default=0, help="check: which entries (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_table_args(p, "build: the transposition table's memory, as for solve")
    add_settings_arg(p)
    p.set_defaults(func=cmd_book, split_depth=None, time_limit=None)
