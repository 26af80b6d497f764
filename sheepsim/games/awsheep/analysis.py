"""Aw, Sheep! tables: raw-count DataFrames in, rates with 95% intervals out.

Inputs are the frames of :func:`.simulate.count_frames` / :func:`.simulate.pair_frame`,
possibly concatenated over settings; every function groups by the setting columns
present (``players``, ``draft``) and keeps them in front. Probabilities carry Wilson
intervals (``*_lo``/``*_hi``), paired differences normal intervals from the paired sums.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sheepsim.stats import (
    binomial_two_sided_p,
    chi_square_uniform_p,
    hist_mean_sd,
    hist_quantiles,
    mcnemar_p,
    paired_difference_from_sums,
    pooled_rate_interval,
    wilson_interval,
)

SETTING = ("players", "draft")


def _keys(df, *extra) -> list[str]:
    return [c for c in SETTING if c in df.columns] + list(extra)


def with_rate(df: pd.DataFrame, wins: str, trials: str, name: str = "win_rate") -> pd.DataFrame:
    """``df`` plus ``name`` = wins / trials and its Wilson ``name_lo``/``name_hi``."""
    lo, hi = wilson_interval(df[wins].to_numpy(), df[trials].to_numpy())
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = df[wins].to_numpy() / df[trials].to_numpy()
    return df.assign(**{name: rate, f"{name}_lo": lo, f"{name}_hi": hi})


def win_rate_by_seat(seats: pd.DataFrame) -> pd.DataFrame:
    """Per seat: ``games, wins, win_rate`` (+ interval), ``fair_share`` = 1/players,
    ``out_rate`` (share of rounds the seat ended without cards)."""
    out = with_rate(seats, "wins", "games")
    return out.assign(fair_share=1.0 / out["players"], out_rate=out["rounds_out"] / out["games"])


def win_rate_by_policy(slots: pd.DataFrame) -> pd.DataFrame:
    """Per policy: ``seats`` it held, ``games``, ``seat_games``, ``wins``, ``win_rate`` =
    wins per seat-game (+ interval) and ``fair_share`` = 1 / players (what each seat
    wins if the game is pure luck).

    The game is the unit: seats sharing a policy play the same rounds, so their
    seat-games are not independent trials. A round has exactly one winner, so the
    policy's seats win 0 or 1 rounds-worth per round; the number of rounds a policy won
    is binomial over rounds and the interval is its Wilson interval divided by the
    seats (:func:`sheepsim.stats.pooled_rate_interval`; every seat on one policy gives
    exactly 1 / players with no width)."""
    g = slots.groupby(_keys(slots, "policy"), sort=False)
    out = g.agg(seats=("slot", "size"), games=("games", "first"), seat_games=("games", "sum"),
                wins=("wins", "sum")).reset_index()
    rate, lo, hi = pooled_rate_interval(out["wins"], out["wins"], out["games"], out["seats"])
    return out.assign(win_rate=rate, win_rate_lo=lo, win_rate_hi=hi,
                      fair_share=1.0 / out["players"])


def first_player_test(order: pd.DataFrame) -> pd.DataFrame:
    """Win rate by position in turn order (1 = the first player) with intervals, the
    exact binomial p-value of each position against 1/players, and (same on every row
    of a setting) the chi-square p-value of equal wins for all positions."""
    out = with_rate(order, "wins", "games")
    out = out.assign(fair_share=1.0 / out["players"])
    out["pvalue"] = binomial_two_sided_p(out["wins"], out["games"], out["fair_share"])
    chi = {k: chi_square_uniform_p(g["wins"]) for k, g in out.groupby(_keys(out), sort=False)}
    out["chi2_pvalue"] = [chi[k] for k in out[_keys(out)].itertuples(index=False, name=None)]
    return out


def round_ends(ends: pd.DataFrame) -> pd.DataFrame:
    """How rounds end: ``end`` (last_with_cards, flock_off, sheep_show, draw), ``games``,
    ``share`` with its Wilson interval."""
    total = ends.groupby(_keys(ends), sort=False)["games"].transform("sum")
    out = ends.assign(rounds=total)
    return with_rate(out, "games", "rounds", "share")


def round_length(turns: pd.DataFrame) -> pd.DataFrame:
    """Turns per round from the histogram: ``rounds, mean_turns`` (+ normal interval),
    ``sd_turns``, ``median_turns``, ``p10_turns``, ``p90_turns``, ``min_turns``,
    ``max_turns``."""
    rows = []
    for key, g in turns.groupby(_keys(turns), sort=False):
        hist = np.zeros(int(g["turns"].max()) + 1)
        hist[g["turns"].to_numpy()] = g["games"].to_numpy()
        n = hist.sum()
        mean, sd = hist_mean_sd(hist)
        half = 1.959963984540054 * sd / np.sqrt(n)
        q10, q50, q90 = hist_quantiles(hist, [0.1, 0.5, 0.9])
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(_keys(turns), key, strict=True)), "rounds": int(n),
                     "mean_turns": mean, "mean_turns_lo": mean - half,
                     "mean_turns_hi": mean + half, "sd_turns": sd, "median_turns": int(q50),
                     "p10_turns": int(q10), "p90_turns": int(q90),
                     "min_turns": int(g["turns"].min()), "max_turns": int(g["turns"].max())})
    return pd.DataFrame(rows)


def card_power(start_hands: pd.DataFrame) -> pd.DataFrame:
    """Win rate by the number of each card kind in the starting hand (after the
    draft), pooled over the seats of each policy: ``policy, kind, count,
    players_with, wins, win_rate`` (+ interval), ``fair_share`` = 1/players and
    ``share_of_hands`` (how often a starting hand holds that count)."""
    g = start_hands.groupby(_keys(start_hands, "policy", "kind", "count"), sort=False)
    out = g.agg(players_with=("players_with", "sum"), wins=("wins", "sum")).reset_index()
    total = out.groupby(_keys(out, "policy", "kind"), sort=False)["players_with"].transform("sum")
    out = with_rate(out, "wins", "players_with")
    out = out.assign(fair_share=1.0 / out["players"], share_of_hands=out["players_with"] / total)
    return out.sort_values(_keys(out, "policy", "kind", "count"), kind="stable",
                           ignore_index=True)


def golden_effect(start_hands: pd.DataFrame, golden: pd.DataFrame) -> pd.DataFrame:
    """The golden sheep: win rate of players who start with it and without it, and of
    the player holding it when the round ends; ``condition, players_with, wins,
    win_rate`` (+ interval), ``fair_share``."""
    keys = _keys(start_hands)
    gold = start_hands[start_hands["kind"] == "golden"]
    g = gold.groupby(keys + ["count"], sort=False)[["players_with", "wins"]].sum().reset_index()
    g["condition"] = np.where(g["count"] > 0, "starts_with_golden", "starts_without_golden")
    end = golden.rename(columns={"held_at_end": "players_with", "holder_wins": "wins"})
    end = end.assign(condition="holds_golden_at_end")[keys + ["condition", "players_with", "wins"]]
    out = pd.concat([g[keys + ["condition", "players_with", "wins"]], end], ignore_index=True)
    out = with_rate(out, "wins", "players_with")
    return out.assign(fair_share=1.0 / out["players"]).sort_values(keys, kind="stable",
                                                                   ignore_index=True)


def luck_vs_skill(pairs: pd.DataFrame) -> pd.DataFrame:
    """Policy A in slot 1 against the others, versus B in the same slot of the same
    rounds (common random numbers): ``policy, baseline, games``, ``win_rate`` of A and
    ``baseline_win_rate`` of B (Wilson intervals), ``diff`` = A - B with its paired
    interval, ``fair_share`` = 1/players (what a pure-luck game gives every policy),
    ``pvalue`` (exact McNemar test)."""
    p = pairs[pairs["slot"] == 1]
    rows = []
    for r in p.itertuples(index=False):
        wa, wb = r.both + r.a_only, r.both + r.b_only
        lo_a, hi_a = wilson_interval(wa, r.games)
        lo_b, hi_b = wilson_interval(wb, r.games)
        d = paired_difference_from_sums(r.a_only - r.b_only, r.a_only + r.b_only, r.games)
        rows.append({**{k: getattr(r, k) for k in SETTING if k in p.columns},
                     "policy": r.policy_a, "baseline": r.policy_b, "games": r.games,
                     "win_rate": wa / r.games, "win_rate_lo": float(lo_a),
                     "win_rate_hi": float(hi_a), "baseline_win_rate": wb / r.games,
                     "baseline_win_rate_lo": float(lo_b), "baseline_win_rate_hi": float(hi_b),
                     "diff": d["diff"], "diff_lo": d["lo"], "diff_hi": d["hi"],
                     "fair_share": 1.0 / r.players, "pvalue": mcnemar_p(r.a_only, r.b_only)})
    return pd.DataFrame(rows)


def play_tables(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Every table of a run (or of concatenated runs) from its raw count frames."""
    return {"by_seat": win_rate_by_seat(frames["seats"]),
            "by_policy": win_rate_by_policy(frames["slots"]),
            "first_player": first_player_test(frames["order"]),
            "round_ends": round_ends(frames["ends"]),
            "round_length": round_length(frames["turns"]),
            "card_power": card_power(frames["start_hands"]),
            "golden": golden_effect(frames["start_hands"], frames["golden"])}
