"""The designers' commands (issue 30): what pairing gains, and what the balance search finds.

Usage::

    python benchmarks/bench_designers.py [--quick] [--seeds 5] [--json FILE]

Part 1, **pairing gain.** For each game and seeds 0 and 1, ``sheepsim.variants`` with one or two realistic
rules edits, every variant on the same games (common random numbers), and the
``se_ratio`` column of its ``differences`` table per metric: the paired standard error of
the difference to the base over the standard error two independent runs of as many games
would give (both measured in the run, jackknife over 20 blocks). Below 1: pairing
narrowed the interval; 0.5 means the same interval width as 4x the games unpaired.

Part 2, **search against plain sampling.** The race payoff case of issue 30:
``--vary race.payoffs.semifinal[0][5]=0..20 --target lane_ev_spread=min`` (lane 6's
first-place payoff in a semifinal), and the same over 0..60 (a smaller share optimal).
Lane 6's single-bet EV is linear in that payoff, so
the spread of the six lanes' EVs is smallest (the other five lanes' spread) exactly for
the payoffs that put lane 6's EV between the other lanes' smallest and largest. That
*optimum set* is computed here from P(1st/2nd/3rd) per lane of random-deal ``greedy``
semifinals on independent games (another seed, many more races). Then, per seed:

* ``tune`` (TPE, then OCBA racing of the finalists) with ``--budget`` and ``--trials``;
* plain sampling: as many candidates drawn uniformly from the range (numpy, the same seed),
  each measured by ``sheepsim.variants`` on the same games as each other (the tune run's
  seed, as many games as tune played in all), the best measured one chosen.

Reported: games played, distinct candidates, the trial that first proposed a value of the
optimum set, and whether the chosen winner lies in it. With the ``greedy`` pace (which
ignores bets) a payoff edit cannot change a race, so every candidate reuses the base's
games: a candidate costs no games, and "games" is what the base (and the racing) played.

CPU seconds are of this process (``time.process_time``); everything runs on one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

#: (game, edits, games per variant): one or two realistic edits of each game
PAIRING_CASES = [
    ("race", ["race.cards.Stilton.gallop=7", "race.payoffs.bonus_three=2"], 20_000),
    ("panic", ["scoring.ram_row_points=[5,3,2,1]", "menu[11].time=3"], 2_000),
    ("awsheep", ["scoring.golden_worth=5"], 10_000),
]

KEY = "race.payoffs.semifinal[0][5]"
LO = 0
#: the README's range, and a wider one in which the optimum set is a smaller share
HIS = (20, 60)
#: (trials, budget): near the least budget tune accepts for 12 trials, and the default trials
CONFIGS = ((12, 24_000), (24, 50_000))
TARGET = "lane_ev_spread=min"


def pairing(quick: bool, seeds) -> list[dict]:
    import sheepsim

    rows = []
    for game, edits, games in PAIRING_CASES:
        for seed in seeds:
            n = games // 10 if quick else games
            t0 = time.process_time()
            res = sheepsim.variants(game, set=edits, games=n, seed=seed, threads=1, quiet=True)
            cpu = time.process_time() - t0
            for r in res.tables["differences"].itertuples():
                rows.append({"game": game, "edit": r.variant, "metric": r.metric, "seed": seed,
                             "games": int(r.games), "diff": float(r.diff), "diff_se": float(r.diff_se),
                             "unpaired_se": float(r.unpaired_se), "se_ratio": float(r.se_ratio),
                             "cpu_s": cpu})
    return rows


def lane_place_probabilities(races: int, seed: int) -> np.ndarray:
    """``(6, 3)`` P(1st, 2nd, 3rd) per lane of random-deal ``greedy`` semifinals."""
    from sheepsim import driver
    from sheepsim.games.race.jobs import RacesJob

    job = RacesJob(None, None, "semifinal", "greedy", seed, random_deal=True)
    res = driver.run(job, games=races, threads=1, progress=False)
    lanes = job.tables(res.counts, races)["lanes"]
    return lanes[["p_first", "p_second", "p_third"]].to_numpy()


def optimum_set(p: np.ndarray, races: int, hi_x: int) -> dict:
    """The payoffs of ``KEY`` in LO..hi_x that minimise the lane EV spread, from ``p``."""
    from sheepsim.games.race.rules import load_rules

    pay = np.asarray(load_rules(None).payoff_semifinal, float)  # (3 places, 6 lanes)
    ev = (p * pay.T).sum(axis=1)
    others = ev[:5]
    lo, hi = others.min(), others.max()
    rest6 = p[5, 1] * pay[1, 5] + p[5, 2] * pay[2, 5]
    xs = np.arange(LO, hi_x + 1)
    ev6 = p[5, 0] * xs + rest6
    spread = np.maximum(hi, ev6) - np.minimum(lo, ev6)
    best = spread.min()
    opt = [int(x) for x, s in zip(xs, spread, strict=True) if s <= best + 1e-12]
    # the boundary: the payoff at which lane 6's EV meets the others' largest (smallest)
    x_hi = (hi - rest6) / p[5, 0]
    x_lo = (lo - rest6) / p[5, 0]
    return {"range": f"{LO}..{hi_x}", "races": races, "p_lane6": p[5].tolist(),
            "ev_lanes_standard": ev.tolist(), "others_min": lo, "others_max": hi,
            "x_meets_max": x_hi, "x_meets_min": x_lo,
            "optimum": opt, "best_spread": best}


def run_tune(seed: int, budget: int, trials: int, hi_x: int, opt: set) -> dict:
    import sheepsim

    t0 = time.process_time()
    res = sheepsim.tune("race", vary=[f"{KEY}={LO}..{hi_x}"], target=[TARGET], budget=budget,
                        trials=trials, seed=seed, threads=1, quiet=True)
    cpu = time.process_time() - t0
    best, tr = res.tables["best"], res.tables["trials"]
    winner = int(best[best["rank"] == "1"][KEY].iloc[0])
    hits = tr[tr[KEY].isin(opt)]["trial"]
    return {"method": "tune", "seed": seed, "trials": trials, "games": int(res.meta["games"]),
            "distinct": int(tr["repeat_of"].isna().sum()),
            "first_hit_trial": int(hits.min()) if len(hits) else None,
            "winner": winner, "winner_games": int(best[best["rank"] == "1"]["games"].iloc[0]),
            "hit": winner in opt, "cpu_s": cpu}


def run_sampling(seed: int, n: int, games: int, hi_x: int, opt: set) -> dict:
    """``n`` uniform draws from LO..hi_x, measured on the same ``games`` games of ``seed``."""
    import sheepsim

    draws = np.random.default_rng(seed).integers(LO, hi_x + 1, size=n).tolist()
    distinct = list(dict.fromkeys(draws))
    t0 = time.process_time()
    # the first draw is the base (a file would do as well); the rest are its edits
    res = sheepsim.variants("race", set=[f"{KEY}={x}" for x in distinct], metric="lane_ev_spread",
                            games=games, seed=seed, threads=1, quiet=True)
    cpu = time.process_time() - t0
    m = res.tables["metrics"]
    m = m[m["variant"] != "base"]
    values = m["value"].to_numpy()
    winner = distinct[int(np.argmin(values))]  # the first drawn among equal values
    hits = [i + 1 for i, x in enumerate(draws) if x in opt]
    return {"method": "sampling", "seed": seed, "trials": n,
            "games": int(res.meta["variant_games"]), "distinct": len(distinct),
            "first_hit_trial": hits[0] if hits else None, "winner": winner,
            "winner_games": int(m["games"].iloc[0]), "hit": winner in opt, "cpu_s": cpu}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the games, two seeds")
    ap.add_argument("--seeds", type=int, default=5, help="search seeds (default 5)")
    ap.add_argument("--races", type=int, default=2_000_000,
                    help="races behind the optimum set (default 2,000,000)")
    ap.add_argument("--json", metavar="FILE", help="write every number here too")
    args = ap.parse_args(argv)
    import pandas as pd

    pd.set_option("display.width", 160)
    load = os.getloadavg()[0]
    out: dict = {"load_average_1min_start": load}

    t0 = time.process_time()
    rows = pairing(args.quick, (0, 1))
    pt = pd.DataFrame(rows)
    print(f"1. pairing gain: se_ratio = paired / unpaired standard error, seeds 0 and 1 "
          f"({time.process_time() - t0:.1f} CPU s)")
    wide = pt.pivot_table(index=["game", "edit", "metric", "games"], columns="seed",
                          values=["se_ratio", "diff"], sort=False)
    wide.columns = [f"{a}_seed{b}" for a, b in wide.columns]
    print(wide.reset_index().to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    out["pairing"] = rows

    races = args.races // (10 if args.quick else 1)
    t0 = time.process_time()
    halves = [lane_place_probabilities(races // 2, seed=s) for s in (987_654, 987_655)]
    p = (halves[0] + halves[1]) / 2
    cpu = time.process_time() - t0
    opts = {h: optimum_set(p, races, h) for h in HIS}
    o = opts[HIS[0]]
    x_halves = [optimum_set(ph, races // 2, HIS[0])["x_meets_max"] for ph in halves]
    print(f"\n2. the optimum set for {TARGET}, from P(place) of {races:,} random-deal greedy "
          f"semifinals (seeds 987654 and 987655, half each; {cpu:.1f} CPU s):")
    print(f"   P(1st, 2nd, 3rd) of lane 6: {np.round(o['p_lane6'], 4).tolist()}")
    print(f"   lane EVs at the standard payoffs: {np.round(o['ev_lanes_standard'], 3).tolist()}")
    print(f"   lane 6's EV meets the other lanes' largest at x = {o['x_meets_max']:.2f}, "
          f"their smallest at x = {o['x_meets_min']:.2f} (the largest from each half alone: "
          f"{x_halves[0]:.3f}, {x_halves[1]:.3f})")
    o["x_meets_max_halves"] = x_halves
    for h, oh in opts.items():
        print(f"   {KEY}={LO}..{h}: optimum set {oh['optimum']} ({len(oh['optimum'])} of {h - LO + 1} "
              f"values, spread {oh['best_spread']:.3f})")
    out["optimum"] = opts

    seeds = range(2 if args.quick else args.seeds)
    results = []
    for h in HIS:
        opt = set(opts[h]["optimum"])
        for trials, budget in CONFIGS:
            for s in seeds:
                tu = run_tune(s, budget, trials, h, opt)
                sa = run_sampling(s, trials, -(-tu["games"] // 20) * 20, h, opt)
                for r in (tu, sa):
                    r.update(range=f"{LO}..{h}", budget=budget)
                results += [tu, sa]
    rt = pd.DataFrame(results)
    print("\n   per seed (winner: the value chosen; hit: it is in the optimum set; first_hit_trial: "
          "the first trial proposing a value of the set; winner_games: the games the winner's value "
          "is measured on)")
    cols = ["range", "budget", "trials", "seed", "method", "games", "distinct", "first_hit_trial",
            "winner", "winner_games", "hit", "cpu_s"]
    print(rt[cols].to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    summary = (rt.groupby(["range", "budget", "trials", "method"], sort=False)
               .agg(seeds=("seed", "size"), hits=("hit", "sum"), games_median=("games", "median"),
                    distinct_median=("distinct", "median"),
                    first_hit_median=("first_hit_trial", "median"),
                    first_hit_max=("first_hit_trial", "max"),
                    never_proposed=("first_hit_trial", lambda v: int(v.isna().sum()))).reset_index())
    print("\n   summary")
    print(summary.to_string(index=False))
    out["search"] = results
    out["load_average_1min_end"] = os.getloadavg()[0]
    print(f"\nload average (1 min): {load:.2f} at the start, {out['load_average_1min_end']:.2f} at the end")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
