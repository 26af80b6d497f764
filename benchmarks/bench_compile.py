"""Cold compile: where numba's compile time goes, per command and per kernel.

Run: ``python benchmarks/bench_compile.py [--baseline SRC_DIR] [--cases NAMES] [--top K]``.

Each case runs one CLI command (``sheepsim.cli.main``) in a fresh process with an empty
kernel cache (a new temporary ``SHEEPSIM_CACHE_DIR``), with a listener on numba's
``numba:compile`` event that reads the process's CPU clock (``time.process_time``) when
each function's compilation starts and ends. Printed per case: the CPU (user + system)
and wall seconds of the whole process, the compile CPU seconds (outermost compilations:
a kernel's compile includes the callees it compiles), how many function compilations
there were (a function compiled for two argument-type signatures counts twice), and the
``K`` functions with the most *own* compile CPU (their callees' compilations
subtracted). CPU seconds, because the machine is shared.

``--baseline SRC_DIR`` (a checkout of another version, e.g. ``git worktree add /tmp/base
2a02cf6``) runs every case with that source tree too (``PYTHONPATH``), alternating.
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
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: (case name, CLI arguments): the compile cost of each game's usual first command
CASES = [
    ("race odds MC", ["race", "odds", "--games", "100000"]),
    ("race exact odds", ["race", "odds", "--exact"]),
    ("race ev random", ["race", "ev", "--policy", "random", "--games", "100"]),
    ("race whole games", ["race", "play", "--players", "4", "--games", "2000"]),
    ("panic random 4p", ["panic", "play", "--players", "4", "--policy", "random",
                         "--games", "200"]),
    ("panic greedy 4p", ["panic", "play", "--players", "4", "--policy", "greedy",
                         "--games", "200"]),
    ("awsheep counter", ["awsheep", "play", "--policy", "counter", "--games", "1000"]),
    ("awsheep random", ["awsheep", "play", "--policy", "random", "--games", "1000"]),
    # the example game (pip install ./examples/pig): the harness's own share
    ("pig random 4p", ["pig", "play", "--players", "4", "--games", "200"]),
]


def child(out_path: str, argv: list[str]) -> None:
    """Run ``sheepsim`` with ``argv`` under a compile listener; write the records as JSON."""
    from numba.core import event

    from sheepsim.cli import main

    stack: list[list] = []  # [name, start CPU, CPU of nested compiles]
    own: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    totals = {"compile_cpu_s": 0.0, "compiles": 0}

    class Listener(event.Listener):
        def on_start(self, ev):
            d = ev.data["dispatcher"]
            stack.append([f"{d.py_func.__module__}.{d.py_func.__qualname__}",
                          time.process_time(), 0.0])

        def on_end(self, ev):
            name, t0, nested = stack.pop()
            dt = time.process_time() - t0
            own[name] += dt - nested
            count[name] += 1
            totals["compiles"] += 1
            if stack:
                stack[-1][2] += dt
            else:
                totals["compile_cpu_s"] += dt

    with event.install_listener("numba:compile", Listener()):
        code = main([*argv, "--quiet"])
    assert code in (0, None), f"sheepsim {' '.join(argv)} exited {code}"
    rows = sorted(own.items(), key=lambda kv: -kv[1])
    Path(out_path).write_text(json.dumps({**totals, "own": [[k, v, count[k]] for k, v in rows]}))


def run_case(src: Path, argv: list[str]) -> dict:
    """One fresh process of ``src`` with an empty kernel cache: its records plus CPU and wall."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{HERE}",
                   SHEEPSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        code = f"from bench_compile import child; child({out!r}, {argv!r})"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res = json.loads(Path(out).read_text())
    res["process_cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    res["wall_s"] = wall
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", metavar="SRC_DIR", help="also run this source tree")
    ap.add_argument("--cases", default="", help="only cases whose name contains one of "
                    "these (comma-separated)")
    ap.add_argument("--top", type=int, default=8, help="functions listed per case")
    ap.add_argument("--json", metavar="FILE", help="also write every record here")
    args = ap.parse_args(argv)
    trees = {"new": HERE.parent}
    if args.baseline:
        trees["baseline"] = Path(args.baseline).resolve()
    wanted = [w for w in args.cases.split(",") if w]
    cases = [c for c in CASES if not wanted or any(w in c[0] for w in wanted)]
    print(f"load average at start: {os.getloadavg()}", flush=True)
    results: dict = defaultdict(dict)
    for name, cli in cases:
        for tree, src in reversed(trees.items()):  # baseline first, then new, per case
            r = results[name][tree] = run_case(src, cli)
            print(f"\n{name} ({tree}): sheepsim {' '.join(cli)}\n  process {r['process_cpu_s']:.1f}"
                  f" s CPU, {r['wall_s']:.1f} s wall; compile {r['compile_cpu_s']:.1f} s CPU in "
                  f"{r['compiles']} function compilations; most own compile CPU:", flush=True)
            for fn, secs, n in r["own"][:args.top]:
                print(f"    {secs:6.2f} s  {fn}" + (f"  ({n} signatures)" if n > 1 else ""))
    print(f"\nload average at end: {os.getloadavg()}\n")
    print("| case | " + " | ".join(f"{t}: compile CPU s (process CPU s)" for t in trees) + " |")
    print("| --- |" + " ---: |" * len(trees))
    for name, by_tree in results.items():
        cells = [f"{by_tree[t]['compile_cpu_s']:.1f} ({by_tree[t]['process_cpu_s']:.1f})"
                 for t in trees]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
