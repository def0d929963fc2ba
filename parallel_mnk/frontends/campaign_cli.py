"""``parallel-mnk campaign``: a proof campaign of a free-placement board past 64 cells,
"x wins from the empty board", reply by reply, resumable, certified as it goes
(:mod:`parallel_mnk.parallel.uses.campaign`). Parsing and reporting only."""
from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from .. import entrance
from ..api.options import Limit, Options
from ..game.rules import MnkError
from .commands import game_spec
from .parser import PROG


def cmd_campaign(args, stdin: TextIO, stdout: TextIO) -> int:
    """Prove that x wins from the empty board of a free-placement board past 64 cells (15x15 Gomoku: --cols 15
    --rows 15 --k 5), x's first move fixed (--first, default the centre) and o's replies proved class by class
    (symmetry), each by the pn prover past 64 cells in rounds of growing slices, nearest replies first. The
    folder keeps a journal a class and campaign.json: the same command goes on after a limit, Ctrl-C or a
    crash. A class proved gets its certificate (after-REPLY/x-wins.jsonl.xz); all proved, the whole proof's
    (x-wins.jsonl.xz). Prints a line a class (state, jobs, nodes, seconds, certificate size). Exit 0 when
    every class is settled, 3 when some are open."""
    spec = game_spec(args.game, args.cols, args.rows, args.k, args.gravity)
    if args.max_nodes is not None and args.max_nodes < 1:
        raise MnkError(f"--max-nodes must be at least 1, got {args.max_nodes}")
    options = Options(workers=args.workers, backend=args.backend, address=args.address,
                      progress=False if args.no_progress else None)
    campaign = entrance.campaign(spec, args.first, Path(args.folder), Limit(time=args.time_limit,
                                                                            nodes=args.max_nodes), options=options)
    state = campaign.state
    if args.json:
        stdout.write(json.dumps({"folder": str(campaign.folder), **asdict(state)}) + "\n")
    else:
        stdout.write(campaign.table() + "\n")
    if any(c.state == "disproved" for c in state.classes):
        sys.stderr.write(f"{PROG}: note: x does not win after a reply: the campaign from {state.first} fails\n")
    return 3 if any(c.state == "open" for c in state.classes) else 0


def add_campaign_parser(sub, add_game_args, add_settings_arg, description) -> None:
    """The ``campaign`` subcommand."""
    p = sub.add_parser("campaign", help="prove 'x wins' on a big free board reply by reply (resumable, certified)",
                       description=description(cmd_campaign))
    add_game_args(p)
    p.add_argument("--first", help="x's first move (default: the centre)")
    p.add_argument("--folder", required=True, metavar="DIR",
                   help="where the campaign keeps its journals, state and certificates (made if missing)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: the physical cores)")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="where the jobs run: forked processes (default) or Ray tasks (the 'cluster' extra)")
    p.add_argument("--address", help="with --backend ray: the Ray cluster to join")
    p.add_argument("--time-limit", type=float, default=None, help="seconds this run may take (then exit 3)")
    p.add_argument("--max-nodes", type=int, default=None, help="nodes this run may search (then exit 3)")
    p.add_argument("--no-progress", action="store_true", help="no status line on stderr")
    p.add_argument("--json", action="store_true", help="the state as one JSON object")
    add_settings_arg(p)
    p.set_defaults(func=cmd_campaign, split_depth=None)
