"""The README's examples, run: each ```console block's commands (``$ ...``) in a fresh
folder, their standard output against the lines the README prints, and the ```python
block as a doctest. What a run may change is left out of the comparison: times
(seconds and rates), the start-up line of the kernels, ``compiled`` / ``in the cache``
(whether this machine compiled them before), the server's port, and node counts by up
to 2 % (a gravity board's table salt is drawn anew each run)."""
from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
TIME = re.compile(r"\d+(\.\d+)?(?= s\b)|\d+\.\d+(?= M nodes/s)|(?<=\"cpu_s\": )[\d.]+|(?<=\"time_s\": )[\d.]+")
NODES = re.compile(r"(?<=nodes: )[\d,]+|[\d,]+(?= nodes)|(?<=\"nodes\": )\d+")
PORT = re.compile(r"(?<=127\.0\.0\.1:)\d+")


def examples() -> list[list[tuple[str, list[str]]]]:
    """Every ```console block: its ``(command, expected output lines)`` in order."""
    blocks = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        runs: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                runs.append((line[2:], []))
            else:
                runs[-1][1].append(line)
        blocks.append(runs)
    return blocks


def normal(line: str) -> tuple[str, list[int]]:
    """``line`` with its times and port masked and its node counts taken out (returned apart)."""
    nodes = [int(n.replace(",", "")) for n in NODES.findall(line)]
    line = PORT.sub("PORT", NODES.sub("N", TIME.sub("T", line)))
    return line.replace("compiled", "in the cache"), nodes


def check_lines(got: list[str], want: list[str], where: str) -> None:
    got = [line for line in got if not line.startswith("(kernel") and not line.startswith("(kernel and Ray")]
    assert len(got) == len(want), (where, got, want)
    for g, w in zip(got, want):
        (g_text, g_nodes), (w_text, w_nodes) = normal(g), normal(w)
        assert g_text == w_text, (where, g, w)
        assert len(g_nodes) == len(w_nodes) and all(abs(a - b) <= 0.02 * b + 2 for a, b in zip(g_nodes, w_nodes)), \
            (where, g, w)


CONSOLE = examples()


def test_every_command_has_an_example():
    named = {re.search(r"parallel-mnk ([\w-]+)", command).group(1) for runs in CONSOLE for command, _ in runs}
    assert named >= {"solve", "analyze", "best", "play", "serve", "nmk", "book", "verify", "warm-up"}


def run_example(command: str, cwd: Path) -> list[str]:
    """The standard output lines of one README command (``serve``: its first line, on any free port)."""
    if " serve " in command:
        proc = subprocess.Popen(command.replace("--port 8000", "--port 0"), shell=True, cwd=cwd,
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            return [proc.stdout.readline().rstrip("\n")]
        finally:
            os.killpg(proc.pid, 15)
            proc.wait(30)
    run = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (command, run.stderr)
    return run.stdout.splitlines()


@pytest.mark.parametrize("block", range(len(CONSOLE)), ids=lambda i: CONSOLE[i][0][0][:50])
def test_the_readme_example_prints_what_it_says(block, tmp_path):
    exe = shutil.which("parallel-mnk") or pytest.skip("parallel-mnk is not on PATH (the README's install)")
    for command, want in CONSOLE[block]:   # in one folder: a book built, then read
        check_lines(run_example(command.replace("parallel-mnk", exe), tmp_path), want, command)


def test_the_python_example_runs_as_printed(monkeypatch, tmp_path):
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=sys.stdout.write)
    assert result.failed == 0 and result.attempted >= 8, result
