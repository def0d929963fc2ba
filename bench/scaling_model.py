"""A model of a parallel solve on P cores, from a solve with P workers on fewer cores.

A solve's speed-up over one worker splits into three factors:

    speed-up(P) = serial nodes / (span of the schedule on P cores, in serial-node times)
                = P x busy share(P) x rate(P) / overhead(P)

* **overhead(P)**: the nodes P workers search over the serial nodes. It is a count:
  a solve with P workers time-shared on a smaller machine counts them.
* **the schedule**: which task waited for which answer. The task log's trace
  (:class:`parallel_mnk.parallel.scheduling.tasklog.TaskRecord`) says, for every task, its
  place, its nodes, and the event the coordinator saw last before handing it
  out. :func:`replay` runs that schedule again on P real cores (a discrete-event
  simulation): a task starts once that event happened and its place is free,
  and takes its nodes at the per-node time of a busy worker, plus the cost of a
  task's round trip. Time-shared workers hide the waiting (an idle worker's
  share of a core goes to the busy ones); the replay does not.
* **rate(P)**: a busy worker's node rate at P workers over the serial rate, a
  property of the machine and the pool (memory: one table for all, its pages,
  shared lines), measured there (``run_bench.py --suites many-cores`` writes it
  as a machine profile) or assumed.

:func:`predict` combines them: serial nodes over (the replayed probes plus the
coordinator's own serial nodes).
"""
from __future__ import annotations

import heapq
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from parallel_mnk.parallel.scheduling.tasklog import TaskRecord

MACHINES = Path(__file__).with_name("machines")   # machine profiles: busy node rate by pool and workers
TURN_S = 300e-6   # the coordinator's turn for one answer, seconds (measured: its CPU over the answers, 2 cores)
PIPE_S = 50e-6    # a message between the coordinator and a worker, seconds


@dataclass(frozen=True)
class Prediction:
    """The model's figures for P workers: ``speedup`` over one worker and its factors."""

    workers: int
    speedup: float
    overhead: float      # work nodes / serial nodes
    busy_share: float    # the workers' busy time on P cores over P x the predicted time
    rate: float          # a busy worker's node rate over the serial rate (the machine's)
    replay_s: float      # the probes replayed on P cores, seconds


def replay(trace: Sequence[TaskRecord], node_s: float, turn_s: float = TURN_S,
           pipe_s: float = PIPE_S) -> tuple[float, float]:
    """``(seconds, busy)``: how long the probes of ``trace`` take with one core per
    place, a node taking ``node_s`` seconds, and the places' busy seconds in them
    (a discrete-event simulation, probe after probe):

    * the coordinator is one server: each answer waits for it to be free, then
      takes ``turn_s`` of its time (its turn: the bounds, the windows, the next tasks);
    * a task starts ``pipe_s`` after the coordinator's turn for the event it was
      handed out after (or the probe's start), once its place is free;
    * a task that ran to its end takes its nodes; one asked to stop ends a poll
      interval (512 nodes on average) after the turn for the event it was stopped
      after, whatever it searched in the recorded run (a split task: its nodes);
    * the probe ends with the last turn."""
    total = busy = 0.0
    by_probe: dict[int, list[int]] = {}
    for i, r in enumerate(trace):
        by_probe.setdefault(r.probe, []).append(i)
    for indices in by_probe.values():
        seconds, busy_s = _replay_probe(trace, sorted(indices, key=lambda j: trace[j].start), node_s, turn_s, pipe_s)
        total += seconds
        busy += busy_s
    return total, busy


def _replay_probe(trace: Sequence[TaskRecord], order: list[int], node_s: float, turn_s: float,
                  pipe_s: float) -> tuple[float, float]:
    """One probe of :func:`replay`: its tasks ``order`` (by their recorded start)."""
    followers: dict[int, list[int]] = {}   # event's task -> tasks handed out after it
    stopped: dict[int, list[int]] = {}     # event's task -> tasks asked to stop after it
    pending: dict[int, list[int]] = {}     # place -> its tasks not started yet, in order
    for i in order:
        r = trace[i]
        followers.setdefault(r.after, []).append(i)
        if r.outcome == "abandoned" and r.stopped_after >= 0:
            stopped.setdefault(r.stopped_after, []).append(i)
        pending.setdefault(r.place, []).append(i)
    ready: dict[int, float] = {i: pipe_s for i in followers.get(-1, [])}
    stop_at: dict[int, float] = {}         # event's task -> when its stops reach the searches
    waiting: dict[int, tuple[int, float]] = {}   # place -> (task waiting for its stop, its start)
    place_free: dict[int, float] = {}
    events: list[tuple[float, int]] = []   # (answer reaches the coordinator, task)
    busy = [0.0]

    def finish(place: int, i: int, began: float, end: float) -> None:
        place_free[place] = end
        busy[0] += end - began
        heapq.heappush(events, (end + pipe_s, i))

    def try_start(place: int) -> None:
        queue = pending.get(place, [])
        while queue and queue[0] in ready and place not in waiting:
            i = queue.pop(0)
            r = trace[i]
            t = max(ready[i], place_free.get(place, 0.0))
            if r.outcome == "abandoned" and r.stopped_after >= 0 and r.stopped_after not in stop_at:
                waiting[place] = (i, t)   # runs until its stop comes
                return
            end = max(t, stop_at[r.stopped_after]) if r.outcome == "abandoned" and r.stopped_after >= 0 \
                else t + r.nodes * node_s
            finish(place, i, t, end)

    for place in pending:
        try_start(place)
    coordinator_free = 0.0
    while events or waiting:
        if not events:   # a stop that never comes (its event was in no probe's replay): the recorded nodes
            place, (i, t) = next(iter(waiting.items()))
            del waiting[place]
            finish(place, i, t, t + trace[i].nodes * node_s)
            try_start(place)
            continue
        t, i = heapq.heappop(events)
        coordinator_free = max(t, coordinator_free) + turn_s
        stop_at[i] = coordinator_free + pipe_s + 512 * node_s
        for j in stopped.get(i, []):
            place = trace[j].place
            if place in waiting and waiting[place][0] == j:
                _, began = waiting.pop(place)
                finish(place, j, began, max(began, stop_at[i]))
                try_start(place)
        for j in followers.get(i, []):
            ready[j] = coordinator_free + pipe_s
            try_start(trace[j].place)
    return coordinator_free, busy[0]


def predict(trace: Sequence[TaskRecord], serial_nodes: int, coordinator_nodes: int, workers: int,
            rate: float = 1.0, serial_rate: float = 4e6, turn_s: float = TURN_S, pipe_s: float = PIPE_S) -> Prediction:
    """The speed-up over one worker of the solve traced in ``trace`` (P = ``workers``)
    on ``workers`` cores where a busy worker searches at ``rate`` times the serial
    node rate ``serial_rate`` (nodes a second) and the coordinator's
    ``coordinator_nodes`` run serially at the serial rate (:func:`replay`)."""
    node_s = 1.0 / (serial_rate * rate)
    probes_s, busy_s = replay(trace, node_s, turn_s, pipe_s)
    work = busy_s / node_s + coordinator_nodes
    serial_s = serial_nodes / serial_rate
    total_s = probes_s + coordinator_nodes / serial_rate
    return Prediction(workers, serial_s / total_s, work / serial_nodes,
                      busy_s / (workers * total_s) if total_s else 1.0, rate, probes_s)


def machine_profile(name: str) -> Optional[dict]:
    """A machine profile of :data:`MACHINES` (``name``.json): ``{"machine": text,
    "rate": {pool: {workers: busy rate over serial}}}``; None when there is none."""
    try:
        with open(MACHINES / f"{name}.json") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def profile_rate(profile: Optional[dict], pool: str, workers: int, free: bool = False) -> float:
    """A profile's busy rate for ``pool`` at ``workers`` (the nearest measured
    worker count at or below it; 1.0 without a profile); ``free``: the free
    boards' rates where the profile has them, else the 7x6 board's."""
    if profile is None:
        return 1.0
    table = profile.get("rate_free") if free and profile.get("rate_free") else profile["rate"]
    rates = {int(w): float(r) for w, r in table.get(pool, {}).items()}
    below = [w for w in rates if w <= workers]
    return rates[max(below)] if below else 1.0
