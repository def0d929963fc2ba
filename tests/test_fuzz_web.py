"""Generated requests to the web board's JSON API (``parallel-mnk serve``; tests/fuzzing.py
is the harness): paths and query strings from the API's own parameters with
values right, wrong, huge and nonsense, repeated, unknown, percent-encoded or
raw bytes (spaces, control characters, bytes that are not UTF-8), sent on a
socket as a browser would, one request a connection.

Every request is answered with a status the API names (200, 400, 404, 405, 414,
and http.server's 501 for an unknown method; never 500) and a JSON body of one line (``{"error": ...}`` for every status
but 200); the server's log has no traceback, and it goes on answering. What
``/api/solve`` and ``/api/analyze`` answer for a small board is
naive's (tests/naive.py): the value and score, and each move's score.
"""
from __future__ import annotations

import io
import json
import socket
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from hypothesis import strategies as st

from checks import web_server
from fuzzing import BUDGETS, fuzz, naive_can_solve
from naive import naive_solver
from parallel_mnk.frontends.commands import game_spec, position_of
from parallel_mnk.game.rules import MnkError, move_name, value_of_score

STATUSES = {0, 200, 400, 404, 405, 414, 501}   # 0: HTTP/0.9; 501: a method http.server does not know
small = st.integers(-2, 6).map(str)
VALUES = {
    "game": st.sampled_from(["connect4", "tictactoe", "gomoku", ""]),
    "cols": small | st.sampled_from(["27", "1e3", "x", "", "99999999999999999999"]),
    "rows": small | st.sampled_from(["27", "x", ""]), "k": small | st.sampled_from(["0", "x"]),
    "gravity": st.sampled_from(["", "1", "0", "yes", "maybe"]),
    "moves": st.sampled_from(["", "a1", "a1,b2", "b2,b2", "1", "11", "2,3", "44", "z9", "--"]) | st.text(max_size=8),
    "board": st.sampled_from(["x../.o./...", ".../.../...", "xo/ox", "..../..../..../x..."]) | st.text(max_size=8),
    "time_limit": st.sampled_from(["0.5", "0", "-1", "nan", "inf", "1e-9", "x", "1e400", "61"]),
    "weak": st.sampled_from(["", "1", "0", "true", "2"]),
    "client": st.sampled_from(["page-1", "p_2", "", "x" * 65, "a b", "\u00e9"]),
    "depth": st.sampled_from(["1", "2", "0", "-1", "65", "x"]), "width": st.sampled_from(["0", "1", "-1", "x"]),
}
PATHS = ["/api/solve", "/api/solve", "/api/analyze", "/api/analyze", "/api/best", "/api/status", "/api/info",
         "/api/", "/api/nothing", "/", "/index.html", "/../etc/passwd", "/static/x"]


@st.composite
def requests(draw) -> tuple[str, bytes]:
    """``(method, target)``: an API path and a query of parameters (mostly a small game), maybe edited;
    one in three a right request (a small game, a position, a time limit: the answers get checked)."""
    if draw(st.integers(0, 2)) == 0:
        path = draw(st.sampled_from(["/api/solve", "/api/analyze", "/api/best"]))
        pairs = [("cols", str(draw(st.integers(1, 4)))), ("rows", str(draw(st.integers(1, 4)))),
                 ("k", str(draw(st.integers(1, 4)))), ("moves", draw(st.sampled_from(["", "a1", "a1,b2", "b1,a1"]))),
                 ("time_limit", "1")] + ([("weak", "1")] if draw(st.booleans()) else [])
        return "GET", (path + "?" + "&".join(f"{n}={quote(v)}" for n, v in pairs)).encode()
    path = draw(st.sampled_from(PATHS))
    pairs = []
    if draw(st.integers(0, 3)):
        pairs += [("cols", str(draw(st.integers(1, 4)))), ("rows", str(draw(st.integers(1, 4)))),
                  ("k", str(draw(st.integers(1, 4))))]
    for name in draw(st.lists(st.sampled_from(sorted(VALUES)), max_size=5)):
        pairs.append((name, draw(VALUES[name])))
    if draw(st.integers(0, 5)) == 0:
        pairs.append((draw(st.text(max_size=5)), draw(st.text(max_size=5))))
    pairs = draw(st.permutations(pairs))
    encode = draw(st.sampled_from(["quote", "quote", "raw"]))
    text = "&".join(f"{quote(n)}={quote(v)}" if encode == "quote" else f"{n}={v}" for n, v in pairs)
    target = (path + ("?" + text if text or draw(st.booleans()) else "")).encode("utf-8", "surrogateescape")
    if draw(st.integers(0, 9)) == 0:   # raw bytes: cut, or something put in
        at = draw(st.integers(0, len(target)))
        target = target[:at] + draw(st.binary(max_size=4)) + target[at + draw(st.integers(0, 3)):]
    method = draw(st.sampled_from(["GET"] * 8 + ["HEAD", "POST", "BREW"]))
    return method, target


@pytest.fixture(scope="module")
def server():
    log = io.StringIO()
    with web_server(max_time=2.0, log=log) as s:
        s.test_log = log
        yield s


def ask(server, method: str, target: bytes) -> tuple[int, dict, bytes]:
    """``(status, headers, body)`` of one request on its own connection (status 0: an HTTP/0.9 answer)."""
    with socket.create_connection(server.server_address[:2], timeout=30) as sock:
        sock.sendall(method.encode() + b" " + target + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    if not data.startswith(b"HTTP/"):   # an HTTP/0.9 request ('GET /path', no version) gets a bare body
        return 0, {"Content-Type": "application/json"}, data
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def check_answer(name: str, query: str, body: dict) -> None:
    """A solve's or an analysis' answer is naive's (where naive answers quickly)."""
    params = dict(parse_qsl(query, keep_blank_values=True))
    flag = params.get("gravity", "0").lower() not in ("0", "false", "no", "off")
    try:
        spec = game_spec(params.get("game"), *(int(params[n]) if n in params else None for n in ("cols", "rows", "k")),
                         flag)
        position = position_of(spec, params.get("moves"), params.get("board"))
    except (MnkError, ValueError) as e:   # pragma: no cover - the server answered, so the library reads it too
        raise AssertionError(f"the server answered what the library refuses: {e}") from e
    if not naive_can_solve(spec, position.ply) or body["value"] == "unknown":
        return
    naive = naive_solver(spec)
    truth = naive.score(position.x, position.o)
    assert body["value"] == value_of_score(truth).value, (query, body, truth)
    weak = params.get("weak", "0").lower() in ("", "1", "true", "yes", "on")
    if not weak:
        assert body["score"] == truth, (query, body, truth)
    if name == "analyze" and not position.is_game_over():
        scores = {move_name(spec, m): s for m, s in naive.child_scores(position.x, position.o).items()}
        for move in body["moves"]:
            if move["value"] != "unknown":
                expected = scores[move["move"]]
                assert move["value"] == value_of_score(expected).value, (query, move, expected)
                assert weak or move["score"] == expected, (query, move, expected)


def web_property(server):
    def prop(case) -> bool:   # True: a JSON answer with status 200
        method, target = case
        status, headers, body = ask(server, method, target)
        assert status in STATUSES, (status, target, body)
        log = server.test_log.getvalue()
        assert "Traceback" not in log, log
        if method == "HEAD" or status == 200 and headers.get("Content-Type") != "application/json" or \
                status == 0 and not body.startswith(b"{"):   # HTTP/0.9 (no headers) of a static file
            return False
        assert headers.get("Content-Type") == "application/json", (target, headers)
        assert body.endswith(b"\n") and body.count(b"\n") == 1, body
        answer = json.loads(body)
        if status == 0 and "error" not in answer:   # HTTP/0.9: an answer or an error, status unsaid
            status = 200
        if status != 200:
            assert set(answer) == {"error"} and answer["error"].isprintable(), answer
            return False
        url = urlsplit(target.decode("utf-8"))
        name = url.path[len("/api/"):]
        if name in ("solve", "analyze"):
            check_answer(name, url.query, answer)
        return True
    return prop


@pytest.mark.parametrize("examples", BUDGETS)
def test_api_requests(server, examples):
    fuzz("web_api", requests().map(lambda c: [c[0], c[1]]), web_property(server), examples)
    status, _, body = ask(server, "GET", b"/api/info")
    assert status == 200 and json.loads(body)["max_time"] == 2.0   # it goes on answering


@pytest.mark.parametrize("target", [b"\x7f/api/solve", b"/api/solve?game=tictactoe&moves=a1%1b%5b2J",
                                    b"/api/solve?%00=1"])
def test_errors_quoting_control_characters_are_printable(server, target):
    """Found by this fuzzing: a 404 or 400 quoted the request's control characters raw."""
    status, _, body = ask(server, "GET", target)
    error = json.loads(body)["error"]
    assert status in (400, 404) and error.isprintable(), error
