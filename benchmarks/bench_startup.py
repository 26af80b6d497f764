"""CLI start-up: CPU and wall seconds per command with a warm kernel cache, against floors.

Run: ``python benchmarks/bench_startup.py [--repeats N] [--cold [--cold-repeats M]]``.
Each command runs in
a fresh process ``N`` times (default 5), interleaved with the floors (``python -c pass``,
``import numba, pandas``, and a one-line numba kernel loaded from its cache, with and
without pandas), and the best CPU time (user + system of the child) and best wall time
are printed. The kernel cache is ``SHEEPSIM_CACHE_DIR`` if set (warmed first by one run
of every command), else a temporary folder. ``--cold`` also times the issue-11 cold
commands, ``race odds --games 100000`` and ``panic play --players 4 --games 200``, with an
empty kernel cache (a new temporary ``SHEEPSIM_CACHE_DIR`` for every run), ``M`` times
each (default 2), alternating; best CPU and best wall are printed.

The machine is shared: compare a command with the floors of the same run, not with
numbers from another day.

"Warm" includes Python's bytecode cache: the script first compiles the package's
``.pyc`` files (``compileall``), as ``pip install`` does. Where ``PYTHONDONTWRITEBYTECODE``
is set and nobody compiled them (a checkout run from ``PYTHONPATH``), every command
compiles sheepsim's source again, 0.15-0.2 s of CPU (benchmarks/README.md, "Warm start").
``--no-compileall`` skips that step.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--cold-repeats", type=int, default=2)
    ap.add_argument("--no-compileall", action="store_true")
    args = ap.parse_args()
    if not args.no_compileall:
        import compileall
        from pathlib import Path

        compileall.compile_dir(Path(__file__).resolve().parents[1] / "sheepsim", quiet=1)
    print("load average at start", os.getloadavg(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.setdefault("SHEEPSIM_CACHE_DIR", os.path.join(tmp, "cache"))
        with open(os.path.join(tmp, "tiny.py"), "w") as fh:
            fh.write(TINY_KERNEL)
        runs = {"floor: python -c pass": [sys.executable, "-c", "pass"],
                "floor: import numba, pandas": [sys.executable, "-c", "import numba, pandas"],
                "floor: one cached numba kernel": [sys.executable, "tiny.py"],
                "floor: pandas + one cached kernel": [sys.executable, "-c", "import pandas, tiny"]}
        for cmd in COMMANDS:
            quiet = [] if "--help" in cmd else ["--quiet"]
            runs["sheepsim " + " ".join(cmd)] = [sys.executable, "-m", "sheepsim", *cmd, *quiet]
        for argv in runs.values():  # warm the caches (kernels, .pyc files)
            timed(argv, env, tmp)
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeats):
            for name, argv in runs.items():
                cpu, wall = timed(argv, env, tmp)
                old = best.get(name, (1e9, 1e9))
                best[name] = (min(old[0], cpu), min(old[1], wall))
        if args.cold:
            for _ in range(args.cold_repeats):
                for name, cmd in COLD_COMMANDS:
                    with tempfile.TemporaryDirectory() as cache:
                        cpu, wall = timed([sys.executable, "-m", "sheepsim", *cmd, "--quiet"],
                                          dict(env, SHEEPSIM_CACHE_DIR=cache), tmp)
                    print(f"{name}: CPU {cpu:.2f} s, wall {wall:.2f} s, load average "
                          f"{os.getloadavg()[0]:.2f}", flush=True)
                    old = best.get(name, (1e9, 1e9))
                    best[name] = (min(old[0], cpu), min(old[1], wall))
    for name, (cpu, wall) in best.items():
        print(f"{name:<42} CPU {cpu:6.2f} s   wall {wall:6.2f} s")
    print("load average at end", os.getloadavg())


if __name__ == "__main__":
    main()
