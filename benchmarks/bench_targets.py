"""Issue 50's compile-time targets: first commands on an empty kernel cache, wall and CPU.

Run: ``python benchmarks/bench_targets.py [--baseline SRC_DIR] [--cases NAMES]
[--rounds N]``.

Each case runs in fresh processes with an empty kernel cache (a new temporary
``SHEEPSIM_CACHE_DIR``, which also holds the race's odds table), with this tree's
source (``PYTHONPATH``) and, with ``--baseline``, another checkout's in the same round
(the baseline first in odd rounds, this tree first in even ones). Printed per run: wall
seconds and CPU seconds (user + system of every process the case started), and at the
end the medians and the load average. Cases:

* ``race odds``: ``sheepsim race odds`` (exact, the default);
* ``race odds mc``: ``sheepsim race odds --games 100000``;
* ``panic play``: ``sheepsim panic play``;
* ``serve``: ``sheepsim serve --port 0`` started, then one simulated question (the EVs
  of the ``random`` pace policy, 100 games) asked as soon as it listens: the time from
  the start to the answer;
* ``main job`` (only when named in ``--cases``): the README's main job in a temporary
  folder, ``python -m venv``, ``pip install -q SRC_DIR`` (a copy of the tree, no
  ``.venv``) and ``sheepsim report --out reports/default/``.

Wall time is what a user waits for: it includes the load of the machine (printed).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

COMMANDS = {
    "race odds": ["race", "odds", "--quiet"],
    "race odds mc": ["race", "odds", "--games", "100000", "--quiet"],
    "panic play": ["panic", "play", "--quiet"],
}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _command(src: Path, argv: list[str], env: dict, tmp: str) -> None:
    # cwd a temporary folder: ``python -m`` puts the working folder first on sys.path
    subprocess.run([sys.executable, "-m", "sheepsim", *argv], env=env, check=True, cwd=tmp,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _serve(src: Path, env: dict, tmp: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "sheepsim", "serve", "--port", "0"],
                            env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, cwd=tmp)
    try:
        for line in proc.stderr:  # the compile notice, then the address
            m = re.search(r"http://([\d.]+):(\d+)/", line)
            if m:
                break
        else:
            raise SystemExit("the server did not start")
        conn = http.client.HTTPConnection(m.group(1), int(m.group(2)), timeout=600)
        conn.request("GET", "/api/race/ev?policy=random&games=100")
        res = conn.getresponse()
        res.read()
        assert res.status == 200, res.status
    finally:
        proc.terminate()
        proc.wait()


def _main_job(src: Path, env: dict, tmp: str) -> None:
    repo = Path(tmp) / "repo"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "reports", "*.egg-info", "build"))
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    subprocess.run(f"{sys.executable} -m venv .venv && .venv/bin/pip install -q . && "
                   ".venv/bin/sheepsim report --out reports/default/", shell=True,
                   cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def run(case: str, src: Path) -> tuple[float, float]:
    """``(wall s, CPU s)`` of one cold run of ``case`` with the source tree ``src``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(src), SHEEPSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        cpu0, t0 = _cpu(), time.perf_counter()
        if case in COMMANDS:
            _command(src, COMMANDS[case], env, tmp)
        elif case == "serve":
            _serve(src, env, tmp)
        elif case == "main job":
            _main_job(src, env, tmp)
        else:
            raise SystemExit(f"no case {case!r}")
        return time.perf_counter() - t0, _cpu() - cpu0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", metavar="SRC_DIR", help="also run this source tree")
    ap.add_argument("--cases", default="race odds,race odds mc,panic play,serve",
                    help="comma-separated case names (default: every case but 'main job')")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args(argv)
    trees = {"new": HERE.parent}
    if args.baseline:
        trees["old"] = Path(args.baseline).resolve()
    results: dict = {}
    print(f"load average at start: {os.getloadavg()}", flush=True)
    for r in range(args.rounds):
        order = list(trees.items())
        if r % 2 == 0:
            order.reverse()  # the baseline first in odd rounds (1st, 3rd, ...)
        for case in args.cases.split(","):
            for tree, src in order:
                wall, cpu = run(case, src)
                results.setdefault(case, {}).setdefault(tree, []).append((wall, cpu))
                print(f"round {r + 1} {case} ({tree}): {wall:.1f} s wall, {cpu:.1f} s CPU, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"load average at end: {os.getloadavg()}\n")
    print("| case | " + " | ".join(f"{t}: wall s (CPU s), median" for t in trees) + " |")
    print("| --- |" + " ---: |" * len(trees))
    for case, by_tree in results.items():
        cells = [f"{statistics.median(w for w, _ in by_tree[t]):.1f} "
                 f"({statistics.median(c for _, c in by_tree[t]):.1f})" for t in trees]
        print(f"| {case} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
