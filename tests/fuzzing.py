"""The harness of the generated-input tests (tests/test_fuzz_*.py), on Hypothesis.

Each parser's test calls :func:`fuzz` with a strategy and a property:

* the budget: ``DEFAULT_EXAMPLES`` inputs in the default run (the same ones every
  run: Hypothesis derandomized), new ones under ``-m slow`` up to ``SLOW_EXAMPLES``
  or ``SLOW_SECONDS``, whichever comes first (the clock is read before every input
  after the first chunk of ``SLOW_CHUNK``: a chunk no longer runs on past it; the
  ``BUDGETS`` parameters; those are
  marked ``fuzz`` too, so that ``-m fuzz`` runs them alone): the fuzz stage of CI ends
  by its own clock, never cut by a timeout; Hypothesis' own deadline is
  off, a watchdog instead fails any one input that runs past ``HANG_SECONDS``
  (a hang), whatever it does (and hands pytest-timeout's alarm on);
* valid inputs: a property returns True for an input that reached an answer (not an
  error message), and a test fails when fewer than ``min_valid`` of its inputs (a
  share) did: a strategy that only makes junk checks nothing about the answers;
* Hypothesis' health checks are on (a strategy that filters out most of what it
  draws, or draws too slowly, fails);
* the corpus: ``tests/fuzz_corpus/<parser>.jsonl`` holds every input that once
  failed (one JSON value a line, with the error it gave). They run first, every
  time; a new failure's smallest input is appended there by the harness, to be
  kept (committed) with its fix;
* the report: with ``PARALLEL_MNK_FUZZ_REPORT=<file>`` each run appends a JSON
  line (parser, inputs tried, corpus entries, seconds) to that file: the figures
  of bench/README.md.

Properties say what must hold for every input: a one-line error or a right
answer (:func:`one_line_error`, :func:`run_cli`).
"""
from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import shutil
import signal
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DEFAULT_EXAMPLES = 200
SLOW_EXAMPLES = 20_000
SLOW_SECONDS = 60.0      # a slow budget's clock: 11 properties, about 12 minutes in all on 2 cores
SLOW_CHUNK = 500         # the slow budget runs Hypothesis in chunks of this many inputs until a limit
MIN_VALID_SHARE = 0.1    # the share of inputs that must reach an answer, unless a test says otherwise
SUPPRESSED: list[HealthCheck] = []   # every health check on
HANG_SECONDS = 30.0
CORPUS = Path(__file__).with_name("fuzz_corpus")
BUDGETS = [pytest.param(DEFAULT_EXAMPLES, id="default"),   # the slow budget is marked fuzz too: CI runs it last
           pytest.param(SLOW_EXAMPLES, id="slow", marks=[pytest.mark.slow, pytest.mark.fuzz])]


class Hang(BaseException):
    """One input ran past ``HANG_SECONDS`` (a BaseException: no ``except Exception`` hides it)."""


# ---------------------------------------------------------------- corpus values
def to_json(value: Any) -> Any:
    """``value`` as JSON: bytes as ``{"b64": ...}``, tuples as lists (:func:`from_json` inverts it)."""
    if isinstance(value, bytes):
        return {"b64": base64.b64encode(value).decode()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def from_json(value: Any) -> Any:
    """Inverse of :func:`to_json` (lists stay lists)."""
    if isinstance(value, dict) and set(value) == {"b64"}:
        return base64.b64decode(value["b64"])
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: from_json(v) for k, v in value.items()}
    return value


def corpus(parser: str) -> list[Any]:
    """The inputs kept for ``parser`` (those that once failed)."""
    path = CORPUS / f"{parser}.jsonl"
    if not path.exists():
        return []
    return [from_json(json.loads(line)["input"]) for line in path.read_text().splitlines() if line.strip()]


def _keep(parser: str, value: Any, error: BaseException) -> None:
    CORPUS.mkdir(exist_ok=True)
    line = json.dumps({"input": to_json(value), "error": f"{type(error).__name__}: {error}"[:300]})
    with open(CORPUS / f"{parser}.jsonl", "a") as f:
        f.write(line + "\n")


# ---------------------------------------------------------------- the run
@contextlib.contextmanager
def watchdog(seconds: float = HANG_SECONDS):
    """Raise :class:`Hang` in this (the main) thread if the block runs past ``seconds``.
    An alarm already set (pytest-timeout's bound on the whole test) is kept: when it
    falls due first, its own handler runs then; after the block it is set again
    for the time it had left."""
    began = time.monotonic()
    outer_left = signal.getitimer(signal.ITIMER_REAL)[0]
    outer = signal.getsignal(signal.SIGALRM)
    outer_first = 0 < outer_left <= seconds

    fired = []

    def alarm(signum, frame):
        fired.append(True)
        if outer_first and callable(outer):
            outer(signum, frame)   # the test's own time is up (pytest-timeout fails it, naming it)
        raise Hang(f"no answer within {seconds:g} s")

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, outer_left if outer_first else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer)
        if outer_left > 0 and not (fired and outer_first):   # (an outer alarm that went off is spent)
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - began), 1e-3))


def fuzz(parser: str, strategy: st.SearchStrategy, prop: Callable[[Any], bool], examples: int,
         min_valid: float = MIN_VALID_SHARE) -> int:
    """Check ``prop`` on every corpus input of ``parser``, then on ``examples``
    inputs drawn from ``strategy`` (the slow budget: until ``SLOW_SECONDS`` too);
    returns how many inputs were tried. ``prop`` returns True when the input reached
    an answer; fewer than ``min_valid`` (a share) of such inputs fails the test. A
    failing input (after Hypothesis shrinks it) is appended to the corpus, and the
    test fails."""
    tried, valid = [0], [0]
    failures: list[tuple[Any, BaseException]] = []
    started = time.perf_counter()
    kept = corpus(parser)
    for value in kept:
        with watchdog():
            prop(value)

    slow = examples > DEFAULT_EXAMPLES

    def one(value: Any) -> None:
        if slow and not failures and tried[0] >= SLOW_CHUNK and time.perf_counter() - started >= SLOW_SECONDS:
            return   # the clock ran out inside a chunk: its other draws are not run (nor counted; a failure's
                     # shrinking runs on, so that Hypothesis can replay and shrink it)
        tried[0] += 1
        try:
            with watchdog():
                valid[0] += bool(prop(value))
        except BaseException as e:
            failures.append((value, e))
            if isinstance(e, Hang):   # Hypothesis lets BaseExceptions through unshrunk
                raise AssertionError(str(e)) from e
            raise

    def run(count: int, derandomize: bool) -> None:
        # Hypothesis does not run an input it has run already, yet counts it: 10 % more makes ``count`` distinct
        settings(max_examples=count + count // 10, deadline=None, derandomize=derandomize, database=None,
                 suppress_health_check=SUPPRESSED)(given(strategy)(one))()

    try:
        if not slow:   # the same inputs every run (a test run that fails at random helps nobody: new inputs
            run(examples, derandomize=True)   # are the slow budget's work, and come back here through the corpus)
        else:          # new inputs, chunk after chunk, until the count or the clock runs out
            while tried[0] < examples and time.perf_counter() - started < SLOW_SECONDS:
                run(min(SLOW_CHUNK, examples - tried[0]), derandomize=False)
    except BaseException as e:   # Hypothesis shows each distinct failure's smallest input last
        distinct = len(getattr(e, "exceptions", [e]))   # an exception group: one a failure
        for value, error in failures[-distinct:]:
            if isinstance(error, (Exception, Hang)):   # (not the test's own time running out, nor Ctrl-C)
                _keep(parser, value, error)
        raise
    finally:
        report = os.environ.get("PARALLEL_MNK_FUZZ_REPORT")
        if report:
            with open(report, "a") as f:
                f.write(json.dumps({"parser": parser, "tried": tried[0], "valid": valid[0], "corpus": len(kept),
                                    "seconds": round(time.perf_counter() - started, 2)}) + "\n")
    floor = DEFAULT_EXAMPLES if slow else examples
    assert tried[0] >= floor, f"{parser}: {tried[0]} inputs tried, fewer than {floor}"
    assert valid[0] >= min_valid * tried[0], \
        f"{parser}: {valid[0]} of {tried[0]} inputs reached an answer, under {min_valid:.0%}"
    return tried[0]


# ---------------------------------------------------------------- what must hold
def one_line_error(err: str, prefix: str = "parallel-mnk: error: ") -> str:
    """Assert ``err`` is one line starting with ``prefix`` and no traceback; returns the message."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), f"not one error line: {err!r}"
    return lines[0][len(prefix):]


_PARSERS: dict[tuple, Any] = {}   # the CLI's parser, by the command functions it was built with


@contextlib.contextmanager
def _one_parser() -> Iterator[None]:
    """``main`` builds the CLI's parser on every call (5-10 ms: half of a fuzz input's
    time in this process, where a command line is run once a process): here the
    parser of a set of command functions is built once and used again (parsing leaves
    a parser as it was). The functions are the key, kept alive with it, so that a test
    that replaces one gets a parser of its own."""
    from parallel_mnk.frontends import cli

    real = cli.build_parser

    def built_once(commands: dict) -> Any:
        key = tuple(commands.items())
        if key not in _PARSERS:
            _PARSERS[key] = real(commands)
        return _PARSERS[key]

    cli.build_parser = built_once
    try:
        yield
    finally:
        cli.build_parser = real


def run_cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``parallel-mnk argv`` in this process: ``(exit status, stdout, stderr)``; an
    exception escaping the CLI (a traceback for its user) fails the test."""
    from parallel_mnk.frontends.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), _one_parser():
        try:
            code = main(argv, io.StringIO(stdin), out)
        except SystemExit as e:   # argparse's errors and --help
            code = e.code if isinstance(e.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def naive_can_solve(spec, stones: int) -> bool:
    """Whether tests/naive.py answers a position of ``spec`` with ``stones`` on the board
    within a few seconds: gravity boards of at most 20 cells, free ones with at most 10 empty."""
    return spec.cells <= 20 if spec.gravity else spec.cells - stones <= 10


# ---------------------------------------------------------------- damaged files
byte_damage = st.one_of(   # what a disk, a copy or a careless editor does to a file
    st.tuples(st.just("flip"), st.integers(0, 10 ** 6), st.integers(1, 255)),
    st.tuples(st.just("zero-page"), st.integers(0, 50)),
    st.tuples(st.just("cut"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("append"), st.binary(min_size=1, max_size=64)),
    st.tuples(st.just("random"), st.binary(max_size=200)))


def damage_bytes(path: Path, how: Any) -> bool:
    """Apply ``how`` (one of :data:`byte_damage`) to the bytes of ``path``: a byte flipped,
    a 4 KiB page zeroed, the file cut, junk appended, or random bytes for the file;
    False (nothing done) when ``how`` is not a byte damage."""
    name = how[0]
    if name not in ("flip", "zero-page", "cut", "append", "random"):
        return False
    data = bytearray(path.read_bytes())
    if name == "flip" and data:
        data[how[1] % len(data)] ^= how[2]
    elif name == "zero-page":
        at = how[1] * 4096 % max(len(data), 1)
        data[at:at + 4096] = bytes(len(data[at:at + 4096]))
    elif name == "cut":
        del data[how[1] % (len(data) + 1):]
    elif name == "append":
        data += how[1]
    elif name == "random":
        data = bytearray(how[1])
    path.write_bytes(bytes(data))
    return True


@contextlib.contextmanager
def memory_folder(fallback: Path) -> Iterator[Path]:
    """A folder in memory (``/dev/shm``) for a fuzz test's damaged copies of SQLite files
    (books, journals): SQLite's syncs on each commit and close were most of an input's
    time on a disk (the disk is not what these tests check); ``fallback`` where there is
    no such folder. Removed afterwards."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield fallback
        return
    folder = Path(tempfile.mkdtemp(prefix="parallel-mnk-fuzz-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_copy(source: Path, path: Path) -> None:
    """Copy the SQLite file ``source`` to ``path``, first removing ``path`` with the
    -wal, -shm and -journal files an earlier case may have left beside it (SQLite
    would otherwise read a stale -wal into the new copy)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, path)


def damage_file(path: Path, how: Any, edit: Callable[[Any, Any], None]) -> None:
    """Damage the SQLite file at ``path``: its bytes when ``how`` is one of :data:`byte_damage`,
    else ``edit(connection, how)`` in one transaction. An edit SQLite or Python refuses (an
    earlier damage left no such table, or no readable file) leaves the file as it is: that file
    is the damage."""
    if damage_bytes(path, how):
        return
    try:
        with contextlib.closing(sqlite3.connect(path)) as db, db:   # closed now, even when the edit fails
            edit(db, how)
    except (sqlite3.Error, OverflowError, UnicodeDecodeError):
        pass
