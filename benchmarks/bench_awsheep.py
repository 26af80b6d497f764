"""Aw, Sheep! throughput: rounds per second on one core, numba versus plain Python.

Usage::

    python benchmarks/bench_awsheep.py [--rounds N] [--python-rounds N] [--quick]
    python benchmarks/bench_awsheep.py --vs OLD_TREE [--rounds N] [--repeats K]

For each policy (4 players, no draft; also random with 3 and 6 players and with the
draft) it times a chunk of rounds (``PlayJob.chunk``: the harness's entry kernel
with the round's state machine) after a warm-up call (compile or cache
load excluded) on the thread's CPU clock (``time.thread_time``: on a shared, busy
machine wall time measures the other processes too), then runs *the same kernels* as
plain Python in a subprocess with ``NUMBA_DISABLE_JIT=1`` on a few rounds and prints
the speed-up. The timing goes through the public job API (``PlayJob.chunk``).

``--vs OLD_TREE`` instead times this tree against another checkout with the seed in the
job (issue 45, item 4; e.g. ec02a96, the last commit of the round kernels) in one run:
each timing in a fresh subprocess with that tree's package first on ``sys.path`` (this
file's timing code for both), the two trees alternating, ``--repeats`` pairs per case,
the cases above and the card value (``CardValueJob``: a round and its replays); it
prints the median rounds per CPU second of each and the median of the pairwise ratios
new/old.
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
CARD_VALUE_CASES = [("counter", 4, False), ("random", 4, False), ("random", 4, True)]
PYTHON_ROUNDS = {"random": 300, "greedy": 150, "counter": 100}


def rounds_per_second(policy: str, players: int, draft: bool, rounds: int, seed: int = 1,
                      job: str = "PlayJob") -> float:
    """Rounds per CPU second of one chunk of a job (``PlayJob``: plain rounds;
    ``CardValueJob``: every round and its card value replays) on this thread (the kernels
    are serial), through the public job API every version has."""
    from sheepsim.games.awsheep import jobs
    from sheepsim.games.awsheep import layout as L

    j = getattr(jobs, job)(None, players, policy, seed, draft)
    chunk = j.chunk  # the job holds its seed (issue 45, item 4): chunk(first, n)

    chunk(0, 2)  # compile or load
    t0 = time.thread_time()
    counts = chunk(0, rounds)
    dt = time.thread_time() - t0
    assert counts["acc"][L.A_GAMES] == rounds
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


def tree_rate(tree: str, policy: str, players: int, draft: bool, rounds: int,
              job: str = "PlayJob") -> float:
    """:func:`rounds_per_second` (this file's) on the package of the checkout ``tree``
    (first on ``sys.path``) in a fresh subprocess."""
    code = (
        f"import json, sys, importlib.util; sys.path[:0] = [{tree!r}]; "
        "import sheepsim; assert sheepsim.__file__.startswith(sys.path[0]); "
        f"spec = importlib.util.spec_from_file_location('bench', {os.path.abspath(__file__)!r}); "
        "b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b); "
        f"print(json.dumps(b.rounds_per_second({policy!r}, {players}, {draft}, {rounds}, "
        f"job={job!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    return float(out.stdout.strip().splitlines()[-1])


def versus(old: str, rounds: int, repeats: int, cases) -> None:
    """This tree against ``old``, alternating, ``repeats`` pairs per case; the card value
    cases (``CARD_VALUE_CASES``) on ``rounds // 50`` rounds."""
    new = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("| job | policy | players | draft | old rounds/s | new rounds/s | new/old (median of "
          "pairs, range) |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for job, policy, players, draft in cases:
        n = rounds // 50 if job == "CardValueJob" else rounds
        a, b = [], []
        for _ in range(repeats):
            a.append(tree_rate(old, policy, players, draft, n, job))
            b.append(tree_rate(new, policy, players, draft, n, job))
        ratio = float(np.median(np.array(b) / np.array(a)))
        print(f"| {job} | {policy} | {players} | {'on' if draft else 'off'} | {np.median(a):,.0f} | "
              f"{np.median(b):,.0f} | {ratio:.3f} ({min(np.array(b) / np.array(a)):.3f}-"
              f"{max(np.array(b) / np.array(a)):.3f}) |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200_000, help="rounds per numba timing")
    ap.add_argument("--python-rounds", type=float, default=1.0,
                    help="scale of the plain-Python round counts (default 1)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds, no plain Python")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    ap.add_argument("--vs", metavar="OLD_TREE", help="time this tree against that checkout")
    ap.add_argument("--repeats", type=int, default=5, help="with --vs: pairs per case")
    ap.add_argument("--job", choices=("PlayJob", "CardValueJob"), default=None,
                    help="with --vs: only this job's cases")
    ap.add_argument("--policies", default=None,
                    help="with --vs: only these policies (comma-separated)")
    args = ap.parse_args(argv)
    if args.vs:
        keep = args.policies.split(",") if args.policies else None
        cases = ([("PlayJob", *c) for c in CASES]
                 + [("CardValueJob", *c) for c in CARD_VALUE_CASES])
        versus(args.vs, args.rounds, args.repeats,
               [c for c in cases if (keep is None or c[1] in keep)
                and (args.job is None or c[0] == args.job)])
        return 0
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
