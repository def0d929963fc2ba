"""What a check says: a :class:`Verdict` of a verified certificate, :class:`Failed`
(the certificate does not prove its claim) and :class:`Unreadable` (not a certificate),
each message one printable line (:func:`printable`). Standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def printable(text: str) -> str:
    """``text`` with each character a terminal would not show as itself written as its
    Python escape: a message quoting a file stays one plain line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


class Unreadable(Exception):
    """A file that cannot be read as a certificate (exit 2); the message is one printable line."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


class Failed(Exception):
    """The certificate does not prove its claim: ``board`` (text) and the reason, in one printable line."""

    def __init__(self, board: str, reason: str) -> None:
        super().__init__(printable(f"FAILED at {board}: {reason}"))


@dataclass
class Verdict:
    """A verified certificate: its header's game, root, attacker and claim, the
    positions walked, the records used and those never reached."""

    cols: int
    rows: int
    k: int
    gravity: bool
    root: str
    attacker: str
    claim: str
    positions: int   # positions walked: memoised ones and those the rules 1 and 2 settled
    used: int
    unused: int
    rules: dict = field(default_factory=dict)   # mnk-proof/2: how often each of RULES applied


    def line(self) -> str:
        """The page's ``verified:`` line."""
        return (f"verified: {self.attacker} {self.claim} from {self.root} ({counted(self.positions, 'position')}, "
                f"{counted(self.used, 'record')} used, {counted(self.unused, 'record')} unused)")


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1: ``1 position``, ``2 positions``."""
    return f"{n} {word}" + ("" if n == 1 else "s")
