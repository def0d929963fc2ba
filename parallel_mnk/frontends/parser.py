"""The argument parser of ``parallel-mnk``: argparse whose every error is one
printable line and exit 2, which names the option or choice a mistyped one was
probably meant to be, and which reads an option's value as given."""
from __future__ import annotations

import argparse
import difflib
import re
from typing import Iterable, Optional

from .commands import printable

PROG = "parallel-mnk"
_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the choice closest to ``word``, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) and "did you mean" on a mistyped
    option, command or choice."""

    def error(self, message: str):
        m = _INVALID_CHOICE.search(message)
        if m:
            message += did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
        self.exit(2, f"{PROG}: error: {printable(message)} (try {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):
        """argparse's, with the closest known option named for each unknown one."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            known = self._command_parser(parsed)._option_string_actions
            hints = "".join(did_you_mean(word.split("=")[0], known) for word in extras if word.startswith("--"))
            self.error(f"unrecognized arguments: {' '.join(extras)}{hints}")
        return parsed

    def _command_parser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The parser of the subcommand ``parsed`` is for (this one when none)."""
        command: Optional[str] = getattr(parsed, "command", None)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                return action.choices[command]
        return self

    def _get_values(self, action, arg_strings):
        """An option's own value ``--`` (``--moves=--``) is that value: argparse before
        Python 3.13 drops it as the end-of-options marker and reads no value at all."""
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)
