"""Gravity boards, one worker: the exact search against the strongest public
solvers on the same positions in the same run, and what each of its rules
contributes (nodes and time with that rule off; for a rule that is off by
default, with it on).

Workloads: 200 positions of Pons' Test_L2_R2 and 40 of Test_L1_R2 (a fresh table
each), the empty 6x6 board (exact and weak) and, outside ``--quick``, the empty
7x6 board (weak and exact, minutes). Peers (``--peer``, :mod:`bench.peers`) run
on the same positions; a weak row runs the peer's command with ``-w`` appended.
"""
from __future__ import annotations

import time
from typing import Optional

from parallel_mnk import GameSpec, Position
from parallel_mnk.kernels.core import layout as L
from parallel_mnk.engines.exact.search import Search
from parallel_mnk.runtime.ttable import transposition_table

from .common import connect4_set
from .peers import Peer, peer_rows

RULES = {"static play-out": L.RULE_STATIC, "even squares": L.RULE_EVENS, "ETC": L.RULE_ETC,
         "threat ordering": L.RULE_THREAT_ORDER}
SETS_TT_BITS, EMPTY_TT_BITS, BIG_TT_BITS = 22, 24, 26


def mixed_positions() -> Optional[list[tuple[str, int]]]:
    """The 240 positions of issue 15's table (moves, exact score), or None without the data."""
    out = []
    for name, n in (("Test_L2_R2", 200), ("Test_L1_R2", 40)):
        path = connect4_set(name)
        if path is None:
            return None
        for line in path.read_text().split("\n")[:n]:
            if line.strip():
                moves, score = line.split()
                out.append((moves, int(score)))
    return out


def solve_each(spec: GameSpec, moves_list: list[str], weak: bool, tt_bits: int, rules: int = L.RULES_DEFAULT):
    """Our scores, total nodes, wall and CPU seconds (search only), a fresh table per position.
    Every page of the table is touched before the clock starts, as c4's driver does (its table
    is filled when it is made): the first touch of 128 MiB costs about 0.3 s of page faults."""
    tt = transposition_table(tt_bits)
    tt.fill(0)
    scores, nodes, wall, cpu = [], 0, 0.0, 0.0
    for moves in moves_list:
        pos = Position.from_moves(spec, moves)
        own, opp = pos.stones()
        search = Search(spec, tt)
        search.ctx[L.C_RULES] = rules
        t, c = time.perf_counter(), time.process_time()
        scores.append(search.score(own, opp, pos.ply, weak))
        wall += time.perf_counter() - t
        cpu += time.process_time() - c
        nodes += search.nodes
    return scores, nodes, wall, cpu


def _case(spec: GameSpec, case: str, lines: list[str], expected: list[Optional[int]], weak: bool, tt_bits: int,
          peers: list[Peer], log) -> list[dict]:
    scores, nodes, wall, cpu = solve_each(spec, lines, weak, tt_bits)
    wrong = sum(1 for s, e in zip(scores, expected) if e is not None and s != e)
    log(f"gravity: {case}: parallel_mnk: {len(lines)} positions, {wrong} wrong, {nodes:,} nodes, {wall:.2f} s "
        f"(CPU {cpu:.2f} s)")
    rows = [{"suite": "gravity", "case": case, "solver": "parallel_mnk", "positions": len(lines), "wrong": wrong,
             "nodes": nodes, "time_s": wall, "cpu_s": cpu}]
    for peer in peers:
        if peer.runs_on(spec.cols, spec.rows, lines):
            peer_cmd = Peer(peer.name, peer.command + (" -w" if weak else ""), peer.cols, peer.rows, peer.empty_only)
            rows += peer_rows(peer_cmd, "gravity", case, lines, expected, scores, weak=weak, log=log)
    return rows


def run(quick: bool = False, peers: Optional[list[Peer]] = None, log=print) -> list[dict]:
    """The rows of the table (ours and each peer per workload), then our rows with
    each rule off on the 240 positions and the empty 6x6 board."""
    peers = peers or []
    c4, c6 = GameSpec(7, 6, 4, True), GameSpec(6, 6, 4, True)
    solve_each(c6, ["4"], False, SETS_TT_BITS)   # compile (or load) the kernels before timing
    mixed = mixed_positions()
    rows: list[dict] = []
    if mixed is None:
        log("gravity: the 240 positions skipped: ../shared/data/connect4 not found (third-party data, not shipped)")
    else:
        rows += _case(c4, "240 positions (L2_R2 200 + L1_R2 40)", [m for m, _ in mixed], [s for _, s in mixed],
                      False, SETS_TT_BITS, peers, log)
    rows += _case(c6, "empty 6x6 exact", [""], [-1], False, EMPTY_TT_BITS, peers, log)
    rows += _case(c6, "empty 6x6 weak", [""], [-1], True, EMPTY_TT_BITS, peers, log)
    if not quick:
        rows += _case(c4, "empty 7x6 weak", [""], [1], True, BIG_TT_BITS, peers, log)
        rows += _case(c4, "empty 7x6 exact", [""], [1], False, BIG_TT_BITS, peers, log)
    for name, bit in RULES.items():
        switched = "off"   # each rule's effect: the default rules but that one
        rules = L.RULES_DEFAULT ^ bit
        for spec, case, lines, expected, bits in ((c4, "240 positions", [m for m, _ in mixed or []],
                                                   [s for _, s in mixed or []], SETS_TT_BITS),
                                                  (c6, "empty 6x6 exact", [""], [-1], EMPTY_TT_BITS)):
            if not lines:
                continue
            scores, nodes, wall, cpu = solve_each(spec, lines, False, bits, rules)
            wrong = sum(1 for s, e in zip(scores, expected) if s != e)
            log(f"gravity: {case}, {name} {switched}: {nodes:,} nodes, {wall:.2f} s (CPU {cpu:.2f} s), {wrong} wrong")
            rows.append({"suite": "gravity-rules", "case": case, "solver": f"parallel_mnk, {name} {switched}",
                         "positions": len(lines), "wrong": wrong, "nodes": nodes, "time_s": wall, "cpu_s": cpu})
    return rows
