"""The argument parser of ``parallel-mnk``: argparse whose every error is one
printable line and exit 2, and which reads an option's value as given."""
from __future__ import annotations

import argparse

from .commands import printable

PROG = "parallel-mnk"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2)."""

    def error(self, message: str):
        self.exit(2, f"{PROG}: error: {printable(message)} (try {self.prog} --help)\n")

    def _get_values(self, action, arg_strings):
        """An option's own value ``--`` (``--moves=--``) is that value: argparse before
        Python 3.13 drops it as the end-of-options marker and reads no value at all."""
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)
