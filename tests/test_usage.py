"""docs/usage.md kept true by running it: every command of its ```sh blocks (in a fresh
folder, a block's commands in order, Pons' sets linked in from ../shared/data), its
```python block, and two comparisons with the command line itself: every option a
command has is described in its section and every option the page names exists, and the
limits each option's ``--help`` states (``at most 26``, ``1-64``, ``default 3``) are the
ones the page states beside that option.

A command's comment says what it may do besides exit 0: ``# unknown`` (exit status 3,
a limit stopped it), ``# needs the books extra`` (skipped without it). ``serve`` gets
``--port 0`` (any free port: another may be taken) and is stopped after its first line;
``play`` reads ``quit``. The blocks that take more than a few seconds are marked slow.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checks import missing
from parallel_mnk.frontends.arguments import build_parser
from parallel_mnk.frontends.cli import commands

ROOT = Path(__file__).resolve().parent.parent
USAGE = (ROOT / "docs" / "usage.md").read_text()
DATA = ROOT.parent / "shared" / "data" / "connect4"
SLOW_BLOCKS = ("Test_L2_R2", "book build", "--time-limit 5", "--moves 4453 --workers 1", "c444")


def sh_blocks() -> list[list[tuple[str, str]]]:
    """Every ```sh block: its ``(command, comment)`` pairs (``\\``-continued lines joined)."""
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", USAGE, re.S):
        commands, pending = [], ""
        for line in block.splitlines():
            pending += line.rstrip()
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            command, _, comment = pending.partition("  #")
            if command.strip():
                commands.append((command.strip(), comment.strip()))
            pending = ""
        blocks.append(commands)
    return blocks


BLOCKS = sh_blocks()


def _marks(block: list[tuple[str, str]]) -> list:
    slow = any(word in command for command, _ in block for word in SLOW_BLOCKS)
    return [pytest.mark.slow] if slow else []


def run_command(command: str, comment: str, cwd: Path, exe: str) -> subprocess.CompletedProcess:
    """One command of the page, as a user types it (``parallel-mnk`` the installed one)."""
    command = command.replace("parallel-mnk", exe)
    if re.search(r"\bserve\b", command) and "|" not in command:
        proc = subprocess.Popen(f"{command} --port 0", shell=True, cwd=cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            first = proc.stdout.readline()
        finally:
            os.killpg(proc.pid, 15)
            _, err = proc.communicate(timeout=30)
        return subprocess.CompletedProcess(command, 0, first, err)
    stdin = "quit\n" if re.search(r"\bplay\b", command) else ""
    return subprocess.run(command, shell=True, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("block", [pytest.param(i, marks=_marks(b), id=b[0][0][:60]) for i, b in enumerate(BLOCKS)])
def test_every_command_of_the_page_runs(block, tmp_path):
    exe = shutil.which("parallel-mnk") or pytest.skip("parallel-mnk is not on PATH (the README's install)")
    for command, comment in BLOCKS[block]:
        for name in set(re.findall(r"\bTest_L\d_R\d\b", command)):
            if not (DATA / name).exists():
                missing(f"{DATA / name} not found: Pons' test sets are third-party data that is not shipped")
            (tmp_path / name).symlink_to(DATA / name)
        if "needs the books extra" in comment and importlib.util.find_spec("bitbully_databases") is None:
            pytest.skip("the books extra is not installed (pip install -e '.[books]')")
        run = run_command(command, comment, tmp_path, exe)
        want = 3 if comment.startswith("unknown") else 0
        assert run.returncode == want, (command, run.returncode, run.stderr[-2000:])
        assert "Traceback" not in run.stderr, (command, run.stderr[-2000:])
        assert run.stdout.strip(), (command, "printed nothing")


@pytest.mark.slow
def test_the_python_block_runs(monkeypatch, tmp_path, capsys):
    block = re.search(r"```python\n(.*?)```", USAGE, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/usage.md", "exec"), {"__name__": "usage"})
    out = capsys.readouterr().out
    assert "loss for X, score -2, best move" in out


# ------------------------------------------------------------------ the page and --help
PARSER = build_parser(commands())
SUBPARSERS = next(a for a in PARSER._actions if a.__class__.__name__ == "_SubParsersAction").choices
# the page's sections of each command (the section on boards past 64 cells is solve's too)
SECTIONS = {"serve": ["serve"], "solve": ["solve", "Boards past 64 cells"], "analyze": ["analyze"], "best": ["best"],
            "play": ["play"], "nmk": ["nmk"], "warm-up": ["warm-up"], "book": ["book"], "verify": ["verify"]}
GAME_OPTIONS = {"--game", "--cols", "--rows", "--k", "--gravity", "--help", "--setting"}   # said once, at the top of the page


def section(title: str) -> str:
    """The text of the page's ``###`` section whose title starts with ``title`` (or `` `title` ``)."""
    parts = re.split(r"^### ", USAGE, flags=re.M)
    found = [p for p in parts if p.startswith(f"`{title}`") or p.startswith(title)]
    assert found, f"docs/usage.md has no section {title!r}"
    return found[0].split("\n## ")[0]


def options_of(command: str) -> dict[str, str]:
    """``--option`` -> its help text, for every option of ``command``."""
    out = {}
    for action in SUBPARSERS[command]._actions:
        for flag in action.option_strings:
            if flag.startswith("--"):
                out[flag] = action.help or ""
    return out


def prose(text: str) -> str:
    """``text`` without its code blocks, and without the options of other programs
    (``run_bench.py --suites``)."""
    return re.sub(r"`run_bench\.py[^`]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))


def command_text(command: str) -> str:
    """What the page says of ``command``: its sections, and solve's where they say
    that its options are "as for `solve`"."""
    text = "\n".join(prose(section(title)) for title in SECTIONS[command])
    if command != "solve" and "as for `solve`" in text:
        text += "\n" + command_text("solve")
    return text


@pytest.mark.parametrize("command", sorted(SECTIONS))
def test_the_page_describes_every_option_of_each_command(command):
    text = command_text(command)
    undescribed = [flag for flag in options_of(command) if flag not in GAME_OPTIONS and flag not in text]
    assert not undescribed, f"docs/usage.md's {command} section does not describe {undescribed}"


def test_every_option_the_page_names_exists():
    known = {flag for command in SUBPARSERS for flag in options_of(command)} | {"--version"}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", prose(USAGE)))
    assert named <= known, f"docs/usage.md names options no command has: {sorted(named - known)}"


LIMIT = re.compile(r"\b(\d+)-(\d+)\b|between (\d+) and (\d+)|\b(\d+) or more\b"
                   r"|(?:at most|up to|default:?) (?:all )?(?:up to )?(\d[\d,.]*(?:e\d+)?)(?!-\d)")


def limits(text: str) -> set[str]:
    """The numbers of the limits ``text`` states: ``at most 26``, ``(1-64``, ``default 3``,
    ``20 or more``, ``between 0 and 8`` (commas and a trailing point dropped)."""
    return {n.replace(",", "").rstrip(".") for m in LIMIT.finditer(text) for n in m.groups() if n}


def near(text: str, flag: str) -> str:
    """What the page says beside ``flag``: the table rows that name it, and in the prose
    each stretch from it to the next option it names."""
    rows = [line for line in text.splitlines() if line.startswith("|") and flag in line]
    flowing = " ".join(line for line in text.splitlines() if not line.startswith("|"))
    stretches = [m.group(0) for m in re.finditer(rf"{re.escape(flag)}(?![\w-]).*?(?=`--|$|\.\s)", flowing)]
    return " ".join(rows + stretches)


@pytest.mark.parametrize("command", sorted(SECTIONS))
def test_help_and_page_state_the_same_limits(command):
    """Each option's ``--help`` limits are stated beside it on the page, and the limits the
    page states beside an option are its ``--help``'s (when its help states any)."""
    text = command_text(command)
    own = "\n".join(prose(section(title)) for title in SECTIONS[command])
    disagree = []
    for flag, help_text in options_of(command).items():
        # (an option the command's own section describes: there; else where its options are "as for solve")
        said, stated = limits(help_text), limits(near(own, flag) or near(text, flag))
        if said - stated or (said and stated - said):
            disagree.append(f"{flag}: --help {sorted(said)}, docs {sorted(stated)}")
    description = " ".join((SUBPARSERS[command].description or "").split())
    if limits(description) - limits(text):
        disagree.append(f"description: --help {sorted(limits(description))}, docs {sorted(limits(text))}")
    assert not disagree, f"{command}: " + "; ".join(disagree)
