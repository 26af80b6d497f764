"""CLI warm start (issue 34): a warm ``sheepsim race odds --exact`` against its floor.

Run: ``python benchmarks/bench_startup.py [--repeats N] [--baseline DIR] [--all] [--cold]``.

The target is relative: with the kernels in the cache, ``sheepsim race odds --exact``
must finish within 0.3 s of ``python -c "import numba, pandas"`` measured in the same
run. The two run in fresh processes in turn (floor, command, floor, command, ...; one
warm-up run of each first, which also fills the kernel cache), ``N`` times each
(default 9, at least 7), and the script prints for each the median CPU time (user +
system of the child) and wall time with their range, and the median of the differences
command minus floor taken round by round (a comparison that holds while the shared
machine's speed drifts). ``--baseline DIR`` adds a third command in every round: the
same command run from the source tree ``DIR`` (a checkout of an earlier commit; its
``sheepsim`` package first on ``PYTHONPATH``), for before/after figures from one run.

The kernel cache is ``SHEEPSIM_CACHE_DIR`` if set, else a temporary folder. "Warm"
includes Python's bytecode cache: the script first compiles the package's ``.pyc``
files (``compileall``), as ``pip install`` does. Where ``PYTHONDONTWRITEBYTECODE`` is set
and nobody compiled them (a checkout run from ``PYTHONPATH``), every command compiles
sheepsim's source again, 0.15-0.2 s of CPU (benchmarks/README.md, "Warm start").
``--no-compileall`` skips that step.

``--all`` also times the other commands' warm starts and floors (best of ``N``);
``--cold`` the issue-11 cold commands, ``race odds --games 100000`` and ``panic play
--players 4 --games 200``, with an empty kernel cache (a new temporary
``SHEEPSIM_CACHE_DIR`` for every run), ``M`` times each (``--cold-repeats``, default 2).

The machine is shared: compare a command with the floor of the same run, not with
numbers from another day.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the command of the target and its floor
TARGET = ["race", "odds", "--exact", "--quiet"]
FLOOR = "import numba, pandas"
#: the target: the command's excess over the floor, seconds
TARGET_EXCESS = 0.3
#: ``--all``: other commands' warm starts
COMMANDS = [
    ["--help"], ["report", "--help"], ["race", "odds"], ["race", "odds", "--games", "100000"],
    ["race", "ev"], ["panic", "play", "--games", "200"], ["awsheep", "play", "--games", "1000"],
]
#: the issue-11 cold-start commands (empty kernel cache): name, CLI arguments
COLD_COMMANDS = [
    ("cold: race odds --games 100000", ["race", "odds", "--games", "100000"]),
    ("cold: panic play --players 4 --games 200", ["panic", "play", "--players", "4",
                                                  "--games", "200"]),
]
TINY_KERNEL = ("import numba\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\nf(1)\n")


def timed(argv: list[str], env: dict, cwd: str) -> tuple[float, float]:
    """``(CPU, wall)`` seconds of one child process."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system), wall


def sheepsim(tree: Path, args: list[str], env: dict) -> tuple[list[str], dict]:
    """``python -m sheepsim ARGS`` run from the source tree ``tree``."""
    path = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    return [sys.executable, "-m", "sheepsim", *args], dict(env, PYTHONPATH=path)


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):6.3f} ({min(values):.3f}-{max(values):.3f})"


def target_comparison(runs: dict, repeats: int, tmp: str) -> None:
    """Alternate the runs ``name -> (argv, env)`` ``repeats`` times after one warm-up
    each; print medians, ranges and the round-by-round differences to the floor."""
    for argv, env in runs.values():  # warm up: the kernel cache, the .pyc files
        timed(argv, env, tmp)
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for i in range(repeats):
        for name, (argv, env) in runs.items():
            got[name].append(timed(argv, env, tmp))
        print(f"round {i + 1}/{repeats}: " + "; ".join(
            f"{name.split(':')[0]} {got[name][-1][0]:.3f}/{got[name][-1][1]:.3f}" for name in runs),
              "(CPU/wall s), load", f"{os.getloadavg()[0]:.2f}", flush=True)
    print(f"\n{'':<44} {'CPU s, median (min-max)':>26} {'wall s, median (min-max)':>26}")
    for name, pairs in got.items():
        print(f"{name:<44} {summary([c for c, _ in pairs]):>26} {summary([w for _, w in pairs]):>26}")
    floor = got["floor"]
    for name, pairs in got.items():
        if name == "floor":
            continue
        cpu = [c - f for (c, _), (f, _) in zip(pairs, floor, strict=True)]
        wall = [w - f for (_, w), (_, f) in zip(pairs, floor, strict=True)]
        print(f"{name.split(':')[0] + ' minus floor, round by round':<44} {summary(cpu):>26} "
              f"{summary(wall):>26}")
    print(f"target: the command within {TARGET_EXCESS} s of the floor "
          f"({repeats} runs each, medians)")


def all_commands(env: dict, repeats: int, tmp: str, best: dict) -> None:
    """``--all``: the floors and every command of :data:`COMMANDS`, best of ``repeats``."""
    with open(os.path.join(tmp, "tiny.py"), "w") as fh:
        fh.write(TINY_KERNEL)
    runs = {"floor: python -c pass": ([sys.executable, "-c", "pass"], env),
            "floor: one cached numba kernel": ([sys.executable, "tiny.py"], env),
            "floor: pandas + one cached kernel": ([sys.executable, "-c", "import pandas, tiny"], env)}
    for cmd in COMMANDS:
        quiet = [] if "--help" in cmd else ["--quiet"]
        runs["sheepsim " + " ".join(cmd)] = sheepsim(ROOT, [*cmd, *quiet], env)
    for argv, run_env in runs.values():
        timed(argv, run_env, tmp)
    for _ in range(repeats):
        for name, (argv, run_env) in runs.items():
            cpu, wall = timed(argv, run_env, tmp)
            old = best.get(name, (1e9, 1e9))
            best[name] = (min(old[0], cpu), min(old[1], wall))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--baseline", metavar="DIR", type=Path,
                    help="also run the command from this source tree (an earlier checkout)")
    ap.add_argument("--all", action="store_true", help="also time the other commands (best of N)")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--cold-repeats", type=int, default=2)
    ap.add_argument("--no-compileall", action="store_true")
    args = ap.parse_args()
    if args.repeats < 7:
        ap.error("--repeats: at least 7 (medians of at least 7 runs each)")
    trees = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
    if args.baseline and not (trees[1] / "sheepsim" / "__main__.py").is_file():
        ap.error(f"--baseline: no sheepsim package in {trees[1]}")
    if not args.no_compileall:
        import compileall

        for tree in trees:
            compileall.compile_dir(tree / "sheepsim", quiet=1)
    print("load average at start", os.getloadavg(), flush=True)
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.setdefault("SHEEPSIM_CACHE_DIR", os.path.join(tmp, "cache"))
        runs = {"floor": ([sys.executable, "-c", FLOOR], env),
                "now: sheepsim " + " ".join(TARGET[:-1]): sheepsim(ROOT, TARGET, env)}
        if args.baseline:
            runs["baseline: the same from " + trees[1].name] = sheepsim(trees[1], TARGET, env)
        print(f"floor: python -c {FLOOR!r}")
        target_comparison(runs, args.repeats, tmp)
        if args.all:
            all_commands(env, args.repeats, tmp, best)
        if args.cold:
            for _ in range(args.cold_repeats):
                for name, cmd in COLD_COMMANDS:
                    with tempfile.TemporaryDirectory() as cache:
                        argv, run_env = sheepsim(ROOT, [*cmd, "--quiet"],
                                                 dict(env, SHEEPSIM_CACHE_DIR=cache))
                        cpu, wall = timed(argv, run_env, tmp)
                    print(f"{name}: CPU {cpu:.2f} s, wall {wall:.2f} s, load average "
                          f"{os.getloadavg()[0]:.2f}", flush=True)
                    old = best.get(name, (1e9, 1e9))
                    best[name] = (min(old[0], cpu), min(old[1], wall))
    if best:
        print()
    for name, (cpu, wall) in best.items():
        print(f"{name:<44} best CPU {cpu:6.2f} s   wall {wall:6.2f} s")
    print("load average at end", os.getloadavg())


if __name__ == "__main__":
    main()
