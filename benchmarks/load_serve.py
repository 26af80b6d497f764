"""``sheepsim serve`` under load: many players' pages asking at once.

Run: ``python benchmarks/load_serve.py [--clients 20] [--seconds 60] [--repo DIR]
[--retry page|old-page]``. Starts ``sheepsim serve --port 0 --answers-kept 0`` (every
question computed; a tree without the option keeps none) from ``--repo`` (default this
checkout; give another checkout to measure older code) and runs ``--clients``
players for ``--seconds``: each asks what the page asks after a change (the bet EVs and
the pace advice, two connections at once) for a mid-race position that differs from
question to question (two sheep moved at random, seed fixed), then asks again. A 503 is
asked again as the page does: ``page`` (today's app.js) after the answer's
Retry-After, up to 60 times; ``old-page`` (app.js before issue 47) after 200 ms, up to
30 times. Prints the share of questions answered (200), the 503s on the way, and
p50/p95/max of a question's wait (first send to its answer, retries included).

``--half-sent N`` instead opens N connections that each send a request line and one
header and never finish, and prints the server process's threads (``/proc``) and the
connections answered 503 at once, then the threads again after ``--seconds``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from bench_serve import warmed  # the same wait for the warm-up (benchmarks/ is on the path)

REPO = Path(__file__).resolve().parents[1]
RETRY = {"page": (60, None), "old-page": (30, 0.2)}  # (tries, pause: None = Retry-After)


def start_server(repo: Path):
    env = {**os.environ, "PYTHONPATH": str(repo)}
    argv = [sys.executable, "-m", "sheepsim", "serve", "--port", "0"]
    # every question computed, as before the server kept answers (0.8.3): the load is the
    # solver's; a tree without the option keeps none
    helptext = subprocess.run([*argv[:4], "--help"], env=env, cwd=repo, capture_output=True,
                              text=True).stdout
    if "--answers-kept" in helptext:
        argv += ["--answers-kept", "0"]
    proc = subprocess.Popen(argv, env=env,
                            cwd=repo, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in proc.stderr:
        m = re.search(r"http://([\d.]+):(\d+)/", line)
        if m:
            warmed(m.group(1), int(m.group(2)))
            return proc, m.group(1), int(m.group(2))
    proc.kill()
    raise SystemExit("the server did not start")


def position(rng: random.Random) -> str:
    a, b = rng.randrange(0, 17), rng.randrange(0, 17)
    return f"semifinal supply=15 {a}.011 {b}.010 8.000 10.001 12.020 F1"


def player(host, port, seed, until, retry, out):
    rng = random.Random(seed)
    tries, pause = RETRY[retry]

    def ask(conn, path, result):
        t0 = time.perf_counter()
        busy = 0
        for _ in range(tries):
            try:
                conn.request("GET", path)
                res = conn.getresponse()
                res.read()
            except (OSError, http.client.HTTPException):
                conn.close()  # the server closed it: a fresh connection, as a browser does
                result.append(("lost", time.perf_counter() - t0, busy))
                return
            if res.status != 503:
                break
            busy += 1
            time.sleep(pause if pause is not None else float(res.getheader("Retry-After") or 1))
        result.append((res.status, time.perf_counter() - t0, busy))

    conns = [http.client.HTTPConnection(host, port, timeout=120) for _ in range(2)]
    while time.monotonic() < until:
        pos = position(rng)
        paths = [f"/api/race/ev?{urlencode({'position': pos})}",
                 f"/api/race/advise?{urlencode({'position': pos, 'lane': 2, 'open': 2, 'hidden': '3,5'})}"]
        both = [threading.Thread(target=ask, args=(c, p, out)) for c, p in zip(conns, paths, strict=True)]
        for t in both:
            t.start()
        for t in both:
            t.join()
    for c in conns:
        c.close()


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("Threads:")).split()[1])


def half_sent(proc, host, port, n, seconds):
    import socket

    base = threads(proc.pid)
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=30)
        s.sendall(b"GET /api/race/odds HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(s)
    time.sleep(1)
    held = threads(proc.pid) - base
    refused = 0
    for s in socks:
        s.settimeout(0.05)
        try:
            refused += s.recv(64).startswith(b"HTTP/1.1 503")
        except OSError:
            pass
    time.sleep(seconds)
    print(f"{n:,} half-sent requests: {held} threads held after 1 s, {refused:,} answered 503 at "
          f"once; threads held after {seconds + 1:g} s: {threads(proc.pid) - base}")
    for s in socks:
        s.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--repo", type=Path, default=REPO)
    ap.add_argument("--retry", choices=tuple(RETRY), default="page")
    ap.add_argument("--half-sent", type=int, default=0, metavar="N")
    args = ap.parse_args()
    proc, host, port = start_server(args.repo)
    try:
        if args.half_sent:
            half_sent(proc, host, port, args.half_sent, args.seconds)
            return
        load0 = os.getloadavg()[0]
        out: list = []
        until = time.monotonic() + args.seconds
        threads = [threading.Thread(target=player, args=(host, port, k, until, args.retry, out))
                   for k in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answered = [w for s, w, _ in out if s == 200]
        waits = sorted(w for _, w, _ in out)
        q = statistics.quantiles(waits, n=100)
        print(f"sheepsim serve from {args.repo}, {args.clients} players for {args.seconds:g} s, "
              f"retry as {args.retry}; load average {load0:.1f} at start, "
              f"{os.getloadavg()[0]:.1f} at the end")
        print(f"  questions {len(out):,}, answered {len(answered):,} "
              f"({100 * len(answered) / len(out):.2f}%), unanswered "
              f"{len(out) - len(answered):,} (statuses {sorted({s for s, _, _ in out}, key=str)}), "
              f"503s on the way {sum(b for _, _, b in out):,}")
        print(f"  wait per question: p50 {q[49]:.2f} s, p95 {q[94]:.2f} s, max {waits[-1]:.2f} s")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
