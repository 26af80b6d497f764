"""``tune``'s winner on a real optimum (issue 49, item 1): how often the winner's
intervals hold its true value, when the truth is known exactly.

The tune: lane 6's first-place semifinal payoff ``x`` in 0..20 for the smallest
``lane_ev_spread`` on the dealt lanes Requeijao, Pecorino, Feta, Manchego, Roquefort,
Stilton, ``greedy`` pace. The exact solver gives every lane's place odds, so the true
spread of any ``x`` is known: lane 6's EV is ``x P6(1st) + 3 P6(2nd) + P6(3rd)``, the
spread falls with ``x`` until lane 6 meets the best other lane and is flat below (the
known best value). ``tune`` would use those exact odds itself; here the lane metrics
are *simulated* (single races on the dealt lanes, as with a pace policy the solver
cannot follow), so the search, its racing and the confirmation all see noise. A
payoff edit leaves the races unchanged, so every candidate reuses the base's races:
cheap enough for dozens of tunes.

Per tune: the winner's search-time interval (``best``, on the games it was selected
on), its confirmation interval (``confirm``, fresh games) and the confirmation's
interval of the difference winner - base, each against the truth. Run:

    python benchmarks/tune_winner_coverage.py [RUNS] [FIRST_SEED]
"""

import sys
import time

import numpy as np

LANES = "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"
KEY = "race.payoffs.semifinal[0][5]"


def simulated_lanes() -> None:
    """The race's lane metrics on dealt lanes simulated instead of solved."""
    from sheepsim.games.race import metrics as RM
    from sheepsim.games.race.jobs import RacesJob

    real = RM.metric_jobs

    def jobs(rules, players, seed, policies, keys, lanes=None):
        out = real(rules, players, seed, policies, keys, lanes=None)
        if "lanes" in keys and lanes is not None:
            out["lanes"] = RacesJob(rules, lanes, "semifinal", policies["pace"], seed)
        return out

    RM.metric_jobs = jobs


def truth():
    """``x -> true lane_ev_spread`` and the best value over x in 0..20."""
    from sheepsim.game import get
    from sheepsim.games.race.exact import exact_odds

    p = exact_odds(None, LANES.split(","), "semifinal", "greedy").p_place  # (6, 3)
    pay = np.asarray(get("race").load_rules(None).payoff_semifinal, dtype=float).T  # (6, 3)

    def spread(x):
        q = pay.copy()
        q[5, 0] = x
        return float(np.ptp((p * q).sum(axis=1)))

    return spread, min(spread(x) for x in range(21))


def main(runs: int = 40, first: int = 0) -> None:
    import sheepsim

    simulated_lanes()
    spread, best = truth()
    base_true = spread(6)
    rows = []
    t0 = time.time()
    for seed in range(first, first + runs):
        res = sheepsim.tune("race", vary=f"{KEY}=0..20", target="lane_ev_spread=min", budget=24_000,
                            trials=8, seed=seed, lanes=LANES, quiet=True)
        b = res.tables["best"].iloc[0]
        x = int(b[KEY])
        true = spread(x)
        c = res.tables["confirm"]
        search_cov = b["lane_ev_spread_lo"] <= true <= b["lane_ev_spread_hi"]
        if len(c):
            r = c.iloc[0]
            conf_cov = r["winner_lo"] <= true <= r["winner_hi"]
            diff_cov = r["diff_lo"] <= true - base_true <= r["diff_hi"]
        else:
            conf_cov = diff_cov = None
        rows.append((x, true, search_cov, conf_cov, diff_cov, bool(res.meta["winner_beats_base"])))
        print(f"seed {seed}: winner x={x} true {true:.4f} (best {best:.4f}), search-time covers "
              f"{search_cov}, confirmation covers {conf_cov}, difference covers {diff_cov}, "
              f"confirmed {res.meta['winner_beats_base']}", flush=True)
    conf = [r for r in rows if r[3] is not None]
    print(f"{runs} tunes (seeds {first}-{first + runs - 1}), {time.time() - t0:.0f} s: "
          f"winner optimal {sum(abs(r[1] - best) < 1e-12 for r in rows)}/{runs}, "
          f"mean excess over the best {np.mean([r[1] - best for r in rows]):.4f}; "
          f"search-time interval covers {sum(r[2] for r in rows)}/{runs}; "
          f"confirmation interval covers {sum(r[3] for r in conf)}/{len(conf)}; "
          f"confirmation difference covers {sum(r[4] for r in conf)}/{len(conf)}; "
          f"confirmed {sum(r[5] for r in rows)}/{runs}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
