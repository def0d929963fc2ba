"""Command line: ``parallel-mnk solve ...``. Each command builds the game, the
position, one :class:`Limit` and one :class:`Options` from its arguments, has
them checked (:func:`parallel_mnk.entrance.prepare`: bad input is one line,
before any work), and hands them to the library's function; then it prints.
The arguments themselves are :mod:`.arguments`'."""
from __future__ import annotations

import contextlib
import json
import sys
import time
from typing import Iterator, Optional, TextIO

from .. import entrance
from ..api import settings
from ..api.options import MAX_SPLIT_DEPTH, Limit, Options, check_workers
from ..api.results import SolveResult, counted
from ..engines.books.choose import open_book
from ..game.position import Position
from ..game.rules import GameSpec, MnkError
from ..runtime import families, running
from ..runtime.ttable import transposition_table
from .arguments import build_parser
from .book_cli import best_from_book
from .commands import check_time_limit, game_notes, game_spec, position_of, printable, table_size
from .parser import PROG
from .play import play
from .protocol import Session, needs_solver, parse
from .report import pons_line, print_solve, render
from .stopping import restore_sigterm, stop_on_sigterm, was_terminated


def _spec_from_args(args) -> GameSpec:
    """The game of the command line; what a preset changed by a size or gravity plays
    is kept for :func:`_announce` (said once the command's input is found good)."""
    spec = game_spec(args.game, args.cols, args.rows, args.k, args.gravity)
    args.notes = [*getattr(args, "notes", ()), *game_notes(args.game, args.cols, args.rows, args.k, args.gravity)]
    return spec


def _announce(args) -> None:
    """The notes of :func:`_spec_from_args` on stderr, once, before the work starts (never
    beside an error line: bad input is one line)."""
    for line in getattr(args, "notes", ()):
        sys.stderr.write(f"{PROG}: note: {line}\n")
    args.notes = ()


def _stdin_lines(stdin: TextIO, args) -> Iterator[str]:
    """The position lines of stdin, without their line ends: every line, an empty one
    the empty board (as in Pons' and Steininger's solvers), with a word on stderr
    first when a person is typing them, and the notes of :func:`_announce` once the
    first line has come. A stdin without any line is an error (one line, no note)."""
    if stdin.isatty():
        sys.stderr.write(f"{PROG}: reading positions from the terminal, one a line (a move list, or board "
                         "text with '/'; an empty line is the empty board); Ctrl-D ends\n")
    count = 0
    for line in stdin:
        count += 1
        if count == 1:
            _announce(args)
        yield line.rstrip("\n").rstrip("\r")
    if not count:
        raise MnkError("no position on stdin: give one a line (an empty line is the empty board), "
                       "or --moves / --board")


def _position_from_text(spec: GameSpec, text: str) -> Position:
    """A stdin line: board text if it contains '/', else a move list (blank: the empty board)."""
    text = text.strip()
    if "/" in text:
        return Position.from_board(spec, text)
    return Position.from_moves(spec, text)


def _progress(args) -> Optional[bool]:
    """No status line with ``--json`` or ``--no-progress``; else where stderr is a terminal."""
    return False if args.json or args.no_progress else None


def _one_position(spec: GameSpec, args) -> Optional[Position]:
    """The position of ``--moves`` / ``--board``, or None when the positions come on stdin."""
    return None if args.moves is None and args.board is None else position_of(spec, args.moves, args.board)


def cmd_solve(args, stdin: TextIO, stdout: TextIO) -> int:
    """Solve a position. Without --moves/--board, read one position per line from stdin (a move list,
    or board text with '/'; an empty line is the empty board) and write one result line each: 'input
    score best_move nodes time_us' (JSON Lines with --json)."""
    spec = _spec_from_args(args)
    options = Options(workers=args.workers, backend=args.backend, address=args.address, tt_size=table_size(args.tt_size, args.tt_bits),
                      prover=args.prover, book=args.book, certificate=args.certificate, checkpoint=args.checkpoint,
                      progress=_progress(args), split_depth=args.split_depth)
    limit = Limit(time=args.time_limit)
    one = _one_position(spec, args)   # a bad position is refused before the kernels load
    for option in ("checkpoint", "certificate"):
        if getattr(options, option) is not None and one is None:
            raise MnkError(f"--{option} is for one solve: give the position with --moves or --board")
    opts = entrance.prepare("solve", spec, limit, args.weak, options)   # and options that do not go together
    ray_start = 0.0
    if options.backend == "ray":  # start Ray (or join the cluster) before the clock of the first solve
        ray_start = entrance.start_backend("ray", options.workers, opts.tt_bits, options.address)
        stop_on_sigterm()
    if one is not None:
        _announce(args)
        result = entrance.solve(one, limit, weak=args.weak, options=options)
        if args.json:
            stdout.write(json.dumps(result.to_dict()) + "\n")
        else:
            print_solve(result, one, stdout)
            _print_extras(result, result.startup_s + ray_start, options.backend, stdout)
        return 0 if result.value.known else 3
    failures = unknown = 0   # one position per line on stdin, one result line each
    for text in _stdin_lines(stdin, args):
        try:
            result = entrance.solve(_position_from_text(spec, text), limit, weak=args.weak, options=options)
        except MnkError as e:
            failures += 1
            stdout.write(json.dumps({"input": text, "error": str(e)}) + "\n" if args.json else f"{text} error: {e}\n")
            stdout.flush()
            continue
        unknown += not result.value.known
        if args.json:
            stdout.write(json.dumps({"input": text, **result.to_dict()}) + "\n")
        else:
            score = result.value if result.score is None else str(result.score)
            best = "-" if result.best_move is None else str(result.best_move)
            stdout.write(f"{text} {score} {best} {result.nodes} {int(result.time_s * 1e6)}\n")
        stdout.flush()
    return 1 if failures else 3 if unknown else 0


def _print_extras(result: SolveResult, startup: float, backend: str, stdout: TextIO) -> None:
    """What ``solve`` prints after the answer: the checkpoint's figures, the certificates
    (or why none), the start-up left out of the time."""
    if result.checkpoint is not None:
        c = result.checkpoint
        stdout.write(f"checkpoint {c['file']} (run {c['run']}): {counted(c['tasks_from_journal'], 'task')} taken "
                     f"from the journal, {c['tasks_searched']} searched, {c['tasks_in_journal']} journaled in all "
                     f"({counted(c['line_positions_journaled'], 'position')} below running tasks in this run, "
                     f"{counted(c['bounds_seeded'], 'bound')} seeded)\n")
    if result.certificates is not None:
        stdout.write(f"certificates: {' '.join(result.certificates)}\n" if result.certificates else
                     "certificates: none written (the value was not proved within the limit)\n")
    if startup > 0:
        what = "kernel and Ray" if backend == "ray" else "kernel"
        stdout.write(f"({what} start-up: {startup:.2f} s, not counted above)\n")


def cmd_analyze(args, stdin: TextIO, stdout: TextIO) -> int:
    """Analyse a position: the value and exact score of every legal move, for the side to move (a
    move's score is the win score if it wins at once, else minus the opponent's score after it),
    drawn on the board, and the best moves. Without --moves/--board, read one position per line from
    stdin (an empty line is the empty board) and write one line each, as Pons' Connect Four solver
    with -a: the input, then one score per column (gravity) or per cell in row-major order from the
    top-left (free placement); -1000 for a full column or a taken cell, '?' for a move not solved
    within --time-limit, 1/0/-1 for win/draw/loss with --weak (JSON Lines with --json)."""
    spec = _spec_from_args(args)
    if not spec.exact_solvable and args.workers > 1:
        args.notes = [*args.notes, f"analyze of boards over 64 cells runs on one process (not {args.workers} workers)"]
        args.workers = 1
    options = Options(workers=args.workers, tt_size=table_size(args.tt_size, args.tt_bits), book=args.book, progress=_progress(args),
                      split_depth=args.split_depth, prover=args.prover)
    limit = Limit(time=args.time_limit)
    entrance.prepare("analyze", spec, limit, args.weak, options)   # refused before any work and the notes
    one = _one_position(spec, args)
    if one is not None:
        _announce(args)
        a = entrance.analyze(one, limit, weak=args.weak, options=options)
        stdout.write(json.dumps(a.to_dict()) + "\n" if args.json else render(a))
        if a.startup_s > 0 and not args.json:
            stdout.write(f"(kernel start-up: {a.startup_s:.2f} s, not counted above)\n")
        return 0 if a.value.known else 3
    failures = unknown = 0  # one position per line on stdin, one line each
    for text in _stdin_lines(stdin, args):
        try:
            a = entrance.analyze(_position_from_text(spec, text), limit, weak=args.weak, options=options)
        except MnkError as e:
            failures += 1
            stdout.write(json.dumps({"input": text, "error": str(e)}) + "\n" if args.json
                         else f"{text} error: {e}\n")
            stdout.flush()
            continue
        unknown += not a.value.known
        stdout.write(json.dumps({"input": text, **a.to_dict()}) + "\n" if args.json else pons_line(text, a) + "\n")
        stdout.flush()
    return 1 if failures else 3 if unknown else 0


def cmd_nmk(args, stdin: TextIO, stdout: TextIO) -> int:
    """Read NMK assignment queries from stdin (whitespace-separated tokens: 'COMMAND N M K P' then the
    N*M cells, 0 empty, 1/2 the players, rows top to bottom; N rows, M columns, P the player to
    move) and write the answers to stdout. Commands: GEN_ALL_POS_MOV,
    GEN_ALL_POS_MOV_CUT_IF_GAME_OVER (any size), SOLVE_GAME_STATE (up to 676 cells, a side of at most
    26; from 50 cells the pn prover as solve --weak where the counts fit P to move, else alpha-beta,
    past 64 cells the big-board search). The whole input is checked first: a malformed query is
    an error and nothing is written. With --time-limit, a SOLVE_GAME_STATE query not solved in time
    answers UNKNOWN and the exit status is 3."""
    t0 = time.perf_counter()
    check_time_limit(args.time_limit)
    text = stdin.read()
    if text.startswith("\ufeff"):
        text = text[1:]
    queries = parse(text)  # the whole input is checked before any output
    session = Session(tt_bits=args.tt_bits, time_limit=args.time_limit)
    transposition_table(session.tt_bits)  # a bad size is an error even if no query needs the table
    t1 = time.perf_counter()
    startup = families.load("free") if needs_solver(queries) else 0.0   # the protocol has no gravity
    t2 = time.perf_counter()
    out = session.run(queries)
    t3 = time.perf_counter()
    stdout.write(out)
    stdout.flush()
    if args.stats:
        t4 = time.perf_counter()
        sys.stderr.write(f"{PROG} nmk: {counted(len(queries), 'query', 'queries')}; read and parse {t1 - t0:.3f} s, "
                         f"kernel start-up {startup:.3f} s, answers {t3 - t2:.3f} s, output {t4 - t3:.3f} s"
                         + (f"; {session.unknown} not solved in time" if session.unknown else "") + "\n")
    return 3 if session.unknown else 0


def cmd_play(args, stdin: TextIO, stdout: TextIO) -> int:
    """Play against the engine: type moves (a column number with gravity, a cell like b2 otherwise), or
    hint, undo, board, help, quit. The engine plays perfectly where the exact solver finishes in its
    time (boards of at most 64 cells), and by heuristic search otherwise."""
    spec = _spec_from_args(args)
    open_book(spec, args.book)   # a file that is not a book, or of another game, refused before the game starts
    _announce(args)
    return play(spec, stdin, stdout, human=args.human, time_limit=args.time_limit,
                workers=args.workers, book=args.book)


def cmd_best(args, stdin: TextIO, stdout: TextIO) -> int:
    """Choose a move by iterative-deepening alpha-beta with an open-line evaluation and threat
    detection (never misses a win in one or an opponent's win in one), after a threat-space search
    for a proven win by continuous fours, then by fours and threes. For boards too big to solve
    exactly, such as Gomoku 15x15 k=5. Without --depth or --time-limit it searches 4 plies."""
    spec = _spec_from_args(args)
    position = position_of(spec, args.moves, args.board)
    options = Options(workers=args.workers, width=args.width)
    limit = Limit(time=args.time_limit, depth=args.depth)
    entrance.prepare_best(position, limit, options)   # bad input refused before the notes
    open_book(spec, args.book)   # and a file that is not a book
    _announce(args)
    hit = None if position.is_game_over() else best_from_book(position, args.book)
    if hit is not None:
        answer, d = hit
        stdout.write(json.dumps(d) + "\n" if args.json else f"{position}\n\nbest move: "
                     f"{d['best_move']} (opening book {answer.name}: exact score {answer.score:+d})\n")
        return 0
    r = entrance.best_move(position, limit, options=options)
    if args.json:
        stdout.write(json.dumps(r.to_dict(spec)) + "\n")
    else:
        stdout.write(f"{position}\n\nbest move: {r.move} ({r.describe()}; depth {r.depth}, "
                     f"{r.nodes:,} nodes, {r.time_s:.2f} s)\n")
    return 0


def cmd_serve(args, stdin: TextIO, stdout: TextIO) -> int:
    """Start the analysis board in the browser: a local web server (loopback unless --host says
    otherwise) with a page to pick a game, click moves, see every move's exact score, the value,
    the best moves and the perfect line, and play against the engine; and its JSON API
    (/api/analyze, /api/solve, /api/best answer what analyze, solve and best print with --json).
    Prints the address, then serves until Ctrl-C."""
    from .serve import serve   # the HTTP server only when asked for

    return serve(args.host, args.port, args.workers, args.max_time, stdout,
                 sys.stderr if args.verbose else None, book=args.book)


def cmd_warm_up(args, stdin: TextIO, stdout: TextIO) -> int:
    """Compile the solver's numba kernels into their on-disk cache now, rather than in the first
    command that needs them (in parallel processes, one per core): every family, or those named
    with --families. Prints each family and whether it was compiled or found in the cache."""
    names = families.all_names() if args.families is None else [n for n in args.families.split(",") if n]
    unknown = [n for n in names if not families.is_family(n)]
    if unknown or not names:
        raise MnkError(f"not a kernel family: {', '.join(unknown) or repr(args.families)} "
                       f"(choose from {', '.join(families.FAMILIES)}, or gravity@COLSxROWSkK for a board's own build)")
    cached = families.cached(*names)
    seconds = families.load(*names)
    for name in names:
        stdout.write(f"{name}: {'in the cache' if name in cached else 'compiled'}\n")
    stdout.write(f"kernels ready ({seconds:.1f} s)\n")
    return 0


def commands() -> dict:
    """Each subcommand's function, by name (looked up when called: a test may replace one)."""
    return {"solve": cmd_solve, "analyze": cmd_analyze, "nmk": cmd_nmk, "play": cmd_play, "best": cmd_best,
            "serve": cmd_serve, "warm-up": cmd_warm_up}


def _check_workers(args) -> None:
    """``--workers`` (default: the physical cores; one for df-pn) and ``--split-depth``,
    checked once for every command that has them."""
    if args.workers is None:   # (df-pn runs in one process)
        args.workers = 1 if getattr(args, "prover", None) == "dfpn" else running.default_workers()
    check_workers(args.workers, getattr(args, "backend", "process"), name="--workers")
    if args.split_depth is not None and not 0 <= args.split_depth <= MAX_SPLIT_DEPTH:
        raise MnkError(f"--split-depth must be between 0 and {MAX_SPLIT_DEPTH}, got {args.split_depth}")
    if args.split_depth is not None and args.workers == 1 and getattr(args, "backend", "process") == "process":
        args.notes = ["--split-depth is for parallel solves: one worker searches alone"]


def main(argv: Optional[list[str]] = None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Entry point of ``parallel-mnk``; returns the exit status."""
    parser = build_parser(commands())
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    previous_sigterm = stop_on_sigterm(start=True)
    try:
        with settings.applied(settings.current().with_assignments(getattr(args, "settings", ()))):   # --setting
            if hasattr(args, "workers"):
                _check_workers(args)
            check_time_limit(getattr(args, "time_limit", None))
            # Ray prints cluster events (a node marked dead) on sys.stdout: to stderr, off the results
            with contextlib.redirect_stdout(sys.stderr) if getattr(args, "backend", None) == "ray" \
                    else contextlib.nullcontext():
                return args.func(args, stdin, stdout)
    except MnkError as e:
        sys.stderr.write(f"{PROG}: error: {printable(str(e))}\n")
        return 2
    except KeyboardInterrupt as e:   # Ctrl-C: 130; SIGTERM: 143
        entrance.shutdown()
        terminated = was_terminated(e)
        sys.stderr.write(f"{PROG}: {'terminated' if terminated else 'interrupted'}\n")
        return 143 if terminated else 130
    except BrokenPipeError:
        return 0
    except OSError as e:   # a file or folder named on the command line that cannot be read or written
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        sys.stderr.write(f"{PROG}: error: {printable(e.strerror or str(e))}{printable(where)}\n")
        return 2
    finally:
        restore_sigterm(previous_sigterm)


def entry() -> None:
    """Console-script wrapper: exits with :func:`main`'s status once the worker processes
    are stopped. A Ctrl-C that lands while they stop, after the answer was written,
    changes neither the status nor the output (Python would print a stack for it in the
    interpreter's own clean-up)."""
    status = main()
    try:
        entrance.shutdown()
    except KeyboardInterrupt:
        pass
    sys.exit(status)


if __name__ == "__main__":
    entry()
