"""Shear Panic throughput: games per second on one thread, numba versus plain Python.

Usage::

    python benchmarks/bench_panic.py [--games-random N] [--games-greedy N] [--quick]

For ``random`` and ``greedy`` with 3 and 4 players it times the parallel game kernel
(``engine.games_chunk``) with ``numba.set_num_threads(1)`` after a warm-up call (compile
time excluded), then runs *the same kernels* as plain Python in a subprocess with
``NUMBA_DISABLE_JIT=1`` on a few games and prints the speed-up. Finally it checks that
memory stays flat in the number of games (resident set size after 10x more games).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CASES = [("random", 3), ("random", 4), ("greedy", 3), ("greedy", 4)]
PYTHON_GAMES = {"random": 20, "greedy": 2}


def games_per_second(policy: str, players: int, games: int, seed: int = 1) -> float:
    """Games/s of ``games_chunk`` on the current thread count (one block)."""
    from sheepsim.games.panic.engine import games_chunk
    from sheepsim.games.panic.policies import POLICY_IDS
    from sheepsim.games.panic.rules import load_rules

    R = load_rules().kernel_array(players)
    pids = np.full(players, POLICY_IDS[policy], dtype=np.int64)
    games_chunk(R, pids, seed, 0, 2, 1, 4)  # compile or load from the cache
    t0 = time.perf_counter()
    acc = games_chunk(R, pids, seed, 0, games, 1, 4)
    dt = time.perf_counter() - t0
    assert acc.sum(axis=0)[0] == games
    return games / dt


def python_rate(policy: str, players: int, games: int) -> float:
    """The same kernels as plain Python (``NUMBA_DISABLE_JIT=1``) in a subprocess."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        f"import json, sys; sys.path.insert(0, {here!r}); "
        "from bench_panic import games_per_second; "
        f"print(json.dumps(games_per_second({policy!r}, {players}, {games})))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_check(games: int) -> tuple[int, int]:
    """RSS growth (bytes) over ``games`` and over ``10 * games`` random 4-player games."""
    from sheepsim.games.panic.simulate import play_games

    play_games(players=4, policies="random", games=1000, threads=1, progress=False)
    base = rss_bytes()
    play_games(players=4, policies="random", games=games, threads=1, progress=False)
    small = rss_bytes() - base
    play_games(players=4, policies="random", games=10 * games, threads=1, progress=False)
    large = rss_bytes() - base
    return small, large


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games-random", type=int, default=50_000)
    ap.add_argument("--games-greedy", type=int, default=1_000)
    ap.add_argument("--memory-games", type=int, default=20_000)
    ap.add_argument("--quick", action="store_true", help="fewer games, no plain Python")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = ap.parse_args(argv)
    import numba

    numba.set_num_threads(1)
    rows = []
    for policy, players in CASES:
        n = args.games_random if policy == "random" else args.games_greedy
        if args.quick:
            n = max(1, n // 10)
        fast = games_per_second(policy, players, n)
        slow = None if args.quick else python_rate(policy, players, PYTHON_GAMES[policy])
        rows.append({"policy": policy, "players": players, "games": n,
                     "numba_games_per_s": fast, "python_games_per_s": slow,
                     "speedup": (fast / slow) if slow else None})
    print("| policy | players | numba games/s (1 thread) | plain Python games/s | speed-up |")
    print("| --- | --- | ---: | ---: | ---: |")
    for r in rows:
        py = f"{r['python_games_per_s']:.2f}" if r["python_games_per_s"] else "-"
        sp = f"{r['speedup']:.0f}x" if r["speedup"] else "-"
        print(f"| {r['policy']} | {r['players']} | {r['numba_games_per_s']:,.0f} | {py} | {sp} |")
    small, large = memory_check(args.memory_games)
    print(f"\nRSS growth: {small / 2**20:.1f} MiB after {args.memory_games:,} games, "
          f"{large / 2**20:.1f} MiB after {10 * args.memory_games:,} games "
          "(flat: accumulators only, no per-game storage)")
    if args.json:
        print(json.dumps({"rows": rows, "rss_growth": [small, large]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
