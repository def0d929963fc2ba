"""What a stop costs a journaled solve: one solve uninterrupted, then the same solve
stopped part-way and resumed from its journal, with and without snapshots of the
running tasks' lines (``parallel/scheduling/snapshots.py``).

Each variant uses a fresh journal. The stop is the solve's time limit at
``--stop`` of the uninterrupted run's wall time (the journal is committed as on
Ctrl-C or SIGTERM; a SIGKILL loses at most another quarter second of rows). The
loss is the stopped run's and the resumed run's wall time together, less the
uninterrupted run's. ``--split-depth 1`` (root splitting: one task per first move)
makes the tasks as big as an empty (8,8,5)'s are with the default split. Kernels
are loaded first: compile time is in no figure.

    python bench/kill_resume.py --cols 9 --rows 6 --k 5 --split-depth 1 --snapshot-s 2

prints, per variant, the seconds and nodes of each run, the loss, and the
positions journaled below running tasks.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parallel_mnk import GameSpec, MnkError, Position, Settings, solve  # noqa: E402
from parallel_mnk import Limit, Options
from parallel_mnk.api.settings import SECONDS  # noqa: E402


def run(pos: Position, journal: Path, args: argparse.Namespace, limit: float | None = None,
        settings: Settings | None = None):
    """One solve of ``pos`` with ``journal`` and ``settings``: (value, wall seconds, nodes, positions kept
    below tasks)."""
    r = solve(pos, Limit(time=limit), weak=True, options=Options(workers=args.workers, tt_size=args.tt_size, pv=False, progress=False, checkpoint=str(journal), split_depth=args.split_depth, settings=settings))
    return str(r.value), r.time_s, r.nodes, r.checkpoint["line_positions_journaled"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--k", type=int, required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--split-depth", type=int, default=None)
    ap.add_argument("--tt-size", default="1G")
    ap.add_argument("--stop", type=float, default=0.5, help="share of the uninterrupted wall time (default 0.5)")
    ap.add_argument("--snapshot-s", type=float, default=2.0, help="snapshot period of the snapshot variant")
    args = ap.parse_args(argv)
    try:
        if not 0 < args.stop < 1 or args.snapshot_s <= 0:
            raise MnkError("--stop must be in (0, 1) and --snapshot-s positive")
        pos = Position(GameSpec(args.cols, args.rows, args.k))
        solve(Position(GameSpec(4, 4, 3)), weak=True, options=Options(workers=args.workers, pv=False, progress=False, checkpoint=None))   # (kernels and the pool: loaded before any figure)
        with tempfile.TemporaryDirectory() as tmp:
            value, whole, nodes, _ = run(pos, Path(tmp) / "whole.ckpt", args)
            print(f"uninterrupted: {value}, {whole:.1f} s, {nodes / 1e6:.1f} M nodes")
            for name, period in (("no snapshots", SECONDS), (f"snapshots every {args.snapshot_s:g} s",
                                                             args.snapshot_s)):
                settings = Settings(SNAPSHOT_EVERY_S=period)   # (the longest period: none in the run)
                journal = Path(tmp) / f"{period}.ckpt"
                v1, t1, n1, kept = run(pos, journal, args, limit=args.stop * whole, settings=settings)
                v2, t2, n2, _ = run(pos, journal, args, settings=settings)
                print(f"{name}: stopped after {t1:.1f} s ({v1}, {n1 / 1e6:.1f} M nodes, {kept} positions kept "
                      f"below running tasks), resumed {t2:.1f} s ({v2}, {n2 / 1e6:.1f} M nodes): "
                      f"loss {t1 + t2 - whole:+.1f} s, {(n1 + n2 - nodes) / 1e6:+.1f} M nodes")
    except MnkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
