"""Aw, Sheep! throughput: rounds per second on one core, numba versus plain Python.

Usage::

    python benchmarks/bench_awsheep.py [--rounds N] [--python-rounds N] [--quick]

For each policy (4 players, no draft; also random with 3 and 6 players and with the
draft) it times the serial chunk kernel ``kernels.rounds_chunk`` after a warm-up call
(compile or cache load excluded) on the thread's CPU clock (``time.thread_time``: on a
shared, busy machine wall time measures the other processes too), then runs *the same
kernels* as plain Python in a subprocess with ``NUMBA_DISABLE_JIT=1`` on a few rounds
and prints the speed-up.
Targets (issue 12): >= 50,000 4-player rounds/s/core with ``random``; >= 100x over
plain Python.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CASES = [("random", 4, False), ("greedy", 4, False), ("counter", 4, False),
         ("random", 3, False), ("random", 6, False), ("random", 4, True)]
PYTHON_ROUNDS = {"random": 300, "greedy": 150, "counter": 100}


def rounds_per_second(policy: str, players: int, draft: bool, rounds: int, seed: int = 1) -> float:
    """Rounds per CPU second of ``rounds_chunk`` on this thread (the kernels are serial)."""
    from sheepsim.games.awsheep import layout as L
    from sheepsim.games.awsheep.simulate import setting

    s = setting(None, players, policy, draft)
    acc = np.zeros(L.ACC_LEN, dtype=np.int64)
    s.kernels.rounds_chunk(s.R, s.pids, seed, 0, 2, False, acc)  # compile or load
    acc[:] = 0
    t0 = time.thread_time()
    s.kernels.rounds_chunk(s.R, s.pids, seed, 0, rounds, False, acc)
    dt = time.thread_time() - t0
    assert acc[L.A_GAMES] == rounds
    return rounds / dt


def python_rate(policy: str, players: int, draft: bool, rounds: int) -> float:
    """The same kernels as plain Python (``NUMBA_DISABLE_JIT=1``) in a subprocess."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        f"import json, sys; sys.path.insert(0, {here!r}); "
        "from bench_awsheep import rounds_per_second; "
        f"print(json.dumps(rounds_per_second({policy!r}, {players}, {draft}, {rounds})))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200_000, help="rounds per numba timing")
    ap.add_argument("--python-rounds", type=float, default=1.0,
                    help="scale of the plain-Python round counts (default 1)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds, no plain Python")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = ap.parse_args(argv)
    rows = []
    for policy, players, draft in CASES:
        n = args.rounds // (10 if args.quick else 1)
        fast = rounds_per_second(policy, players, draft, n)
        slow = None
        if not args.quick and players == 4 and not draft:
            k = max(10, int(PYTHON_ROUNDS[policy] * args.python_rounds))
            slow = python_rate(policy, players, draft, k)
        rows.append({"policy": policy, "players": players, "draft": draft, "rounds": n,
                     "numba_rounds_per_s": fast, "python_rounds_per_s": slow,
                     "speedup": (fast / slow) if slow else None})
    print("| policy | players | draft | numba rounds/s (1 core) | plain Python rounds/s | speed-up |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for r in rows:
        py = f"{r['python_rounds_per_s']:,.1f}" if r["python_rounds_per_s"] else "-"
        sp = f"{r['speedup']:,.0f}x" if r["speedup"] else "-"
        print(f"| {r['policy']} | {r['players']} | {'on' if r['draft'] else 'off'} | "
              f"{r['numba_rounds_per_s']:,.0f} | {py} | {sp} |")
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
