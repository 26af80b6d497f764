"""PROTOTYPE benchmark (branch racemove3): The Sheep Race's whole game on the harness
(``sheepsim/games/race/machine.py``) against today's engine, same games.

    python benchmarks/race_machine.py check [--games 2000]
    python benchmarks/race_machine.py time [--games 20000] [--rounds 3]
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=OUT \\
        python benchmarks/race_machine.py callgrind [--games 2000]
    python benchmarks/race_machine.py cgstat OUT.* [--games 2000]

``check``: per-game scores and winners of the machine equal the engine's (4 players,
``greedy`` pace, ``ev-approx`` and ``random`` bets). ``time``: games per CPU second,
engine and machine alternating in one process (medians, per-round ratios, the load
average). ``callgrind``: counts only around each timed call (client requests through a
small C library built with ``cc``), one dump per (engine|machine, bets); ``cgstat``
reads the dumps: instructions, reference-count calls and reshapes per game. numba's two
reference-count functions (increment, decrement) are JIT code without a name: they are
the two unnamed functions called most. ``--machine`` names other machine modules (on
``PYTHONPATH``) to time side by side with the tree's.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import importlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

PLAYERS = 4
BETS = ("ev-approx", "random")


def setup(machines):
    from sheepsim.games.race.policies import EV_APPROX, RANDOM_BET
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import odds_tables
    from sheepsim.harness import machine as M

    rules = load_rules()
    odds_tables(rules)
    out = []
    for name in machines:
        mod = importlib.import_module(name)
        m = M.Machine(name, mod)
        out.append((name, m, m.kernel((), 6), mod.make_R(rules, PLAYERS)))
    return rules, out, {"ev-approx": EV_APPROX, "random": RANDOM_BET}


def engine_games(rules, bets, first, n):
    from sheepsim.games.race.simulate import game_rows, resolve_policies

    return game_rows(rules, resolve_policies("greedy", bets, PLAYERS), 1, first, n)


def machine_games(m, kernel, R, bid, first, n, outcomes=False):
    from sheepsim.harness.jobs import run_games

    pids = np.full(PLAYERS, bid, dtype=np.int64)
    return run_games(m, kernel, R, PLAYERS, pids, False, 1, first, n, outcomes=outcomes)


def check(args):
    rules, machines, ids = setup(args.machine)
    ok = True
    for name, m, kernel, R in machines:
        for bets in BETS:
            _acc, fail, w, s, _ = machine_games(m, kernel, R, ids[bets], 0, args.games, True)
            es, ew = engine_games(rules, bets, 0, args.games)[:2]
            same = np.array_equal(es, s) and np.array_equal(ew, w) and fail[0] == 0
            ok &= bool(same)
            print(f"{name} {bets}: {args.games} games, scores and winners identical: {same}")
    return 0 if ok else 1


def timing(args):
    rules, machines, ids = setup(args.machine)
    n = args.games
    for bets in BETS:
        for _, m, kernel, R in machines:  # compiled and warm
            machine_games(m, kernel, R, ids[bets], 0, 100)
        engine_games(rules, bets, 0, 100)
        rates = collections.defaultdict(list)
        first = 5000
        for _ in range(args.rounds):
            t = time.process_time()
            engine_games(rules, bets, first, n)
            rates["engine"].append(n / (time.process_time() - t))
            for name, m, kernel, R in machines:
                t = time.process_time()
                machine_games(m, kernel, R, ids[bets], first, n)
                rates[name].append(n / (time.process_time() - t))
            first += n
        e = statistics.median(rates["engine"])
        print(f"{bets}: engine {e:,.0f} games/CPU s")
        for name, *_ in machines:
            h = statistics.median(rates[name])
            pairs = [round(b / a, 3) for a, b in zip(rates["engine"], rates[name])]
            print(f"  {name}: {h:,.0f}  ratio {h / e:.3f}  per round {pairs}")
    print("load average", os.getloadavg())
    return 0


CG_C = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(const char *name) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT(name); }
"""


def callgrind(args):
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "cg.c"), "w") as f:
        f.write(CG_C)
    lib = os.path.join(tmp, "libcg.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", lib, os.path.join(tmp, "cg.c")],
                   check=True)
    cg = ctypes.CDLL(lib)
    rules, machines, ids = setup(args.machine)
    for bets in BETS:
        engine_games(rules, bets, 0, 10)
        cg.cg_start()
        engine_games(rules, bets, 5000, args.games)
        cg.cg_stop(f"engine {bets}".encode())
        for name, m, kernel, R in machines:
            machine_games(m, kernel, R, ids[bets], 0, 10)
            cg.cg_start()
            machine_games(m, kernel, R, ids[bets], 5000, args.games)
            cg.cg_stop(f"{name} {bets}".encode())
    return 0


def cgstat(args):
    for path in args.files:
        names, calls, cost = {}, collections.Counter(), collections.Counter()
        cur = trig = None
        total = 0
        for line in open(path):
            m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "cfn":
                    cur = names[m.group(2)]
                continue
            m = re.match(r"calls=(\d+)", line)
            if m and cur:
                calls[cur] += int(m.group(1))
            if "Trigger" in line:
                trig = line.split(": ")[-1].strip()
            if line.startswith("totals"):
                total = int(line.split()[1])
        anon = sorted((c, k) for k, c in calls.items() if k.startswith("0x"))[-2:]
        rc = sum(c for c, _ in anon)
        rs = sum(c for k, c in calls.items() if "reshape" in k)
        g = args.games
        print(f"{trig}: {total / g / 1000:.1f}k instructions/game, reference counts "
              f"{rc / g:,.0f}/game, reshapes {rs / g:.0f}/game")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("check", "time", "callgrind", "cgstat"))
    p.add_argument("files", nargs="*")
    p.add_argument("--games", type=int, default=None)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--machine", nargs="+", default=["sheepsim.games.race.machine"])
    a = p.parse_args(argv)
    if a.games is None:
        a.games = 20_000 if a.what == "time" else 2_000
    return {"check": check, "time": timing, "callgrind": callgrind, "cgstat": cgstat}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
