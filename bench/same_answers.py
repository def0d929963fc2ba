"""Answers and node counts of a fixed set of solves, with the tables' salts fixed,
written as JSON and a digest: run on two commits, equal files mean that a change
moved no answer and no node (the check of a change that should not, such as a
move of code between modules).

The set: Pons' ``Test_L2_R2`` (first 200) and ``Test_L1_R2`` (first 40), exact and
weak, and ten boards (free (4,4,4), (5,5,4), (6,5,4), (4,7,4), (5,5,5) exact;
(6,6,5), (7,7,5), (4,8,4) weak; 6x5 and 6x6 gravity exact), each solved serially
on a table of 2**22 entries through the public API: value, score, best move, line
and nodes. Every salt a search draws is the next of a fixed sequence, restarted
for each solve (it is found by its function, in every module that imported it).

    python bench/same_answers.py OUT.json     # prints the digest and the totals
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import connect4_set   # noqa: E402
from parallel_mnk import Options

BOARDS = [((4, 4, 4, False), False), ((5, 5, 4, False), False), ((6, 5, 4, False), False),
          ((4, 7, 4, False), False), ((5, 5, 5, False), False), ((6, 6, 5, False), True),
          ((7, 7, 5, False), True), ((4, 8, 4, False), True), ((6, 5, 4, True), False), ((6, 6, 4, True), False)]
SETS = [("Test_L2_R2", 200), ("Test_L1_R2", 40)]


class FixedSalts:
    """Salts 1, 2, 3, ... (times an odd constant) in place of ``runtime.ttable.new_salt``."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> np.uint64:
        self.n += 1
        return np.uint64((self.n * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)


def fix_salts(salts: FixedSalts) -> int:
    """Put ``salts`` in every loaded module of the package that holds the table's
    ``new_salt``; returns how many modules."""
    from parallel_mnk.runtime import ttable
    original = ttable.new_salt
    count = 0
    for name, module in list(sys.modules.items()):
        if name.startswith("parallel_mnk") and getattr(module, "new_salt", None) is original:
            module.new_salt = salts   # type: ignore[attr-defined]
            count += 1
    return count


def answer(result) -> dict:
    """What must not move: the result's JSON without times and per-process figures."""
    d = result.to_dict()
    return {k: d[k] for k in ("value", "score", "best_move", "pv", "nodes", "proof")}


def main(out: str) -> int:
    from parallel_mnk import GameSpec, Position, solve
    from parallel_mnk.game.rules import PRESETS

    solve(Position.from_moves(PRESETS["connect4"], "44"), options=Options(tt_size="512K", workers=1, progress=False, book="none"))
    solve(Position(GameSpec(4, 4, 4)), options=Options(tt_size="512K", workers=1, progress=False))   # the modules loaded
    salts = FixedSalts()
    assert fix_salts(salts) >= 2
    rows: list[dict] = []
    for name, count in SETS:
        path = connect4_set(name)
        if path is None:
            print(f"{name} absent: run where ../shared/data is", file=sys.stderr)
            return 2
        for line in path.read_text().splitlines()[:count]:
            moves = line.split()[0]
            for weak in (False, True):
                salts.n = 0
                r = solve(Position.from_moves(PRESETS["connect4"], moves), weak=weak, options=Options(tt_size="32M", workers=1, progress=False, book="none"))
                rows.append({"set": name, "moves": moves, "weak": weak, **answer(r)})
    for (cols, rows_, k, gravity), weak in BOARDS:
        salts.n = 0
        r = solve(Position(GameSpec(cols, rows_, k, gravity)), weak=weak, options=Options(tt_size="32M", workers=1, progress=False, book="none"))
        rows.append({"board": [cols, rows_, k, gravity], "weak": weak, **answer(r)})
    text = json.dumps(rows, indent=0, sort_keys=True)
    Path(out).write_text(text)
    pons = [r for r in rows if "set" in r]
    print(f"digest {hashlib.sha256(text.encode()).hexdigest()[:16]}  "
          f"240 positions: {sum(r['nodes'] for r in pons if not r['weak']):,} nodes exact, "
          f"{sum(r['nodes'] for r in pons if r['weak']):,} weak; "
          f"boards: {sum(r['nodes'] for r in rows if 'board' in r):,} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "same_answers.json"))
