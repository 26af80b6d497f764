"""Sheep Race speed: numba engine vs plain C and a naive pure-Python race, compile times.

Run: ``python benchmarks/bench_race.py [--races N] [--quick]``. Prints a table and the
ratios; the numbers in benchmarks/README.md come from this script. Single-thread
figures (this machine's 2 vCPUs give about one core of throughput). The C reference
(``c/race_ref.c``) is compiled with ``cc -O2`` when a compiler is present (skipped with
a message when not), as the plain reference and as a tuned one (``-DGREEDY_FROM_VALUES``:
the engine's greedy algorithm), each checked to give the engine's placings and turns,
then timed in the same run as the engine. Rates are per CPU second of the process (its CPU time, not
the wall clock), so that load from other processes on a shared machine does not enter;
the C program reports its own CPU time the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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

from sheepsim.games.race.jobs import play_games, race_counts  # noqa: E402
from sheepsim.games.race.rules import load_rules  # noqa: E402

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


def _c_args(rules, seed, first, n):
    cards = rules.card_table()[rules.lanes(STANDARD_LANES)]
    faces, nfaces = rules.dice_arrays("semifinal")
    dice = "/".join(",".join(str(f) for f in faces[d, :nfaces[d]]) for d in range(len(nfaces)))
    return [str(seed), str(first), str(n), str(rules.track_length), str(rules.end_zone),
            str(rules.max_cubes), str(int(rules.supply[1])), dice,
            "/".join(",".join(str(v) for v in row) for row in cards.tolist())]


def build_c_reference(workdir: str) -> dict[str, str]:
    """Compile ``c/race_ref.c`` with ``cc -O2``, as the plain reference (``"c"``) and with
    ``-DGREEDY_FROM_VALUES`` (``"c_tuned"``: the engine's greedy algorithm, no legal
    array); ``{}`` (and a message) without a compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        print("C reference skipped: no C compiler (cc, gcc, clang) on PATH")
        return {}
    exes = {}
    for name, flags in (("c", []), ("c_tuned", ["-DGREEDY_FROM_VALUES"])):
        exes[name] = str(Path(workdir) / name)
        subprocess.run([cc, "-O2", *flags, "-o", exes[name], str(HERE / "c" / "race_ref.c")],
                       check=True)
    return exes


def run_c(exe, rules, seed, first, n):
    """``(joint (216,), total turns, CPU seconds of the simulation loop)`` from C."""
    out = subprocess.run([exe, *_c_args(rules, seed, first, n)], check=True,
                         capture_output=True, text=True).stdout.split("\n")
    return np.array(out[0].split(), dtype=np.int64), int(out[1]), float(out[3])


def check_c_same_races(exe, rules, n=20_000):
    """The C reference must give exactly the engine's (1st, 2nd, 3rd) counts and turns."""
    joint, turns, _ = run_c(exe, rules, 5, 0, n)
    eng = race_counts(rules, STANDARD_LANES, games=n, seed=5, progress=False)
    assert np.array_equal(joint, eng.joint) and turns == eng.turns, "C reference differs"


def time_engine_races(rules, n):
    race_counts(rules, STANDARD_LANES, games=1000, seed=0, progress=False)  # compile/load
    t = time.process_time()
    c = race_counts(rules, STANDARD_LANES, games=n, seed=1, threads=1, progress=False)
    dt = time.process_time() - t
    return n / dt, c.turns / n


def time_python_races(rules, n):
    cards = rules.card_table()[rules.lanes(STANDARD_LANES)].tolist()
    t = time.process_time()
    for g in range(n):
        run_semifinal(cards, seed=1, game=g)
    return n / (time.process_time() - t)


def time_games(rules, n):
    """4-player whole games per CPU second, table-based ``ev-approx`` bets, ``greedy`` pace
    (``ev`` is the exact solver now: about 0.1 s a game, timed by bench_exact.py)."""
    play_games(rules, 4, "ev-approx", "greedy", games=500, seed=0, progress=False)
    t = time.process_time()
    play_games(rules, 4, "ev-approx", "greedy", games=n, seed=1, threads=1, progress=False)
    return n / (time.process_time() - t)


def startup(cache_dir: str) -> tuple[float, float]:
    """``(wall, CPU)`` seconds of a fresh process running ``race odds --games 100000``
    with this kernel cache directory (CPU: user + system time of the child)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, SHEEPSIM_CACHE_DIR=cache_dir)
    before = os.times()
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sheepsim", "race", "odds", "--games", "100000",
                    "--quiet", "--format", "csv"], check=True, env=env, capture_output=True)
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)
    return wall, cpu


def peak_rss_mb(n: int) -> float:
    """Peak resident memory of a process simulating ``n`` races."""
    code = ("import resource; from sheepsim.games.race.jobs import race_counts;"
            f"race_counts(games={n}, threads=1, progress=False);"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--races", type=int, default=2_000_000)
    ap.add_argument("--python-races", type=int, default=5_000)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds of C, engine and pure Python")
    ap.add_argument("--quick", action="store_true", help="small counts, skip compile timing")
    args = ap.parse_args()
    if args.quick:
        args.races, args.python_races, args.games, args.rounds = 200_000, 1_000, 5_000, 1
    print(f"load average at start: {os.getloadavg()}", flush=True)
    rules = load_rules()
    check_same_race(rules)
    numba.set_num_threads(1)
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        exes = build_c_reference(tmp)
        for exe in exes.values():
            check_c_same_races(exe, rules)
        # alternate C, engine and pure-Python rounds and keep each one's best: on a
        # shared machine a burst of load from elsewhere then cannot favour one side
        for _ in range(args.rounds):
            for name, exe in exes.items():
                _, _, dt = run_c(exe, rules, 1, 0, args.races)
                key = f"{name}_races_per_s"
                res[key] = max(res.get(key, 0.0), args.races / dt)
            rate, res["turns_per_race"] = time_engine_races(rules, args.races)
            res["engine_races_per_s"] = max(res.get("engine_races_per_s", 0.0), rate)
            rate = time_python_races(rules, args.python_races)
            res["python_races_per_s"] = max(res.get("python_races_per_s", 0.0), rate)
    for name in exes:
        res[f"engine_over_{name}"] = res["engine_races_per_s"] / res[f"{name}_races_per_s"]
    res["speedup_vs_python"] = res["engine_races_per_s"] / res["python_races_per_s"]
    res["games_per_s_4p"] = time_games(rules, args.games)
    if not args.quick:
        with tempfile.TemporaryDirectory() as cache:
            res["startup_cold_cache_wall_s"], res["startup_cold_cache_cpu_s"] = startup(cache)
            res["startup_warm_cache_wall_s"], res["startup_warm_cache_cpu_s"] = startup(cache)
        res["peak_rss_mb_1e6_races"] = peak_rss_mb(1_000_000)
        res["peak_rss_mb_1e7_races"] = peak_rss_mb(10_000_000)
    res["load_average_at_end"] = os.getloadavg()[0]
    for k, v in res.items():
        print(f"{k:>26}: {v:,.3f}" if isinstance(v, float) else f"{k:>26}: {v}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
