"""The race kernel against the shared C yardstick (issue 34).

Run: ``python benchmarks/bench_c_yardstick.py [--perf-dir DIR] [--games N] [--rounds R]``.

``DIR`` (default ``/work/shared/perf``) holds ``sheep_race_std.c`` (one standard semifinal
under ``greedy``, plain C, one thread) and ``std_semifinal.cfg``. The script builds the C
file with ``gcc -O3 -march=native`` into a temporary folder (nothing is written into the
repository), then runs, alternating, ``R`` rounds of

* C: ``sheep_race_std std_semifinal.cfg N 1``; its JSON line's ``seconds`` is the wall
  time of its race loop; the child's user + system CPU is read from ``os.times``;
* sheepsim: ``python -m sheepsim race odds --mc --games N --threads 1 --quiet`` (the
  kernel cache of ``SHEEPSIM_CACHE_DIR``, warmed by one run first), whole process: wall
  and user + system CPU.

It prints each round and the ratios sheepsim / C: the issue's figure (sheepsim wall
against C ``seconds``), and the same in CPU seconds of the two processes, which is what
survives a shared, loaded machine (waiting for a CPU does not count). Each round also
runs the sheepsim command with ``--games 1000`` (start-up, kernel load and output, no
real work): sheepsim's CPU less that one gives the races alone against C. The two programs
draw different random streams (the C file uses xoroshiro128+, sheepsim SplitMix64), so
their counts agree only statistically; the script checks that every lane's place
probabilities agree within 0.002.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(argv: list[str], env: dict | None = None) -> tuple[str, float, float]:
    """``(stdout, CPU s, wall s)`` of one child process (user + system CPU)."""
    before = os.times()
    t = time.perf_counter()
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return out, cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--perf-dir", default="/work/shared/perf")
    ap.add_argument("--games", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    perf = Path(args.perf_dir)
    print("load average at start", os.getloadavg(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "sheep_race_std"
        subprocess.run(["gcc", "-O3", "-march=native", "-Wall", "-o", str(exe),
                        str(perf / "sheep_race_std.c")], check=True)
        cfg = Path(tmp) / "std_semifinal.cfg"
        shutil.copy(perf / "std_semifinal.cfg", cfg)
        c_argv = [str(exe), str(cfg), str(args.games), "1"]
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        py_argv = [sys.executable, "-m", "sheepsim", "race", "odds", "--mc", "--games",
                   str(args.games), "--threads", "1", "--format", "json", "--quiet"]
        small = py_argv[:6] + ["--games", "1000"] + py_argv[8:]
        child(small, env)  # warm the kernel cache
        rows = []
        for r in range(args.rounds):
            out, c_cpu, _ = child(c_argv)
            c_doc = json.loads(out.splitlines()[0])
            out, py_cpu, py_wall = child(py_argv, env)
            doc = json.loads(out)
            _, start_cpu, _ = child(small, env)
            rows.append((c_doc["seconds"], c_cpu, py_wall, py_cpu, py_cpu - start_cpu))
            print(f"round {r + 1}: C {c_doc['seconds']:.3f} s (CPU {c_cpu:.3f}); sheepsim wall "
                  f"{py_wall:.3f} s, CPU {py_cpu:.3f} s (start-up {start_cpu:.3f}); wall/C "
                  f"{py_wall / c_doc['seconds']:.3f}, CPU/CPU {py_cpu / c_cpu:.3f}, races alone "
                  f"{(py_cpu - start_cpu) / c_cpu:.3f}", flush=True)
        check(c_doc, doc, args.games)
    print(f"load average at end {os.getloadavg()}")
    print()
    print("| measure | C | sheepsim | sheepsim / C |")
    print("| --- | ---: | ---: | ---: |")
    for label, i, j in (("wall s (C: its loop's `seconds`)", 0, 2), ("CPU s (user + system)", 1, 3),
                        ("CPU s, sheepsim less its start-up (`--games 1000`)", 1, 4)):
        c_best = min(x[i] for x in rows)
        p_best = min(x[j] for x in rows)
        ratios = [x[j] / x[i] for x in rows]
        print(f"| {label}, best of {len(rows)} | {c_best:.3f} | {p_best:.3f} | "
              f"{p_best / c_best:.3f} (per round: {', '.join(f'{q:.3f}' for q in ratios)}; "
              f"median {statistics.median(ratios):.3f}) |")


def check(c_doc: dict, doc: dict, games: int) -> None:
    """The two programs' place probabilities agree within sampling noise."""
    lanes = doc["tables"]["lanes"] if "tables" in doc else doc["lanes"]
    worst = 0.0
    for lane, row in enumerate(lanes):
        for k, col in enumerate(("p_first", "p_second", "p_third")):
            worst = max(worst, abs(row[col] - c_doc["counts"][lane][k] / c_doc["n"]))
    print(f"largest difference of a place probability, C against sheepsim: {worst:.5f} "
          f"({games:,} races each)")
    if worst > 0.002:
        raise SystemExit("the C yardstick and sheepsim disagree")


if __name__ == "__main__":
    main()
