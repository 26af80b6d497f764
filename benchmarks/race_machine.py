"""The Sheep Race's whole game on the harness (``sheepsim/games/race/machine.py``, the
engine of every race whole game): its games checked against pinned digests, and other
machine modules against it, same games.

    python benchmarks/race_machine.py check [--games 2000] [--players 3 4 6]
        [--pace greedy random,greedy,saver,steady]
    python benchmarks/race_machine.py time [--games 20000] [--rounds 3] [--pace ...]
    python benchmarks/race_machine.py cgrun DIR [--games 2000] [--pace ...]

``check``: per-game scores and winners of each ``--machine`` (``--players``, each
``--pace`` and ``--bets`` line-up: one name for every seat or names taken in turn, seat
by seat; by default ``greedy`` pace, ``ev-approx`` and ``random`` bets, seed 1, games
from 0) equal the pinned digest of the line-up's games (:data:`PINNED`: the games the
engine's whole-game kernel played, which the machine replaced game for game; pinned
for 2,000 games of 3, 4 and 6 players, ``greedy`` and ``random,greedy,saver,steady``
pace) and the first machine's. It compared them with the engine's kernel itself until
that kernel was removed. ``time``: games per CPU second of the machines alternating in
one process (the first is the baseline of the ratios; medians, per-round ratios, the
load average). ``cgrun``: ``valgrind --tool=callgrind`` of this script's ``callgrind``
step, which counts only around each timed call (client requests through a small C
library built with ``cc``), one dump per (machine, bets) in ``DIR``; then ``cgstat`` of
the dumps: instructions, reference-count calls and reshapes per game. valgrind shows
programs another CPU (fewer features), and numba keys its cache by the CPU: ``cgrun``
first compiles natively for valgrind's CPU (``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES``),
so nothing compiles under valgrind (which takes tens of minutes). numba's two
reference-count functions (increment, decrement) are JIT code without a name: they are
the two unnamed functions called most. ``--machine`` names other machine modules (on
``PYTHONPATH``) to check and time side by side with the tree's (the first named).
The figures in benchmarks/README.md that compare the machine with the engine were
taken when this script ran the engine's kernel beside the machines.
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
#: sha256 (first 16 hex digits) of the scores (int64, games x players) then the winners
#: (int64) of games 0..1,999 of seed 1, per (players, ``--pace``, ``--bets`` as given):
#: the engine's games (``simulate.game_rows`` at 09f08c4, branch ``racemove``)
PINNED = {
    (3, "greedy", "ev-approx"): "993713f06cf3eaca",
    (3, "greedy", "random"): "472c2509981a69e4",
    (3, "random,greedy,saver,steady", "ev-approx"): "717d6392e9a797c1",
    (3, "random,greedy,saver,steady", "random"): "f38e8fa8ebc945f1",
    (4, "greedy", "ev-approx"): "02f9cb40cf9f4241",
    (4, "greedy", "random"): "3782aa2d745062a1",
    (4, "random,greedy,saver,steady", "ev-approx"): "25eb2a6e63400d00",
    (4, "random,greedy,saver,steady", "random"): "072ffed3e94a8eef",
    (6, "greedy", "ev-approx"): "abb4817693c8badc",
    (6, "greedy", "random"): "3cd9627191cf6cc7",
    (6, "random,greedy,saver,steady", "ev-approx"): "3a8a4ce924f217e2",
    (6, "random,greedy,saver,steady", "random"): "27136e2a5f4a45aa",
}


def lineup(names, players):
    """One name per seat from ``names`` (comma-separated, taken in turn)."""
    names = names.split(",")
    return ",".join(names[s % len(names)] for s in range(players))


class Machines:
    """The machine modules ``names``, each with its kernel and ``R`` per line-up."""

    def __init__(self, names, rules):
        from sheepsim.harness import machine as M

        self.rules = rules
        self.mods = [(name, M.Machine(name, importlib.import_module(name))) for name in names]

    def __iter__(self):
        return iter(self.mods)

    def games(self, m, pace, bets, players, first, n, outcomes=False):
        """``m``'s games of the line-up (``pace``/``bets`` one name per seat)."""
        from sheepsim.games.race.policies import FIRST_USER_ID
        from sheepsim.games.race.simulate import odds_tables, resolve_policies
        from sheepsim.harness.jobs import run_games

        pol = resolve_policies(lineup(pace, players), lineup(bets, players), players)
        pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)
        key = (id(m), players, tuple(pids))
        if key not in CACHE:
            mod = m.module  # (the ev/win bets and lookahead pace: the rules in R too)
            exact = (pids,) if getattr(mod, "needs_exact", lambda p: False)(pids) else ()
            CACHE[key] = (m.kernel((), FIRST_USER_ID, pids),
                          mod.make_R(self.rules, players, odds_tables(self.rules), *exact))
        kernel, R = CACHE[key]
        return run_games(m, kernel, R, players, pids, False, 1, first, n, outcomes=outcomes)


CACHE: dict = {}


def setup(machines):
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import odds_tables

    rules = load_rules()
    odds_tables(rules)
    return rules, Machines(machines, rules)


def digest(scores, winners):
    """:data:`PINNED`'s digest of per-game scores and winners."""
    import hashlib

    data = np.ascontiguousarray(scores, np.int64).tobytes() + \
        np.ascontiguousarray(winners, np.int64).tobytes()
    return hashlib.sha256(data).hexdigest()[:16]


def check(args):
    rules, machines = setup(args.machine)
    ok = True
    for players in args.players:
        for pace_names in args.pace:
            pace = lineup(pace_names, players)
            for bet_names in args.bets:
                bets = lineup(bet_names, players)
                pin = PINNED.get((players, pace_names, bet_names)) if args.games == 2000 \
                    else None
                ref = None
                for name, m in machines:
                    _acc, fail, w, s, _ = machines.games(m, pace, bets, players, 0, args.games,
                                                         True)
                    got = digest(s, w)
                    ref = ref or got
                    same = fail[0] == 0 and got == ref and (pin is None or got == pin)
                    ok &= bool(same)
                    print(f"{name} {players} players, pace {pace}, bets {bets}: {args.games} "
                          f"games, digest {got}, "
                          f"{'pinned' if pin else 'not pinned'}, identical: {same}")
    return 0 if ok else 1


def timing(args):
    rules, machines = setup(args.machine)
    n = args.games
    players = args.players[0]
    pace = lineup(args.pace[0], players)
    print(f"{players} players, pace {pace}")
    base = machines.mods[0][0]  # the ratios' baseline
    for bets in args.bets:
        for _, m in machines:  # compiled and warm
            machines.games(m, pace, bets, players, 0, 100)
        rates = collections.defaultdict(list)
        first = 5000
        for _ in range(args.rounds):
            for name, m in machines:
                t = time.process_time()
                machines.games(m, pace, bets, players, first, n)
                rates[name].append(n / (time.process_time() - t))
            first += n
        e = statistics.median(rates[base])
        print(f"{bets}: {base} {e:,.0f} games/CPU s")
        for name, _ in machines.mods[1:]:
            h = statistics.median(rates[name])
            pairs = [round(b / a, 3) for a, b in zip(rates[base], rates[name], strict=True)]
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
    cg = ctypes.CDLL(lib)  # (its calls do nothing outside valgrind)
    rules, machines = setup(args.machine)
    players = args.players[0]
    pace = lineup(args.pace[0], players)
    for bets in args.bets:  # everything compiled and loaded before counting
        for _, m in machines:
            machines.games(m, pace, bets, players, 0, 10)
    if args.files:  # the addresses of every numba function loaded, for cgstat
        from numba.core.registry import cpu_target

        engine = cpu_target.target_context.codegen()._engine
        with open(args.files[0], "w") as f:
            for name in sorted(engine._defined_symbols):
                a = engine.get_function_address(name)
                if a:
                    f.write(f"{a:#x} {name}\n")
    for bets in args.bets:
        for name, m in machines:
            cg.cg_start()
            machines.games(m, pace, bets, players, 5000, args.games)
            cg.cg_stop(f"{name} {bets}".encode())
    return 0


CPU_PROBE = ("import llvmlite.binding as ll; "
             "print(ll.get_host_cpu_name()); print(ll.get_host_cpu_features().flatten())")


def cgrun(args):
    os.makedirs(args.files[0], exist_ok=True)
    out = os.path.join(os.path.abspath(args.files[0]), "cg.out")
    probe = subprocess.run(["valgrind", "-q", sys.executable, "-c", CPU_PROBE],
                           capture_output=True, text=True, check=True).stdout.split()
    env = dict(os.environ, NUMBA_CPU_NAME=probe[0], NUMBA_CPU_FEATURES=probe[1])
    lineups = ["--players", str(args.players[0]), "--pace", args.pace[0]]
    me = [os.path.abspath(__file__), "--games", "10", "--machine", *args.machine, *lineups]
    subprocess.run([sys.executable, *me[:1], "callgrind", *me[1:]], env=env, check=True)
    subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                    f"--callgrind-out-file={out}", sys.executable, me[0], "callgrind",
                    out + ".symbols", "--games", str(args.games), "--machine", *args.machine,
                    *lineups],
                   env=env, check=True, capture_output=True)
    args.symbols = out + ".symbols"
    args.files = sorted(f for f in os.listdir(args.files[0])
                        if re.fullmatch(r"cg\.out\.\d+", f))
    args.files = [os.path.join(os.path.dirname(out), f) for f in args.files]
    return cgstat(args)


def cgstat(args):
    for path in args.files:
        names, calls = {}, collections.Counter()
        callers = collections.Counter()  # (caller, callee): calls
        own = collections.Counter()  # exclusive instructions per function
        cur = trig = fn = None
        total = 0
        after_call = False
        for line in open(path):
            if line[:1].isdigit() or line[:1] in "+-*":
                if not after_call and fn is not None:
                    own[fn] += int(line.split()[1]) if len(line.split()) > 1 else 0
                after_call = False
                continue
            m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "cfn":
                    cur = names[m.group(2)]
                else:
                    fn = names[m.group(2)]
                continue
            m = re.match(r"calls=(\d+)", line)
            after_call = bool(m)
            if m and cur:
                calls[cur] += int(m.group(1))
                callers[fn, cur] += int(m.group(1))
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
        if args.callers:  # who calls the reference counts, named from the symbol map
            where = collections.Counter()
            for (fn, callee), c in callers.items():
                if callee in {k for _, k in anon}:
                    where[_named(fn, args.symbols)] += c
            for fn, c in where.most_common(args.callers):
                print(f"    {c / g:8.1f}/game  {fn}")
            print("  exclusive instructions:")
            for fn, c in own.most_common(args.callers):
                print(f"    {c / g / 1000:8.2f}k/game  {_named(fn, args.symbols)}")
    return 0


def _named(fn, symbols):
    """A callgrind function name, ``0x...`` for JIT code: the numba function at that
    address (``symbols``: lines ``address name`` written by ``callgrind``)."""
    if not fn.startswith("0x") or not symbols:
        return fn
    if not hasattr(_named, "table"):
        _named.table = {}
        for line in open(symbols):
            a, name = line.split(" ", 1)
            _named.table[int(a, 16)] = _demangle(name.strip())
    a = int(fn.split()[0], 16)
    return _named.table.get(a, fn)


def _demangle(name):
    """``sheepsim.harness.loop.play_games`` of a numba symbol."""
    out, rest = [], name.split("_ZN", 1)[-1]
    while rest and rest[0].isdigit():
        k = re.match(r"\d+", rest).group(0)
        out.append(rest[len(k):len(k) + int(k)])
        rest = rest[len(k) + int(k):]
    return ".".join(out) or name


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("check", "time", "callgrind", "cgrun", "cgstat"))
    p.add_argument("files", nargs="*")
    p.add_argument("--games", type=int, default=None)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--machine", nargs="+", default=["sheepsim.games.race.machine"])
    p.add_argument("--bets", nargs="+", default=list(BETS),
                   help="bet line-ups (names taken in turn, seat by seat)")
    p.add_argument("--players", nargs="+", type=int, default=[PLAYERS],
                   help="check: each count; time, cgrun: the first")
    p.add_argument("--pace", nargs="+", default=["greedy"],
                   help="pace line-ups (names taken in turn, seat by seat); time, cgrun: "
                        "the first")
    p.add_argument("--callers", type=int, default=0,
                   help="cgstat/cgrun: list this many callers of the reference counts")
    p.add_argument("--symbols", default=None, help="cgstat: the symbol map of cgrun")
    a = p.parse_args(argv)
    if a.games is None:
        a.games = 20_000 if a.what == "time" else 2_000
    return {"check": check, "time": timing, "callgrind": callgrind, "cgrun": cgrun,
            "cgstat": cgstat}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
