"""Depth-first proof-number search from Python (:mod:`..kernels.dfpn`): the two
boolean questions of a free-placement position, "does the side to move win?"
(:func:`dfpn_wins`) and "does it lose?", and the weak value from them
(:func:`dfpn_value`: win, else loss, else draw; the empty board is never lost).

It is an independent second solver (tests compare it with the naive solver and
with the exact engine).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .. import runtime
from ..geometry import build_context
from ..kernels import layout as L
from ..position import Position
from ..rules import MnkError, UnsupportedError, Value
from ..ttable import new_salt


@dataclass
class DfpnResult:
    """``answer``: True or False, None when a limit stopped the search; ``nodes``
    visited (re-expansions included)."""

    answer: Optional[bool]
    nodes: int


@dataclass
class DfpnValue:
    """``value``: the weak value for the side to move (``unknown`` when a limit
    stopped a search); ``nodes`` of both questions."""

    value: Value
    nodes: int


class Dfpn:
    """df-pn searches of one free-placement position (at most 64 cells, not over)
    on one table of ``2**tt_bits`` entries (each question gets its own salt),
    within ``time_limit`` seconds and ``node_limit`` nodes (0: none) per question."""

    def __init__(self, position: Position, tt_bits: int = 20, time_limit: Optional[float] = None,
                 node_limit: int = 0) -> None:
        spec = position.spec
        if spec.gravity:
            raise UnsupportedError("df-pn is for free placement")
        spec.require_exact()
        if position.is_game_over():
            raise MnkError("the game is over")
        if not 4 <= tt_bits <= 30:
            raise MnkError(f"tt_bits must be between 4 and 30, got {tt_bits}")
        runtime.load_proof_kernels()
        self.position = position
        self.ctx = build_context(spec)
        self.ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
        self.pt = np.zeros(2 << tt_bits, dtype=np.uint64)
        self.time_limit = time_limit
        self.node_limit = node_limit

    def ask(self, mover_attacks: bool) -> DfpnResult:
        """Whether the side to move (``mover_attacks``) or the other side wins."""
        from ..kernels import dfpn, table

        ctx, pos = self.ctx, self.position
        ctx[L.C_SALT] = new_salt()
        ctx[L.C_NODES] = 0
        ctx[L.C_ABORTED] = 0
        ctx[L.C_NODE_LIMIT] = self.node_limit
        own, opp = pos.stones()
        table.set_root_hashes(ctx, np.uint64(pos.x), np.uint64(pos.o), pos.ply)
        found, _ = runtime.run_abortable(
            lambda: dfpn.dfpn_prove(ctx, self.pt, self.ctl, np.uint64(own), np.uint64(opp), np.int64(pos.ply),
                                    np.int64(1 if mover_attacks else 0)), self.ctl, self.time_limit)
        self.ctl[L.CTL_ABORT] = 0
        answer = None if found is None or found < 0 else bool(found)
        return DfpnResult(answer, int(ctx[L.C_NODES]))


def dfpn_wins(position: Position, tt_bits: int = 20, time_limit: Optional[float] = None,
              node_limit: int = 0) -> DfpnResult:
    """Whether the side to move wins ``position`` (see :class:`Dfpn`)."""
    return Dfpn(position, tt_bits, time_limit, node_limit).ask(True)


def dfpn_value(position: Position, tt_bits: int = 20, time_limit: Optional[float] = None,
               node_limit: int = 0) -> DfpnValue:
    """The weak value of ``position`` for the side to move by df-pn: a win, else a
    loss, else a draw (the empty board is never lost: strategy stealing)."""
    search = Dfpn(position, tt_bits, time_limit, node_limit)
    wins = search.ask(True)
    if wins.answer is None:
        return DfpnValue(Value.UNKNOWN, wins.nodes)
    if wins.answer:
        return DfpnValue(Value.WIN, wins.nodes)
    if position.ply == 0:
        return DfpnValue(Value.DRAW, wins.nodes)
    loses = search.ask(False)
    nodes = wins.nodes + loses.nodes
    if loses.answer is None:
        return DfpnValue(Value.UNKNOWN, nodes)
    return DfpnValue(Value.LOSS if loses.answer else Value.DRAW, nodes)
