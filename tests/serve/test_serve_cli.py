"""``sheepsim serve`` as a command: where it listens, the warning for a public address,
one line on Ctrl-C, one-line errors (issue 31)."""

import os
import re
import signal
import socket
import subprocess
import sys

from tests.serve.conftest import REPO, get, sheepsim


def _ctrl_c_works():
    """In the child: Ctrl-C's default action (a shell running the tests in the
    background hands its children SIGINT ignored, and Python keeps it so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_serve_warns_on_a_public_address_answers_and_stops_on_ctrl_c():
    # a process: a server running until Ctrl-C (SIGINT) stops it
    proc = sheepsim("serve", "--host", "0.0.0.0", "--port", "0", preexec_fn=_ctrl_c_works)
    try:
        warning = proc.stderr.readline()
        assert warning.startswith("sheepsim serve: warning: listening on 0.0.0.0: everyone on "
                                  "that network")
        ready = proc.stderr.readline()  # at once (the warm-up runs behind the page)
        m = re.fullmatch(r"sheepsim serve: The Sheep Race at (http://127\.0\.0\.1:\d+/) "
                         r"\(Ctrl-C stops it\)\n", ready)
        assert m, ready
        status, html = get(m.group(1))
        assert status == 200 and "<svg id=\"board\"" in html
        assert get(m.group(1) + "api/race/odds?stage=final")[0] == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert err == "sheepsim serve: stopped\n" and out == ""


def test_serve_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[race]\ntrack_length = -3\n")
    # processes: the real command's one stderr line (no traceback), and a mistake that
    # let one of them serve ends in a timeout here, not a test process serving forever
    proc = sheepsim("serve", "--rules", str(bad), "--port", "0")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and out == ""
    assert err.startswith("sheepsim: error: ") and err.count("\n") == 1, err
    with socket.socket() as busy:  # a port another program holds
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = sheepsim("serve", "--port", str(port))
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert err == (f"sheepsim: error: cannot listen on 127.0.0.1:{port} (Address already in use); "
                   "choose another --port or --host\n")
    proc = sheepsim("serve", "--port", "70000")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "a port is 0-65535" in err and err.count("\n") == 1


def test_the_server_imports_no_solver_until_asked():
    """Registering ``serve`` and loading the server module compile nothing: numba, numpy
    and pandas load with the first question (or the warm-up), not with the command line."""
    code = ("import sys, sheepsim.cli, sheepsim.serve.server; sheepsim.cli.build_parser(); "
            "print(sorted(m for m in ('numba', 'numpy', 'pandas') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # a new interpreter: what the server's import loads, none loaded before
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.stdout == "[]\n", out.stderr


def test_answers_kept_reaches_the_server_and_a_negative_count_is_one_line(capsys, monkeypatch):
    # `--answers-kept N` (0.8.3): the server keeps the latest N answers; the load benchmark
    # starts it with 0 (every question computed)
    from sheepsim.errors import SheepsimError
    from sheepsim.serve import server as S
    from sheepsim.serve.api import ANSWERS_KEPT
    from sheepsim.testing.cli import run

    asked = []

    def make_server(host, port, **kw):
        asked.append(kw["answers_kept"])
        raise SheepsimError("stopped here")  # before listening: the options are what is tested

    monkeypatch.setattr(S, "make_server", make_server)
    for argv, kept in (((), ANSWERS_KEPT), (("--answers-kept", "0"), 0),
                       (("--answers-kept", "25"), 25)):
        code, _, err = run(capsys, "serve", "--port", "0", *argv)
        assert code == 2 and err == "sheepsim: error: stopped here\n" and asked[-1] == kept
    assert ANSWERS_KEPT == 1_000
    code, out, err = run(capsys, "serve", "--answers-kept", "-1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--answers-kept" in err and "Traceback" not in err
