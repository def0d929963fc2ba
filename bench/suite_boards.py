"""Empty boards solved exactly from scratch at each worker count: the free-placement
ladder, the boards settled by proofs (pairing certificates, VCF), and gravity
boards, with value, score, nodes, time, the prover that settled the value (and the
reference figures of docs/design.md where there are any)."""
from __future__ import annotations

import time

from parallel_mnk import GameSpec, Position, solve
from parallel_mnk.parallel.scheduling.registry import get_pool
from parallel_mnk.runtime.ttable import transposition_table
from parallel_mnk import Options

TT_BITS = 24

# (cols, rows, k, gravity, reference seconds of the best public solver or None, weak only)
FULL = [
    (4, 4, 4, False, None, False),
    (5, 5, 4, False, 0.15, False),
    (6, 5, 4, False, 0.2, False),
    (4, 7, 4, False, 12.6, False),
    (5, 5, 5, False, 3.0, False),
    (4, 8, 4, False, 145.0, False),
    (6, 6, 5, False, None, True),     # draws of the proof issue (Hsu et al.: (7,7,5) in 2.5 s)
    (7, 7, 5, False, 2.5, True),
    (4, 9, 4, False, None, True),     # a first-player win (Charatsidis 2017)
    (6, 5, 4, True, None, False),
    (6, 6, 4, True, 1.2, False),
]
QUICK = [(4, 4, 4, False, None, False), (5, 5, 4, False, 0.15, False), (6, 5, 4, False, 0.2, False),
         (6, 6, 5, False, None, True), (6, 5, 4, True, None, False)]
EMPTY_CONNECT4 = [(7, 6, 4, True, 202.0, False)]


def run(quick: bool = False, boards=None, weak: bool = False, workers_list=(1,), log=print) -> list[dict]:
    """One row per board and worker count: value, score, nodes, prover, wall and CPU
    time (CPU of this process; with workers, most of the work is in the pool).
    ``weak``: every board weak (else only those the board list marks)."""
    solve(Position(GameSpec(3, 3, 3)))  # compile before timing
    transposition_table(TT_BITS)[:] = 0  # and fault the table's pages in
    rows = []
    for cols, rows_, k, gravity, ref, weak_only in boards or (QUICK if quick else FULL):
        spec = GameSpec(cols, rows_, k, gravity)
        board_weak = weak or weak_only
        for workers in workers_list:
            if workers > 1:
                get_pool(workers, TT_BITS).tt[:] = 0   # start the pool and fault its table in before timing
            t, c = time.perf_counter(), time.process_time()
            result = solve(Position(spec), weak=board_weak, options=Options(pv=False, tt_size=8 << TT_BITS, workers=workers, progress=False))
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            row = {"suite": "boards", "case": spec.describe() + (" weak" if board_weak else ""), "workers": workers,
                   "value": result.value, "score": result.score, "nodes": result.nodes, "proof": result.proof,
                   "time_s": wall, "cpu_s": cpu, "ref_time_s": ref, "time_vs_ref": wall / ref if ref else None}
            log(f"boards: {row['case']}, {workers} worker(s): {result.value} (score {result.score}), "
                f"{result.nodes:,} nodes, {wall:.2f} s, proof: {result.proof}")
            rows.append(row)
    return rows
