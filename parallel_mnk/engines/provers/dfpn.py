"""Depth-first proof-number search from Python (:mod:`parallel_mnk.kernels.proofs.dfpn`): the two
boolean questions of a free-placement position, "does the side to move win?"
(:func:`dfpn_wins`) and "does it lose?", and the weak value from them
(:func:`dfpn_value`: win, else loss, else draw; the empty board is never lost).

It is an independent second solver (tests compare it with the naive solver and
with the exact engine), and the solver's root driver for weak questions where
``prover="dfpn"`` or ``"auto"`` picks it (:func:`parallel_mnk.engines.serial.solve_dfpn`;
the rule: :meth:`parallel_mnk.api.options.SolveOptions.dfpn_first`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ...game.geometry import build_context
from ...game.position import Position
from ...game.rules import MnkError, UnsupportedError, Value
from ...kernels.core import layout as L
from ...runtime import families, running
from ...runtime.ttable import new_salt


@dataclass
class DfpnResult:
    """``answer``: True or False, None when a limit stopped the search; ``nodes``
    visited (re-expansions included)."""

    answer: Optional[bool]
    nodes: int


@dataclass
class DfpnValue:
    """``value``: the weak value for the side to move (``unknown`` when a limit
    stopped a search); ``nodes`` of both questions; ``line``: cells from the
    position that keep the value (:func:`weak_value`; maybe empty)."""

    value: Value
    nodes: int
    line: list[int] = field(default_factory=list)


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
        families.load("proofs")
        self.position = position
        self.ctx = build_context(spec)
        self.ctl = np.zeros(L.CTL_SIZE, dtype=np.int64)
        self.pt = np.zeros(2 << tt_bits, dtype=np.uint64)
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.salts: dict[bool, np.uint64] = {}  # the table salt of each settled question
        self.root_moves: dict[bool, int] = {}   # and its move at the root (-1: none in the table)

    def ask(self, mover_attacks: bool) -> DfpnResult:
        """Whether the side to move (``mover_attacks``) or the other side wins,
        within the time limit (a helper thread; Ctrl-C stops it too)."""
        found, _ = running.run_abortable(lambda: self.ask_here(mover_attacks), self.ctl, self.time_limit)
        self.ctl[L.CTL_ABORT] = 0
        return DfpnResult(found, int(self.ctx[L.C_NODES]))

    def ask_here(self, mover_attacks: bool) -> Optional[bool]:
        """:meth:`ask` in this thread without its time limit (stopped only by the
        node limit or ``ctl[CTL_ABORT]``): the answer, None when stopped."""
        K = families.proof_kernels()

        ctx, pos = self.ctx, self.position
        salt = new_salt()
        ctx[L.C_SALT] = salt
        ctx[L.C_NODES] = 0
        ctx[L.C_ABORTED] = 0
        ctx[L.C_NODE_LIMIT] = self.node_limit
        own, opp = pos.stones()
        K.set_root_hashes(ctx, np.uint64(pos.x), np.uint64(pos.o), pos.ply)
        found = int(K.dfpn_prove(ctx, self.pt, self.ctl, np.uint64(own), np.uint64(opp), np.int64(pos.ply),
                                    np.int64(1 if mover_attacks else 0)))
        if found < 0:
            return None
        self.salts[mover_attacks] = salt
        self.root_moves[mover_attacks] = self._move(pos, mover_attacks, True)
        return bool(found)

    def line(self, mover_attacks: bool) -> list[int]:
        """Cells of a line from the position that keeps the settled answer of the
        question ``mover_attacks`` (each move one the table holds as settled, see
        :func:`..kernels.proofs.dfpn.dfpn_move`), as far as the table holds it (maybe
        empty: a position settled by a rule). Only after that question was settled."""
        if mover_attacks not in self.salts:
            raise MnkError("the question was not settled")
        self.ctx[L.C_SALT] = self.salts[mover_attacks]
        cells: list[int] = []
        pos = self.position.copy()
        cell = self.root_moves[mover_attacks]
        attacker_to_move = mover_attacks
        while cell >= 0:
            cells.append(cell)
            pos.push(pos.move_of_cell(cell))
            attacker_to_move = not attacker_to_move
            if pos.is_game_over():
                break
            cell = self._move(pos, attacker_to_move, False)
        return cells

    def _move(self, pos: Position, attacker_to_move: bool, root: bool) -> int:
        K = families.proof_kernels()

        own, opp = pos.stones()
        K.set_root_hashes(self.ctx, np.uint64(pos.x), np.uint64(pos.o), pos.ply)
        return int(K.dfpn_move(self.ctx, self.pt, np.uint64(own), np.uint64(opp), np.int64(pos.ply),
                                  np.int64(1 if attacker_to_move else 0), np.int64(1 if root else 0)))


def dfpn_wins(position: Position, tt_bits: int = 20, time_limit: Optional[float] = None,
              node_limit: int = 0) -> DfpnResult:
    """Whether the side to move wins ``position`` (see :class:`Dfpn`)."""
    return Dfpn(position, tt_bits, time_limit, node_limit).ask(True)


def dfpn_value(position: Position, tt_bits: int = 20, time_limit: Optional[float] = None,
               node_limit: int = 0) -> DfpnValue:
    """The weak value of ``position`` for the side to move by df-pn (see
    :class:`Dfpn`; the time and node limits hold for each question)."""
    search = Dfpn(position, tt_bits, time_limit, node_limit)
    return weak_value(search, search.ask)


def weak_value(search: Dfpn, ask: Callable[[bool], DfpnResult]) -> DfpnValue:
    """The weak value of ``search``'s position by its questions, each put by
    ``ask`` (:meth:`Dfpn.ask`, or one with other limits): a win, else a loss, else
    a draw (the empty board is never lost: strategy stealing); with a line of
    cells that keeps it (:meth:`Dfpn.line`: a win's or a loss's as far as the
    table holds it; a draw's first move only, since df-pn's table does not say
    which replies keep the draw for the other side)."""
    wins = ask(True)
    if wins.answer is None:
        return DfpnValue(Value.UNKNOWN, wins.nodes)
    if wins.answer:
        return DfpnValue(Value.WIN, wins.nodes, search.line(True))
    if search.position.ply == 0:
        return DfpnValue(Value.DRAW, wins.nodes)
    loses = ask(False)
    nodes = wins.nodes + loses.nodes
    if loses.answer is None:
        return DfpnValue(Value.UNKNOWN, nodes)
    if loses.answer:
        return DfpnValue(Value.LOSS, nodes, search.line(False))
    return DfpnValue(Value.DRAW, nodes, search.line(False)[:1])
