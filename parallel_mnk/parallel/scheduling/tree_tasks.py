"""What a split tree's frontier nodes become on a worker, and what a worker's answer
proves of its node: the one piece of the scheduler that differs between engines.

The coordinator (:meth:`.coordinator.Coordinator.search_tree`) hands out the
frontier nodes of a :class:`.split.SplitTree` and records what comes back; a
:class:`TreeTasks` says how:

* :meth:`TreeTasks.task`: the task of a node, searched in the node's window
  (``node.alpha``, ``node.beta``, from the view of the side to move at the node);
* :meth:`TreeTasks.bound`: the proven ``(value, kind)`` of the node (kind
  ``TT_LOWER``/``TT_UPPER``/``TT_EXACT``, the node's view) from a result, or None
  when the search was stopped before it decided its window (a stop of every
  search: a limit of the solve).

:class:`WindowTasks` are the exact solver's (a window search of the node's
position on the shared table, :class:`..task.Task`); the big boards' and the
depth-limited engine's root splitting give the tree's root moves as tasks of
their own (:mod:`..uses.big`, :mod:`..uses.limited`).
"""
from __future__ import annotations

from typing import Callable, Optional, Protocol, Union

from ...game.rules import GameSpec
from ...kernels.core.layout import TT_EXACT, TT_LOWER
from ..task import AnyResult, AnyTask, BigTaskResult, LimitedTaskResult, Task, TaskResult
from .split import Node, SplitTree


class TreeTasks(Protocol):
    """How the nodes of a split tree are searched (module docstring)."""

    #: whether a worker left idle may join a running task (same task, busy marks)
    helpers: bool

    def task(self, node: Node, task_id: int, marks: bool) -> AnyTask:
        """The task ``task_id`` that searches ``node`` in its window (``marks``: with
        busy marks, another worker will join it)."""
        ...

    def bound(self, result: AnyResult) -> Optional[tuple[int, int]]:
        """``(value, kind)`` proven of the result's node, from the node's view; None
        when a stop of every search cut it short."""
        ...


class WindowTasks:
    """The exact solver's tasks: a window search of the node's position (``salt``:
    the solve's table salt)."""

    helpers = True

    def __init__(self, spec: GameSpec, salt: int) -> None:
        self.spec, self.salt = spec, salt

    def task(self, node: Node, task_id: int, marks: bool) -> Task:
        spec = self.spec
        return Task(task_id, spec.cols, spec.rows, spec.k, spec.gravity, int(self.salt), node.own, node.opp,
                    node.ply, node.alpha, node.beta, node.path(), marks=marks)

    def bound(self, result: AnyResult) -> Optional[tuple[int, int]]:
        assert isinstance(result, TaskResult) and not result.abandoned
        return result.value, result.kind


def root_split(cells: int, own: int, opp: int, ply: int, order: list[int], lo: int, hi: int) -> SplitTree:
    """The split tree of plain root splitting: the root (``own`` to move, ``ply``
    stones, its value proven within ``[lo, hi]``) and its moves ``order`` (best
    first), all tasks at once (no young-brothers-wait), each handed out with the
    best value proven by then as its alpha. Settled when a move reaches ``hi``
    or every move is answered."""
    def expand(_own: int, _opp: int, _ply: int) -> tuple[int, int, int, list[int]]:
        return len(order), lo, hi, list(order)

    return SplitTree(cells, expand, own, opp, ply, lo, hi, depth=1, ybw=False,
                     static_bounds=lambda p: (lo, hi) if p == ply else (-hi, -lo))


class RootMoveTasks:
    """The tasks of a :func:`root_split` tree: ``make(cell, alpha, task_id)`` is
    the task of root move ``cell`` with ``alpha`` from the root's view (the best
    value proven when it is handed out), whose result (``cell``, ``value``,
    ``aborted``) is the move's value from the root's view, fail-soft: exact above
    ``alpha``, an upper bound at or below it (the task's beta lies past every
    value it can return). :attr:`answers` keeps each move's last result."""

    helpers = False   # (the tasks' searches have no busy marks)

    def __init__(self, make: Callable[[int, int, int], AnyTask]) -> None:
        self.make = make
        self.alphas: dict[int, int] = {}        # task id -> its alpha
        self.answers: dict[int, Union[BigTaskResult, LimitedTaskResult]] = {}   # cell -> the move's result

    def task(self, node: Node, task_id: int, marks: bool) -> AnyTask:
        alpha = -node.beta
        self.alphas[task_id] = alpha
        return self.make(node.cell, alpha, task_id)

    def bound(self, result: AnyResult) -> Optional[tuple[int, int]]:
        assert isinstance(result, (BigTaskResult, LimitedTaskResult))
        alpha = self.alphas.pop(result.task_id)
        if result.aborted:
            return None
        self.answers[result.cell] = result
        return -result.value, (TT_LOWER if result.value <= alpha else TT_EXACT)
