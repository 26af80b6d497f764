"""Sheep Race results as DataFrames (counts in, tables out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sheepsim.games.race.simulate import GameResults, RaceCounts
from sheepsim.stats import mean_interval, wilson_interval

PLACES = ("first", "second", "third")


def odds_table(counts: RaceCounts) -> pd.DataFrame:
    """One row per lane: ``lane`` (1-6), ``card``, ``p_first``/``p_second``/``p_third``
    with Wilson 95% intervals (``p_first_lo``, ``p_first_hi``, ...), ``ev`` (expected
    points of one bet on the lane, bonus excluded), ``games``, ``seed``.

    For the final only ``p_first`` is defined; the other places are NaN (empty in CSV).
    """
    rules = counts.rules
    n = counts.games
    places = counts.place_counts.astype(np.float64)  # (6, 3)
    final = counts.stage == "final"
    cols: dict[str, object] = {"lane": np.arange(1, 7)}
    if counts.lanes is not None:
        cols["card"] = [rules.cards[i].name for i in counts.lanes]
    else:
        cols["card"] = ["(random deal)"] * 6
    for k, name in enumerate(PLACES):
        lo, hi = wilson_interval(places[:, k], n)
        p = places[:, k] / n
        if final and k > 0:
            p = lo = hi = np.full(6, np.nan)
        cols[f"p_{name}"] = p
        cols[f"p_{name}_lo"] = lo
        cols[f"p_{name}_hi"] = hi
    if final:
        ev = places[:, 0] / n * rules.payoff_final
    else:
        ev = (places / n * rules.payoff_semifinal.T).sum(axis=1)
    cols["ev"] = ev
    cols["games"] = n
    cols["seed"] = counts.seed
    return pd.DataFrame(cols)


def seat_table(res: GameResults) -> pd.DataFrame:
    """Per seat: policies, ``wins``, ``win_rate`` with Wilson interval, mean score with a
    normal 95% interval."""
    n = res.games
    lo, hi = wilson_interval(res.wins, n)
    mean, mlo, mhi, _ = mean_interval(res.score_sum, res.score_sq, n)
    return pd.DataFrame({
        "seat": np.arange(1, res.players + 1),
        "bet_policy": list(res.policies.bet_names),
        "pace_policy": list(res.policies.pace_names),
        "wins": res.wins,
        "win_rate": res.wins / n,
        "win_rate_lo": lo,
        "win_rate_hi": hi,
        "mean_score": mean,
        "mean_score_lo": mlo,
        "mean_score_hi": mhi,
        "games": n,
        "seed": res.seed,
    })


def policy_table(res: GameResults) -> pd.DataFrame:
    """Win rate and mean score per (bet policy, pace policy) pair, pooled over the seats
    that played it (a seat-game is one trial)."""
    seats = seat_table(res)
    rows = []
    for (bet, pace), grp in seats.groupby(["bet_policy", "pace_policy"], sort=False):
        trials = len(grp) * res.games
        wins = int(grp["wins"].sum())
        idx = grp.index.to_numpy()
        lo, hi = wilson_interval(wins, trials)
        mean, mlo, mhi, _ = mean_interval(res.score_sum[idx].sum(), res.score_sq[idx].sum(), trials)
        rows.append({"bet_policy": bet, "pace_policy": pace, "seats": len(grp),
                     "wins": wins, "win_rate": wins / trials, "win_rate_lo": float(lo),
                     "win_rate_hi": float(hi), "mean_score": float(mean),
                     "mean_score_lo": float(mlo), "mean_score_hi": float(mhi),
                     "games": res.games, "seed": res.seed})
    return pd.DataFrame(rows)


def turns_table(res: GameResults) -> pd.DataFrame:
    """Mean turns per race (semifinal 1, semifinal 2, final)."""
    return pd.DataFrame({"race": ["semifinal 1", "semifinal 2", "final"],
                         "mean_turns": res.turns / res.games, "games": res.games})
