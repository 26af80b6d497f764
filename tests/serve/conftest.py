"""A ``sheepsim serve`` server in this process, on a free port, for the module's tests."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def sheepsim(*argv, **popen) -> subprocess.Popen:
    """``python -m sheepsim ARGV`` in its own process (the live CLI), text pipes."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "sheepsim", *argv], env=env, cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


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
