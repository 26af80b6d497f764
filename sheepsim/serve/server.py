"""The HTTP side of ``sheepsim serve``: the standard library's threading server, the
static page from ``static/`` and :class:`~sheepsim.serve.api.RaceAPI` under ``/api/``.

What keeps it answering when clients are many, slow or not who they say:

* at most :data:`MAX_CONNECTIONS` connections are served at once (a thread each); one
  more is answered 503 at once and closed;
* a request's line and headers must arrive within :data:`HEAD_TIMEOUT` seconds of its
  first byte being awaited (an idle keep-alive connection too), and no read or write
  waits longer than that: a half-sent request, or one sent a byte at a time, holds its
  thread no longer;
* the ``Host`` header names this server (:meth:`RaceServer.host_allowed`: the name or
  address given to ``--host``, and for a loopback address ``localhost``; for an
  any-address bind any IP address and this computer's name), so a page of another
  site that rebinds its DNS name to this address is refused (403);
* an API request from another site's page (an ``Origin`` header not this server's, or
  ``Sec-Fetch-Site`` other than ``same-origin``/``none``) is refused (403): other sites
  can neither read the answers nor spend the solver's CPU. The page itself may be
  opened from a link anywhere.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlencode, urlsplit

from sheepsim.errors import SheepsimError
from sheepsim.serve.api import RaceAPI

#: the page's files: URL path -> (file in static/, content type)
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
#: the page loads nothing from elsewhere (no CDN: it works offline)
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: connections served at once (each a thread); one more is answered 503 and closed
MAX_CONNECTIONS = 64
#: seconds a request's line and headers may take to arrive (and any read or write)
HEAD_TIMEOUT = 10.0
ANY_ADDRESS = ("0.0.0.0", "", "::")
#: seconds a turned-away connection stays open after its 503, and how many may
TURN_AWAY_LINGER, MAX_LINGERING = 0.5, 512


def static_file(name: str) -> bytes:
    return resources.files("sheepsim.serve").joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    """GET only: the page's files, ``/api/race/...`` JSON, 404 for anything else."""

    server_version = "sheepsim"
    protocol_version = "HTTP/1.1"  # keep-alive: the page asks twice per change
    # headers and body are two writes: without this the client's delayed ACK holds the
    # body for 40 ms (Nagle), more than a whole exact answer
    disable_nagle_algorithm = True

    def setup(self):
        self.timeout = self.server.head_timeout  # every read and write of the connection
        super().setup()

    def handle_one_request(self):
        """One request, its line and headers within the server's head timeout."""
        self.server.watch(self.connection)
        try:
            super().handle_one_request()
        finally:
            self.server.unwatch(self.connection)

    def do_GET(self):  # noqa: N802 - http.server API
        if self.server.unwatch(self.connection):  # cut for slowness: headers incomplete
            self.close_connection = True
            return
        url = urlsplit(self.path)
        api = url.path.startswith("/api/")
        refused = self._refused(api)
        if refused:
            if api:
                from sheepsim.output import to_json

                self._send(403, to_json({"error": refused}).encode(),
                           "application/json; charset=utf-8")
            else:
                self._send(403, refused.encode() + b"\n", "text/plain; charset=utf-8")
        elif api:
            try:
                status, text = self.server.api.answer(url.path, url.query)
            except Exception as exc:  # a bug, not the user's input: say so, keep serving
                sys.stderr.write(f"sheepsim serve: internal error on {self.path[:200]}: "
                                 f"{type(exc).__name__}: {exc}\n")
                status, text = 500, '{"error": "internal error (the server logged it)"}\n'
            self._send(status, text.encode(), "application/json; charset=utf-8",
                       {"Retry-After": "1"} if status == 503 else None)
        elif url.path in STATIC:
            name, kind = STATIC[url.path]
            self._send(200, static_file(name), kind, {"Content-Security-Policy": CSP})
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")

    def _refused(self, api: bool) -> str | None:
        """Why this request is refused (a wrong ``Host``; for the API a page of another
        site), or None."""
        host = self.headers.get("Host")
        if host is not None and not self.server.host_allowed(host):
            return (f"this server does not answer for the host {host[:100]!r}: open it by the "
                    "address sheepsim serve printed")
        if not api:
            return None
        origin = self.headers.get("Origin")
        if origin is not None and not self.server.origin_allowed(origin, host):
            return f"requests from another site ({origin[:100]}) are not answered"
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            return f"requests from another site (Sec-Fetch-Site: {site[:40]}) are not answered"
        return None

    def do_HEAD(self):  # noqa: N802 - http.server API
        self._send(405, b"", "text/plain", {"Allow": "GET"})

    def _send(self, status: int, body: bytes, kind: str, headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - http.server API
        """Quiet: a player's terminal is not a server log."""


class RaceServer(ThreadingHTTPServer):
    daemon_threads = True  # Ctrl-C does not wait for a request being answered
    request_queue_size = 128  # connections the system holds before they are accepted

    def __init__(self, address, api: RaceAPI, *, max_connections: int = MAX_CONNECTIONS,
                 head_timeout: float = HEAD_TIMEOUT):
        self.api = api
        self.asked_host = address[0].lower()
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.max_connections, self.head_timeout = max_connections, head_timeout
        self._open = threading.BoundedSemaphore(max_connections)
        self._deadlines: dict[socket.socket, float | None] = {}  # None: cut for slowness
        self._lock = threading.Lock()
        self._closing: deque = deque()  # (when, socket) of connections turned away
        self._closed = threading.Event()
        super().__init__(address, Handler)
        threading.Thread(target=self._reap, name="sheepsim-serve-reaper", daemon=True).start()

    # ------------------------------------------------------------------ connections
    def process_request(self, request, client_address):
        if not self._open.acquire(blocking=False):
            self._turn_away(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._open.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._open.release()

    def _turn_away(self, request) -> None:
        """503 and close, on the accepting thread (a few hundred bytes: the send does
        not wait for the client)."""
        n = self.max_connections
        body = (f'{{"error": "the server is busy: {n} connections are open; ask again in a '
                'moment"}\n').encode()
        head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; "
                f"charset=utf-8\r\nContent-Length: {len(body)}\r\nRetry-After: 1\r\n"
                "Cache-Control: no-store\r\nConnection: close\r\n\r\n").encode()
        try:
            request.setblocking(False)
            with contextlib.suppress(OSError):
                request.recv(65536)  # what has arrived: closing with it unread resets
            request.sendall(head + body)
            request.shutdown(socket.SHUT_WR)
        except OSError:
            self.shutdown_request(request)
            return
        # closed a moment later, by the reaper: a request still arriving would make an
        # immediate close a reset, which can discard the 503 before the client reads it
        with self._lock:
            self._closing.append((time.monotonic() + TURN_AWAY_LINGER, request))
            while len(self._closing) > MAX_LINGERING:
                self.close_request(self._closing.popleft()[1])

    def watch(self, conn) -> None:
        """The request on ``conn`` must have its head within the head timeout."""
        with self._lock:
            self._deadlines[conn] = time.monotonic() + self.head_timeout

    def unwatch(self, conn) -> bool:
        """Stop watching ``conn``; whether it was cut for slowness."""
        with self._lock:
            return conn in self._deadlines and self._deadlines.pop(conn) is None

    def _reap(self) -> None:
        """Cut the connections whose request head is late (its reads then end)."""
        step = min(0.25, self.head_timeout / 4)
        while not self._closed.wait(step):
            now = time.monotonic()
            with self._lock:
                late = [c for c, t in self._deadlines.items() if t is not None and t < now]
                for conn in late:
                    self._deadlines[conn] = None
            for conn in late:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
            self._close_turned_away(now)

    def _close_turned_away(self, now: float) -> None:
        with self._lock:
            done = []
            while self._closing and self._closing[0][0] <= now:
                done.append(self._closing.popleft()[1])
        for request in done:
            with contextlib.suppress(OSError):
                request.recv(65536)
            self.close_request(request)

    def server_close(self):
        self._closed.set()
        self._close_turned_away(float("inf"))
        super().server_close()

    # ------------------------------------------------------------------ who may ask
    def host_allowed(self, host: str) -> bool:
        """Whether a ``Host`` header names this server (any port: a forwarded port is
        still this server)."""
        name = _host_name(host)
        if name is None:
            return False
        if name == self.asked_host or name == _host_name(str(self.server_address[0])):
            return True
        loopback = self.asked_host == "localhost" or _is_loopback(self.asked_host)
        if self.asked_host in ANY_ADDRESS:
            if _ip(name) is not None:
                return True  # an address: no DNS name of another site can rebind to it
            here = socket.gethostname().lower()
            return name in ("localhost", here, here.split(".")[0], here.split(".")[0] + ".local")
        if loopback:
            return name == "localhost" or _is_loopback(name)
        return False

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """Whether an ``Origin`` header is this server's page."""
        scheme, _, rest = origin.partition("://")
        return scheme == "http" and host is not None and rest.lower() == host.lower() \
            and self.host_allowed(rest)

    def handle_error(self, request, client_address):
        """A browser that left before its answer (a newer question replaced it) is not
        an error; anything else is one line, not a traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            return
        sys.stderr.write(f"sheepsim serve: error answering {client_address[0]}: "
                         f"{type(exc).__name__}: {exc}\n")

    @property
    def public(self) -> bool:
        """Whether other computers can reach it (not bound to a loopback address)."""
        return self.server_address[0] not in LOCAL_HOSTS and not str(
            self.server_address[0]).startswith("127.")


def _host_name(host: str) -> str | None:
    """The name or address of a ``Host`` header, lower case, without its port (None
    when it is not a host)."""
    host = host.strip().lower()
    if host.startswith("["):
        name, sep, rest = host[1:].partition("]")
        address = _ip(name)
        if not sep or (rest and not rest[1:].isdigit()) or address is None \
                or address.version != 6:
            return None
        return name
    name, sep, port = host.partition(":")
    if sep and not port.isdigit():
        return None
    return name or None


def _ip(name: str):
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def _is_loopback(name: str) -> bool:
    address = _ip(name)
    return address is not None and address.is_loopback


def make_server(host: str, port: int, *, rules: str | None = None,
                max_connections: int = MAX_CONNECTIONS, head_timeout: float = HEAD_TIMEOUT,
                **limits) -> RaceServer:
    """A :class:`RaceServer` bound to ``host:port`` (port 0: a free one), not yet
    serving; a bad rules file or a port in use is a :class:`SheepsimError`. ``limits``
    go to :class:`~sheepsim.serve.api.RaceAPI`."""
    api = RaceAPI(rules, **limits)
    try:
        return RaceServer((host, port), api, max_connections=max_connections,
                          head_timeout=head_timeout)
    except OSError as exc:
        raise SheepsimError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                            "choose another --port or --host") from None


def _questions(api: RaceAPI) -> tuple[list, list]:
    """``(exact, simulated)``: every kind of question the page asks, as ``(command,
    params)``: the bet EVs for each exact pace policy, the exact pace advice and a turn
    played (``move``); the first simulated policy's EVs and advice (each simulated
    policy has a single-race kernel of its own: ``race.kernels._Builtin``)."""
    import json

    policies = json.loads(api.rules_json())["policies"]
    position = "semifinal " + " ".join(["0.000"] * 6)
    exact = [("ev", {"policy": p}) for p in policies["exact"]]
    exact.append(("advise", {"position": position, "lane": "1", "hidden": "1"}))
    exact.append(("move", {"position": position, "total": "7"}))
    simulated = []
    for policy in policies["simulated"][:1]:
        simulated += [("ev", {"policy": policy, "games": "100"}),
                      ("advise", {"position": position, "lane": "1", "hidden": "1",
                                  "policy": policy, "games": "100"})]
    return exact, simulated


def _ask(api: RaceAPI, questions) -> None:
    for command, params in questions:
        status, text = api.answer(f"/api/race/{command}", urlencode(params))
        if status != 200:
            raise SheepsimError(f"the solver does not answer: {text.strip()}")


def _compile_exact(rules: str | None):
    """A worker process (a fresh interpreter, output dropped) that asks the exact
    questions, compiling their kernels into the shared on-disk cache; None on one core.
    It ends when this process does (:func:`_worker`)."""
    import subprocess

    from sheepsim.report.warmup import cores

    if cores() < 2:
        return None
    code = "import sys; from sheepsim.serve.server import _worker; _worker(sys.argv[1:])"
    return subprocess.Popen([sys.executable, "-c", code, *([rules] if rules else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _worker(argv: list[str]) -> None:
    """:func:`_compile_exact`'s process: ask the exact questions; stop at once when the
    server stops (its end of the stdin pipe closes), even in the middle of a compile."""
    import os

    def orphaned():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True).start()
    api = RaceAPI(argv[0] if argv else None)
    _ask(api, _questions(api)[0])


def warm_up(api: RaceAPI, worker=None) -> None:
    """Ask every kind of question the page asks (:func:`_questions`) so that every
    kernel the page uses is compiled, or loaded from the cache. The simulated questions
    first, compiled here; with more than one core the exact solver's kernels compile at
    the same time in a worker process (``worker``, from :func:`_compile_exact`; about
    16-18 CPU s each half on an empty kernel cache), and :attr:`RaceAPI.exact_ready` is
    set when it ends; then this process asks the exact questions too, loading what the
    worker compiled (a failed worker is ignored: this process then compiles them)."""
    exact, simulated = _questions(api)
    try:
        _ask(api, simulated)
    finally:
        if worker is not None:
            worker.wait()
            with contextlib.suppress(OSError):
                worker.stdin.close()
        api.exact_ready.set()
    _ask(api, exact)


def start_warm_up(api: RaceAPI, stream=None) -> threading.Thread:
    """:func:`warm_up` behind the server (a daemon thread): the page answers at once,
    a question waiting for the kernels it needs (a simulated one for the first simulated
    policy's, compiled first; an exact one or a move for the worker's). On a terminal
    the compile notice says how long it took; a failure is one line on ``stream``
    (stderr), and the server keeps answering (each question compiles what it needs)."""
    stream = stream or sys.stderr
    worker = _compile_exact(api.rules_path)  # first: the imports below take seconds
    if worker is not None:
        api.exact_ready.clear()

    def run():
        try:
            from sheepsim.driver import _show, compile_notice

            with compile_notice(_show(True), stream=stream):
                warm_up(api, worker)
        except Exception as exc:  # noqa: BLE001 - the server answers on without it
            api.exact_ready.set()
            stream.write(f"sheepsim serve: the warm-up stopped: {exc}\n")
            stream.flush()

    thread = threading.Thread(target=run, name="sheepsim-serve-warm-up", daemon=True)
    thread.start()
    return thread
