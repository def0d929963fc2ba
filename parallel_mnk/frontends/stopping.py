"""How a command of ``parallel-mnk`` stops: SIGTERM stops it as Ctrl-C does (the
workers stopped, a journal committed and released), then exits 143 where Ctrl-C
exits 130."""
from __future__ import annotations

import signal
import threading
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread where Ctrl-C raises KeyboardInterrupt."""


_seen = [False]   # Ray's waits turn any exception of a handler into a plain KeyboardInterrupt


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # a second SIGTERM ends the process at once
    _seen[0] = True
    raise Terminated()


def stop_on_sigterm(start: bool = False) -> Any:
    """Make SIGTERM stop the command as Ctrl-C does; from the main thread only (None
    elsewhere), else the handler it replaced. ``start``: a new command (no SIGTERM
    seen yet). Called again after Ray starts (ray.init puts in its own, which exits
    with a native stack dump)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if start:
        _seen[0] = False
    return signal.signal(signal.SIGTERM, _raise_terminated)


def was_terminated(stop: KeyboardInterrupt) -> bool:
    """Whether ``stop`` (what stopped the command) came from SIGTERM rather than Ctrl-C."""
    return isinstance(stop, Terminated) or _seen[0]


def restore_sigterm(previous: Any) -> None:
    """Put back the SIGTERM handler :func:`stop_on_sigterm` replaced (nothing for None)."""
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)
