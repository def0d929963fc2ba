"""What the parallel tasks are: a split tree above a frontier of positions.

The coordinator expands the position a few plies deep (the *split tree*); its
leaves at the split depth are the *tasks*, each a window search of one position
by a worker. The tree turns task results into the root's value the way
alpha-beta would:

* every node keeps proven bounds ``lo <= score <= hi`` (from the kernel's
  prelude, then from its children: ``lo = max(-hi_child)``,
  ``hi = max(-lo_child)``), and a result only ever tightens them;
* windows flow down: the root has the caller's ``(alpha, beta)``; a child of
  ``P`` gets ``(-min(beta_P, hi_P), -max(alpha_P, lo_P))``. So a finished
  sibling raises the shared alpha of the others at once, and a parent's
  parent lowers their beta;
* a node is *settled* when its bounds decide it for its window (``lo >= beta``,
  ``hi <= alpha`` or ``lo == hi``); tasks below a settled node, or whose window
  became empty, are not needed any more and are skipped or abandoned;
* young brothers wait: a node's later children are handed out only once its
  first (best-ordered) child is settled, unless ``ybw`` is off (plain root
  splitting, ``split_depth=1``, for comparison).

Windows only shrink and bounds only tighten, so a decision once taken stays
true, and a fail-soft result proves the same thing whichever window it used.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional

from ...game.rules import generic_bounds
from ...kernels.core.layout import TT_EXACT, TT_LOWER, TT_UPPER

# expander(own, opp, ply) -> (n, lo, hi, cells): see search.Search.expand
Expander = Callable[[int, int, int], tuple[int, int, int, list[int]]]
# static_bounds(ply) -> (lo, hi): proven bounds of any node of that ply before its search
StaticBounds = Callable[[int], tuple[int, int]]


class Node:
    """A position of the split tree."""

    __slots__ = ("parent", "index", "own", "opp", "ply", "cell", "children", "lo", "hi",
                 "static_lo", "static_hi", "running", "task_id", "alpha", "beta", "needed")

    def __init__(self, parent: Optional["Node"], index: int, own: int, opp: int, ply: int, cell: int,
                 lo: int, hi: int) -> None:
        self.parent = parent
        self.index = index          # position among the parent's children (0 = best ordered)
        self.own, self.opp, self.ply = own, opp, ply
        self.cell = cell            # the move from the parent (-1 at the root)
        self.children: list[Node] = []
        self.static_lo, self.static_hi = lo, hi
        self.lo, self.hi = lo, hi
        self.running = 0           # searches of it under way (a task and its helpers)
        self.task_id = 0
        self.alpha = self.beta = 0  # current window (set by SplitTree.refresh)
        self.needed = True

    def path(self) -> tuple[int, ...]:
        cells = []
        node = self
        while node.parent is not None:
            cells.append(node.cell)
            node = node.parent
        return tuple(reversed(cells))

    @property
    def is_task(self) -> bool:
        """A frontier node that needs a search (not decided at expansion)."""
        return not self.children and self.static_lo < self.static_hi

    def settled(self) -> bool:
        return self.lo >= self.beta or self.hi <= self.alpha or self.lo == self.hi


class SplitTree:
    """The split tree of one window search of ``own``/``opp`` (see the module doc)."""

    def __init__(self, cells: int, expander: Expander, own: int, opp: int, ply: int,
                 alpha: int, beta: int, depth: int, ybw: bool = True, min_tasks: int = 0,
                 max_depth: int = 4, static_bounds: Optional[StaticBounds] = None) -> None:
        """Expand ``depth`` plies; with ``min_tasks``, keep expanding one more ply
        (up to ``max_depth``) while there are fewer tasks than that. A node's bounds
        before its expansion or task are ``static_bounds(ply)`` (default: the exact
        score's, :func:`parallel_mnk.game.rules.generic_bounds`, 0 on a full board)."""
        self.cells = cells
        self.expander = expander
        self.static_bounds = static_bounds or self._score_bounds
        self.ybw = ybw
        self.alpha0, self.beta0 = alpha, beta
        self.root = self._make(None, 0, own, opp, ply, -1)
        frontier = [self.root]
        self.depth = 0
        while frontier and (self.depth < depth or (len(self._tasks(frontier)) < min_tasks
                                                   and self.depth < max_depth)):
            nxt = []
            for node in frontier:
                if node.static_lo < node.static_hi:
                    self._expand(node)
                    nxt.extend(node.children)
            if not nxt:
                break
            frontier = nxt
            self.depth += 1
        self.tasks_total = self._count_tasks(self.root)
        self._combine_all(self.root)
        self.refresh()

    def _count_tasks(self, node: Node) -> int:
        if not node.children:
            return int(node.is_task)
        return sum(self._count_tasks(c) for c in node.children)

    @staticmethod
    def _tasks(nodes: list[Node]) -> list[Node]:
        return [n for n in nodes if n.is_task]

    def _score_bounds(self, ply: int) -> tuple[int, int]:
        """The exact score's bounds of a node of ``ply`` stones (0 on a full board)."""
        return (0, 0) if ply >= self.cells else generic_bounds(self.cells, ply)

    def _make(self, parent: Optional[Node], index: int, own: int, opp: int, ply: int, cell: int) -> Node:
        lo, hi = self.static_bounds(ply)
        return Node(parent, index, own, opp, ply, cell, lo, hi)

    def _expand(self, node: Node) -> None:
        n, lo, hi, cells = self.expander(node.own, node.opp, node.ply)
        node.static_lo, node.static_hi = max(node.static_lo, lo), min(node.static_hi, hi)
        node.lo, node.hi = node.static_lo, node.static_hi
        if n == 0:
            node.static_lo = node.static_hi = node.lo = node.hi = lo
            return
        for i, cell in enumerate(cells[:n]):
            bit = 1 << cell
            child = self._make(node, i, node.opp, node.own | bit, node.ply + 1, cell)
            node.children.append(child)

    # ------------------------------------------------------------ bounds
    def _combine(self, node: Node) -> bool:
        """Recompute an inner node's bounds from its children; True if they changed."""
        if not node.children:
            return False
        lo = max(node.static_lo, max(-c.hi for c in node.children))
        hi = min(node.static_hi, max(-c.lo for c in node.children))
        changed = (lo, hi) != (node.lo, node.hi)
        node.lo, node.hi = max(node.lo, lo), min(node.hi, hi)
        return changed

    def _combine_all(self, node: Node) -> None:
        for c in node.children:
            self._combine_all(c)
        self._combine(node)

    def record(self, node: Node, value: int, kind: int) -> None:
        """A task's proven result for ``node``; bounds propagate to the root."""
        if kind == TT_EXACT:
            node.lo = node.hi = value
        elif kind == TT_LOWER:
            node.lo = max(node.lo, value)
        elif kind == TT_UPPER:
            node.hi = min(node.hi, value)
        else:
            raise ValueError(f"unknown result kind {kind}")
        if node.lo > node.hi:
            raise RuntimeError(f"inconsistent bounds at {node.path()}: {node.lo} > {node.hi}")
        self._propagate(node)

    def _propagate(self, node: Node) -> None:
        """``node``'s bounds changed: recombine its ancestors and refresh the windows
        under the highest node whose bounds changed (windows below a node depend
        only on its window and bounds)."""
        top = node
        parent = node.parent
        while parent is not None and self._combine(parent):
            top = parent
            parent = parent.parent
        self.refresh(top)

    # ------------------------------------------------------------ splitting a running task
    def deepen(self, node: Node) -> None:
        """Make the frontier node ``node`` (a task being split) an inner node: its
        moves become frontier nodes with their windows; its bounds keep what was
        proven, tightened by the expansion's (a node the expansion decides is settled)."""
        if node.children:
            raise ValueError(f"node {node.path()} is expanded already")
        lo, hi = node.lo, node.hi
        self._expand(node)
        node.lo, node.hi = max(node.lo, lo), min(node.hi, hi)
        if node.lo > node.hi:
            raise RuntimeError(f"inconsistent bounds at {node.path()}: {node.lo} > {node.hi}")
        self.tasks_total += sum(c.is_task for c in node.children) - 1
        self._propagate(node)

    @staticmethod
    def reorder(node: Node, first: list[Node]) -> None:
        """Put the children ``first`` (in that order) before ``node``'s other children,
        which keep theirs: young-brothers-wait waits for the new eldest."""
        rest = [c for c in node.children if all(c is not f for f in first)]
        node.children = first + rest
        for i, c in enumerate(node.children):
            c.index = i

    # ------------------------------------------------------------ windows
    def refresh(self, top: Optional[Node] = None) -> None:
        """Recompute the windows (and whether they are needed) of the nodes below
        ``top`` (default: the whole tree)."""
        if top is None:
            top = self.root
            top.alpha, top.beta = self.alpha0, self.beta0
            top.needed = True
        stack = [top]
        while stack:
            node = stack.pop()
            a = max(node.alpha, node.lo)
            b = min(node.beta, node.hi)
            open_ = node.needed and a < b and not node.settled()
            for c in node.children:
                c.alpha, c.beta = -b, -a
                c.needed = open_
                stack.append(c)

    @property
    def done(self) -> bool:
        return self.root.settled()

    def result(self) -> int:
        """The root's fail-soft value once :attr:`done`."""
        r = self.root
        if r.lo >= r.beta:
            return r.lo
        if r.hi <= r.alpha:
            return r.hi
        return r.lo

    def eligible(self, node: Node) -> bool:
        """Whether young-brothers-wait lets ``node`` be searched now (every elder
        brother of it and of its ancestors is settled)."""
        if not self.ybw:
            return True
        while node.parent is not None:
            first = node.parent.children[0]
            if node is not first and not first.settled():
                return False
            node = node.parent
        return True

    def next_tasks(self) -> Iterator[Node]:
        """Frontier nodes to hand out now, best-ordered first (depth-first order).

        First those young-brothers-wait allows; then, for workers that would
        otherwise idle, the needed ones still waiting for an elder brother
        (speculative: a cutoff may make them unneeded; then they are abandoned).
        """
        waiting = []
        stack = [(self.root, True)]  # (node, whether young-brothers-wait allows it)
        while stack:
            node, allowed = stack.pop()
            if not node.needed or node.settled() or node.alpha >= node.beta:
                continue
            if node.children:
                children = node.children
                first = children[0]
                younger_allowed = allowed and (not self.ybw or first.settled())
                for c in reversed(children[1:]):
                    stack.append((c, younger_allowed))
                stack.append((first, allowed))
            elif node.is_task and not node.running:
                if allowed:
                    yield node
                else:
                    waiting.append(node)
        yield from waiting

    def best_child(self) -> Optional[Node]:
        """The root child whose bound proves the root's lower bound (a best move),
        or None when that bound comes from the root's own static bound."""
        best = None
        for c in self.root.children:
            if best is None or -c.hi > -best.hi:
                best = c
        if best is None or -best.hi < self.root.lo:
            return None
        return best

    def live_window(self, node: Node) -> Optional[tuple[int, int]]:
        """The current window of a running task, or None when it is not needed."""
        if not node.needed or node.alpha >= node.beta or node.settled():
            return None
        return node.alpha, node.beta
