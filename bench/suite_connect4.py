"""Connect Four: Pons' six benchmark sets (../shared/data/connect4), one position at a
time with a fresh table (as Pons' solver resets its table per position), exact scores
checked against the set, mean time and nodes next to the reference figures; with
``--peer`` a peer solver's row on the same positions in the same run (bench/peers.py)."""
from __future__ import annotations

import time
from typing import Optional

from parallel_mnk import GameSpec, Position
from parallel_mnk.engines.exact.search import Search
from parallel_mnk.runtime.ttable import transposition_table

from .common import connect4_set
from .peers import Peer, peer_rows

CONNECT4 = GameSpec(7, 6, 4, True)

# Pons' C++ solver (g++ -O3) on a 2-core machine like ours, from docs/design.md
REFERENCE = {
    "Test_L3_R1": (5e-6, 51),
    "Test_L2_R1": (42e-6, 449),
    "Test_L2_R2": (4.0e-3, 39_808),
    "Test_L1_R1": (275e-6, 3_296),
    "Test_L1_R2": (125e-3, 1_187_923),
    "Test_L1_R3": (5.9, 48_700_000),
}
FULL_LINES = {"Test_L1_R3": 100}
QUICK_LINES = {"Test_L3_R1": 100, "Test_L2_R1": 100, "Test_L2_R2": 50, "Test_L1_R1": 100,
               "Test_L1_R2": 10, "Test_L1_R3": 2}
TT_BITS = 22


def warm_up() -> None:
    """Compile (or load) the kernels before anything is timed."""
    search = Search(CONNECT4, transposition_table(TT_BITS))
    p = Position.from_moves(CONNECT4, "4453")
    own, opp = p.stones()
    search.score(own, opp, p.ply, False)


def run(quick: bool = False, limit: int | None = None, peers: Optional[list[Peer]] = None, log=print) -> list[dict]:
    """One row per set: positions, wrong scores, mean time/nodes, ratio to Pons;
    then, for each 7x6 peer (``--peer``), its row on the same positions."""
    warm_up()
    peers = [p for p in peers or [] if (p.cols, p.rows) == (7, 6) and not p.empty_only]
    rows = []
    tt = transposition_table(TT_BITS)
    for name, (ref_time, ref_nodes) in REFERENCE.items():
        path = connect4_set(name)
        if path is None:
            log(f"connect4: {name} skipped: ../shared/data/connect4 not found (third-party data, not shipped)")
            continue
        n = limit or (QUICK_LINES if quick else FULL_LINES).get(name, 1000)
        lines = path.read_text().split("\n")[:n]
        lines = [ln for ln in lines if ln.strip()]
        total_t = 0.0
        total_nodes = 0
        wrong = 0
        ours, expected_scores = [], []
        for line in lines:
            moves, expected = line.split()
            p = Position.from_moves(CONNECT4, moves)
            own, opp = p.stones()
            search = Search(CONNECT4, tt)
            t = time.perf_counter()
            score = search.score(own, opp, p.ply, False)
            total_t += time.perf_counter() - t
            total_nodes += search.nodes
            wrong += score != int(expected)
            ours.append(score)
            expected_scores.append(int(expected))
        k = len(lines)
        mean_t, mean_n = total_t / k, total_nodes / k
        row = {
            "suite": "connect4", "case": name, "solver": "parallel_mnk", "positions": k, "wrong": wrong,
            "mean_time_s": mean_t, "mean_nodes": mean_n, "nodes_per_s": total_nodes / total_t if total_t else 0.0,
            "ref_time_s": ref_time, "ref_nodes": ref_nodes,
            "time_vs_ref": mean_t / ref_time, "nodes_vs_ref": mean_n / ref_nodes,
        }
        log(f"connect4: {name}: {k} positions, {wrong} wrong, {mean_t * 1e3:.3f} ms, {mean_n:,.0f} nodes "
            f"({row['time_vs_ref']:.2f}x Pons' time, {row['nodes_vs_ref']:.2f}x his nodes)")
        rows.append(row)
        for peer in peers:
            for r in peer_rows(peer, "connect4", name, [ln.split()[0] for ln in lines], expected_scores, ours,
                               log=log):
                if "nodes" in r:
                    r.update(mean_time_s=r["time_s"] / k, mean_nodes=r["nodes"] / k,
                             time_vs_ours=r["time_s"] / total_t if total_t else None)
                rows.append(r)
    return rows
