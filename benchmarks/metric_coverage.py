"""Coverage of the harness metrics' 95% intervals (issue 46): how often the interval a
designer is shown (``variants``: a jackknife over blocks of games, t quantile) holds the
metric's true value, for two metrics of each family (outcomes, duration,
decisions, the course of a game), for values and for paired differences.

The game is Pig (``examples/pig``, 2 players, ``hold-20`` at both seats), the base its
standard rules (``target = 100``) and the variant ``target = 80``. The truth is one run
of ``TRUTH_GAMES`` games on a seed no replication uses: its standard error is
sqrt(2,000 / 2,000,000) = 1/32 of a 2,000-game replication's, so an interval that
covers the true value covers it within that noise too (the miss it adds to the rate is
far below the rate's own binomial error, printed as ``mc_se``). Each replication is a
fresh seed. The spread metrics (``seat_win_spread``) have their own study
(issue 49). Run:

    python benchmarks/metric_coverage.py [REPS] [GAMES]
"""

import math
import sys
import time

METRICS = ("first_player_edge", "outcome_uniformity", "mean_turns", "sd_turns", "branching",
           "forced_share", "lead_changes", "comeback_rate")
FAMILY = {"first_player_edge": "outcomes", "outcome_uniformity": "outcomes",
          "mean_turns": "duration", "sd_turns": "duration", "branching": "decisions",
          "forced_share": "decisions", "lead_changes": "course", "comeback_rate": "course"}
TRUTH_GAMES = 2_000_000
TRUTH_SEED = 10_000_019


def run(games: int, seed: int):
    import sheepsim

    r = sheepsim.variants("pig", set=["pig.target=80"], metric=list(METRICS),
                          games=games, seed=seed, players=2, policy="hold-20", quiet=True)
    return r.tables["metrics"], r.tables["differences"]


def main(reps: int = 200, games: int = 2000) -> None:
    import pandas as pd

    t0 = time.process_time()
    tm, td = run(TRUTH_GAMES, TRUTH_SEED)
    truth_v = tm[tm.variant == "base"].set_index("metric")["value"]
    truth_d = td.set_index("metric")["diff"]
    hits_v = {m: 0 for m in METRICS}
    hits_d = {m: 0 for m in METRICS}
    for rep in range(reps):
        m, d = run(games, rep + 1)
        base = m[m.variant == "base"].set_index("metric")
        diff = d.set_index("metric")
        for k in METRICS:
            hits_v[k] += base.at[k, "value_lo"] <= truth_v[k] <= base.at[k, "value_hi"]
            hits_d[k] += diff.at[k, "diff_lo"] <= truth_d[k] <= diff.at[k, "diff_hi"]
    rows = []
    for k in METRICS:
        for what, hits, truth in (("value", hits_v, truth_v), ("difference", hits_d, truth_d)):
            rate = hits[k] / reps
            rows.append({"family": FAMILY[k], "metric": k, "of": what, "truth": truth[k],
                         "coverage": rate, "mc_se": math.sqrt(0.95 * 0.05 / reps)})
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print(f"{reps} replications of {games:,} games; truth from {TRUTH_GAMES:,} games; "
          f"{time.process_time() - t0:.0f} CPU s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
