"""parallel_mnk.frontends.serve and ``parallel-mnk serve``: the JSON API answers what the CLI
prints (against analyze(), solve() and best_move() on random positions, free and
gravity, and against the CLI itself), bad input is a 400 with the CLI's message,
a new request stops the one it replaces, one search runs at a time, a client that
closes its connection has its search stopped (or dropped from the queue), the
static files and the limits."""
from __future__ import annotations

import http.client
import io
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

from checks import check_pv, random_positions, web_server
from fuzzing import run_cli
from parallel_mnk import GameSpec, Limit, Position, analyze, best_move, solve
from parallel_mnk.frontends.cli import main
from parallel_mnk.frontends.jobs import Jobs
from parallel_mnk.game.rules import move_list_text, move_list_indexes
from parallel_mnk.frontends.serve import MAX_FIELDS, MAX_URL, peer_closed
from parallel_mnk import Options, parse_move_list

HARD = "game=connect4&moves=4"         # tens of seconds: long enough to stop (4453 now takes about 1 s)
TIMES = {"nodes", "time_s", "cpu_s", "peak_rss"}


def get(server, path, method="GET", headers=None):
    """``(status, JSON body)`` of one request to ``server``."""
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        return response.status, (json.loads(body) if body and response.getheader("Content-Type") ==
                                  "application/json" else body)
    finally:
        conn.close()


def without_times(d):
    """``d`` without the fields that vary from run to run (nodes, seconds, memory)."""
    if isinstance(d, dict):
        return {k: without_times(v) for k, v in d.items() if k not in TIMES}
    if isinstance(d, list):
        return [without_times(v) for v in d]
    return d


def query(pos: Position, by_board: bool = False) -> str:
    spec = pos.spec
    game = {"cols": spec.cols, "rows": spec.rows, "k": spec.k, **({"gravity": 1} if spec.gravity else {})}
    where = {"board": pos.board_text()} if by_board else {"moves": move_list_text(spec, pos.move_stack)}
    return urllib.parse.urlencode({**game, **where})


@pytest.fixture(scope="module")
def server():
    with web_server(max_time=30, book="none") as s:   # (HARD must be searched: the book would answer it)
        yield s


# ---------------------------------------------------------------- the answers
BOARDS = [GameSpec(4, 4, 3), GameSpec(5, 4, 4), GameSpec(4, 4, 4, True), GameSpec(5, 5, 4, True)]


@pytest.mark.parametrize("spec", BOARDS, ids=str)
def test_analyze_and_solve_answer_as_the_engines_on_random_positions(server, spec):
    for i, pos in enumerate(random_positions(spec, 4, (2, spec.cells - 4), seed=spec.cells * 7 + spec.k)):
        status, got = get(server, "/api/analyze?" + query(pos, by_board=i % 2 == 1))
        assert status == 200, got
        assert without_times(got) == without_times(analyze(pos).to_dict()), pos.board_text()
        status, got = get(server, "/api/solve?" + query(pos))
        assert status == 200, got
        expected = solve(pos)
        assert (got["value"], got["score"]) == (expected.value, expected.score)
        assert got["best_move"] == got["pv"][0] and got["best_move"] in analyze(pos).to_dict()["best_moves"]
        check_pv(pos, parse_move_list(spec, ",".join(got["pv"])), expected.score)
        assert sum(w["nodes"] for w in got["workers"]) == got["nodes"]


def test_weak_and_finished_games():
    pos = Position.from_moves(GameSpec(4, 4, 3, True), "1122")
    with web_server() as s:
        status, got = get(s, "/api/analyze?" + query(pos) + "&weak=1")
        assert status == 200 and without_times(got) == without_times(analyze(pos, weak=True).to_dict())
        status, got = get(s, "/api/solve?" + query(pos) + "&weak=yes")
        assert status == 200 and got["score"] is None and got["value"] == solve(pos, weak=True).value
        over = Position.from_moves(GameSpec(4, 4, 3, True), "11223")
        status, got = get(s, "/api/analyze?" + query(over))
        assert status == 200 and got["terminal"] and without_times(got) == without_times(analyze(over).to_dict())
        status, got = get(s, "/api/best?" + query(over))
        assert status == 400 and got == {"error": "the game is over: there is no move to choose"}


def test_a_server_with_a_pool_answers_the_same_and_stops_its_searches():
    pos = Position.from_moves(GameSpec(5, 5, 4, True), "3322")
    with web_server(workers=2) as s:
        status, got = get(s, "/api/analyze?" + query(pos))
        assert status == 200 and without_times(got) == without_times(analyze(pos).to_dict())
        status, got = get(s, "/api/solve?" + query(pos))
        assert status == 200 and (got["value"], got["score"]) == (solve(pos).value, solve(pos).score)
        assert len(got["workers"]) == 3       # the coordinator and two workers
        status, got = get(s, "/api/best?cols=9&rows=9&k=5&moves=e5&depth=3")
        assert status == 200 and len(got["workers"]) == 2
        thread, box = in_thread(s, f"/api/solve?{HARD}&client=p")
        wait_status(s, "p", "searching")
        assert get(s, "/api/solve?game=tictactoe&client=p")[0] == 200
        thread.join(10)
        assert box["status"] == 409
        assert stop_by_closing(s, f"/api/solve?{HARD}") < STOPPED_WITHIN   # (the pool was forked before this socket)


def test_best_answers_as_best_move_on_any_board(server):
    gomoku = Position.from_moves(GameSpec(15, 15, 5), "h8,i9,h9,h10,g10,i8")
    for pos, params, limit in [(gomoku, "&depth=3", Limit(depth=3)), (gomoku, "", Limit(depth=4)),
                               (Position.from_moves(GameSpec(7, 6, 4, True), "4455"), "&depth=5&width=3",
                                Limit(depth=5))]:
        status, got = get(server, "/api/best?" + query(pos) + params)
        assert status == 200, got
        width = 3 if "width" in params else None
        expected = best_move(pos, limit, options=Options(width=width)).to_dict(pos.spec)
        assert without_times(got) == without_times(expected)
        assert got["nodes"] == expected["nodes"]   # the same search, node for node


def test_the_api_prints_what_the_cli_prints():
    """One position per command, against the CLI in a separate process."""
    cases = [("analyze", ["--game", "tictactoe", "--moves", "b2,a1"], "game=tictactoe&moves=b2,a1"),
             ("solve", ["--cols", "4", "--rows", "4", "--k", "3", "--gravity", "--moves", "2,3"],
              "cols=4&rows=4&k=3&gravity=1&moves=2,3"),
             ("best", ["--cols", "9", "--rows", "9", "--k", "5", "--moves", "e5,e6", "--depth", "3"],
              "cols=9&rows=9&k=5&moves=e5,e6&depth=3")]
    # the three command lines in one other process (one start, not three): each one's exit status and output
    lines = [[command, *argv, "--json"] + (["--workers", "1"] if command != "best" else []) for command, argv, _ in cases]
    code = ("import io, json, sys\nfrom parallel_mnk.frontends.cli import main\nanswers = []\n"
            "for argv in json.loads(sys.argv[1]):\n    out = io.StringIO()\n"
            "    answers.append((main(argv, io.StringIO(), out), out.getvalue()))\nprint(json.dumps(answers))")
    cli = subprocess.run([sys.executable, "-c", code, json.dumps(lines)], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    answers = json.loads(cli.stdout)
    with web_server() as s:
        for (command, _, params), (returncode, printed) in zip(cases, answers, strict=True):
            assert returncode == 0, (command, cli.stderr)
            status, got = get(s, f"/api/{command}?{params}")
            assert status == 200
            expected = json.loads(printed)
            assert list(got) == list(expected) and without_times(got) == without_times(expected), command


# ---------------------------------------------------------------- bad input
def cli_error(argv) -> str:
    """The message of ``parallel-mnk argv`` (run here), without its ``parallel-mnk: error:``."""
    err = io.StringIO()
    old, sys.stderr = sys.stderr, err
    try:
        code = main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
    finally:
        sys.stderr = old
    assert code == 2
    return err.getvalue().strip().removeprefix("parallel-mnk: error: ")


@pytest.mark.parametrize("path, argv", [
    ("/api/analyze?game=tictactoe&moves=b2,b2", ["analyze", "--game", "tictactoe", "--moves", "b2,b2"]),
    ("/api/solve?cols=4&rows=4&moves=", ["solve", "--cols", "4", "--rows", "4", "--moves", ""]),
    ("/api/solve?game=connect4&moves=48", ["solve", "--game", "connect4", "--moves", "48"]),
    ("/api/analyze?cols=27&rows=9&k=5", ["analyze", "--cols", "27", "--rows", "9", "--k", "5", "--moves", ""]),
    ("/api/analyze?cols=9&rows=9&k=5&moves=z9&time_limit=0",    # the first of several errors, as there
     ["analyze", "--cols", "9", "--rows", "9", "--k", "5", "--moves", "z9", "--time-limit", "0"]),
    ("/api/solve?cols=9&rows=9&k=5&moves=z9", ["solve", "--cols", "9", "--rows", "9", "--k", "5", "--moves", "z9"]),
    ("/api/solve?cols=9&rows=9&k=10", ["solve", "--cols", "9", "--rows", "9", "--k", "10", "--moves", ""]),
    ("/api/solve?game=tictactoe&moves=&board=.../.../...",
     ["solve", "--game", "tictactoe", "--moves", "", "--board", ".../.../..."]),
    ("/api/analyze?game=tictactoe&board=xx./.../...", ["analyze", "--game", "tictactoe", "--board", "xx./.../..."]),
    ("/api/solve?game=tictactoe&time_limit=-1", ["solve", "--game", "tictactoe", "--moves", "", "--time-limit", "-1"]),
    ("/api/best?cols=27&rows=5&k=5", ["best", "--cols", "27", "--rows", "5", "--k", "5"]),
    ("/api/best?game=tictactoe&depth=99", ["best", "--game", "tictactoe", "--depth", "99"]),
    ("/api/best?game=tictactoe&width=-2", ["best", "--game", "tictactoe", "--width", "-2"]),
])
def test_bad_input_is_a_400_with_the_cli_message(server, path, argv):
    status, got = get(server, path)
    assert status == 400 and got == {"error": cli_error(argv)}


@pytest.mark.parametrize("path, status, fragment", [
    ("/api/analyze?game=chess", 400, "unknown game 'chess'"),
    ("/api/analyze?cols=x&rows=3&k=3", 400, "argument --cols: invalid int value: 'x'"),
    ("/api/solve?game=tictactoe&time_limit=soon", 400, "argument --time-limit: invalid float value"),
    ("/api/solve?game=tictactoe&time_limit=31", 400, "at most 30 s on this server"),
    ("/api/solve?game=tictactoe&time_limit=inf", 400, "at most 30 s"),
    ("/api/solve?game=tictactoe&time_limit=nan", 400, "must be positive"),
    ("/api/solve?game=tictactoe&depth=3", 400, "unknown parameter 'depth'"),
    ("/api/solve?game=tictactoe&game=connect4", 400, "give game once"),
    ("/api/solve?cols=3&rows=3&k=3&gravity=maybe", 400, "yes/no"),
    ("/api/solve?game=tictactoe&client=../x", 400, "client must be"),
    ("/api/analyze?" + "&".join(f"x{i}=1" for i in range(MAX_FIELDS + 1)), 400, "too many parameters"),
    ("/api/solve?game=tictactoe&moves=" + "a1," * (MAX_URL // 3), 414, "over"),
    ("/api/nothing", 404, "no such API path"),
    ("/index.php", 404, "not found"),
    ("/../parallel_mnk/serve.py", 404, "not found"),
    ("/%2e%2e/serve.py", 404, "not found"),
    ("/static/../serve.py", 404, "not found"),
])
def test_bad_requests_get_one_line_of_json(server, path, status, fragment):
    got_status, got = get(server, path)
    assert got_status == status and set(got) == {"error"} and fragment in got["error"], got
    assert "\n" not in got["error"] and "Traceback" not in got["error"]


def test_methods_hosts_and_static_files(server):
    status, got = get(server, "/api/solve?game=tictactoe", method="POST")
    assert status == 405 and "only GET and HEAD" in got["error"]
    status, got = get(server, "/", headers={"Host": "attacker.example:8000"})   # DNS rebinding
    assert status == 403
    for host in ("localhost:1", "127.0.0.1", "[::1]:80"):
        assert get(server, "/api/info", headers={"Host": host})[0] == 200
    status, page = get(server, "/")
    assert status == 200 and b"<script src=\"/app.js\">" in page and b"http" not in page.split(b"<body>")[1]
    for name in ("/app.js", "/style.css"):
        status, text = get(server, name)
        assert status == 200 and len(text) > 1000 and b"//cdn" not in text and b"https://" not in text
    status, info = get(server, "/api/info")
    assert info["presets"]["connect4"] == {"cols": 7, "rows": 6, "k": 4, "gravity": True}
    assert (info["max_exact_cells"], info["max_side"], info["max_time"], info["workers"]) == (64, 26, 30, 1)
    assert get(server, "/app.js", method="HEAD") == (200, b"")
    with socket.create_connection(server.server_address[:2], timeout=30) as raw:   # not HTTP at all
        raw.sendall(b"NONSENSE\r\n\r\n")
        answer = raw.makefile("rb").read()   # an HTTP/0.9 answer, as http.server gives it: the body alone
    assert json.loads(answer.split(b"\r\n\r\n")[-1])["error"].startswith("Bad request syntax")


# ---------------------------------------------------------------- long work
def in_thread(server, path):
    box: dict = {}

    def target():
        t0 = time.perf_counter()
        box["status"], box["body"] = get(server, path)
        box["end"] = time.perf_counter()
        box["took"] = box["end"] - t0

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box


def wait_status(server, client, state, timeout=20.0):
    end = time.monotonic() + timeout
    while True:
        status, got = get(server, f"/api/status?client={client}")
        if got["state"] == state:
            return got
        assert time.monotonic() < end, got
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["analyze", "solve", "best"])
def test_a_new_request_from_the_same_page_stops_the_one_it_replaces(server, kind):
    long = HARD if kind != "best" else "cols=15&rows=15&k=5&moves=h8,i9,h9&depth=40"
    thread, box = in_thread(server, f"/api/{kind}?{long}&client=page1")
    status = wait_status(server, "page1", "searching")
    assert status["kind"] == kind and status["running"] == 1
    time.sleep(0.3)
    status = get(server, "/api/status?client=page1")[1]
    assert status["nodes"] > 0 and status["elapsed_s"] > 0.2     # the page's status line
    t0 = time.perf_counter()
    code, got = get(server, "/api/analyze?game=tictactoe&moves=b2&client=page1")
    assert code == 200 and without_times(got) == without_times(
        analyze(Position.from_moves(GameSpec(3, 3, 3), "b2")).to_dict())
    thread.join(10)
    assert box["status"] == 409 and "replaced" in box["body"]["error"]
    assert box["end"] - t0 < 5, "the replaced search stops at once (generous bound for a busy machine)"
    assert get(server, "/api/status?client=page1")[1]["state"] == "idle"


STOPPED_WITHIN = 2.0   # seconds: the requirement is 0.1 s (bench/serve_closed.py measures it); generous here


def raw_request(server, path):
    """A connected socket that has sent ``GET path`` (and reads nothing)."""
    sock = socket.create_connection(server.server_address[:2], timeout=60)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    return sock


def stop_by_closing(server, path, reset=False):
    """Send ``path`` (a search of tens of seconds) on a raw socket, close it once the
    search runs, and return the seconds until the server runs no search (an
    assertion fails past ``STOPPED_WITHIN``); the next request is answered at once."""
    sock = raw_request(server, path)
    end = time.monotonic() + 30
    while get(server, "/api/status")[1]["running"] == 0:
        assert time.monotonic() < end, "the search did not start"
        time.sleep(0.01)
    time.sleep(0.2)   # well into the search
    if reset:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    t0 = time.monotonic()
    sock.close()
    while get(server, "/api/status")[1]["running"]:
        took = time.monotonic() - t0
        assert took < STOPPED_WITHIN, f"the search of a closed connection still runs after {took:.1f} s"
        time.sleep(0.01)
    took = time.monotonic() - t0
    t1 = time.monotonic()
    code, body = get(server, "/api/analyze?game=tictactoe&moves=b2")
    assert code == 200 and body["value"] == "draw" and time.monotonic() - t1 < STOPPED_WITHIN
    return took


def test_peer_closed_sees_a_close_a_half_close_and_a_reset_and_reads_nothing():
    for how in ("close", "shutdown", "reset"):
        server_side, client = socket.socketpair() if how != "reset" else _tcp_pair()
        with server_side:
            assert not peer_closed(server_side)
            client.sendall(b"GET /next HTTP/1.1\r\n")   # a pipelined request: not a close, and not consumed
            time.sleep(0.01)
            assert not peer_closed(server_side)
            if how == "shutdown":
                client.shutdown(socket.SHUT_WR)
            if how == "reset":
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            if how != "shutdown":
                client.close()
            time.sleep(0.01)
            assert peer_closed(server_side), how
            if how != "reset":
                assert server_side.recv(100) == b"GET /next HTTP/1.1\r\n"
        client.close()
    server_side.close()
    assert peer_closed(server_side)   # a socket closed here


def _tcp_pair():
    """A connected TCP pair on the loopback ``(accepted side, client side)`` (an RST needs TCP)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
    return accepted, client


@pytest.mark.parametrize("kind, reset", [("solve", False), ("analyze", True), ("best", False)])
def test_a_client_that_closes_its_connection_has_its_search_stopped(kind, reset, capsys):
    """Issue 47: a search whose client has gone ran to its time limit, holding the
    pool. Now it stops (0.1 s is the requirement; 2 s here, for a busy machine)
    and the next request is answered at once; one line on the log, no traceback."""
    long = HARD if kind != "best" else "cols=15&rows=15&k=5&moves=h8,i9,h9&depth=40"
    log = io.StringIO()
    with web_server(max_time=60, book="none", log=log) as s:
        stop_by_closing(s, f"/api/{kind}?{long}&time_limit=50", reset)
        assert s.jobs.searches == 2   # the closed one and the next
    assert sum("went away" in line for line in log.getvalue().splitlines()) == 1, log.getvalue()
    assert "Traceback" not in capsys.readouterr().err + log.getvalue()


def test_a_waiting_request_whose_client_has_gone_is_dropped_not_run():
    with web_server(jobs=Jobs(max_waiting=2, wait_s=40), book="none") as s:
        first, first_box = in_thread(s, f"/api/solve?{HARD}&time_limit=30&client=a")
        wait_status(s, "a", "searching")
        gone = raw_request(s, "/api/solve?game=tictactoe&client=b")
        wait_status(s, "b", "waiting")
        gone.close()
        wait_status(s, "b", "idle", timeout=STOPPED_WITHIN)   # out of the queue, while "a" still searches
        status = get(s, "/api/status?client=a")[1]
        assert status["state"] == "searching" and status["waiting"] == 0
        assert get(s, "/api/solve?game=tictactoe&client=a")[0] == 200   # replaces "a"
        first.join(30)
        assert first_box["status"] == 409
        assert s.jobs.searches == 2   # "a" and its replacement: "b" never ran


def test_one_search_at_a_time_others_wait_or_are_refused():
    with web_server(jobs=Jobs(max_waiting=1, wait_s=20), book="none") as s:
        first, first_box = in_thread(s, f"/api/solve?{HARD}&time_limit=1.5&client=a")
        wait_status(s, "a", "searching")
        second, second_box = in_thread(s, "/api/analyze?game=tictactoe&client=b")
        wait_status(s, "b", "waiting")
        status, got = get(s, "/api/solve?game=tictactoe&client=c")   # the queue is full
        assert status == 503 and "busy" in got["error"]
        first.join(30)
        second.join(30)
        assert first_box["status"] == 200 and first_box["body"]["value"] == "unknown"   # its own time limit
        assert second_box["status"] == 200 and second_box["end"] >= first_box["end"] - 0.05
        assert s.jobs.searches == 2
    with web_server(jobs=Jobs(max_waiting=4, wait_s=0.5), book="none") as s:
        first, _ = in_thread(s, f"/api/solve?{HARD}&time_limit=3&client=a")
        wait_status(s, "a", "searching")
        status, got = get(s, "/api/solve?game=tictactoe&client=b")   # waits 0.5 s, then refused
        assert status == 503 and "0.5 s" in got["error"]
        first.join(30)


# ---------------------------------------------------------------- the command
def test_the_serve_command_prints_its_address_and_stops_on_ctrl_c():
    p = subprocess.Popen([sys.executable, "-m", "parallel_mnk", "serve", "--port", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("parallel-mnk serve: http://127.0.0.1:"), line + p.stderr.read()
        url = line.split()[2]
        host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
        conn = http.client.HTTPConnection(host, port, timeout=30)
        conn.request("GET", "/api/analyze?game=tictactoe&moves=a1,b2,c3")
        assert json.loads(conn.getresponse().read())["value"] == "draw"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0 and "stopped" in out and "Traceback" not in err, err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_serve_loads_every_family_a_request_may_need_before_it_listens(monkeypatch):
    """The 30-minute soak (bench/soak_serve.py) saw the proof kernels compiled in its first
    weak free-board request, seconds of wait: they are loaded at start-up with the rest."""
    from parallel_mnk.frontends import serve as serve_module
    loaded = []
    monkeypatch.setattr(serve_module.families, "load", lambda *names, **kw: loaded.extend(names) or 0.0)
    monkeypatch.setattr(serve_module.Server, "serve_forever", lambda self: (_ for _ in ()).throw(KeyboardInterrupt))
    out = io.StringIO()
    assert serve_module.serve(port=0, out=out, book="none") == 0 and "stopped" in out.getvalue()
    assert {"gravity", "free", "proofs", "grid"} <= set(loaded), loaded


@pytest.mark.parametrize("argv, fragment", [
    (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1 port"),
    (["--port", "70000"], "cannot listen"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--max-time", "0"], "--max-time must be positive"),
])
@pytest.mark.timeout(60)   # (in this process: options not refused serve until this bound)
def test_serve_refuses_bad_options_in_one_line(argv, fragment):
    code, _, err = run_cli(["serve", "--port", "0", *argv])   # the CLI in this process (a traceback fails it)
    assert code == 2 and err.startswith("parallel-mnk: error: ") and fragment in err
    assert err.count("\n") == 1, err


def test_a_client_that_goes_away_mid_answer_gets_one_log_line_and_no_traceback(capsys):
    """Reloading or leaving the page while a search runs: the connection is reset
    before the answer is written. The server notes it in one line of its log, prints
    no traceback, and answers the next request."""
    log = io.StringIO()
    with web_server(log=log) as server:
        sock = socket.create_connection(("127.0.0.1", server.server_address[1]))
        sock.sendall(b"GET /api/solve?cols=7&rows=7&k=5&time_limit=0.5 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        time.sleep(0.1)   # the search has started
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")   # reset, not FIN
        sock.close()
        deadline = time.monotonic() + 10
        while "went away" not in log.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        code, body = get(server, "/api/solve?game=tictactoe&moves=b2")
    assert code == 200 and body["value"] == "draw"
    lines = [line for line in log.getvalue().splitlines() if "went away" in line]
    assert lines == ["127.0.0.1 went away before its answer was sent"], log.getvalue()
    assert "Traceback" not in capsys.readouterr().err
