"""The arguments of ``parallel-mnk``'s commands (argparse): each command's options
with their help texts, and :func:`build_parser`, which hangs each command's
function (:mod:`.cli`'s ``cmd_*``, :mod:`.book_cli`, :mod:`.verify_cli`) on its
subcommand and takes its ``--help`` description from that function's docstring.
Parsing only: what the options mean is the commands' business."""
from __future__ import annotations

import argparse
import sys
from typing import Callable

from .. import __version__
from .. import settings as kernel_sheet
from ..api.options import BACKENDS, PROVERS
from ..api.settings import DEFAULTS
from ..engines.limited import MAX_DEPTH
from ..game.rules import PRESETS
from ..runtime import families, running
from .book_cli import add_book_arg, add_book_parser
from .parser import PROG, Parser
from .campaign_cli import add_campaign_parser
from .verify_cli import add_certificate_arg, add_verify_parser

Command = Callable[..., int]


def add_game_args(p: argparse.ArgumentParser) -> None:
    """The game: ``--game`` or ``--cols --rows --k [--gravity]``."""
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


def add_settings_arg(p: argparse.ArgumentParser) -> None:
    """``--setting NAME=VALUE``, as often as wanted: a runtime setting changed for the command."""
    p.add_argument("--setting", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="change a runtime setting for this command (repeat for more; parallel-mnk --version "
                        "lists them with their defaults), like --setting SPLIT_MIN_EMPTY=12")


def _description(command: Command) -> str:
    """A command's ``--help`` description: the docstring of its function."""
    return " ".join((command.__doc__ or "").split())


def add_table_args(p: argparse.ArgumentParser, size_help: str) -> None:
    """The table: ``--tt-size SIZE`` or ``--tt-bits N`` (one of them)."""
    table = p.add_mutually_exclusive_group()
    table.add_argument("--tt-size", metavar="SIZE", help=size_help)
    table.add_argument("--tt-bits", type=int, default=None, help="the table as 2**N entries of 8 bytes instead")


def _add_exact_args(p: argparse.ArgumentParser, weak: str, workers: str, split: str, progress: str,
                    time_limit: str, table: str) -> None:
    """The options of the exact solver's commands (solve, analyze), with their help texts."""
    add_game_args(p)
    _add_position_args(p)
    p.add_argument("--weak", action="store_true", help=weak)
    p.add_argument("--workers", type=int, default=None, help=workers)
    p.add_argument("--split-depth", type=int, default=None, help=split)
    p.add_argument("--no-progress", action="store_true", help=progress)
    p.add_argument("--time-limit", type=float, default=None, help=time_limit)
    add_table_args(p, table)


def _add_solve_parser(sub, command: Command) -> None:
    p = sub.add_parser("solve", help="value, exact score, best move and line of a position", description=_description(command))
    _add_exact_args(
        p, weak="only win/draw/loss (faster)",
        workers=f"worker processes (default: the physical cores, here {running.default_workers()}; 1 = serial)",
        split="plies of the parallel split (1 = plain root splitting; 0 = Lazy SMP, every worker searches the "
              "root window on the shared table; default: 1-4, until there are 8 tasks)",
        progress="no status line on stderr during long solves",
        time_limit="seconds of search (the kernels' compile or load before it is not counted); past them the "
                   "answer is 'unknown', with the bounds proved and the best move so far, and the exit status 3; "
                   "with --certificate, the certificates are written when the value is proved in time",
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
                        "with --weak, one process), 'pn' (the proof-number prover with relevance zones: with "
                        "--weak, free placement up to 64 cells, by jobs on the workers, mnk-proof/2 certificates; "
                        "past them proof-number search over threats), "
                        f"or 'auto' (default): with --weak on free boards of {DEFAULTS.PN_AUTO_MIN_CELLS} cells or more "
                        "pn (up to 64 cells off Ray); "
                        "else df-pn first, capped, for --weak serial solves of free-placement positions past the "
                        f"first move with {DEFAULTS.DFPN_AUTO_MIN_EMPTY} or more empty cells; else alpha-beta")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    add_book_arg(p)
    add_certificate_arg(p)
    add_settings_arg(p)
    p.set_defaults(func=command)


def _add_analyze_parser(sub, command: Command) -> None:
    p = sub.add_parser("analyze", help="value and exact score of every legal move of a position", description=_description(command))
    _add_exact_args(
        p, weak="only win/draw/loss of each move (faster)",
        workers="worker processes per move's solve (default: the physical cores; 1 = serial, one table shared "
                "by all the moves)",
        split="plies of the parallel split, as for solve",
        progress="no status line on stderr during long analyses",
        time_limit="seconds per position; moves not solved by then are '?' (unknown) and the exit status is 3",
        table="transposition table memory, as for solve")
    p.add_argument("--prover", choices=("auto", "search", "pn"), default="auto",
                   help="what settles each move's value: 'search' (alpha-beta, the moves sharing one table), 'pn' "
                        "(the proof-number prover, as for solve: with --weak, free placement up to 64 cells), or "
                        "'auto' (default): alpha-beta, which settled more moves than pn where measured")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    add_book_arg(p)
    add_settings_arg(p)
    p.set_defaults(func=command)


def _add_nmk_parser(sub, command: Command) -> None:
    p = sub.add_parser("nmk", help="the NMK assignment protocol on stdin/stdout", description=_description(command))
    p.add_argument("--tt-bits", type=int, default=None,
                   help=f"transposition table of 2**N entries of 8 bytes, shared by all queries "
                        f"(default {DEFAULTS.DEFAULT_TT_BITS}: the setting DEFAULT_TT_BITS)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds per SOLVE_GAME_STATE query (the kernels' compile or load is not counted); a "
                        "query not solved by then answers UNKNOWN (not one of the protocol's answers) and the exit "
                        "status is 3")
    p.add_argument("--stats", action="store_true",
                   help="one line on stderr: queries and where the time went")
    add_settings_arg(p)
    p.set_defaults(func=command)


def _add_play_parser(sub, command: Command) -> None:
    p = sub.add_parser("play", help="play a game against the engine in the terminal", description=_description(command))
    add_game_args(p)
    p.add_argument("--human", type=str.lower, choices=("x", "o"),
                   help="your side (X moves first); asked at the start if not given")
    p.add_argument("--time-limit", type=float, default=None,
                   help=f"seconds per engine move or hint (default {DEFAULTS.PLAY_TIME_LIMIT:g}: the setting "
                        "PLAY_TIME_LIMIT)")
    p.add_argument("--workers", type=int, default=1, help="worker processes of the exact solver (default 1)")
    add_book_arg(p)
    add_settings_arg(p)
    p.set_defaults(func=command, split_depth=None)


def _add_best_parser(sub, command: Command) -> None:
    p = sub.add_parser("best", help="a strong move by depth-limited search, on any board up to 26x26", description=_description(command))
    add_game_args(p)
    _add_position_args(p)
    p.add_argument("--depth", type=int, default=None, help=f"plies to search (1-{MAX_DEPTH}; default {DEFAULTS.DEFAULT_DEPTH}: "
                                                                  "the setting DEFAULT_DEPTH)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds; the deepest finished iteration gives the move")
    p.add_argument("--width", type=int, default=None,
                   help="moves tried per node (0 = all; default all up to 64 cells, 14 beyond)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes: root moves searched on the pool (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_book_arg(p)
    add_settings_arg(p)
    p.set_defaults(func=command, split_depth=None)


def _add_serve_parser(sub, command: Command) -> None:
    p = sub.add_parser("serve", help="the analysis board in the browser (a local web server)",
                       description=_description(command))
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes of each search (default 1: searches run in the server's process)")
    p.add_argument("--max-time", type=float, default=None,
                   help=f"seconds any one search may take (default {DEFAULTS.SERVE_MAX_TIME:g}: the setting "
                        "SERVE_MAX_TIME); a request may ask for less")
    p.add_argument("--verbose", action="store_true", help="one line per request on stderr")
    add_book_arg(p)
    add_settings_arg(p)
    p.set_defaults(func=command, split_depth=None)


def _add_warm_up_parser(sub, command: Command) -> None:
    p = sub.add_parser("warm-up", help="compile the kernels into their cache now (first run only)",
                       description=_description(command))
    p.add_argument("--families", metavar="LIST",
                   help=f"comma list of kernel families (default all: {','.join(families.FAMILIES)} and "
                        "Connect Four's own build, gravity@7x6k4; gravity@COLSxROWSkK: a gravity board's own build)")
    p.set_defaults(func=command)


def version_text() -> str:
    """What ``--version`` prints: the version, then the two sheets of settings, one
    ``NAME = value`` a line: the kernel sheet (compiled in) and the runtime settings'
    defaults (which ``--setting`` changes for a command)."""
    kernel = {n: v for n, v in vars(kernel_sheet).items() if n in kernel_sheet.RANGES}
    return "\n".join([f"{PROG} {__version__}",
                      "kernel settings (compiled in: parallel_mnk/settings/__init__.py):",
                      *(f"  {n} = {v!r}" for n, v in kernel.items()),
                      "runtime settings (defaults; --setting NAME=VALUE changes one: parallel_mnk/api/settings.py):",
                      *(f"  {n} = {v!r}" for n, v in DEFAULTS.as_dict().items())])


class _Version(argparse.Action):
    """``--version``: :func:`version_text` on stdout as it is (argparse's own action
    would fold its lines), then exit 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(version_text() + "\n")
        parser.exit(0)


def build_parser(commands: dict[str, Command]) -> argparse.ArgumentParser:
    """The argument parser of every subcommand; ``commands`` holds the function of
    ``solve``, ``analyze``, ``nmk``, ``play``, ``best``, ``serve`` and ``warm-up``."""
    parser = Parser(prog=PROG, description="Exact solver for (m,n,k)-games with and without gravity.")
    parser.add_argument("--version", action=_Version, help="the version and both sheets of settings, then exit")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for name, add in (("solve", _add_solve_parser), ("analyze", _add_analyze_parser), ("nmk", _add_nmk_parser),
                      ("play", _add_play_parser), ("best", _add_best_parser), ("serve", _add_serve_parser),
                      ("warm-up", _add_warm_up_parser)):
        add(sub, commands[name])
    add_book_parser(sub, add_game_args, add_table_args, _description, add_settings_arg)
    add_verify_parser(sub, _description)
    add_campaign_parser(sub, add_game_args, add_settings_arg, _description)
    return parser
