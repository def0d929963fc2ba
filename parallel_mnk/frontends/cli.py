"""Command line: ``parallel-mnk solve ...``. Argument parsing and presentation only."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from typing import Optional, TextIO

from .. import __version__
from ..api.options import BACKENDS, MAX_SPLIT_DEPTH, PROVERS, Limit, SolveOptions, check_workers
from ..api.results import SolveResult
from ..engines.books.choose import open_book
from ..game.position import Position
from ..game.rules import PRESETS, GameSpec, MnkError, format_move
from ..runtime import families, running
from ..runtime.ttable import DEFAULT_TT_BITS, resolve_tt_bits, transposition_table
from . import solver
from .analysis import analyze, pons_line, render
from .report import print_solve
from .book_cli import add_book_arg, add_book_parser, best_from_book
from .commands import check_time_limit, game_notes, game_spec, position_of, printable
from .parser import PROG, Parser
from .play import play
from .protocol import Session, needs_solver, parse
from .stopping import restore_sigterm, stop_on_sigterm, was_terminated
from .verify_cli import add_certificate_arg, add_verify_parser

def _add_game_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game (cols x rows, k in a row: docs/design.md)")
    g.add_argument("--game", choices=sorted(PRESETS), help="a preset: connect4 (7x6 k=4 gravity), tictactoe (3x3 k=3)")
    g.add_argument("--cols", type=int, help="board width (m)")
    g.add_argument("--rows", type=int, help="board height (n)")
    g.add_argument("--k", type=int, help="stones in a row that win")
    g.add_argument("--gravity", action="store_true", help="stones drop to the lowest empty cell of a column")


def _add_position_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", help="moves from the empty board: columns from 1 (gravity; '4453' or '4,4,5,3') "
                                   "or cells like 'b2,a1,c3'; '' is the empty board")
    p.add_argument("--board", help="board text, rows top to bottom: 'x.o/.x./...'")


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


def _stdin_lines(stdin: TextIO):
    """The position lines of stdin (without their line ends; blank lines skipped), with a
    word on stderr first when a person is typing them."""
    if stdin.isatty():
        sys.stderr.write(f"{PROG}: reading positions from the terminal, one a line (a move list, or board "
                         "text with '/'); Ctrl-D ends (--moves '' solves the empty board)\n")
    for line in stdin:
        text = line.rstrip("\n").rstrip("\r")
        if text.strip():
            yield text


def _position_from_text(spec: GameSpec, text: str) -> Position:
    """A stdin line: board text if it contains '/', else a move list."""
    text = text.strip()
    if "/" in text:
        return Position.from_board(spec, text)
    return Position.from_moves(spec, text)


def _solve_kwargs(args: argparse.Namespace) -> dict:
    """The options of ``solve`` as the command line gives them (names of :class:`SolveOptions`)."""
    return dict(workers=args.workers, weak=args.weak, tt_bits=args.tt_bits, split_depth=args.split_depth,
                progress=False if args.json or args.no_progress else None, backend=args.backend,
                address=args.address, checkpoint=args.checkpoint, prover=args.prover)


def _solve_one(position: Position, args: argparse.Namespace) -> SolveResult:
    return solver.solve(position, Limit(time=args.time_limit), book=args.book, certificate=args.certificate,
                        **_solve_kwargs(args))


def cmd_solve(args, stdin: TextIO, stdout: TextIO) -> int:
    """Solve a position. Without --moves/--board, read one position per line from stdin (a move list,
    or board text with '/'; blank lines skipped) and write one result line each: 'input score best_move
    nodes time_us' (JSON Lines with --json)."""
    spec = _spec_from_args(args)
    if args.address is not None and args.backend != "ray":
        raise MnkError("--address is for --backend ray")
    for option in ("checkpoint", "certificate"):
        if getattr(args, option) is not None and args.moves is None and args.board is None:
            raise MnkError(f"--{option} is for one solve: give the position with --moves or --board")
    args.tt_bits = resolve_tt_bits(args.tt_bits, args.tt_size, spec.cells, spec.gravity,
                                   args.workers)  # a table too big is refused before any work
    open_book(spec, args.book)   # and a book that is not one, or of another game
    SolveOptions(limit=Limit(time=args.time_limit), **_solve_kwargs(args))   # and options that do not go together
    if args.moves is not None or args.board is not None:
        position_of(spec, args.moves, args.board)   # a bad position is refused before the kernels load
    ray_start = 0.0
    if args.backend == "ray":  # start Ray (or join the cluster) before the clock of the first solve
        ray_start = solver.start_backend("ray", args.workers, args.tt_bits, args.address)   # (a bad address: an error)
        stop_on_sigterm()
    _announce(args)
    if args.moves is not None or args.board is not None:
        position = position_of(spec, args.moves, args.board)
        result = _solve_one(position, args)
        startup = result.startup_s + ray_start
        if args.json:
            stdout.write(json.dumps(result.to_dict()) + "\n")
        else:
            print_solve(result, position, stdout)
            if result.checkpoint is not None:
                c = result.checkpoint
                stdout.write(f"checkpoint {c['file']} (run {c['run']}): {c['tasks_from_journal']} tasks taken from "
                             f"the journal, {c['tasks_searched']} searched, {c['tasks_in_journal']} journaled in all "
                             f"({c['line_positions_journaled']} positions below running tasks in this run, "
                             f"{c['bounds_seeded']} bounds seeded)\n")
            if startup > 0:
                what = "kernel and Ray" if args.backend == "ray" else "kernel"
                stdout.write(f"({what} start-up: {startup:.2f} s, not counted above)\n")
        return 0 if result.value.known else 3
    # one position per line on stdin, one result line each
    failures = 0
    for text in _stdin_lines(stdin):
        try:
            position = _position_from_text(spec, text)
            result = _solve_one(position, args)
        except MnkError as e:
            failures += 1
            if args.json:
                stdout.write(json.dumps({"input": text, "error": str(e)}) + "\n")
            else:
                stdout.write(f"{text} error: {e}\n")
            stdout.flush()
            continue
        if args.json:
            d = {"input": text}
            d.update(result.to_dict())
            stdout.write(json.dumps(d) + "\n")
        else:
            score = result.value if result.score is None else str(result.score)
            best = "-" if result.best_move is None else format_move(spec, result.best_move)
            stdout.write(f"{text} {score} {best} {result.nodes} {int(result.time_s * 1e6)}\n")
        stdout.flush()
    return 1 if failures else 0


def cmd_analyze(args, stdin: TextIO, stdout: TextIO) -> int:
    """Analyse a position: the value and exact score of every legal move, for the side to move (a
    move's score is the win score if it wins at once, else minus the opponent's score after it),
    drawn on the board, and the best moves. Without --moves/--board, read one position per line from
    stdin (blank lines skipped) and write one line each, as Pons' Connect Four solver with -a: the input, then one score
    per column (gravity) or per cell in row-major order from the top-left (free placement); -1000
    for a full column or a taken cell, '?' for a move not solved within --time-limit, 1/0/-1 for
    win/draw/loss with --weak (JSON Lines with --json)."""
    spec = _spec_from_args(args)
    if not spec.exact_solvable and args.workers > 1:
        args.notes = [*args.notes, f"analyze of boards over 64 cells runs on one process (not {args.workers} workers)"]
        args.workers = 1
    args.tt_bits = resolve_tt_bits(args.tt_bits, args.tt_size, spec.cells, spec.gravity,
                                   args.workers)  # a table too big is refused before any work
    open_book(spec, args.book)   # a file that is not a book, or of another game, refused before any work
    SolveOptions(limit=Limit(time=args.time_limit), workers=args.workers, weak=args.weak, tt_bits=args.tt_bits,
                 split_depth=args.split_depth)   # and options that do not go together, before the notes
    one = None if args.moves is None and args.board is None else position_of(spec, args.moves, args.board)
    _announce(args)

    def run(position):
        return analyze(position, Limit(time=args.time_limit), workers=args.workers, weak=args.weak,
                       tt_bits=args.tt_bits, split_depth=args.split_depth, book=args.book,
                       progress=False if args.json or args.no_progress else None)

    if one is not None:
        a = run(one)
        stdout.write(json.dumps(a.to_dict()) + "\n" if args.json else render(a))
        if a.startup_s > 0 and not args.json:
            stdout.write(f"(kernel start-up: {a.startup_s:.2f} s, not counted above)\n")
        return 0 if a.value.known else 3
    failures = unknown = 0  # one position per line on stdin, one line each
    for text in _stdin_lines(stdin):
        try:
            a = run(_position_from_text(spec, text))
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
    GEN_ALL_POS_MOV_CUT_IF_GAME_OVER, SOLVE_GAME_STATE (at most 64 cells). The whole input is
    checked first: a malformed query is an error and nothing is written."""
    t0 = time.perf_counter()
    text = stdin.read()
    if text.startswith("\ufeff"):
        text = text[1:]
    queries = parse(text)  # the whole input is checked before any output
    session = Session(tt_bits=args.tt_bits)
    transposition_table(args.tt_bits)  # a bad size is an error even if no query needs the table
    t1 = time.perf_counter()
    startup = families.load("free") if needs_solver(queries) else 0.0   # the protocol has no gravity
    t2 = time.perf_counter()
    out = session.run(queries)
    t3 = time.perf_counter()
    stdout.write(out)
    stdout.flush()
    if args.stats:
        t4 = time.perf_counter()
        sys.stderr.write(f"{PROG} nmk: {len(queries)} queries; read and parse {t1 - t0:.3f} s, "
                         f"kernel start-up {startup:.3f} s, answers {t3 - t2:.3f} s, output {t4 - t3:.3f} s\n")
    return 0


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
    if args.width is not None and args.width < 0:
        raise MnkError(f"--width must be 0 (all moves) or more, got {args.width}")
    limit = Limit(time=args.time_limit, depth=args.depth)   # (a bad depth refused before the notes)
    open_book(spec, args.book)   # and a file that is not a book
    _announce(args)
    hit = None if position.is_game_over() else best_from_book(position, args.book)
    if hit is not None:
        answer, d = hit
        stdout.write(json.dumps(d) + "\n" if args.json else f"{position}\n\nbest move: "
                     f"{d['best_move']} (opening book {answer.name}: exact score {answer.score:+d})\n")
        return 0
    r = solver.best_move(position, limit, width=args.width,
                         workers=args.workers)
    if args.json:
        stdout.write(json.dumps(r.to_dict(spec)) + "\n")
    else:
        stdout.write(f"{position}\n\n")
        how = r.describe()
        stdout.write(f"best move: {format_move(spec, r.move)} ({how}; depth {r.depth}, {r.nodes:,} nodes, "
                     f"{r.time_s:.2f} s)\n")
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
    unknown = [n for n in names if not families.is_family(families.RENAMED.get(n, n))]
    if unknown or not names:
        raise MnkError(f"not a kernel family: {', '.join(unknown) or repr(args.families)} "
                       f"(choose from {', '.join(families.FAMILIES)}, or gravity@COLSxROWSkK for a board's own build)")
    for old in [n for n in names if n in families.RENAMED]:
        sys.stderr.write(f"{PROG}: note: the kernel family {old!r} is called {families.RENAMED[old]!r} now\n")
    names = [families.RENAMED.get(n, n) for n in names]
    cached = families.cached(*names)
    seconds = families.load(*names)
    for name in names:
        stdout.write(f"{name}: {'in the cache' if name in cached else 'compiled'}\n")
    stdout.write(f"kernels ready ({seconds:.1f} s)\n")
    return 0


def _description(command) -> str:
    """A command's ``--help`` description: the docstring of its ``cmd_`` function."""
    return " ".join(command.__doc__.split())


def _add_table_args(p: argparse.ArgumentParser, size_help: str) -> None:
    table = p.add_mutually_exclusive_group()
    table.add_argument("--tt-size", metavar="SIZE", help=size_help)
    table.add_argument("--tt-bits", type=int, default=None, help="the table as 2**N entries of 8 bytes instead")


def _add_exact_args(p: argparse.ArgumentParser, weak: str, workers: str, split: str, progress: str,
                    time_limit: str, table: str) -> None:
    """The options of the exact solver's commands (solve, analyze), with their help texts."""
    _add_game_args(p)
    _add_position_args(p)
    p.add_argument("--weak", action="store_true", help=weak)
    p.add_argument("--workers", type=int, default=None, help=workers)
    p.add_argument("--split-depth", type=int, default=None, help=split)
    p.add_argument("--no-progress", action="store_true", help=progress)
    p.add_argument("--time-limit", type=float, default=None, help=time_limit)
    _add_table_args(p, table)


def _add_solve_parser(sub) -> None:
    p = sub.add_parser("solve", help="value, exact score, best move and line of a position", description=_description(cmd_solve))
    _add_exact_args(
        p, weak="only win/draw/loss (faster)",
        workers=f"worker processes (default: the physical cores, here {running.default_workers()}; 1 = serial)",
        split="plies of the parallel split (1 = plain root splitting; 0 = Lazy SMP, every worker searches the "
              "root window on the shared table; default: 1-4, until there are 8 tasks)",
        progress="no status line on stderr during long solves",
        time_limit="seconds; past it the answer is 'unknown'",
        table="transposition table memory, like 512M or 2G (bytes without a unit): the largest power of two of "
              "8-byte entries that fits; more than the available memory is refused (default: by the board and "
              "the workers, 32M for 7x6 with gravity, 256M for big free boards, at most a quarter of the "
              "available memory; per machine with --backend ray)")
    p.add_argument("--backend", choices=BACKENDS, default="process",
                   help="where the parallel tasks run: forked processes (default), threads of this process "
                        "(a table with huge pages: faster nodes where shared memory gets none), or Ray tasks "
                        "(needs the 'cluster' extra); thread and ray are always parallel, even with --workers 1")
    p.add_argument("--address", help="with --backend ray: the Ray cluster to join (default: start a local Ray "
                                     "with --workers CPUs); give --workers as the cluster's CPUs")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="SQLite journal of finished tasks (and, every 30 s, of what running tasks finished): "
                        "the same command run again (after a crash, kill or "
                        "Ctrl-C) resumes from it; a journal of another game or position is refused. Ctrl-C "
                        "(SIGINT) exits 130, SIGTERM 143: both stop the workers and commit the journal first")
    p.add_argument("--prover", choices=PROVERS, default="auto",
                   help="what settles the value: 'search' (alpha-beta), 'dfpn' (depth-first proof-number search: "
                        "with --weak, one process), or 'auto' (default): df-pn first, capped, for --weak serial "
                        "solves of free-placement positions past the first move with 20 or more empty cells, "
                        "else alpha-beta")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    add_book_arg(p)
    add_certificate_arg(p)
    p.set_defaults(func=cmd_solve)


def _add_analyze_parser(sub) -> None:
    p = sub.add_parser("analyze", help="value and exact score of every legal move of a position", description=_description(cmd_analyze))
    _add_exact_args(
        p, weak="only win/draw/loss of each move (faster)",
        workers="worker processes per move's solve (default: the physical cores; 1 = serial, one table shared "
                "by all the moves)",
        split="plies of the parallel split, as for solve",
        progress="no status line on stderr during long analyses",
        time_limit="seconds per position; moves not solved by then are '?' (unknown) and the exit status is 3",
        table="transposition table memory, as for solve")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    add_book_arg(p)
    p.set_defaults(func=cmd_analyze)


def _add_nmk_parser(sub) -> None:
    p = sub.add_parser("nmk", help="the NMK assignment protocol on stdin/stdout", description=_description(cmd_nmk))
    p.add_argument("--tt-bits", type=int, default=DEFAULT_TT_BITS,
                   help=f"transposition table of 2**N entries of 8 bytes, shared by all queries "
                        f"(default {DEFAULT_TT_BITS})")
    p.add_argument("--stats", action="store_true",
                   help="one line on stderr: queries and where the time went")
    p.set_defaults(func=cmd_nmk)


def _add_play_parser(sub) -> None:
    p = sub.add_parser("play", help="play a game against the engine in the terminal", description=_description(cmd_play))
    _add_game_args(p)
    p.add_argument("--human", type=str.lower, choices=("x", "o"),
                   help="your side (X moves first); asked at the start if not given")
    p.add_argument("--time-limit", type=float, default=3.0,
                   help="seconds per engine move or hint (default 3)")
    p.add_argument("--workers", type=int, default=1, help="worker processes of the exact solver (default 1)")
    add_book_arg(p)
    p.set_defaults(func=cmd_play, split_depth=None)


def _add_best_parser(sub) -> None:
    p = sub.add_parser("best", help="a strong move by depth-limited search, on any board up to 26x26", description=_description(cmd_best))
    _add_game_args(p)
    _add_position_args(p)
    p.add_argument("--depth", type=int, default=None, help="plies to search (1-64)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds; the deepest finished iteration gives the move")
    p.add_argument("--width", type=int, default=None,
                   help="moves tried per node (0 = all; default all up to 64 cells, 14 beyond)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes: root moves searched on the pool (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_book_arg(p)
    p.set_defaults(func=cmd_best, split_depth=None)


def _add_serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="the analysis board in the browser (a local web server)",
                       description=_description(cmd_serve))
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes of each search (default 1: searches run in the server's process)")
    p.add_argument("--max-time", type=float, default=60.0,
                   help="seconds any one search may take (default 60); a request may ask for less")
    p.add_argument("--verbose", action="store_true", help="one line per request on stderr")
    add_book_arg(p)
    p.set_defaults(func=cmd_serve, split_depth=None)


def _add_warm_up_parser(sub) -> None:
    p = sub.add_parser("warm-up", help="compile the kernels into their cache now (first run only)",
                       description=_description(cmd_warm_up))
    p.add_argument("--families", metavar="LIST",
                   help=f"comma list of kernel families (default all: {','.join(families.FAMILIES)} and "
                        "Connect Four's own build, gravity@7x6k4; gravity@COLSxROWSkK: a gravity board's own build)")
    p.set_defaults(func=cmd_warm_up)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(prog=PROG, description="Exact solver for (m,n,k)-games with and without gravity.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for add in (_add_solve_parser, _add_analyze_parser, _add_nmk_parser, _add_play_parser, _add_best_parser,
                _add_serve_parser, _add_warm_up_parser):
        add(sub)
    add_book_parser(sub, _add_game_args, _add_table_args, _description)
    add_verify_parser(sub, _description)
    return parser


def main(argv: Optional[list[str]] = None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Entry point of ``parallel-mnk``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    previous_sigterm = stop_on_sigterm(start=True)
    try:
        if hasattr(args, "workers"):
            if args.workers is None:   # (df-pn runs in one process)
                args.workers = 1 if getattr(args, "prover", None) == "dfpn" else running.default_workers()
            check_workers(args.workers, getattr(args, "backend", "process"), name="--workers")
            if args.split_depth is not None and not 0 <= args.split_depth <= MAX_SPLIT_DEPTH:
                raise MnkError(f"--split-depth must be between 0 and {MAX_SPLIT_DEPTH}, got {args.split_depth}")
            if args.split_depth is not None and args.workers == 1 and getattr(args, "backend", "process") == "process":
                args.notes = ["--split-depth is for parallel solves: one worker searches alone"]
        check_time_limit(getattr(args, "time_limit", None))
        # Ray prints cluster events (a node marked dead) on sys.stdout: to stderr, off the results
        with contextlib.redirect_stdout(sys.stderr) if getattr(args, "backend", None) == "ray" \
                else contextlib.nullcontext():
            return args.func(args, stdin, stdout)
    except MnkError as e:
        sys.stderr.write(f"{PROG}: error: {printable(str(e))}\n")
        return 2
    except KeyboardInterrupt as e:   # Ctrl-C: 130; SIGTERM: 143
        solver.shutdown()
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
    """Console-script wrapper."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
