"""The pn prover's threat budgets past 64 cells, by the board (``Settings.big_pn_budget``).

Each position solved weak in a fresh ``parallel-mnk solve --workers 1 --json``
process, four ways: ``--prover pn`` with the narrow budget (``BIG_PN_THREES=1
BIG_PN_VCT_NODES=4096``), the wide one (3 and 65,536) and the defaults (by the
board: narrow below ``BIG_PN_WIDE_CELLS`` cells, 100, wide from it), and
``--prover search`` (the big-board alpha-beta search: which prover wins where). One
row per position and way: value, nodes, the solve's time. The positions: wins of x two
stones up on 10x10 to 15x15 (the wide boards), and below 100 cells draws and wins
where the narrow budget is the faster or the slower.

``python -m bench.suite_pn_budgets [TIME_LIMIT_S]``
"""
from __future__ import annotations

import json
import sys

from .suite_big_pn import solve

TIME_LIMIT_S = 60.0
WAYS = {"narrow": ("pn", ("BIG_PN_THREES=1", "BIG_PN_VCT_NODES=4096")),
        "wide": ("pn", ("BIG_PN_THREES=3", "BIG_PN_VCT_NODES=65536")),
        "defaults": ("pn", ()),
        "alpha-beta": ("search", ())}   # (the big-board search, for which prover wins where)


def cases() -> list[tuple[str, tuple[int, int, int], str]]:
    """(name, (cols, rows, k), board text) of the suite's positions."""
    from parallel_mnk import GameSpec, Position

    def moves(cols: int, rows: int, k: int, line: str) -> tuple[str, tuple[int, int, int], str]:
        return (f"{cols}x{rows} k={k} {line}", (cols, rows, k), Position.from_moves(GameSpec(cols, rows, k), line)
                .board_text())

    return [
        moves(15, 15, 5, "h8 a1 i9 a2"), moves(15, 15, 5, "h8 a15 h9 o1"), moves(13, 13, 5, "g7 a1 h8 m13"),
        moves(12, 12, 5, "f6 a1 g7 l12"), moves(11, 11, 5, "f6 a1 g7 k11"), moves(10, 10, 5, "e5 a1 f6 a10"),
        ("10x8 k=5 draw, 28 empty", (10, 8, 5),
         "xxoxx...xx/oox.xoooxo/.ox.oo.xox/...oxxoxx./xx...o..xo/.xxox.o.xo/..o.oo.xoo/oo..x.x.o."),
        ("10x7 k=5 draw, 36 empty", (10, 7, 5),
         "...oooxox./.o.oxxxoo./.x..x.ox.o/x.....o..x/.x...ooxxx/..o.o..x.x/...o...o.x"),
        ("9x8 k=5 win, 34 empty", (9, 8, 5),
         "ooxxooxoo/xoxxxo.oo/.oooxox.x/..oxx...o/o.xxo..../....x..x./......xo./.......xx"),
        moves(9, 8, 4, ""),
    ]


def run(time_limit: float = TIME_LIMIT_S, log=print) -> list[dict]:
    """Every position each way; the rows, printed as they come."""
    rows = []
    for name, dims, board in cases():
        for way, (prover, settings) in WAYS.items():
            row = {"position": name, "way": way, **solve(dims, board, prover, time_limit, settings)}
            rows.append(row)
            log(json.dumps(row))
    return rows


if __name__ == "__main__":
    run(float(sys.argv[1]) if len(sys.argv) > 1 else TIME_LIMIT_S)
