"""``sheepsim serve`` holds (issue 47, item 5): a fair queue instead of instant 503s, many
players at once all answered, slow and half-sent requests cut after the head timeout, a
cap on open connections, ``Host`` and ``Origin`` checked."""

import http.client
import json
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from sheepsim.serve.api import Queue
from sheepsim.serve.server import make_server

#: a race near its end: each answer takes milliseconds, so the test measures the server
ENDGAME = "semifinal supply=15 F2 19.010 8.000 X18 F1 20.010"
EV = "/api/race/ev?" + urlencode({"position": ENDGAME, "taken": "3"})
ADVISE = "/api/race/advise?" + urlencode({"position": ENDGAME, "lane": "3", "hidden": "3"})


def serving(**limits):
    srv = make_server("127.0.0.1", 0, **limits)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def stop(srv):
    srv.shutdown()
    srv.server_close()


def request(srv, path, headers=None, timeout=60):
    conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        res = conn.getresponse()
        return res.status, res.read().decode(), res.getheader("Retry-After")
    finally:
        conn.close()


def test_the_queue_is_fair_full_and_timed():
    queue = Queue(slots=1, depth=2)
    assert queue.enter(0) is True  # the slot
    order = []

    def wait(name):
        if queue.enter(10):
            order.append(name)
            queue.leave()

    first = threading.Thread(target=wait, args=("first",))
    first.start()
    while queue.waiting < 1:
        time.sleep(0.001)
    second = threading.Thread(target=wait, args=("second",))
    second.start()
    while queue.waiting < 2:
        time.sleep(0.001)
    assert queue.enter(10) is None  # two wait already: full, refused at once
    queue.leave()  # the slot goes to the first waiting, then to the second
    first.join(10)
    second.join(10)
    assert order == ["first", "second"]
    assert queue.enter(0) is True
    t0 = time.monotonic()
    assert queue.enter(0.2) is False  # waited its limit
    assert 0.2 <= time.monotonic() - t0 < 5
    assert queue.waiting == 0
    queue.leave()
    assert queue.enter(0) is True  # the slot came back
    queue.leave()


def page_client(srv, until, answered, retries, latencies, failures):
    """One player's page: the bet EVs and the pace advice asked at once (two
    connections, as the browser does), again and again until ``until``; a 503 is asked
    again after its Retry-After, as app.js does."""
    host, port = srv.server_address[:2]

    def ask(conn, path):
        t0 = time.perf_counter()
        for _ in range(60):  # app.js gives up after 60 busy answers
            conn.request("GET", path)
            res = conn.getresponse()
            body = res.read()
            if res.status != 503:
                break
            retries.append(1)
            time.sleep(float(res.getheader("Retry-After") or 1))
        if res.status == 200 and json.loads(body)["meta"]:
            answered.append(1)
            latencies.append(time.perf_counter() - t0)
        else:
            failures.append((res.status, body[:200]))

    conns = [http.client.HTTPConnection(host, port, timeout=60) for _ in range(2)]
    while time.monotonic() < until:
        both = [threading.Thread(target=ask, args=(c, p)) for c, p in zip(conns, (EV, ADVISE), strict=True)]
        for t in both:
            t.start()
        for t in both:
            t.join()
    for c in conns:
        c.close()


def test_twenty_players_at_once_are_all_answered():
    # the server's real limits (4 solved at once, 48 waiting, 20 s wait): 20 pages asking
    # two questions at a time keep 40 in flight, so the queue is used all the time (no
    # answers kept: the pages ask the same two questions, which would be answered from
    # memory after the first; test_answers_are_kept_and_asked_again_only_when_new)
    srv = serving(answers_kept=0)
    try:
        answered, retries, latencies, failures = [], [], [], []
        until = time.monotonic() + 3
        players = [threading.Thread(target=page_client,
                                    args=(srv, until, answered, retries, latencies, failures))
                   for _ in range(20)]
        for t in players:
            t.start()
        for t in players:
            t.join(120)
        assert failures == []
        assert len(answered) >= 40  # every player had at least one turn
        assert retries == []  # the queue held them all: no 503 on the way
        assert srv.api.queue.peak >= 10  # and it was used: up to 36 wait behind 4 solving
    finally:
        stop(srv)


def test_answers_are_kept_and_asked_again_only_when_new(tmp_path, monkeypatch):
    """An answer asked before is the same bytes, answered from memory: without the queue
    (held here by another question) and without running the command; an error is not
    kept; the oldest answer goes first; an edited rules file is asked again."""
    import sheepsim.cli
    from sheepsim.serve.api import RaceAPI

    ran, execute = [], sheepsim.cli.execute
    monkeypatch.setattr(sheepsim.cli, "execute", lambda args: ran.append(1) or execute(args))
    api = RaceAPI(answers_kept=2)
    ev, advise = EV.split("?", 1)[1], ADVISE.split("?", 1)[1]
    first = api.answer("/api/race/ev", ev)
    assert first[0] == 200 and len(ran) == 1
    assert api.queue.enter(0)  # another question holds the solver
    try:
        assert api.answer("/api/race/ev", ev) == first and len(ran) == 1
    finally:
        api.queue.leave()
    bad = urlencode({"position": ENDGAME, "taken": "9"})
    assert api.answer("/api/race/ev", bad)[0] == 400
    assert api.answer("/api/race/ev", bad)[0] == 400 and len(ran) == 3  # not kept
    assert api.answer("/api/race/advise", advise)[0] == 200 and len(ran) == 4
    assert api.answer("/api/race/ev", ev) == first and len(ran) == 4  # the latest 2 kept
    move = urlencode({"position": ENDGAME, "total": "7"})
    assert api.answer("/api/race/move", move)[0] == 200 and len(ran) == 5  # advise goes
    assert api.answer("/api/race/advise", advise)[0] == 200 and len(ran) == 6
    # a server on a rules file: the same question after the file changed runs again
    import sheepsim.games.race

    standard = (Path(sheepsim.games.race.__file__).parent / "standard.toml").read_text()
    rules = tmp_path / "rules.toml"
    rules.write_text(standard)
    api = RaceAPI(str(rules))
    before = api.answer("/api/race/move", move)
    assert before[0] == 200 and api.answer("/api/race/move", move) == before and len(ran) == 7
    rules.write_text(standard + "# edited\n")  # the same rules, another sha256 in the answer
    assert api.answer("/api/race/move", move) != before and len(ran) == 8


def test_half_sent_requests_hold_threads_no_longer_than_the_timeout():
    srv = serving(max_connections=8, head_timeout=1.0)
    host, port = srv.server_address[:2]
    before = threading.active_count()
    socks = []
    try:
        t0 = time.monotonic()
        for _ in range(100):  # a request line and one header, never the blank line
            s = socket.create_connection((host, port), timeout=10)
            s.sendall(b"GET /api/race/odds HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        time.sleep(0.3)
        # at most 8 held (one thread each); the other 92 were turned away with a 503
        assert threading.active_count() - before <= 8
        turned_away = 0
        for s in socks:
            s.settimeout(max(0.1, t0 + 5 - time.monotonic()))
            try:
                head = s.recv(64)
            except (TimeoutError, ConnectionError):
                head = b""
            turned_away += head.startswith(b"HTTP/1.1 503")
        assert turned_away >= 90
        # the held 8 were cut at their head timeout (1 s, checked every 0.25 s)
        deadline = time.monotonic() + 5
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() == before
        assert time.monotonic() - t0 < 3
        # and the server answers again
        status, body, _ = request(srv, "/api/race/odds?" + urlencode({"position": ENDGAME}))
        assert status == 200
    finally:
        for s in socks:
            s.close()
        stop(srv)


def test_a_request_sent_a_byte_at_a_time_is_cut():
    srv = serving(head_timeout=1.0)
    host, port = srv.server_address[:2]
    try:
        raw = b"GET /api/race/odds HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
        t0 = time.monotonic()
        with socket.create_connection((host, port), timeout=10) as s:
            try:
                for byte in raw:  # each byte well inside the socket timeout
                    s.sendall(bytes([byte]))
                    time.sleep(0.1)
                    if time.monotonic() - t0 > 5:
                        break
                got = s.recv(64)
            except ConnectionError:
                got = b""
        assert got == b""  # closed without an answer
        assert time.monotonic() - t0 < 3  # about the 1 s head timeout, not 10 s of bytes
    finally:
        stop(srv)


def test_only_this_servers_host_is_answered(server):
    port = server.server_address[1]
    ok = "/api/race/odds?" + urlencode({"position": ENDGAME})
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}",
                 "127.0.0.2:9000"):  # a loopback address, any port (forwarded)
        assert request(server, ok, {"Host": host})[0] == 200, host
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.nip.io:{port}",
                 "192.168.1.20", "localhost:x", "[127.0.0.1]"):
        for path in (ok, "/"):  # a rebound name reads neither the page nor the API
            status, body, _ = request(server, path, {"Host": host})
            assert status == 403, (host, path)
            assert "does not answer for the host" in body


def test_other_sites_pages_cannot_ask(server):
    port = server.server_address[1]
    ok = "/api/race/odds?" + urlencode({"position": ENDGAME})
    host = f"127.0.0.1:{port}"
    assert request(server, ok, {"Origin": f"http://{host}"})[0] == 200
    assert request(server, ok, {"Sec-Fetch-Site": "same-origin"})[0] == 200
    assert request(server, ok, {"Sec-Fetch-Site": "none"})[0] == 200  # typed in the bar
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Origin": f"http://localhost:{port}"},  # another origin, same server
                    {"Origin": f"https://{host}"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):
        status, body, _ = request(server, ok, headers)
        assert status == 403, headers
        assert "from another site" in json.loads(body)["error"]
    # the page itself may be opened from a link on another site
    assert request(server, "/", {"Sec-Fetch-Site": "cross-site"})[0] == 200


def test_an_any_address_bind_answers_addresses_and_this_computers_name():
    srv = make_server("0.0.0.0", 0)
    try:
        here = socket.gethostname()
        for host in ("192.168.1.20:8000", "10.0.0.7", "127.0.0.1", "[fe80::1]:8000",
                     "localhost", here, f"{here.split('.')[0]}.local:8000"):
            assert srv.host_allowed(host), host
        for host in ("evil.example", "192.168.1.20.nip.io", "", ":8000"):
            assert not srv.host_allowed(host), host
    finally:
        srv.server_close()


@pytest.mark.parametrize("asked", ["127.0.0.1", "localhost"])
def test_a_loopback_bind_answers_loopback_names_only(asked):
    srv = make_server(asked, 0)
    try:
        assert srv.host_allowed("localhost:8000") and srv.host_allowed("127.0.0.1")
        assert not srv.host_allowed("10.0.0.7") and not srv.host_allowed("evil.example")
    finally:
        srv.server_close()


def test_the_warm_up_asks_every_kind_of_question_the_page_asks():
    """Exact bet EVs for each exact pace policy, exact pace advice, a turn played
    (``move``, every tap of a total asks it), and the first simulated policy's EVs and
    advice (each simulated policy has a kernel of its own): compiled behind the page
    while it answers (``start_warm_up``), not when a player asks."""
    from urllib.parse import parse_qs

    from sheepsim.serve.api import RaceAPI
    from sheepsim.serve.server import warm_up

    api = RaceAPI()
    asked, answer = [], api.answer

    def recording(path, query):
        status, text = answer(path, query)
        asked.append((path.rsplit("/", 1)[1], parse_qs(query).get("policy", ["greedy"])[0], status))
        return status, text

    api.answer = recording
    warm_up(api)
    policies = json.loads(api.rules_json())["policies"]
    assert {("ev", p, 200) for p in policies["exact"]} <= set(asked)
    assert ("advise", "greedy", 200) in asked and ("move", "greedy", 200) in asked
    assert {("ev", policies["simulated"][0], 200),
            ("advise", policies["simulated"][0], 200)} <= set(asked)


def test_exact_questions_wait_for_the_warm_up_worker_simulated_ones_do_not():
    """While the warm-up's worker process compiles the exact solver's kernels
    (``exact_ready`` clear), an exact question and a move wait for it rather than
    compile the same kernels a second time, and a simulated question is answered;
    when the worker is done they are answered."""
    from sheepsim.serve.api import RaceAPI

    api = RaceAPI()
    api.exact_ready.clear()
    answers = {}

    def ask(name, path, query):
        answers[name] = api.answer(path, query)

    waiting = [threading.Thread(target=ask, args=args, daemon=True) for args in (
        ("ev", "/api/race/ev", "policy=saver"),
        ("move", "/api/race/move", urlencode({"position": ENDGAME, "total": "7"})))]
    for thread in waiting:
        thread.start()
    status, text = api.answer("/api/race/ev", "policy=random&games=100&seed=3")
    assert status == 200 and json.loads(text)
    assert all(thread.is_alive() for thread in waiting) and answers == {}
    api.exact_ready.set()
    for thread in waiting:
        thread.join(600)
    assert answers["ev"][0] == 200 and answers["move"][0] == 200, answers
    # a bad question is refused at once, waiting for nothing
    api.exact_ready.clear()
    assert api.answer("/api/race/ev", "policy=saver&stage=semi")[0] == 400
    api.exact_ready.set()
