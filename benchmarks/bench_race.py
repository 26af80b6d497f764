"""Sheep Race speed: numba engine vs a naive pure-Python race, games, compile times.

Run: ``python benchmarks/bench_race.py [--races N] [--quick]``. Prints a table and the
ratios; the numbers in benchmarks/README.md come from this script. Single-thread
figures (this machine's 2 vCPUs give about one core of throughput).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pure_python_race import run_semifinal  # noqa: E402

from sheepsim.games.race.rules import load_rules  # noqa: E402
from sheepsim.games.race.simulate import play_games, race_counts  # noqa: E402

STANDARD_LANES = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Stilton"]


def check_same_race(rules, n=300):
    """The pure-Python reference must give exactly the engine's placings."""
    cards = rules.card_table()[rules.lanes(STANDARD_LANES)]
    ref = np.zeros((6, 3), dtype=np.int64)
    turns = 0
    for g in range(n):
        placed, t = run_semifinal(cards.tolist(), seed=5, game=g)
        turns += t
        for k, lane in enumerate(placed):
            ref[lane, k] += 1
    eng = race_counts(rules, STANDARD_LANES, games=n, seed=5, progress=False)
    assert np.array_equal(ref, eng.place_counts) and turns == eng.turns, "reference differs"


def time_engine_races(rules, n):
    race_counts(rules, STANDARD_LANES, games=1000, seed=0, progress=False)  # compile/load
    t = time.perf_counter()
    c = race_counts(rules, STANDARD_LANES, games=n, seed=1, threads=1, progress=False)
    dt = time.perf_counter() - t
    return n / dt, c.turns / n


def time_python_races(rules, n):
    cards = rules.card_table()[rules.lanes(STANDARD_LANES)].tolist()
    t = time.perf_counter()
    for g in range(n):
        run_semifinal(cards, seed=1, game=g)
    return n / (time.perf_counter() - t)


def time_games(rules, n):
    play_games(rules, 4, "ev", "greedy", games=500, seed=0, progress=False)
    t = time.perf_counter()
    play_games(rules, 4, "ev", "greedy", games=n, seed=1, threads=1, progress=False)
    return n / (time.perf_counter() - t)


def startup(cache_dir: str) -> float:
    """Wall time of a fresh process running a small ``race odds`` with this cache dir."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sheepsim", "race", "odds", "--games", "1000",
                    "--quiet", "--format", "csv"], check=True, env=env, capture_output=True)
    return time.perf_counter() - t


def peak_rss_mb(n: int) -> float:
    """Peak resident memory of a process simulating ``n`` races."""
    code = ("import resource; from sheepsim.games.race.simulate import race_counts;"
            f"race_counts(games={n}, threads=1, progress=False);"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--races", type=int, default=2_000_000)
    ap.add_argument("--python-races", type=int, default=5_000)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="small counts, skip compile timing")
    args = ap.parse_args()
    if args.quick:
        args.races, args.python_races, args.games = 200_000, 1_000, 5_000
    rules = load_rules()
    check_same_race(rules)
    numba.set_num_threads(1)
    res = {}
    res["engine_races_per_s"], res["turns_per_race"] = time_engine_races(rules, args.races)
    res["python_races_per_s"] = time_python_races(rules, args.python_races)
    res["speedup_vs_python"] = res["engine_races_per_s"] / res["python_races_per_s"]
    res["games_per_s_4p"] = time_games(rules, args.games)
    if not args.quick:
        with tempfile.TemporaryDirectory() as cache:
            res["startup_cold_cache_s"] = startup(cache)
            res["startup_warm_cache_s"] = startup(cache)
        res["peak_rss_mb_1e6_races"] = peak_rss_mb(1_000_000)
        res["peak_rss_mb_1e7_races"] = peak_rss_mb(10_000_000)
    for k, v in res.items():
        print(f"{k:>26}: {v:,.3f}" if isinstance(v, float) else f"{k:>26}: {v}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
