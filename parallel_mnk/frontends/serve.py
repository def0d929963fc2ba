"""``parallel-mnk serve``: an analysis board in the browser, on the standard
library's :class:`~http.server.ThreadingHTTPServer`.

The page (``static/``: one HTML file, one script, one style sheet; no build step,
nothing fetched from elsewhere) talks to a JSON API whose answers are the CLI's:

* ``GET /api/analyze?<game>&moves=...`` what ``parallel-mnk analyze --json`` prints
  for that position; ``/api/solve`` what ``solve --json`` prints; ``/api/best``
  what ``best --json`` prints. The game is ``game=connect4`` or ``cols=7&rows=6&k=4
  &gravity=1``; the position ``moves=`` or ``board=``; then ``time_limit``,
  ``weak`` (analyze, solve), ``depth`` and ``width`` (best), and ``client``: the
  page's id, under which a new request stops the search it replaces;
* ``GET /api/status?client=...``: that page's search (waiting or searching,
  nodes, elapsed seconds) and the queue; ``GET /api/info``: presets and bounds.

Bad input is HTTP 400 with ``{"error": "..."}`` (the CLI's message), an unknown
path 404, a full queue 503, a replaced search 409 (:mod:`parallel_mnk.frontends.jobs`).
A search whose client closes its connection (:func:`peer_closed`) is stopped, or
dropped from the queue, within about a tenth of a second: no answer is sent.
Bounded: URLs of at most ``MAX_URL`` characters and ``MAX_FIELDS`` parameters,
boards as in the CLI (at most 64 cells exact, 26x26 for ``best``), every search
within the server's ``--max-time``; static files come from a fixed table made
at start-up (no path from a request reaches the file system); on a loopback
address only requests naming a loopback host are answered.
"""
from __future__ import annotations

import ipaddress
import json
import re
import select
import socket
import sys
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Optional, TextIO
from urllib.parse import parse_qsl, urlsplit

from .. import entrance
from ..api.options import Limit, Options, Watch, check_workers
from ..engines.books.choose import open_book
from ..game.position import Position
from ..game.rules import MAX_CELLS, MAX_SIDE, PRESETS, MnkError
from ..runtime import families
from ..runtime.ttable import resolve_tt_bits
from .commands import check_time_limit, game_spec, position_of, printable
from .jobs import Busy, Gone, Jobs, Replaced
from ..api.settings import current

MAX_URL = 8192            # characters of a request's path and query (a 26x26 game's moves fit)
MAX_FIELDS = 16           # query parameters
STATIC = Path(__file__).with_name("static")
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}
GAME = {"game", "cols", "rows", "k", "gravity", "moves", "board", "time_limit", "client"}
PARAMS = {"analyze": GAME | {"weak"}, "solve": GAME | {"weak"}, "best": GAME | {"depth", "width"},
          "status": {"client"}, "info": set()}
CLIENT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TRUE, FALSE = ("", "1", "true", "yes", "on"), ("0", "false", "no", "off")
SEARCHES = {"analyze", "solve", "best"}   # the paths that run a search (and stop it when the client goes)
HUNG_UP = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)   # POLLRDHUP: Linux only


# ------------------------------------------------------------------ query parameters
def parse_query(query: str, allowed: set[str]) -> dict[str, str]:
    """The parameters of ``query``, each at most once and each in ``allowed``."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FIELDS)
    except ValueError:
        raise MnkError(f"too many parameters (at most {MAX_FIELDS})") from None
    params: dict[str, str] = {}
    for name, value in pairs:
        if name not in allowed:
            raise MnkError(f"unknown parameter {name!r} (this path takes {', '.join(sorted(allowed)) or 'none'})")
        if name in params:
            raise MnkError(f"give {name} once")
        params[name] = value
    return params


def _number(params: dict[str, str], name: str, kind: Callable[[str], Any]) -> Any:
    """``params[name]`` as an int or a float (None when absent), with argparse's message."""
    text = params.get(name)
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        raise MnkError(f"argument --{name.replace('_', '-')}: invalid {kind.__name__} value: {text!r}") from None


def _flag(params: dict[str, str], name: str) -> bool:
    """A yes/no parameter: present and empty, 1, true, yes or on; 0, false, no or off."""
    text = params.get(name)
    if text is None:
        return False
    if text.lower() in TRUE:
        return True
    if text.lower() in FALSE:
        return False
    raise MnkError(f"{name} is a yes/no parameter (1 or 0), got {text!r}")


def _position(params: dict[str, str]) -> Position:
    """The position of ``params`` (any board up to 26x26: past 64 cells ``analyze``
    and exact solves use the big-board search, weak solves of free boards the pn
    prover over threats)."""
    spec = game_spec(params.get("game"), _number(params, "cols", int), _number(params, "rows", int),
                     _number(params, "k", int), _flag(params, "gravity"))
    return position_of(spec, params.get("moves"), params.get("board"))


def _client(params: dict[str, str]) -> Optional[str]:
    client = params.get("client")
    if client is not None and not CLIENT.match(client):
        raise MnkError("client must be 1-64 letters, digits, '-' or '_'")
    return client


# ------------------------------------------------------------------ the client's connection
def peer_closed(sock: socket.socket) -> bool:
    """Whether the client at the other end of the connected socket ``sock`` has
    closed its end: True once it has shut down its side (FIN: a close, or a
    half-close, which TCP cannot tell apart) or reset the connection. Never
    blocks and never reads: bytes the client sent (a pipelined request) stay for
    the handler; a close after such bytes is seen at once on Linux (POLLRDHUP),
    elsewhere once they are read. A socket already closed here counts as closed."""
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN | HUNG_UP)
        events = poller.poll(0)
        if not events:
            return False
        if events[0][1] & (HUNG_UP | select.POLLNVAL):
            return True
        return sock.recv(1, socket.MSG_PEEK) == b""   # readable: data, or the end of the stream
    except (BlockingIOError, InterruptedError):
        return False
    except (OSError, ValueError):   # reset, or a closed socket (fileno -1)
        return True


# ------------------------------------------------------------------ the server
class Server(ThreadingHTTPServer):
    """The HTTP server of ``parallel-mnk serve``: its pool's ``workers``, the
    ``max_time`` of any search, its :class:`Jobs`, its table (``tt_bits``, default
    as for solve), its static files; ``log``: one line per request (None: none)."""

    daemon_threads = True

    def __init__(self, host: str, port: int, workers: int = 1, max_time: Optional[float] = None,
                 jobs: Optional[Jobs] = None, log: Optional[TextIO] = None, tt_bits: Optional[int] = None,
                 book: Optional[str] = "auto") -> None:
        check_workers(workers, name="--workers")
        max_time = current().SERVE_MAX_TIME if max_time is None else max_time
        if not max_time > 0:
            raise MnkError(f"--max-time must be positive, got {max_time}")
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.workers, self.max_time = workers, max_time
        self.jobs = jobs if jobs is not None else Jobs()
        self.log = log
        self.tt_bits = resolve_tt_bits(tt_bits)
        self.book = book   # the opening book of analyze and solve (--book: a file, auto or none)
        self.files = static_files()
        self.loopback = _is_loopback(host)
        try:
            super().__init__((host, port), Handler)
        except (OSError, OverflowError) as e:
            raise MnkError(f"cannot listen on {host} port {port}: {getattr(e, 'strerror', None) or e}") from None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away before its answer was sent (a page reloaded or
        left while a search ran) is normal: one line on the log, no traceback.
        Anything else is reported as :mod:`socketserver` does (a traceback on stderr)."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            if self.log is not None:
                self.log.write(f"{client_address[0]} went away before its answer was sent\n")
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The address to open in a browser."""
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        shown = f"[{name}]" if ":" in name else name
        return f"http://{shown}:{port}/"

    def limit(self, params: dict[str, str]) -> Limit:
        """The time limit of a search: ``time_limit`` (positive, at most ``max_time``), else ``max_time``."""
        seconds = _number(params, "time_limit", float)
        check_time_limit(seconds)
        if seconds is not None and not seconds <= self.max_time:
            raise MnkError(f"--time-limit must be at most {self.max_time:g} s on this server, got {seconds:g}")
        return Limit(time=self.max_time if seconds is None else seconds)

    def options(self, watch: Watch) -> Options:
        """The options of an exact search on this server: its workers, its one table
        (the pool's), its book, no status line, the request's ``watch``."""
        return Options(workers=self.workers, tt_size=8 << self.tt_bits, book=self.book, progress=False, watch=watch)

    # -------------------------------------------------------------- the API
    # The searches: ``gone`` (see :meth:`Jobs.run`) tells whether the client has closed its connection.
    def api_analyze(self, params: dict[str, str], gone: Optional[Callable[[], bool]] = None) -> dict[str, Any]:
        """What ``parallel-mnk analyze --json`` prints for the position of ``params``."""
        limit, weak, position = self.limit(params), _flag(params, "weak"), _position(params)
        return self.jobs.run(_client(params), "analyze", lambda watch: entrance.analyze(
            position, limit, weak=weak, options=self.options(watch)).to_dict(), gone)

    def api_solve(self, params: dict[str, str], gone: Optional[Callable[[], bool]] = None) -> dict[str, Any]:
        """What ``parallel-mnk solve --json`` prints for the position of ``params``."""
        limit, weak, position = self.limit(params), _flag(params, "weak"), _position(params)
        return self.jobs.run(_client(params), "solve", lambda watch: entrance.solve(
            position, limit, weak=weak, options=self.options(watch)).to_dict(), gone)

    def api_best(self, params: dict[str, str], gone: Optional[Callable[[], bool]] = None) -> dict[str, Any]:
        """What ``parallel-mnk best --json`` prints: ``depth`` plies (4 when neither
        a depth nor a time limit is given, as there), within the time limit."""
        time_limit = self.limit(params).time
        position, depth, width = _position(params), _number(params, "depth", int), \
            _number(params, "width", int)
        if depth is None and "time_limit" not in params:
            depth = current().DEFAULT_DEPTH
        limit = Limit(time=time_limit, depth=depth)
        return self.jobs.run(_client(params), "best", lambda watch: entrance.best_move(
            position, limit, options=Options(workers=self.workers, width=width, watch=watch)).to_dict(position.spec),
            gone)

    def api_status(self, params: dict[str, str]) -> dict[str, Any]:
        """The client's search (``state``: idle, waiting or searching; ``kind``,
        ``nodes``, ``elapsed_s``) and the number of searches running and waiting."""
        return self.jobs.status(_client(params))

    def api_info(self, params: dict[str, str]) -> dict[str, Any]:
        """The presets and the bounds of this server."""
        return {"presets": {name: {"cols": s.cols, "rows": s.rows, "k": s.k, "gravity": s.gravity}
                            for name, s in sorted(PRESETS.items())},
                "max_exact_cells": MAX_CELLS, "max_side": MAX_SIDE, "max_time": self.max_time,
                "workers": self.workers}

    def answer(self, name: str, query: str, gone: Optional[Callable[[], bool]] = None) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON body of ``/api/<name>?<query>``; a search stopped
        because ``gone()`` became true raises :class:`Gone` (there is no one to answer)."""
        if name not in PARAMS:
            return HTTPStatus.NOT_FOUND, {"error": f"no such API path: /api/{name}"}
        try:
            params = parse_query(query, PARAMS[name])
            if name in SEARCHES:
                return HTTPStatus.OK, getattr(self, f"api_{name}")(params, gone)
            return HTTPStatus.OK, getattr(self, f"api_{name}")(params)
        except Gone:
            raise
        except Busy as e:
            return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(e)}
        except Replaced as e:
            return HTTPStatus.CONFLICT, {"error": str(e)}
        except MnkError as e:
            return HTTPStatus.BAD_REQUEST, {"error": str(e)}
        except Exception as e:  # a bug: the page gets one line, the server's log the traceback
            traceback.print_exc(file=self.log or sys.stderr)
            return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(e).__name__}: {e}"}


def static_files() -> dict[str, tuple[bytes, str]]:
    """URL path -> (content, type) of every file of ``static/``, read once; ``/`` is index.html."""
    files = {}
    for path in sorted(STATIC.iterdir()):
        if path.is_file() and path.suffix in TYPES:
            files["/" + path.name] = (path.read_bytes(), TYPES[path.suffix])
    files["/"] = files["/index.html"]
    return files


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    """One request: the API, a static file, or an error as JSON."""

    server: Server
    timeout = 60                     # seconds a silent client may hold its connection
    server_version = "parallel-mnk"
    error_content_type = "application/json"

    def do_GET(self) -> None:
        """Answer a GET."""
        self._get(send_body=True)

    def do_HEAD(self) -> None:
        """Answer a HEAD (the headers of the GET)."""
        self._get(send_body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not allowed: only GET and HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _get(self, send_body: bool) -> None:
        if len(self.path) > MAX_URL:
            self._send(HTTPStatus.REQUEST_URI_TOO_LONG, {"error": f"the URL is over {MAX_URL} characters"})
            return
        if self.server.loopback and not self._host_is_loopback():
            self._send(HTTPStatus.FORBIDDEN, {"error": "this server answers requests for localhost only"})
            return
        url = urlsplit(self.path)
        if url.path.startswith("/api/"):
            code, body = self.server.answer(url.path[len("/api/"):], url.query,
                                            lambda: peer_closed(self.connection))
            self._send(code, body, send_body)
            return
        found = self.server.files.get(url.path)
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, {"error": f"not found: {url.path[:200]}"}, send_body)
            return
        content, kind = found
        self._headers(HTTPStatus.OK, kind, len(content))
        if send_body:
            self.wfile.write(content)

    def _host_is_loopback(self) -> bool:
        host = (self.headers.get("Host") or "").strip()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return _is_loopback(name or "localhost")

    def _headers(self, code: int, kind: str, length: int) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
        self.end_headers()

    def _send(self, code: int, body: dict[str, Any], send_body: bool = True) -> None:
        if "error" in body:   # a message quoting the request: printable, as the CLI's
            body = {**body, "error": printable(body["error"])}
        data = (json.dumps(body) + "\n").encode()   # as the CLI prints it
        self._headers(code, "application/json", len(data))
        if send_body:
            self.wfile.write(data)

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """http.server's own errors (a malformed request line, headers too long) as JSON too."""
        phrase = message or HTTPStatus(code).phrase
        self.close_connection = True
        self._send(code, {"error": phrase}, self.command != "HEAD")

    def log_message(self, format: str, *args: Any) -> None:
        """One line per request on the server's log (none when it has no log)."""
        if self.server.log is not None:
            self.server.log.write(f"{self.address_string()} {format % args}\n")


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1, max_time: Optional[float] = None,
          out: TextIO = sys.stdout, log: Optional[TextIO] = None, book: Optional[str] = "auto") -> int:
    """Load the kernels (and Connect Four's opening ``book``: a file, ``auto`` or
    ``none``), start the pool, listen on ``host``:``port`` and answer until Ctrl-C;
    writes the address to ``out`` first. ``max_time`` None: the setting ``SERVE_MAX_TIME``.
    Returns the exit status (0)."""
    open_book(families.CONNECT_FOUR, book)   # read once now, not in the first request (a bad file: an error now)
    server = Server(host, port, workers, max_time, log=log, book=book)
    try:
        families.load("gravity", families.exact_family(families.CONNECT_FOUR), "free", "proofs", "grid",
                      *(["expand"] if workers > 1 else []))   # any game may be asked (df-pn for weak free ones)
        if workers > 1:   # fork the workers now, before the server has threads
            entrance.start_backend("process", workers, server.tt_bits)
        out.write(f"parallel-mnk serve: {server.url} ({workers} worker{'s' if workers > 1 else ''}, "
                  f"searches of at most {server.max_time:g} s; Ctrl-C stops it)\n")
        out.flush()
        server.serve_forever()
    except KeyboardInterrupt:
        out.write("parallel-mnk serve: stopped\n")
    finally:
        server.jobs.stop_all()
        server.server_close()
        entrance.shutdown()
    return 0
