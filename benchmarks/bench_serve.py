"""Latency of ``sheepsim serve``'s API, as the page sees it.

Run: ``python benchmarks/bench_serve.py [--requests N] [--endpoint odds|ev]``. Starts
``sheepsim serve`` in its own process (port 0; the measures start after its warm-up), then sends ``N``
requests one after another over one keep-alive connection for the standard semifinal
from the starting line and for a mid-race position, and prints p50/p95/max of the wall
time from sending a request to reading the whole answer (JSON parsing on the client
excluded). Wall time: it is what a player waits for, so it includes the load of the
machine; say what else was running when quoting it. ``--cpu N`` also gives the CPU
seconds (``time.process_time``, load-independent) of ``N`` answers computed in this
process by :class:`sheepsim.serve.api.RaceAPI`, without HTTP. The numbers in
benchmarks/README.md come from here.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = {
    "standard semifinal": {},
    "mid-race position": {"position": "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"},
}


def warmed(host: str, port: int) -> None:
    """Wait for the server's warm-up (it runs behind the page since it prints its
    address): an exact EV and an exact advice wait for the exact solver's kernels."""
    conn = http.client.HTTPConnection(host, port, timeout=600)
    for path in ("/api/race/ev", "/api/race/advise?" + urlencode(
            {"position": "semifinal " + " ".join(["0.000"] * 6), "lane": 1, "hidden": 1})):
        conn.request("GET", path)
        res = conn.getresponse()
        res.read()
        if res.status != 200:
            raise SystemExit(f"the server does not answer {path}: HTTP {res.status}")
    conn.close()


def start_server():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # SIGINT at its default in the server, so Ctrl-C (below) stops it even when this
    # script runs in a shell's background, which hands its children SIGINT ignored
    proc = subprocess.Popen([sys.executable, "-m", "sheepsim", "serve", "--port", "0"], env=env,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    line = proc.stderr.readline()
    m = re.search(r"http://([\d.]+):(\d+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the server did not start: {line}")
    warmed(m.group(1), int(m.group(2)))
    return proc, m.group(1), int(m.group(2))


def latencies(host, port, path, n):
    conn = http.client.HTTPConnection(host, port, timeout=300)
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("GET", path)
        res = conn.getresponse()
        body = res.read()
        out.append(time.perf_counter() - t0)
        if res.status != 200:
            raise SystemExit(f"{path}: HTTP {res.status} {body[:200]!r}")
    conn.close()
    return out


def questions(endpoint):
    """``(name, query string)`` of each question (advise: only the mid-race position,
    lane 2, with bets on lanes 2, 3 and 5)."""
    if endpoint == "advise":
        yield "mid-race position", urlencode({**QUESTIONS["mid-race position"], "lane": 2,
                                              "open": 2, "hidden": "3,5"})
        return
    for name, params in QUESTIONS.items():
        yield name, urlencode(params)


def cpu_seconds(endpoint, n):
    sys.path.insert(0, str(REPO))
    from sheepsim.serve.api import RaceAPI

    api = RaceAPI()
    print(f"RaceAPI.answer('/api/race/{endpoint}'), CPU seconds over {n} calls after 3 warm-up calls")
    for name, query in questions(endpoint):
        for _ in range(3):
            api.answer(f"/api/race/{endpoint}", query)
        cpu = []
        for _ in range(n):
            t0 = time.process_time()
            status, _ = api.answer(f"/api/race/{endpoint}", query)
            cpu.append(time.process_time() - t0)
            assert status == 200
        print(f"  {name:<20} median {1000 * statistics.median(cpu):7.1f} ms CPU  "
              f"min {1000 * min(cpu):7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--endpoint", choices=("odds", "ev", "advise"), default="odds")
    ap.add_argument("--cpu", type=int, default=0, metavar="N",
                    help="also the CPU seconds of N answers in this process (no HTTP)")
    args = ap.parse_args()
    if args.cpu:
        cpu_seconds(args.endpoint, args.cpu)
    proc, host, port = start_server()
    try:
        print(f"sheepsim serve, /api/race/{args.endpoint}, {args.requests} requests each, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
        for name, query in questions(args.endpoint):
            path = f"/api/race/{args.endpoint}?{query}"
            lat = sorted(latencies(host, port, path, args.requests))
            q = statistics.quantiles(lat, n=100)
            print(f"  {name:<20} p50 {1000 * q[49]:7.1f} ms  p95 {1000 * q[94]:7.1f} ms  "
                  f"max {1000 * lat[-1]:7.1f} ms")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
