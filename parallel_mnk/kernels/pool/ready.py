"""The atomic steps of a ready list of tasks in a shared control array (``ctl``):
workers claim entries, the coordinator takes back the ones nobody claimed yet.

An entry is ``ENTRY_WORDS`` int64 words from its base: the task-abort word and the
live-window word a task's search reads (``layout.CTL_TASK_ABORT`` and
``layout.CTL_LIVE_WINDOW``: the entry's base is the search's control slot), then
its state (``FREE``, ``READY``, or the index >= 1 of the worker that claimed it),
its priority (lower first) and the length of its payload. Only two changes of
state race, and both are one compare-and-swap: ``READY`` -> worker (a claim) and
``READY`` -> ``FREE`` (the coordinator takes it back); every other change is made
by the coordinator alone, which owns the entry whenever it is not ``READY``. It
makes an entry ``READY`` with a compare-and-swap too (:func:`publish`): a full
barrier, so a worker that claims the entry sees every word and payload byte
written before it, on any CPU.
"""
import numpy as np
from ..core.jit import entry

from ..core.bits import atomic_cas, atomic_load

FREE = 0
READY = -1
E_STATE = 2          # (0 and 1: the task-abort and live-window words)
E_PRIORITY = 3
E_LENGTH = 4
ENTRY_WORDS = 5


@entry
def claim(ctl, base, count, worker):
    """Claim for ``worker`` the ready entry of lowest priority among the ``count``
    entries from ``ctl[base]``; its index, or -1 when none is ready."""
    while True:
        best = -1
        best_priority = np.int64(0)
        for e in range(count):
            at = base + e * ENTRY_WORDS
            if atomic_load(ctl, at + E_STATE) == READY:
                p = atomic_load(ctl, at + E_PRIORITY)
                if best < 0 or p < best_priority:
                    best, best_priority = e, p
        if best < 0:
            return -1
        if atomic_cas(ctl, base + best * ENTRY_WORDS + E_STATE, np.int64(READY), np.int64(worker)):
            return best


@entry
def publish(ctl, base, entry):
    """Make a free entry ready (after its words and payload are written); False
    when it was not free."""
    return atomic_cas(ctl, base + entry * ENTRY_WORDS + E_STATE, np.int64(FREE), np.int64(READY))


@entry
def take_back(ctl, base, entry):
    """Make a ready (unclaimed) entry free again; False when a worker claimed it first."""
    return atomic_cas(ctl, base + entry * ENTRY_WORDS + E_STATE, np.int64(READY), np.int64(FREE))
