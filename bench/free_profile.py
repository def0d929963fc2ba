"""Where a free-placement proof's nodes go: one serial weak solve of a position,
its nodes counted per ply and per way the node ended.

The exact search counts, at every node it leaves (``kernels/free/search.py``),
the ply and how the node ended (``PROF_*`` of ``kernels/proofs/layout.py``):

* ``prelude``: forced lines and static bounds (no move left, or they close the window);
* ``table``: the transposition table's bound closed the window;
* ``threats``: a win by continuous fours (VCF) closed it;
* ``pairing``: a pairing certificate closed it (or a move that leaves one);
* ``cut``: a searched move failed high;
* ``all``: every move was searched or closed by a reply zone, none failed high.

and the reply zones (``kernels/proofs/pairing.reply_zone``): nodes where one was
found, and the moves it closed without a search (positions that differ from a
proven one only by a stone outside the proof's cells). Kernels are loaded before
the clock starts; compile time is never in the figures.

    python bench/free_profile.py --cols 9 --rows 6 --k 5
    python bench/free_profile.py --cols 8 --rows 8 --k 5 --node-limit 200000000 --no-zones

prints the value (or ``unknown`` at the node limit), nodes, seconds, the kinds'
totals and one line per ply; ``--json FILE`` writes the same as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parallel_mnk import GameSpec, MnkError, Position  # noqa: E402
from parallel_mnk.engines.exact.search import Search  # noqa: E402
from parallel_mnk.kernels.core import layout as L  # noqa: E402
from parallel_mnk.kernels.proofs import layout as PL  # noqa: E402

KINDS = ("prelude", "table", "threats", "pairing", "cut", "all")


def profile(spec: GameSpec, moves: str, tt_bits: int, node_limit: int, zones: bool) -> dict:
    """One serial weak solve of ``moves`` on ``spec`` (a free-placement board with
    pairings): the value (-1, 0, 1 or None at the limit), nodes, seconds and the
    counts of the module docstring."""
    pos = Position.from_moves(spec, moves)
    if pos.outcome() is not None:
        raise MnkError("the game is over in that position")
    s = Search(spec, np.zeros(1 << tt_bits, dtype=np.uint64))
    if s.ctx[PL.P_MIN_EMPTY] == 0:
        raise MnkError("the profile is for free placement with k >= 3 (where the search tests pairings)")
    s.ctx[PL.P_ZONE_ON] = int(zones)
    s.reset(node_limit)
    own, opp = pos.stones()
    start = time.perf_counter()
    value = s.score(own, opp, pos.ply, True)
    seconds = time.perf_counter() - start
    ctx = s.ctx
    table = ctx[PL.OFF_PROFILE:PL.OFF_PROFILE + L.MAX_PLY * PL.PROF_KINDS].reshape(L.MAX_PLY, PL.PROF_KINDS)
    per_ply = {ply: dict(zip(KINDS, (int(x) for x in row[:len(KINDS)]))) for ply, row in enumerate(table)
               if row.sum()}
    return dict(board=f"({spec.cols},{spec.rows},{spec.k})", moves=moves, zones=zones,
                value=None if s.aborted else value, nodes=s.nodes, seconds=round(seconds, 2),
                zone_nodes=int(ctx[PL.P_ZONE_NODES]), zone_skips=int(ctx[PL.P_ZONE_SKIPS]),
                certificates_found=int(ctx[PL.P_FOUND]), certificates_reused=int(ctx[PL.P_REUSED]),
                vcf_wins=int(ctx[PL.P_VCF_WINS]),
                kinds={k: sum(row[k] for row in per_ply.values()) for k in KINDS}, per_ply=per_ply)


def report(r: dict) -> str:
    """The profile as text: a summary line, the kinds' shares, one line per ply."""
    total = max(1, sum(r["kinds"].values()))
    skips = r["zone_skips"]
    lines = [f"{r['board']} moves '{r['moves']}' zones {'on' if r['zones'] else 'off'}: value "
             f"{'unknown' if r['value'] is None else r['value']}, {r['nodes']:,} nodes, {r['seconds']} s; "
             f"zones at {r['zone_nodes']:,} nodes closed {skips:,} moves "
             f"({100 * skips / max(1, skips + r['nodes']):.1f} % of nodes + closed moves)",
             "ended as: " + ", ".join(f"{k} {100 * v / total:.1f} %" for k, v in r["kinds"].items()),
             "ply  nodes       " + " ".join(f"{k:>9}" for k in KINDS)]
    for ply, row in r["per_ply"].items():
        n = sum(row.values())
        lines.append(f"{ply:3d}  {n:11,d} " + " ".join(f"{100 * row[k] / n:8.1f}%" for k in KINDS))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--k", type=int, required=True)
    ap.add_argument("--moves", default="", help="cells from the empty board, like 'e4,d4'")
    ap.add_argument("--tt-bits", type=int, default=25, help="table of 2**N entries (default 25: 256 MiB)")
    ap.add_argument("--node-limit", type=int, default=0, help="stop after this many nodes (0: none)")
    ap.add_argument("--no-zones", action="store_true", help="reply zones off (to measure them)")
    ap.add_argument("--json", help="also write the profile to this file")
    args = ap.parse_args(argv)
    try:
        if not 10 <= args.tt_bits <= 32 or args.node_limit < 0:
            raise MnkError("--tt-bits must be 10..32 and --node-limit >= 0")
        spec = GameSpec(args.cols, args.rows, args.k)
        r = profile(spec, args.moves, args.tt_bits, args.node_limit, not args.no_zones)
    except MnkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report(r))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
