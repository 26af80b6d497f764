"""The HTTP side of ``sheepsim serve``: the standard library's threading server, the
static page from ``static/`` and :class:`~sheepsim.serve.api.RaceAPI` under ``/api/``."""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlsplit

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


def static_file(name: str) -> bytes:
    return resources.files("sheepsim.serve").joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    """GET only: the page's files, ``/api/race/...`` JSON, 404 for anything else."""

    server_version = "sheepsim"
    protocol_version = "HTTP/1.1"  # keep-alive: the page asks twice per change
    # headers and body are two writes: without this the client's delayed ACK holds the
    # body for 40 ms (Nagle), more than a whole exact answer
    disable_nagle_algorithm = True

    def do_GET(self):  # noqa: N802 - http.server API
        url = urlsplit(self.path)
        if url.path.startswith("/api/"):
            try:
                status, text = self.server.api.answer(url.path, url.query)
            except Exception as exc:  # a bug, not the user's input: say so, keep serving
                sys.stderr.write(f"sheepsim serve: internal error on {self.path[:200]}: "
                                 f"{type(exc).__name__}: {exc}\n")
                status, text = 500, '{"error": "internal error (the server logged it)"}\n'
            self._send(status, text.encode(), "application/json; charset=utf-8")
        elif url.path in STATIC:
            name, kind = STATIC[url.path]
            self._send(200, static_file(name), kind, {"Content-Security-Policy": CSP})
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")

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

    def __init__(self, address, api: RaceAPI):
        import socket

        self.api = api
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, Handler)

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


def make_server(host: str, port: int, *, rules: str | None = None, **limits) -> RaceServer:
    """A :class:`RaceServer` bound to ``host:port`` (port 0: a free one), not yet
    serving; a bad rules file or a port in use is a :class:`SheepsimError`."""
    api = RaceAPI(rules, **limits)
    try:
        return RaceServer((host, port), api)
    except OSError as exc:
        raise SheepsimError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                            "choose another --port or --host") from None


def warm_up(api: RaceAPI) -> None:
    """Answer the questions the page asks first (the standard semifinal's bet EVs, pace
    advice for a position) so that the kernels are compiled or loaded from the cache
    before the first player waits for them."""
    from sheepsim.driver import _show, compile_notice

    position = "semifinal " + " ".join(["0.000"] * 6)
    with compile_notice(_show(True)):
        for command, params in (("ev", {}), ("advise", {"position": position, "lane": "1",
                                                        "hidden": "1"})):
            status, text = api.answer(f"/api/race/{command}", "&".join(
                f"{k}={v.replace(' ', '+')}" for k, v in params.items()))
            if status != 200:
                raise SheepsimError(f"the solver does not answer: {text.strip()}")
