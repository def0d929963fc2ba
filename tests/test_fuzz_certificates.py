"""Generated mnk-proof/1 certificates for ``parallel-mnk verify`` (tests/fuzzing.py is the
harness): real certificates of small positions (written by ``solve --certificate``),
then broken on purpose: lines cut, dropped, repeated, swapped or shuffled; a value of
the header or a record replaced by one of another type, a huge number, another
board, a junk string; a line replaced by junk; the file written plain or
xz-compressed, the xz bytes flipped, cut or followed by junk.

Whatever the file, ``verify`` says one thing and exits accordingly: ``verified`` (0),
one ``FAILED at ...`` line (1) or one ``verify: error: ...`` line (2); never a
traceback, never a hang. And a certificate it verifies states the truth: the claim
of its header holds for its root, by naive (tests/naive.py).
"""
from __future__ import annotations

import json
import lzma
import random

import pytest
from hypothesis import strategies as st

from fuzzing import BUDGETS, fuzz, naive_can_solve, run_cli
from naive import naive_score
from parallel_mnk import GameSpec
from parallel_mnk.game.rules import parse_board_text

SOURCES = [   # (game options, moves) of the certificates the mutations start from
    (["--game", "tictactoe"], ""),
    (["--game", "tictactoe"], "b2,a1"),
    (["--cols", "4", "--rows", "4", "--k", "3", "--gravity"], ""),
    (["--cols", "4", "--rows", "3", "--k", "3"], "a1"),
    (["--cols", "4", "--rows", "4", "--k", "4", "--gravity"], "1,2,1"),
]
BOARDS = [".../.../...", "x../.../...", "..x/.o./x..", "..../..../..../....", "x.../..../..../o...", "xo/ox", ""]
json_values = st.one_of(
    st.integers(-3, 10), st.sampled_from([10 ** 30, -10 ** 30, 2 ** 63, 3.0, 1e308, float("nan")]),
    st.booleans(), st.none(), st.sampled_from(BOARDS + ["a1", "b2", "c3", "d4", "z9", "a0", "x", "o", "wins",
                                                        "cannot-win", "mnk-proof/1", "mnk-proof/2", "\n", "\x00"]),
    st.text(max_size=6), st.lists(st.integers(0, 3), max_size=3), st.just({"p": ".../.../..."}))
KEYS = ["format", "cols", "rows", "k", "gravity", "root", "attacker", "claim", "p", "m", "pairs", "extra"]
operations = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 200), st.sampled_from(KEYS), json_values),
    st.tuples(st.sampled_from(["drop", "repeat"]), st.integers(1, 200)),   # a record
    st.tuples(st.just("cut"), st.integers(0, 4000)),
    st.tuples(st.sampled_from(["drop", "repeat"]), st.integers(0, 200)),
    st.tuples(st.just("swap"), st.integers(0, 200), st.integers(0, 200)),
    st.tuples(st.just("shuffle"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("set"), st.integers(0, 200), st.sampled_from(KEYS), json_values),
    st.tuples(st.just("junk"), st.integers(0, 200), st.text(max_size=20)))
encodings = st.one_of(   # mostly readable files: the checker's own checks are the point
    st.tuples(st.sampled_from(["plain", "xz"])), st.tuples(st.sampled_from(["plain", "xz"])),
    st.tuples(st.sampled_from(["plain", "xz"])),
    st.tuples(st.just("xz-flip"), st.integers(0, 2000), st.integers(1, 255)),
    st.tuples(st.just("xz-cut"), st.integers(0, 2000)),
    st.tuples(st.just("xz-junk"), st.binary(max_size=16)))
cases = st.tuples(st.integers(0, len(SOURCES) - 1), st.lists(operations, max_size=3), encodings).map(list)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """The text (decompressed) of every certificate file that ``solve --certificate`` writes for SOURCES."""
    texts = []
    for i, (game, moves) in enumerate(SOURCES):
        folder = tmp_path_factory.mktemp(f"cert{i}")
        code, _, err = run_cli(["solve", *game, f"--moves={moves}", "--workers", "1", "--certificate", str(folder)])
        assert code == 0, err
        texts += [lzma.decompress(p.read_bytes()).decode() for p in sorted(folder.glob("*.jsonl.xz"))]
    return texts


def mutate(text: str, ops: list) -> str:
    """``text`` after the line operations ``ops`` (indexes wrap around the lines)."""
    lines = text.splitlines()
    for op in ops:
        name, args = op[0], op[1:]
        n = max(len(lines), 1)
        if name == "cut":
            joined = "\n".join(lines)
            lines = joined[:args[0] % (len(joined) + 1)].split("\n")
        elif name == "drop":
            del lines[args[0] % n:args[0] % n + 1]
        elif name == "repeat":
            lines[args[0] % n:args[0] % n] = lines[args[0] % n:args[0] % n + 1]
        elif name == "swap" and lines:
            i, j = args[0] % n, args[1] % n
            lines[i], lines[j] = lines[j], lines[i]
        elif name == "shuffle":
            random.Random(args[0]).shuffle(lines)
        elif name == "set" and lines:
            i = args[0] % n
            try:
                value = json.loads(lines[i])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                value[args[1]] = args[2]
                lines[i] = json.dumps(value)
        elif name == "junk" and lines:
            lines[args[0] % n] = args[1]
    return "\n".join(lines) + "\n"


def encode(text: str, how: list) -> tuple[str, bytes]:
    """``(file suffix, bytes)`` of ``text`` written as ``how`` says."""
    data = text.encode("utf-8", "surrogatepass")
    if how[0] == "plain":
        return ".jsonl", data
    packed = lzma.compress(data)
    if how[0] == "xz-flip":
        at = how[1] % len(packed)
        packed = packed[:at] + bytes([packed[at] ^ how[2]]) + packed[at + 1:]
    elif how[0] == "xz-cut":
        packed = packed[:how[1] % (len(packed) + 1)]
    elif how[0] == "xz-junk":
        packed += bytes(how[1])
    return ".jsonl.xz", packed


def claim_holds(head: dict, root: str, attacker: str, claim: str) -> bool | None:
    """Whether ``attacker`` ``claim`` holds from ``root`` of the header's game, by naive (None: too big for it)."""
    spec = GameSpec(head["cols"], head["rows"], head["k"], head["gravity"])
    x, o = parse_board_text(spec, root)
    if not naive_can_solve(spec, (x | o).bit_count()):
        return None
    score = naive_score(spec, x, o)
    to_move = "x" if x.bit_count() == o.bit_count() else "o"
    wins = score > 0 if to_move == attacker else score < 0
    return wins if claim == "wins" else not wins


def certificate_property(tmp_dir, texts):
    def prop(case) -> bool:   # True: the checker gave a verdict (verified, or FAILED at a record)
        source, ops, how = case
        text = mutate(texts[source % len(texts)], ops)
        suffix, data = encode(text, how)
        path = tmp_dir / f"case{suffix}"
        path.write_bytes(data)
        code, out, err = run_cli(["verify", str(path)])
        assert "Traceback" not in err and code in (0, 1, 2), (code, out, err)
        if code == 2:
            assert out == "" and err.count("\n") == 1 and err.startswith("verify: error: "), err
            assert err.rstrip("\n").isprintable(), err
            return False
        assert err == "", err
        lines = out.splitlines()
        if code == 1:
            assert len(lines) == 1 and lines[0].startswith("FAILED at ") and lines[0].isprintable(), out
            return True
        assert lines and lines[0].startswith("verified: "), out
        words = lines[0].split()   # verified: ATTACKER CLAIM from ROOT (...)
        head = json.loads(text.splitlines()[0])
        holds = claim_holds(head, words[4], words[1], words[2])
        assert holds is not False, f"verified a false claim: {lines[0]} ({head})"
        return True
    return prop


@pytest.mark.parametrize("examples", BUDGETS)
def test_certificates(examples, sources, tmp_path):
    fuzz("certificates", cases, certificate_property(tmp_path, sources), examples)
