"""Shear Panic throughput: games per CPU second on one thread, numba versus plain Python.

Usage::

    python benchmarks/bench_panic.py [--rounds K] [--quick] [--baseline SRC_DIR]
                                     [--cold] [--json]

Every measurement runs in its own subprocess: ``PlayJob.chunk`` (what
``sheepsim panic play`` runs) with ``numba.set_num_threads(1)``, timed after a warm-up
call (compile time excluded) by the process's CPU time (``time.process_time``), so
that other jobs on a shared machine do not count. The cases are ``random`` and
``greedy`` at every seat and one ``rollout`` seat (4 playouts) with ``random`` others,
for 3 and 4 players. Then *the same kernels* run as plain Python (``NUMBA_DISABLE_JIT=1``)
on a few games, and the ratio is printed.

``--baseline SRC_DIR`` (a checkout of another version, e.g. ``git archive`` of the
previous commit) times that source tree too, alternating with this one round by round
(same machine, same load; each tree has its own kernel cache folder), and prints the
ratio new / baseline. ``--cold`` times ``sheepsim panic play --players 4 --games 200``
in a fresh process with an empty kernel cache (CPU seconds of the process and its
children). Finally memory: resident set size growth after N and 10 N random games.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
THIS_SRC = HERE.parent
#: (name, players, seat policies) of every case.
CASES = [
    ("random", 3, "random"), ("random", 4, "random"),
    ("greedy", 3, "greedy"), ("greedy", 4, "greedy"),
    ("rollout", 3, "rollout,random,random"), ("rollout", 4, "rollout,random,random,random"),
]
#: games per numba measurement and per plain-Python measurement
GAMES = {"random": 50_000, "greedy": 1_000, "rollout": 12}
PYTHON_GAMES = {"random": 20, "greedy": 2, "rollout": 1}
PLAYOUTS = 4


def games_per_cpu_second(policies: str, players: int, games: int, seed: int = 1) -> float:
    """Games per CPU second of the job's ``chunk`` on one numba thread."""
    import numba

    from sheepsim.games.panic.jobs import PlayJob

    numba.set_num_threads(1)
    names = policies.split(",")
    job = PlayJob(None, players, names * players if len(names) == 1 else names, seed,
                  PLAYOUTS)
    job.chunk(0, 1)  # compile or load from the cache
    t0 = time.process_time()
    acc = job.chunk(0, games)["acc"]
    dt = time.process_time() - t0
    assert acc[0] == games
    return games / dt


def _subprocess(src: Path, cache: Path, code: str, extra_env=None) -> str:
    env = dict(os.environ, PYTHONPATH=str(src), SHEEPSIM_CACHE_DIR=str(cache))
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True, cwd=tempfile.gettempdir())
    return out.stdout.strip().splitlines()[-1]


def measure(src: Path, cache: Path, policies: str, players: int, games: int,
            python: bool = False) -> float:
    """Games per CPU second in a subprocess running the source tree ``src``."""
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); "
            "from bench_panic import games_per_cpu_second as g; "
            f"print(json.dumps(g({policies!r}, {players}, {games})))")
    env = {"NUMBA_DISABLE_JIT": "1"} if python else None
    return float(_subprocess(src, cache, code, env))


def cold_start(src: Path) -> tuple[float, float]:
    """``(CPU seconds, wall seconds)`` of ``sheepsim panic play --players 4 --games 200``
    in a fresh process with an empty kernel cache."""
    with tempfile.TemporaryDirectory() as cache:
        code = ("import sys; from sheepsim.cli import main; "
                "sys.exit(main(['panic', 'play', '--players', '4', '--games', '200', "
                "'--quiet', '--format', 'json']))")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=str(src), SHEEPSIM_CACHE_DIR=cache)
        subprocess.run([sys.executable, "-c", code], env=env, check=True,
                       capture_output=True, cwd=tempfile.gettempdir())
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


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


def _trees(args) -> dict[str, tuple[Path, Path]]:
    """Source tree and kernel cache folder of each version to time."""
    root = Path(tempfile.gettempdir()) / f"sheepsim-bench-{os.getuid()}"
    trees = {"new": (THIS_SRC, root / "new")}
    if args.baseline:
        trees["baseline"] = (Path(args.baseline).resolve(), root / "baseline")
    return trees


def _print_table(rows, trees) -> None:
    head = " | ".join(f"{t} games/CPU s" for t in trees)
    print(f"| case | players | {head} | plain Python games/CPU s | speed-up over Python |"
          + (" new / baseline |" if "baseline" in trees else ""))
    print("| --- | --- |" + " ---: |" * (len(trees) + 2 + ("baseline" in trees)))
    for r in rows:
        rates = " | ".join(f"{r[t]:,.1f}" for t in trees)
        py = f"{r['python']:.3f}" if r["python"] else "-"
        sp = f"{r['new'] / r['python']:.0f}x" if r["python"] else "-"
        ratio = f" {r['new'] / r['baseline']:.2f} |" if "baseline" in trees else ""
        print(f"| {r['case']} | {r['players']} | {rates} | {py} | {sp} |{ratio}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (best kept)")
    ap.add_argument("--baseline", metavar="SRC_DIR", help="also time this source tree")
    ap.add_argument("--quick", action="store_true", help="a tenth of the games, no plain Python")
    ap.add_argument("--cases", default="", help="only these case names (comma-separated)")
    ap.add_argument("--cold", action="store_true", help="also time a cold start")
    ap.add_argument("--memory-games", type=int, default=20_000,
                    help="RSS growth after this many random games and 10 times as many")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    args = ap.parse_args(argv)
    for name in ("rounds", "memory_games"):  # refused before any timing: one line, exit 2
        if getattr(args, name) < 1:
            ap.exit(2, f"{ap.prog}: --{name.replace('_', '-')} must be at least 1, "
                       f"got {getattr(args, name)}\n")
    trees = _trees(args)
    cases = [c for c in CASES if not args.cases or c[0] in args.cases.split(",")]
    print(f"load average at start: {os.getloadavg()}")
    rows = [{"case": c, "players": p, "policies": pol, **{t: 0.0 for t in trees},
             "python": None} for c, p, pol in cases]
    for _ in range(args.rounds):
        for row in rows:
            n = GAMES[row["case"]] // (10 if args.quick else 1) or 1
            for t, (src, cache) in trees.items():  # alternate the trees case by case
                rate = measure(src, cache, row["policies"], row["players"], n)
                row[t] = max(row[t], rate)
                print(f"  {t}: {row['case']} {row['players']}p {rate:,.1f} games/CPU s",
                      flush=True)
    if not args.quick:
        for row in rows:
            row["python"] = measure(THIS_SRC, trees["new"][1], row["policies"], row["players"],
                                    PYTHON_GAMES[row["case"]], python=True)
            print(f"  plain Python: {row['case']} {row['players']}p {row['python']:.3f} "
                  "games/CPU s", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    _print_table(rows, trees)
    out = {"rows": rows}
    if args.cold:
        for t, (src, _) in trees.items():
            cpu, wall = cold_start(src)
            out[f"cold_{t}"] = {"cpu_s": cpu, "wall_s": wall}
            print(f"cold start ({t}): {cpu:.1f} s CPU, {wall:.1f} s wall")
    small, large = memory_check(args.memory_games)
    out["rss_growth"] = [small, large]
    print(f"\nRSS growth: {small / 2**20:.1f} MiB after {args.memory_games:,} games, "
          f"{large / 2**20:.1f} MiB after {10 * args.memory_games:,} games "
          "(flat: accumulators only, no per-game storage)")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
