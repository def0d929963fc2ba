"""The two seed experiments of the NMK assignment, reproduced.

1. Plain minimax (no pruning) vs alpha-beta vs our solvers on small empty boards,
   counting *states visited*: every position put on the board below the root,
   finished ones included. The published figures (pure Python): 549,945 states
   for 3x3 k3 and 276,911,232 for 4x3 k3 (1078 s) without pruning; 18,296 and
   30,935 with it. The assignment writes boards as N x M = rows x columns, so its
   "4x3" is 3 columns by 4 rows, ``GameSpec(3, 4, 3)`` (the alpha-beta count
   30,935 only matches that orientation; plain minimax counts are the same both
   ways). Moves are tried in row-major order and a win is worth 1, as there.
2. Depth-limited minimax vs alpha-beta with the heuristic evaluation of
   :mod:`parallel_mnk.engines.limited` on gravity boards 7x6 and 8x7, k = 3 and 4, on
   8 random mid-game positions per setting: leaf evaluations per search and the
   ratio to minimax, then what move ordering and a transposition table add.
   The published alpha-beta speed-ups at depth 5 without ordering are about 17x
   (7x6 k4) and 70x (7x6 k3).
"""
from __future__ import annotations

import random
import time

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.engines import limited as LM
from parallel_mnk.kernels.grid.search import F_ORDER, F_PRUNE, F_TT
from parallel_mnk import Options

# (spec, published name, published plain-minimax states, published alpha-beta states, published minimax seconds)
SEED1_BOARDS = [
    (GameSpec(3, 3, 3), "3x3 k3", 549_945, 18_296, None),
    (GameSpec(3, 4, 3), "4x3 k3", 276_911_232, 30_935, 1078.0),
    (GameSpec(3, 4, 4), "4x3 k4", None, None, None),
    (GameSpec(4, 4, 4), "4x4 k4", None, None, None),
]
MINIMAX_STATE_LIMIT = 2_000_000_000   # plain minimax of 4x4 k4 (about 10^13 states) is not run

SEED2_SPECS = [GameSpec(7, 6, 4, True), GameSpec(7, 6, 3, True), GameSpec(8, 7, 4, True), GameSpec(8, 7, 3, True)]
SEED2_METHODS = [("minimax", 0), ("alpha-beta", F_PRUNE), ("alpha-beta + ordering", F_PRUNE | F_ORDER),
                 ("alpha-beta + ordering + table", F_PRUNE | F_ORDER | F_TT)]
PUBLISHED_DEPTH5 = {"7x6 k=4 gravity": 17.0, "7x6 k=3 gravity": 70.0}   # keys: GameSpec.describe()


def _full_tree_states(spec: GameSpec) -> int:
    """Size of the full game tree (upper bound: ignores games ending early), to skip hopeless runs."""
    total, level = 0, 1
    for empty in range(spec.cells, 0, -1):
        level *= empty
        total += level
    return total


def run_seed1(quick: bool = False, log=print) -> list[dict]:
    """Rows of the first experiment: states visited and time per board and method."""
    rows = []
    boards = SEED1_BOARDS[:1] if quick else SEED1_BOARDS
    LM.count_search(GameSpec(3, 3, 3), LM.new_state(GameSpec(3, 3, 3), [], [], 1), 1, F_PRUNE)  # compile
    for spec, name, pub_minimax, pub_ab, pub_time in boards:
        st = LM.new_state(spec, [], [], 1)
        for method, flags, published in (("minimax", 0, pub_minimax), ("alpha-beta", F_PRUNE, pub_ab),
                                         ("limited kernel, all features", LM.FULL, None)):
            row = {"suite": "seed1", "case": name, "board": spec.describe(), "method": method,
                   "published_states": published}
            if flags == 0 and _full_tree_states(spec) > 100 * MINIMAX_STATE_LIMIT and published is None:
                row.update(states=None, time_s=None,
                           note=f"not run: the full tree has about {_full_tree_states(spec):.1e} states")
                rows.append(row)
                log(f"seed1: {name} {method}: {row['note']}")
                continue
            t = time.perf_counter()
            score, _, nodes, _ = LM.count_search(spec, st, spec.cells, flags)
            elapsed = time.perf_counter() - t
            row.update(value="win" if score > 0 else "loss" if score < 0 else "draw", states=nodes, time_s=elapsed,
                       match=None if published is None else nodes == published,
                       published_time_s=pub_time if flags == 0 else None,
                       time_vs_published=(pub_time / elapsed) if (pub_time and flags == 0) else None)
            rows.append(row)
            log(f"seed1: {name} {method}: {nodes:,} states in {elapsed:.3f} s"
                + ("" if published is None else f" (published {published:,}: {'match' if nodes == published else 'differ'})"))
        result = solve(Position(spec), options=Options(pv=False, progress=False))
        rows.append({"suite": "seed1", "case": name, "board": spec.describe(), "method": "exact solver (bitboards)",
                     "value": result.value, "states": result.nodes, "time_s": result.time_s})
        log(f"seed1: {name} exact solver: {result.value}, {result.nodes:,} nodes in {result.time_s:.4f} s")
    return rows


def random_midgame(spec: GameSpec, plies: int, rng: random.Random) -> Position:
    """A random position ``plies`` moves deep where the game is not over and
    the side to move has no win in one (so that searches do not stop at once)."""
    while True:
        pos = Position(spec)
        for _ in range(plies):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves))
        if pos.is_game_over() or pos.ply != plies:
            continue
        wins = False
        for m in pos.legal_moves:
            pos.push(m)
            wins = wins or pos.outcome() is not None and pos.outcome().winner is not None
            pos.pop()
        if not wins:
            return pos


def run_seed2(quick: bool = False, log=print, positions: int = 8, seed: int = 2024) -> list[dict]:
    """Rows of the second experiment: mean leaf evaluations per search for each
    board, depth and method, and the ratio to plain minimax."""
    rows = []
    specs = SEED2_SPECS[:2] if quick else SEED2_SPECS
    depths = range(2, 5) if quick else range(2, 8)
    for spec in specs:
        rng = random.Random(seed)
        name = spec.describe()
        plies = 8 if spec.k == 4 else 4
        sample = [random_midgame(spec, plies, rng) for _ in range(positions if not quick else 4)]
        states = [LM.state_of(p) for p in sample]
        for depth in depths:
            base = None
            for method, flags in SEED2_METHODS:
                evals = nodes = 0
                t = time.perf_counter()
                scores = []
                for st in states:
                    score, _, n, e = LM.count_search(spec, st, depth, flags)
                    evals += e
                    nodes += n
                    scores.append(score)
                if base is None:
                    minimax_scores = scores
                # A table may hand back a deeper (better) value, so only the others must agree exactly.
                agree = None if flags & F_TT else scores == minimax_scores
                elapsed = (time.perf_counter() - t) / len(sample)
                mean = evals / len(sample)
                base = mean if base is None else base
                row = {"suite": "seed2", "case": name, "depth": depth, "method": method,
                       "evals_per_search": mean, "nodes_per_search": nodes / len(sample),
                       "speedup_vs_minimax": base / mean, "time_s": elapsed, "same_value_as_minimax": agree,
                       "published_speedup": PUBLISHED_DEPTH5.get(name) if depth == 5 and flags == F_PRUNE else None}
                rows.append(row)
            log(f"seed2: {name} depth {depth}: " + ", ".join(
                f"{r['method']} {r['evals_per_search']:,.0f}" for r in rows[-len(SEED2_METHODS):]))
    return rows
