"""Where a Sheep Race whole game's time goes, against what a harness decision costs.

    python benchmarks/race_game_split.py [--players 4] [--games 20000] [--rounds 5]

Builds three patched copies of this tree's ``sheepsim`` in a temporary folder (each a
stated edit of ``games/race/machine.py``, the race machine that plays whole games on the
harness, checked to apply) and times 4-player whole games (``greedy`` pace,
``GamesJob.rows``) of this tree and the copies, one process per measurement,
alternating, in games per CPU second (medians):

* ``today``: the race machine as it is;
* ``no-policy``: every built-in bet decision takes its first option without calling a
  bet policy (``decide_rules`` returns 0; the round, its option rows and the harness's
  ask and check kept): today minus this is the bet policies' own work;
* ``no-bets``: no betting round at all (``begin_race`` goes straight to the race; the
  races, deal, odds and scoring kept): today minus this is everything betting costs,
  ``no-policy`` minus it the rounds' machinery;
* ``float-view``: today, plus the plug-ins' float64 view filled for every built-in bet
  decision as well (slots ``needs_view`` and ``view``: what handing every policy its
  view would add).

The figures in benchmarks/README.md (issue 45, 2026-12-06) were taken when this script
patched the engine's betting (``engine.place_bets``/``bet_on_race``, removed with the
engine's whole-game kernel); it patches the machine since.

The copies play different bets (so different scores) but the very same races, so their
time per race turn is today's. Then the harness's own cost per decision on Pig
(``examples/pig``, its whole loop with Pig's tiny rules: an upper bound), if installed.
The first run of each copy compiles its kernels (about a minute each); ``--workdir DIR``
keeps the copies there, so a later run with the same DIR loads them from the cache.
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
from pathlib import Path

import sheepsim

MACHINE = "games/race/machine.py"
PATCHES = {  # name: its (old, new) edits of machine.py, each checked to apply once
    "no-policy": [("""    machine_bets(pid, kind, odds, pay, bon, taken, my_open, pick, rand, exact)
    return bet_row(kind, opts, n, pick)""", """    return 0  # benchmark copy: no bet policy called""")],
    "no-bets": [("""    st[PHASE] = P_FINAL if stage == FINAL else P_OPEN""",
                 """    st[PHASE] = P_RACE  # benchmark copy: no betting round at all""")],
    "float-view": [("""    bet_row,
    builtin_bets,
)""", """    bet_row,
    builtin_bets,
    fill_bet_view,
)"""), ("""def view(st, R, seat, out):
    out[0] = 0""", """def view(st, R, seat, out):
    # benchmark copy: the plug-ins' float view for built-ins too
    w, odds, pay, bon, bets, rival = R[X_W], R[X_ODDS], R[X_PAY], R[X_BON], R[X_BETS], \\
        R[X_RIVAL]
    fill_bet_view(out, seat, st[N], w[W_OPEN + seat], bets[seat], rival[seat], odds, pay,
                  bon, w[W_TAKEN:W_TAKEN + N_LANES])"""), ("""def needs_view(pid, kind):
    return False""", """def needs_view(pid, kind):
    return kind != PACE  # benchmark copy: every bet decision's view filled""")],
}

RACE_RUN = """
import json, sys, time
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.jobs import GamesJob
from sheepsim.games.race.simulate import odds_tables
bets, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules = load_rules()
job = GamesJob(rules, players, bets, "greedy", 1)
odds_tables(rules)
job.rows(0, 200)  # compile or load, warm up
t = time.process_time()
turns = job.rows(1000, n)[3]
print(json.dumps({"rate": n / (time.process_time() - t), "turns": float(turns.sum(1).mean())}))
"""

PIG_RUN = """
import json, sys, time
from sheepsim import game
from sheepsim.harness import layout as H
players, n = int(sys.argv[1]), int(sys.argv[2])
job = game.get("pig").job("play", players=players, policies="hold-20", seed=1)
job.chunk(0, 200)
t = time.process_time()
acc = job.chunk(1000, n)["acc"]
rate = n / (time.process_time() - t)
off = job.machine.offsets(players)
print(json.dumps({"rate": rate, "decisions": acc[off[H.O_DECISIONS]] / n}))
"""


def copies(workdir: Path) -> dict[str, Path]:
    """``{name: the folder to put on PYTHONPATH}``: this tree, then each patched copy."""
    src = Path(sheepsim.__file__).resolve().parent
    out = {"today": src.parent}
    for name, edits in PATCHES.items():
        dst = workdir / name / "sheepsim"
        if dst.exists():  # a kept copy, copied afresh (the cache is keyed by source)
            shutil.rmtree(dst)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        path = dst / MACHINE
        text = path.read_text()
        for old, new in edits:
            if text.count(old) != 1:
                raise SystemExit(f"race_game_split: the {name} patch no longer applies to "
                                 f"{MACHINE}")
            text = text.replace(old, new)
        path.write_text(text)
        out[name] = dst.parent
    return out


def run(code: str, path: Path, *args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(path))
    res = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env,
                         capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=20_000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--bets", default="ev-approx,random", help="bet policies, comma-separated")
    p.add_argument("--workdir", help="keep the patched copies here (default: a temporary folder)")
    args = p.parse_args(argv)
    try:
        import sheepsim_pig  # noqa: F401
        pig = True
    except ImportError:
        pig = False
    bets = [b.strip() for b in args.bets.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        trees = copies(Path(args.workdir or tmp))
        for path in trees.values():  # compile (or load) each copy once, untimed
            run(RACE_RUN, path, bets[0], args.players, 200)
        rates: dict = {(b, t): [] for b in bets for t in trees}
        turns = {}
        pig_rates, pig_dec = [], 0.0
        for _ in range(args.rounds):
            for b in bets:
                for name, path in trees.items():
                    r = run(RACE_RUN, path, b, args.players, args.games)
                    rates[b, name].append(r["rate"])
                    turns[b] = r["turns"]
            if pig:
                r = run(PIG_RUN, trees["today"], args.players, args.games)
                pig_rates.append(r["rate"])
                pig_dec = r["decisions"]
    load = os.getloadavg()[0]
    bet_decisions = 5 * args.players  # semifinals: open and hidden rounds; the final: one
    print(f"{args.players}-player whole games, greedy pace, games per CPU second, median of "
          f"{args.rounds} alternating rounds of {args.games:,} (load {load:.1f} at the end)")
    for b in bets:
        med = {t: statistics.median(rates[b, t]) for t in trees}
        us = {t: 1e6 / v for t, v in med.items()}
        print(f"\nbets {b}: {turns[b]:.1f} race turns and {bet_decisions} bet decisions a game")
        for t in trees:
            print(f"  {t:<11} {med[t]:>9,.0f}  {us[t]:6.2f} us a game  ({med[t] / med['today']:.3f}x)")
        print(f"  races, deal, odds, scoring: {us['no-bets'] * 1e3 / turns[b]:.0f} ns a race turn")
        print(f"  bet policies: {(us['today'] - us['no-policy']) * 1e3 / bet_decisions:.0f} ns a "
              f"bet decision; the rounds' machinery: "
              f"{(us['no-policy'] - us['no-bets']) * 1e3 / bet_decisions:.0f} ns; the float "
              f"view: {(us['float-view'] - us['today']) * 1e3 / bet_decisions:.0f} ns")
    if pig:
        r = statistics.median(pig_rates)
        print(f"\nPig on the harness, {args.players} players, hold-20: {r:,.0f} games per CPU "
              f"second, {pig_dec:.1f} decisions a game: {1e9 / (r * pig_dec):.0f} ns a decision "
              f"(the harness's loop, ask and bookkeeping, with Pig's rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
