"""The client side of ``bench/soak_serve.py``: the requests its client threads send
to ``parallel-mnk serve`` and the checks of every answer.

:func:`positions` draws small positions and computes their reference values in
this process; :class:`Load` holds the shared results and runs one client thread
(:meth:`Load.client`): analyses, solves and best moves checked against those
references, status, info, the page, bad requests (:func:`bad_request`), clients
that leave (:meth:`Load.leave`) and a page whose next request replaces its own
long search (:meth:`Load.replace`).
"""
from __future__ import annotations

import json
import random
import socket
import threading
import time
from typing import Any, Optional

from parallel_mnk import GameSpec, Limit, Position, analyze, solve
from parallel_mnk.game.rules import move_list_text

LONG = "game=connect4&moves=4"   # a search longer than the server's --max-time: one to replace
SEARCHES = {200, 503}            # a search may be refused when the queue is full
SPECS = [(GameSpec(3, 3, 3), (1, 5)), (GameSpec(4, 4, 3), (1, 7)), (GameSpec(4, 4, 4, True), (2, 9)),
         (GameSpec(5, 4, 4, True), (2, 10)), (GameSpec(5, 5, 4), (4, 10)), (GameSpec(7, 6, 4, True), (8, 14))]
WEIGHTS = {"analyze": 14, "solve": 14, "best": 8, "status": 6, "info": 4, "page": 3, "bad": 30, "leave": 10,
           "replace": 4}


def positions(seed: int, per_spec: int = 8) -> list[tuple[Position, dict, dict]]:
    """Random unfinished positions of :data:`SPECS`, each with its reference
    ``solve(...).to_dict()`` and ``analyze(...).to_dict()`` (positions this
    process cannot settle in 3 s are left out)."""
    rng = random.Random(seed)
    out: list[tuple[Position, dict, dict]] = []
    for spec, (lo, hi) in SPECS:
        found, tries = 0, 0
        while found < per_spec and tries < 50 * per_spec:
            tries += 1
            pos = Position.from_moves(spec, [])
            for _ in range(rng.randint(lo, hi)):
                if pos.is_game_over():
                    break
                pos.push(rng.choice(pos.legal_moves))
            if pos.is_game_over() or any(p.move_stack == pos.move_stack and p.spec == spec for p, _, _ in out):
                continue
            ref_solve = solve(pos, Limit(time=3)).to_dict()
            ref_analyze = analyze(pos, Limit(time=3)).to_dict()
            if ref_solve["value"] != "unknown" and ref_analyze["value"] != "unknown":
                out.append((pos, ref_solve, ref_analyze))
                found += 1
    return out


def game_query(pos: Position, rng: random.Random) -> str:
    """The game and position of ``pos`` as query parameters (moves or board, preset or sizes)."""
    spec = pos.spec
    game = "game=connect4" if spec == GameSpec(7, 6, 4, True) and rng.random() < 0.5 else \
        f"cols={spec.cols}&rows={spec.rows}&k={spec.k}" + ("&gravity=1" if spec.gravity else "")
    if rng.random() < 0.3:
        return game + "&board=" + pos.board_text().replace("\n", "%0A").replace(" ", "+")
    return game + "&moves=" + move_list_text(spec, pos.move_stack).replace(",", "%2C")


# ---------------------------------------------------------------- one request
def request(path: str, method: str = "GET", host: Optional[str] = None) -> bytes:
    """The bytes of a one-shot HTTP/1.1 request (``Connection: close``)."""
    return f"{method} {path} HTTP/1.1\r\nHost: {host or '127.0.0.1'}\r\nConnection: close\r\n\r\n".encode()


def exchange(port: int, raw: bytes, timeout: float = 120.0) -> tuple[Any, dict[str, str], bytes]:
    """Send ``raw`` to the server, read the answer to the end: ``(status, headers, body)``
    (status "0.9": an answer without a status line or headers)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
    data = b"".join(chunks)
    if not data.startswith(b"HTTP/"):   # http.server answers a request line it cannot read as HTTP/0.9: no head
        return "0.9", {"content-type": "application/json", "content-length": str(len(data))}, data
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def check_body(status: int, headers: dict[str, str], body: bytes, head: bool = False) -> tuple[Any, Optional[str]]:
    """``(parsed JSON or None, problem or None)`` of an answer that must be JSON
    (an error exactly ``{"error": one line}``)."""
    if headers.get("content-type") != "application/json":
        return None, f"content type {headers.get('content-type')!r}"
    if int(headers.get("content-length", -1)) != (len(body) if not head else int(headers["content-length"])):
        return None, f"content length {headers.get('content-length')} for {len(body)} bytes"
    if head:
        return None, None if not body else "a body after HEAD"
    try:
        data = json.loads(body)
    except ValueError:
        return None, f"not JSON: {body[:100]!r}"
    if status != 200 and not (isinstance(data, dict) and list(data) == ["error"] and isinstance(data["error"], str)
                              and "\n" not in data["error"] and data["error"]):
        return data, f"not one error line: {body[:200]!r}"
    return data, None


def agrees(kind: str, got: dict, ref_solve: dict, ref_analyze: dict, weak: bool) -> Optional[str]:
    """A wrong value or score in the server's answer (None: right, or not settled in time)."""
    if got.get("value") == "unknown":
        return None
    ref = ref_solve if kind == "solve" else ref_analyze
    if got.get("value") != ref["value"]:
        return f"value {got.get('value')} != {ref['value']}"
    if not weak and got.get("score") != ref["score"]:
        return f"score {got.get('score')} != {ref['score']}"
    if kind == "analyze" and not weak:
        for i, (a, b) in enumerate(zip(got.get("scores", []), ref["scores"])):
            if a is not None and b is not None and a != b:
                return f"move {i}: score {a} != {b}"
    return None


# ---------------------------------------------------------------- the load
def bad_request(rng: random.Random) -> tuple[str, bytes, set]:
    """One random bad request: ``(name, raw bytes, expected statuses)`` ("reset": the
    server may cut the connection before reading all of an oversize line)."""
    kind = rng.choice(["analyze", "solve", "best"])
    bad_values = ["cols=abc", "cols=-1", "cols=0", "k=0", "rows=1e3", "cols=1" + "0" * 30, "game=nosuch",
                  "game=connect4&moves=8", "game=connect4&moves=4&moves=4", "cols=27&rows=27&k=5",
                  "cols=15&rows=15&k=16", "cols=1000000&rows=1000000&k=5"] + [f"cols=4&rows=4&k=3&{v}" for v in (
                      "time_limit=-1", "time_limit=0", "time_limit=nan", "time_limit=inf", "time_limit=1e400",
                      "time_limit=x", "time_limit=6", "gravity=maybe", "moves=zz99", "moves=a1%2Ca1", "board=%00%FF",
                      "client=bad!id", "client=" + "c" * 65, "weak=2&depth=x" if kind == "best" else "weak=2")]
    size, junk = rng.choice([8193, 9000, 30000, 70000]), "".join(
        rng.choice("abcXYZ019%&=+;/?[]@!$'()*,~._-\u00e9") for _ in range(rng.randint(1, 60)))
    cases = [  # junk keys and values (always an unknown parameter), bad numbers, too many fields
        ("junk query", request(f"/api/{kind}?x{rng.randrange(99)}=1&{junk}"), {400}),
        ("bad number", request(f"/api/{kind}?{rng.choice(bad_values)}"), {400}),
        ("too many fields", request("/api/info?" + "&".join(f"f{i}=1" for i in range(17))), {400}),
        ("unknown path", request(rng.choice(["/api/nosuch", "/api/", "/nothing", "/../../etc/passwd", "/api/info/x",
                                             "/static/../pyproject.toml", "/index.html/..", "/%2e%2e/etc/passwd"])),
         {404}),   # a line over http.server's 65536 characters may be cut before it is read to the end
        ("oversize URL", request("/api/info?x=" + "a" * size), {414} if size < 65000 else {414, "reset"}),
        ("bad method", request("/api/info", rng.choice(["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])), {405}),
        ("unknown method", request("/", rng.choice(["FOO", "BREW", "TRACE"])), {501}),
        ("malformed request", rng.choice([b"GET\r\n\r\n", b"\x00\x01junk\r\n\r\n", b"GET / HTTP/x\r\n\r\n",
                                          b"GET / HTTP/9.9\r\n\r\n"]), {400, 505, "0.9"}),
        ("foreign host", request("/api/info", host="example.com"), {403})]
    return rng.choice(cases)


class Load:
    """The client threads' shared state: results, failures, the pause gate."""

    def __init__(self, port: int, pool: list, seed: int) -> None:
        self.port, self.pool, self.seed = port, pool, seed
        self.lock = threading.Condition()
        self.results: list[tuple[str, Any, float]] = []   # (kind, status or client error, seconds)
        self.failures: list[str] = []
        self.unknown = 0                                  # search answers not settled in time
        self.go, self.stop, self.parked = threading.Event(), threading.Event(), 0

    def record(self, kind: str, status: Any, seconds: float, problem: Optional[str] = None) -> None:
        """One answer (``status`` an int, or the name of a client-side error) and its problem, if any."""
        with self.lock:
            self.results.append((kind, status, seconds))
            if problem:
                self.failures.append(f"{kind}: {problem}")

    def call(self, kind: str, raw: bytes, expected: set, head: bool = False, api: bool = True):
        """Send one request, check the status and the body; the parsed body (None if none)."""
        start = time.monotonic()
        try:
            status, headers, body = exchange(self.port, raw)
        except OSError as e:
            name = type(e).__name__
            self.record(kind, name, time.monotonic() - start,
                        None if "reset" in expected and isinstance(e, ConnectionError) else f"{name}: {e}")
            return None
        seconds = time.monotonic() - start
        problem, data = None if status in expected else f"status {status} (expected {sorted(map(str, expected))}): " \
                                                         f"{body[:200]!r} for {raw[:120]!r}", None
        if api and problem is None:
            data, problem = check_body(status, headers, body, head)
        self.record(kind, status, seconds, problem)
        return data if status == 200 else None

    def search(self, kind: str, rng: random.Random, client: Optional[str] = None) -> None:
        """An analysis, solve or best move of a pool position, checked against the reference."""
        pos, ref_solve, ref_analyze = rng.choice(self.pool)
        weak = kind != "best" and rng.random() < 0.2
        query = game_query(pos, rng) + ("&weak=1" if weak else "") + (f"&client={client}" if client else "")
        if kind == "best":
            query += rng.choice(["", f"&depth={rng.randint(1, 4)}", "&time_limit=0.5", "&width=3&depth=2"])
        got = self.call(kind, request(f"/api/{kind}?{query}"), SEARCHES)
        if got is None:
            return
        if kind == "best":
            if got.get("best_move") not in {move_list_text(pos.spec, [m]) for m in pos.legal_moves}:
                self.record("best", "wrong", 0.0, f"best move {got.get('best_move')} not legal in {query}")
            return
        wrong = agrees(kind, got, ref_solve, ref_analyze, weak)
        with self.lock:
            self.unknown += got.get("value") == "unknown"
            if wrong:
                self.failures.append(f"{kind}: wrong answer for {query}: {wrong}")

    def leave(self, rng: random.Random) -> None:
        """A client that goes away: mid-request, right after sending, or after a few bytes of the answer
        (the server stops the search of one that left before its answer, or drops it from the queue)."""
        pos = rng.choice(self.pool)[0]
        path = rng.choice([f"/api/solve?{game_query(pos, rng)}", f"/api/analyze?{game_query(pos, rng)}",
                           "/api/info", "/", f"/api/best?{game_query(pos, rng)}"])
        how = rng.choice(["mid-request", "after sending", "after sending, reset", "mid-answer"])
        start = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=60) as s:
                raw = request(path)
                s.sendall(raw[:len(raw) // 2] if how == "mid-request" else raw)
                if how.endswith("reset"):
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                if how == "mid-answer":
                    s.recv(rng.randint(1, 20))
            self.record("leave", "left", time.monotonic() - start)
        except OSError as e:
            self.record("leave", "left", time.monotonic() - start) if isinstance(e, ConnectionError) else \
                self.record("leave", type(e).__name__, time.monotonic() - start, f"{how}: {e}")

    def replace(self, rng: random.Random, me: int) -> None:
        """One page's long search replaced by its next request: the first ends 409, the second answers."""
        client = f"soak-{me}-{rng.randrange(10 ** 6)}"
        first: dict[str, Any] = {}
        long_one = threading.Thread(target=lambda: first.update(data=self.call(
            "replaced", request(f"/api/analyze?{LONG}&client={client}"), {409, 503})))
        long_one.start()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and long_one.is_alive():   # until the server has it
            got = self.call("status", request(f"/api/status?client={client}"), {200})
            if got and got.get("state") in ("waiting", "searching"):
                break
            time.sleep(0.05)
        time.sleep(rng.uniform(0, 0.5))
        self.search(rng.choice(["analyze", "solve", "best"]), rng, client)
        long_one.join(120)

    def client(self, me: int) -> None:
        """One client thread: random kinds of request until told to stop, parked while
        paused; a bug of the soak itself is a failure, not the end of the thread."""
        rng = random.Random(self.seed * 1000 + me)
        kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
        while not self.stop.is_set():
            if not self.go.is_set():
                with self.lock:
                    self.parked += 1
                    self.lock.notify_all()
                self.go.wait()
                with self.lock:
                    self.parked -= 1
                continue
            kind = rng.choices(kinds, weights)[0]
            try:
                self.one(kind, rng, me)
            except Exception as e:
                self.record(kind, "soak error", 0.0, f"the soak's own error: {type(e).__name__}: {e}")

    def one(self, kind: str, rng: random.Random, me: int) -> None:
        """One request (or exchange) of ``kind`` from client thread ``me``."""
        if kind in ("analyze", "solve", "best"):
            self.search(kind, rng, f"c{me}x{rng.randrange(99)}" if rng.random() < 0.3 else None)
        elif kind == "status":
            self.call(kind, request(f"/api/status?client=c{me}x{rng.randrange(99)}"), {200})
        elif kind == "info":
            head = rng.random() < 0.2
            self.call(kind, request("/api/info", "HEAD" if head else "GET"), {200}, head=head)
        elif kind == "page":
            self.call(kind, request(rng.choice(["/", "/index.html"])), {200}, api=False)
        elif kind == "bad":
            name, raw, expected = bad_request(rng)
            self.call(f"bad: {name}", raw, expected)
        elif kind == "leave":
            self.leave(rng)
        else:
            self.replace(rng, me)
