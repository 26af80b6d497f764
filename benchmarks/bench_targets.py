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
  of the ``random`` pace policy, 100 games) asked as soon as it prints its address: the
  time from the start to the answer; its CPU is that of the server and of every process
  it started, up to the answer (a warm-up worker still compiling then is counted as far
  as it got), and apart the server process's own CPU up to the answer (the part the
  answer waits for: on an idle machine with a core per process, about the wall time);
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


def _descendants(pid: int, itself: bool = False) -> dict[int, float]:
    """The running processes below ``pid`` (Linux ``/proc``; none elsewhere), each with
    its CPU seconds (user + system) so far; with ``itself``, ``pid`` too (its own CPU,
    without its children's)."""
    parent, cpu = {}, {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        parent[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = int(fields[11]) + int(fields[12])  # utime, stime (ticks)
    below, todo = {pid} if itself and pid in cpu else set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p and c not in below]
        below.update(kids)
        todo += kids
    return {c: cpu[c] / os.sysconf("SC_CLK_TCK") for c in below}


def _serve(src: Path, env: dict, tmp: str) -> tuple[float, float]:
    """Start to answer; ``(CPU of the server's children still running at the answer,
    the server's own CPU then)``."""
    proc = subprocess.Popen([sys.executable, "-m", "sheepsim", "serve", "--port", "0"],
                            env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, cwd=tmp)
    below: dict[int, float] = {}
    try:
        for line in proc.stderr:  # the address (then, on a terminal, the compile notice)
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
        below = _descendants(proc.pid, itself=True)
        own = below.pop(proc.pid, float("nan"))
        return sum(below.values()), own
    finally:
        proc.terminate()
        proc.wait()
        deadline = time.perf_counter() + 60
        while _alive(below) and time.perf_counter() < deadline:  # before the cache goes
            time.sleep(0.05)


def _alive(pids) -> bool:
    """Whether any of ``pids`` still runs (not ended, not a zombie)."""
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            return True
    return False


def _main_job(src: Path, env: dict, tmp: str) -> None:
    repo = Path(tmp) / "repo"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "reports", "*.egg-info", "build"))
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    subprocess.run(f"{sys.executable} -m venv .venv && .venv/bin/pip install -q . && "
                   ".venv/bin/sheepsim report --out reports/default/", shell=True,
                   cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def run(case: str, src: Path) -> tuple[float, float, float | None]:
    """``(wall s, CPU s, the server process's own CPU s or None)`` of one cold run of
    ``case`` with the source tree ``src``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(src), SHEEPSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        cpu0, t0, running, own = _cpu(), time.perf_counter(), 0.0, None
        if case in COMMANDS:
            _command(src, COMMANDS[case], env, tmp)
        elif case == "serve":
            running, own = _serve(src, env, tmp)
        elif case == "main job":
            _main_job(src, env, tmp)
        else:
            raise SystemExit(f"no case {case!r}")
        wall = time.perf_counter() - t0
        return wall, _cpu() - cpu0 + running, own


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
                wall, cpu, own = run(case, src)
                results.setdefault(case, {}).setdefault(tree, []).append((wall, cpu, own))
                alone = "" if own is None else f" ({own:.1f} s of it the server process's)"
                print(f"round {r + 1} {case} ({tree}): {wall:.1f} s wall, {cpu:.1f} s CPU"
                      f"{alone}, load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"load average at end: {os.getloadavg()}\n")
    print("| case | " + " | ".join(f"{t}: wall s (CPU s), median" for t in trees) + " |")
    print("| --- |" + " ---: |" * len(trees))
    for case, by_tree in results.items():
        cells = [f"{statistics.median(w for w, _, _ in by_tree[t]):.1f} "
                 f"({statistics.median(c for _, c, _ in by_tree[t]):.1f}"
                 + ("" if by_tree[t][0][2] is None else
                    f"; server {statistics.median(o for _, _, o in by_tree[t]):.1f}") + ")"
                 for t in trees]
        print(f"| {case} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
