"""The coordinator's best-first tree (parallel/scheduling/pn_tree.py) on a made-up
game, no kernels: which leaf the next job goes to, the zone wait at the attacker's
nodes, how the numbers back up, and a zone answering the attacker's other moves."""
from __future__ import annotations

import random

import pytest

from parallel_mnk.parallel.scheduling.pn_tree import DISPROVEN, INF, OPEN, PROVEN, PnTree

# a node's children by the cells from the root: (cell, pn, dn) each
CHILDREN = {
    (): [(0, 3, 2), (1, 5, 2), (2, 9, 2)],          # the attacker's node
    (0,): [(3, 2, 4), (4, 1, 6)],                   # the defender's
    (1,): [(5, 1, 1)],
}


def tree() -> PnTree:
    return PnTree(0, 0, 0, True, expand=lambda n: CHILDREN[tuple(n.path())], state_of=lambda n: OPEN,
                  zone_of=lambda n: -1, settle=lambda n, proven: PROVEN if proven else DISPROVEN, open_depth=1)


def test_a_job_counts_as_its_leafs_disproof_so_the_next_job_goes_where_a_disproof_needs_one():
    t = tree()
    leaf = t.select()
    assert leaf.path() == [0] and (t.root.pn, t.root.dn) == (3, 6)
    t.begin_job(leaf)
    assert t.select() is None                       # zone wait: the attacker's other moves wait for a disproof
    t.zone_wait = False
    second = t.select()                             # the attacker's next move: its disproof is needed too
    assert second.path() == [1]
    t.end_job(second, -1, 5, 2)                     # (had a job: expanded when the walk next meets it)
    t.end_job(leaf, -1, 3, 2)
    first = t.select()
    assert first.path() == [0, 3]                   # the defender's node: its child of least dn
    t.begin_job(first)
    other = t.select()                              # [0] counts as disproven: no job on [0, 4], whose answer
    assert other.path() == [1, 5]                   # its disproof would make moot; the root's next move
    t.begin_job(other)
    last = t.select()
    assert last.path() == [2]
    t.begin_job(last)
    assert t.select() is None                       # every move of the root counts as disproven
    t.end_job(first, 1, 0, INF)                     # [0, 3] proven: [0] needs its other move now
    assert t.select().path() == [0, 4]


def test_a_leaf_is_expanded_after_its_first_job_and_the_defender_picks_the_least_disproof():
    t = tree()
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, -1, 3, 2)
    leaf = t.select()
    assert leaf.path() == [0, 3]                    # the defender's node: its child of least dn (4 against 6)
    node = leaf.parent
    assert (node.pn, node.dn) == (2 + 1, 4)         # AND: the sum of pn, the least dn
    assert (t.root.pn, t.root.dn) == (3, 4 + 2 + 2)  # OR: the least pn, the sum of dn


def test_a_proven_move_proves_the_attackers_node():
    t = tree()
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, 1, 0, INF)
    assert t.root.state == PROVEN and t.root.pn == 0


def test_a_lost_job_leaves_its_leaf_as_it_was():
    t = tree()
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, -2, 1, 1)
    assert not leaf.busy and leaf.jobs == 0 and (leaf.pn, leaf.dn) == (3, 2)
    assert t.select() is leaf                       # handed out again


def test_a_zone_answers_the_attackers_other_moves():
    t = tree()
    t.zone_of = lambda n: 1 << 1                    # the first move's disproof answers every move but cell 1
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, 0, INF, 0)
    assert [c.cell for c in t.live_children(t.root)] == [1]
    assert (t.root.pn, t.root.dn) == (5, 2)
    second = t.select()
    t.begin_job(second)
    t.end_job(second, 0, INF, 0)                    # its disproof too: nothing left, the root disproven
    assert t.root.state == DISPROVEN


def test_symmetric_siblings_are_one_child():
    """Given a key up to symmetry, a node keeps one child of each key (the first), so
    that two mirror images never get a job each; the numbers back up from those kept."""
    mirror = {0: 2, 2: 0, 1: 1}   # the root's moves 0 and 2 are mirror images
    t = PnTree(0, 0, 0, True, expand=lambda n: CHILDREN[tuple(n.path())], state_of=lambda n: OPEN,
               zone_of=lambda n: -1, settle=lambda n, proven: PROVEN if proven else DISPROVEN, open_depth=1,
               key_of=lambda x, o: min(x, 1 << mirror[x.bit_length() - 1]) if x else 0)
    leaf = t.select()
    assert [c.cell for c in t.root.children] == [0, 1]
    assert (t.root.pn, t.root.dn) == (3, 2 + 2)     # the sum of the kept children's dn
    t.begin_job(leaf)
    t.zone_wait = False
    other = t.select()
    t.begin_job(other)
    assert t.select() is None                       # [2] is [0]: no job of its own
    t.end_job(leaf, 0, INF, 0)
    t.end_job(other, 0, INF, 0)
    assert t.root.state == DISPROVEN


def test_without_a_key_every_sibling_is_a_child():
    t = tree()
    t.select()
    assert [c.cell for c in t.root.children] == [0, 1, 2]


def test_where_proofs_are_expected_a_job_counts_as_its_leafs_proof_and_idle_workers_take_the_rest():
    """``busy_proves`` (the threat proofs past 64 cells): a job under way counts as its
    leaf's proof, so the next job goes to the defender's other move that proof needs
    (not to the attacker's next move, as above); when every job a proof needs is under
    way, the attacker's other moves get the next jobs rather than none."""
    t = tree()
    t.busy_proves, t.zone_wait = True, False
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, -1, 3, 2)
    first = t.select()
    assert first.path() == [0, 3]                   # the defender's node: its child of least dn
    t.begin_job(first)
    other = t.select()                              # [0, 3] counts as proven: [0]'s proof needs [0, 4] too
    assert other.path() == [0, 4]
    t.begin_job(other)
    spare = t.select()                              # [0] counts as proven, so does the root: no job a proof
    assert spare.path() == [1]                      # needs; the attacker's next move (as if [0] were disproven)
    t.begin_job(spare)
    last = t.select()
    assert last.path() == [2]
    t.begin_job(last)
    assert t.select() is None                       # every open leaf has its job
    t.end_job(first, 0, INF, 0)                     # [0, 3] disproven: [0] disproven
    assert t.root.children[0].state == DISPROVEN
    t.end_job(other, 1, 0, INF)
    assert t.root.children[0].state == DISPROVEN    # (a moot answer changes nothing)


def _virtual_from_scratch(t: PnTree, node, busy: int) -> tuple[int, int]:
    """A node's virtual numbers computed afresh from the jobs under way below it (the
    definition :meth:`PnTree._virtual` keeps up to date)."""
    if node.state != OPEN or not node.busy_below:
        return node.pn, node.dn
    if node.busy:
        return (0, INF) if busy == PROVEN else (INF, 0)
    if node.children is None:
        return node.pn, node.dn
    return t._combine(node, lambda c: _virtual_from_scratch(t, c, busy))


@pytest.mark.parametrize("seed", range(6))
def test_the_virtual_numbers_kept_are_those_of_the_jobs_under_way(seed):
    """Random jobs begun and ended (proven, disproven, open with new numbers, lost) on
    random trees of a made-up game (some children settled when made), both counts of a
    job under way: after each step every node's kept virtual numbers are those
    computed afresh."""
    rng = random.Random(seed)
    made = 0
    for game in range(20):
        def expand(node, game=game):
            r = random.Random(hash((seed, game, tuple(node.path()))))
            if r.random() < 0.05:
                return PROVEN if r.random() < 0.5 else DISPROVEN
            return [(cell, r.randint(1, 9), r.randint(1, 9)) for cell in r.sample(range(12), r.randint(2, 5))]

        def state_of(node, game=game):   # (a child settled already: a transposition's)
            r = random.Random(hash((seed, game, tuple(node.path()), "store")))
            return OPEN if r.random() < 0.9 else PROVEN if r.random() < 0.5 else DISPROVEN

        t = PnTree(0, 0, 0, True, expand=expand, state_of=state_of,
                   zone_of=lambda n: -1 if rng.random() < 0.8 else rng.getrandbits(12),
                   settle=lambda n, proven: PROVEN if proven else DISPROVEN, open_depth=1, zone_wait=False,
                   busy_proves=seed % 2 == 0)
        running = []
        for _ in range(200):
            if t.root.state != OPEN:
                break
            leaf = t.select() if rng.random() < 0.6 or not running else None
            if leaf is not None:
                t.begin_job(leaf)
                running.append(leaf)
            elif running:
                node = running.pop(rng.randrange(len(running)))
                t.end_job(node, rng.choice([1, 0] + [-1] * 24 + [-2] * 2), rng.randint(1, 20), rng.randint(1, 20))
            for node in t.walk():
                assert (node.vp, node.vd) == (_virtual_from_scratch(t, node, PROVEN),
                                              _virtual_from_scratch(t, node, DISPROVEN)), (game, node.path())
        made += t.nodes
        if made > 400:
            break
    assert made > 400


@pytest.mark.parametrize("stick,child_pn,expect", [
    (0.0, 3, [1]),        # plain best first: [0]'s pn 6 against [1]'s 5, the walk goes to [1]
    (0.5, 3, [0, 3]),     # 6 <= 5 x 1.5: it keeps to [0], the child it chose last
    (0.5, 4, [1]),        # 8 > 5 x 1.5: it leaves [0]
])
def test_the_one_plus_epsilon_trick_keeps_to_the_last_child_while_within_its_margin(stick, child_pn, expect):
    """With ``stick`` (BIG_PN_TREE_EPS) a node keeps to the child it last went below while
    that child's number is at most (1 + stick) times its best sibling's; it only orders
    the walk (the numbers backed up are the same)."""
    children = {(): [(0, 3, 2), (1, 5, 2), (2, 9, 2)], (0,): [(3, child_pn, 4), (4, child_pn, 6)]}
    t = PnTree(0, 0, 0, True, expand=lambda n: children[tuple(n.path())], state_of=lambda n: OPEN,
               zone_of=lambda n: -1, settle=lambda n, proven: PROVEN if proven else DISPROVEN, open_depth=1,
               zone_wait=False, stick=stick)
    leaf = t.select()
    assert leaf.path() == [0]
    t.begin_job(leaf)
    t.end_job(leaf, -1, 2 * child_pn, 2)   # (its job's numbers: those its children will give)
    assert t.select().path() == expect
    assert (t.root.pn, t.root.dn) == (5, 2 + 2 + 2 if expect == [1] else 4 + 2 + 2)   # ([0] expanded only if kept)


@pytest.mark.parametrize("margin, first_pn, expect", [(0.0, 3, 0), (0.0, 4, 1), (0.5, 4, 0), (0.25, 4, 1),
                                                      (float("inf"), 90, 0)])
def test_the_move_so_far_is_the_orders_first_unless_another_proves_by_more_than_the_margin(margin, first_pn, expect):
    """``best_cell``: the attacker's first open move of the expansion's order, unless a
    sibling's pn times ``1 + margin`` is below its (then the least pn); a proven move
    first of all; a move a disproven sibling's zone answers never."""
    t = tree()
    leaf = t.select()
    t.begin_job(leaf)
    t.end_job(leaf, -1, 3, 2)
    t.select()                                      # (the root split: its children [0], [1], [2])
    first, second, third = t.root.children
    first.pn, second.pn, third.pn = first_pn, 3, 9
    assert t.best_cell(margin) == expect
    third.state = PROVEN
    assert t.best_cell(margin) == 2                 # (a proven move is the move)
    third.state, first.state, first.zone = OPEN, DISPROVEN, 1 << 2
    assert t.best_cell(margin) == 2                 # (the zone of [0]'s refutation answers [1])
    third.state = DISPROVEN
    assert t.best_cell(margin) == 1                 # (nothing live: the first move not refuted itself)
