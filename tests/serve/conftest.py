"""A ``sheepsim serve`` server in this process, on a free port, for the module's tests."""

import threading

import pytest


@pytest.fixture(scope="module")
def server():
    from sheepsim.serve.server import make_server

    srv = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    yield srv
    srv.shutdown()
    srv.server_close()


def get(url: str):
    """``(status, body text)`` of ``GET url`` (4xx and 5xx too)."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=120) as res:
            return res.status, res.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
