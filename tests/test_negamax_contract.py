"""The preconditions of both exact engines' searches (``kernels.free.search.negamax``,
free placement; ``kernels.gravity.search.gravity_negamax``, gravity) hold at every
node of real searches, and their ``check_preconditions`` refuse a node that breaks them.

In a subprocess with ``NUMBA_DISABLE_JIT=1`` the kernels are plain Python, and
each search finds itself through its module's global name at every recursive
call: replacing that name (and the name its caller uses for the top node) with
a wrapper that first runs ``check_preconditions`` checks every node searched.
Tiny boards only: plain-Python kernels are slow.

(The LLVM intrinsics of ``kernels/core/bits.py`` have plain-Python forms there under
``NUMBA_DISABLE_JIT=1``.)
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent

PRELUDE = r'''
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from numba.core import config
assert config.DISABLE_JIT, "NUMBA_DISABLE_JIT is not set"
from parallel_mnk.kernels.gravity import search as G
from parallel_mnk.kernels.free import search as N
from parallel_mnk.kernels.free import entry as E
from parallel_mnk.kernels.gravity import entry as GE
from parallel_mnk.kernels.core import layout as L
from parallel_mnk import GameSpec, Position
'''

CHECK_EVERY_NODE = PRELUDE + r'''
from checks import random_positions
from naive import naive_score
from parallel_mnk.game.rules import win_score
from parallel_mnk.engines.exact.search import Search

calls = [0]   # nodes seen by the wrappers
checked_nodes = [0]   # of them, checked (the recursion's)
roots = [0]   # calls from Python
depth = [0]   # searches under way
plain, plain_gravity = N.negamax, G.gravity_negamax


def _checked(module, search, ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """Each search is its own entry point: a call from Python (``cell`` -1 or a cell)
    sets its root up and searches at most one node itself; every call of its
    recursion (``cell`` INSIDE) is checked."""
    if cell == module.INSIDE:
        module.check_preconditions(ctx, own, opp, ply, alpha, beta)
        calls[0] += 1
        checked_nodes[0] += 1
        depth[0] += 1
        value = search(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot)
        depth[0] -= 1
        return value
    assert cell >= -1 and depth[0] == 0, (cell, depth[0])   # (only Python asks for a position or a move)
    roots[0] += 1
    inner, nodes = calls[0], int(ctx[L.C_NODES])
    depth[0] += 1
    value = search(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot)
    depth[0] -= 1
    own_nodes = int(ctx[L.C_NODES]) - nodes - (calls[0] - inner)
    assert own_nodes in (0, 1), own_nodes   # the root, unless the move or a win at once settled it
    calls[0] += own_nodes
    return value


def checked(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    return _checked(N, plain, ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot)


def checked_gravity(ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot):
    """As :func:`checked`, for the gravity search (also its own entry point)."""
    return _checked(G, plain_gravity, ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot)


N.negamax = E.search = checked
G.gravity_negamax = GE.search = checked_gravity
nodes = positions = 0
for spec, stones in [(GameSpec(3, 3, 3), (0, 5)), (GameSpec(4, 4, 3, True), (2, 10)), (GameSpec(4, 3, 3), (1, 8))]:
    search = Search(spec, np.zeros(1 << 10, dtype=np.uint64))  # a small table: replacements too
    for pos in [Position(spec)] + random_positions(spec, 16, stones, seed=spec.cells):
        own, opp = pos.stones()
        expected = naive_score(spec, pos.x, pos.o)
        assert search.score(own, opp, pos.ply, False) == expected, (spec, pos.move_stack)
        weak = search.score(own, opp, pos.ply, True)
        assert weak == (expected > 0) - (expected < 0), (spec, pos.move_stack)
        child = pos.copy()
        child.push(child.move_of_cell(search.best_cell(own, opp, pos.ply, expected, False)))
        end = child.outcome()
        kept = -naive_score(spec, child.x, child.o) if end is None else win_score(spec, end.ply) if end.winner else 0
        assert kept == expected, (spec, pos.move_stack, child.move_stack)
        positions += 1
    nodes += search.nodes
# every node was seen, and all but the roots (set up by the entry points) checked
assert nodes == calls[0] and nodes - roots[0] <= checked_nodes[0] > 500, (nodes, calls[0], checked_nodes[0], roots[0])
print(f"ok: {positions} positions, {nodes} nodes checked")
'''

REFUSALS = PRELUDE + r'''
from parallel_mnk.game.geometry import build_context


def check(spec, moves, alpha, beta):
    """check_preconditions on the position after ``moves`` (own: the side to move)."""
    pos = Position.from_moves(spec, moves)
    own, opp = pos.stones()
    N.check_preconditions(build_context(spec), np.uint64(own), np.uint64(opp), np.int64(pos.ply),
                          np.int64(alpha), np.int64(beta))


def refused(spec, moves, alpha, beta, fragment):
    try:
        check(spec, moves, alpha, beta)
    except ValueError as e:
        assert fragment in str(e), (moves, str(e))
        return
    raise AssertionError(f"{spec} {moves} ({alpha}, {beta}): no ValueError")


TTT = GameSpec(3, 3, 3)
check(TTT, "b2,a1", -1, 1)                                          # fine: no error
check(GameSpec(4, 4, 3, True), "1234", 0, 1)
refused(TTT, "b2,a1", 1, 1, "window must be open")                  # alpha >= beta
refused(TTT, "b2,a1", 2, -2, "window must be open")
refused(TTT, "a1,b1,a2,b2", -5, 5, "wins with its next stone")      # X to move, a3 wins at once
refused(GameSpec(4, 4, 3, True), "1122", -5, 5, "wins with its next stone")
refused(TTT, "a1,b1,a2,b2,a3", -5, 5, "game is over")               # X has a line, O to move
refused(TTT, "b2,a1,a2,c2,b1,b3,c1,a3,c3", -5, 5, "game is over")   # a full board


def check_gravity(spec, moves, alpha, beta):
    pos = Position.from_moves(spec, moves)
    own, opp = pos.stones()
    G.check_preconditions(build_context(spec), np.uint64(own), np.uint64(opp), np.int64(pos.ply),
                          np.int64(alpha), np.int64(beta))


def refused_gravity(spec, moves, alpha, beta, fragment):
    try:
        check_gravity(spec, moves, alpha, beta)
    except ValueError as e:
        assert fragment in str(e), (moves, str(e))
        return
    raise AssertionError(f"{spec} {moves} ({alpha}, {beta}): no ValueError")


C4 = GameSpec(7, 6, 4, True)
check_gravity(C4, "4453", -1, 1)                                    # fine: no error
refused_gravity(C4, "4453", 1, 1, "window must be open")
refused_gravity(C4, "445566", -5, 5, "wins with its next stone")    # X: 3 or 7 completes the bottom row
refused_gravity(C4, "1122334", -5, 5, "game is over")               # X has four in the bottom row
refused_gravity(C4, "44553", -5, 5, "not open")                     # O must block both 2 and 6
print("ok: refusals")
'''


def run_plain(code: str) -> str:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    p = subprocess.run([sys.executable, "-c", code, str(TESTS)], capture_output=True, text=True, timeout=120,
                       cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


def test_every_node_of_small_searches_meets_the_preconditions():
    """Exact and weak scores, and a best move, of the empty board and 16 random
    positions of 3x3 k3, 4x4 k3 gravity and 4x3 k3 (against naive.py), with
    ``check_preconditions`` run at every node."""
    out = run_plain(CHECK_EVERY_NODE)
    assert out.startswith("ok: 51 positions"), out


def test_check_preconditions_refuses_a_broken_node():
    """An empty window, a side to move that wins at once, a finished game."""
    assert run_plain(REFUSALS) == "ok: refusals\n"
