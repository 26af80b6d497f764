"""Aw, Sheep! tables: raw-count DataFrames in, rates with 95% intervals out.

Inputs are the frames of :func:`.simulate.count_frames` / :func:`.simulate.pair_frame`,
possibly concatenated over settings; every function groups by the setting columns
present (``players``, ``draft``, ``field``: the seats' policies) and keeps them in front.
Probabilities carry Wilson intervals (``*_lo``/``*_hi``), paired differences normal
intervals from the paired sums, pooled rates over seats of one round intervals
clustered by round (:func:`ratio_interval`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sheepsim.game import LazyTables
from sheepsim.games.awsheep.layout import END_NAMES
from sheepsim.stats import (
    binomial_two_sided_p,
    chi_square_uniform_p,
    hist_mean_sd,
    hist_quantiles,
    holm_adjusted,
    holm_reject,
    mcnemar_p,
    mean_interval,
    paired_difference_from_sums,
    pooled_rate_interval,
    tie_breaks_table,
    wilson_interval,
)

#: the columns that name a setting: player count, draft, and the policy field (the
#: seats' policies); tables of several settings keep them in front
SETTING = ("players", "draft", "field")
Z95 = 1.959963984540054


def _keys(df, *extra) -> list[str]:
    return [c for c in SETTING if c in df.columns] + list(extra)


def with_rate(df: pd.DataFrame, wins: str, trials: str, name: str = "win_rate") -> pd.DataFrame:
    """``df`` plus ``name`` = wins / trials and its Wilson ``name_lo``/``name_hi``."""
    lo, hi = wilson_interval(df[wins].to_numpy(), df[trials].to_numpy())
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = df[wins].to_numpy() / df[trials].to_numpy()
    return df.assign(**{name: rate, f"{name}_lo": lo, f"{name}_hi": hi})


def win_rate_by_seat(seats: pd.DataFrame) -> pd.DataFrame:
    """Per seat: ``games, wins, wins_on_tie`` (of ``wins``, those from a tie for first:
    the Sheep Show or a fair draw), ``win_rate`` (+ interval), ``fair_share`` =
    1/players, ``out_rate`` (share of rounds the seat ended without cards)."""
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
    seats (:func:`sheepsim.stats.pooled_rate_interval`). A policy on every seat wins
    exactly 1 / players by symmetry: ``exact`` is True there and the interval is left
    empty (NaN), not printed."""
    g = slots.groupby(_keys(slots, "policy"), sort=False)
    out = g.agg(seats=("slot", "size"), games=("games", "first"), seat_games=("games", "sum"),
                wins=("wins", "sum")).reset_index()
    rate, lo, hi = pooled_rate_interval(out["wins"], out["wins"], out["games"], out["seats"])
    exact = (out["seats"] == out["players"]).to_numpy()
    return out.assign(win_rate=rate, win_rate_lo=np.where(exact, np.nan, lo),
                      win_rate_hi=np.where(exact, np.nan, hi), exact=exact,
                      fair_share=1.0 / out["players"])


def first_player_test(order: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Win rate by position in turn order (1 = the first player) for each policy
    ``field`` (the seats' policies: the pattern depends on the field) with intervals,
    ``wins_on_tie`` (of ``wins``, those from a tie for first), the exact binomial
    p-value of each position against 1/players, ``pvalue_holm`` (Holm-adjusted over the
    positions of a setting and field) and ``significant`` (Holm at ``alpha``, as the
    race's first-player table), and (same on every row of a setting and field) the
    chi-square p-value of equal wins for all positions."""
    out = with_rate(order, "wins", "games")
    out = out.assign(fair_share=1.0 / out["players"])
    out["pvalue"] = binomial_two_sided_p(out["wins"], out["games"], out["fair_share"])
    keys = _keys(out)
    out["pvalue_holm"] = np.nan
    out["significant"] = False
    out["chi2_pvalue"] = np.nan
    for _, g in out.groupby(keys, sort=False):
        p = g["pvalue"].to_numpy()
        out.loc[g.index, "pvalue_holm"] = holm_adjusted(p)
        out.loc[g.index, "significant"] = holm_reject(p, alpha)
        out.loc[g.index, "chi2_pvalue"] = chi_square_uniform_p(g["wins"])
    out["significant"] = out["significant"].astype(bool)
    return out


def round_ends(ends: pd.DataFrame) -> pd.DataFrame:
    """How rounds end: ``end`` (last_with_cards, flock_off, sheep_show, draw), ``games``,
    ``share`` with its Wilson interval."""
    total = ends.groupby(_keys(ends), sort=False)["games"].transform("sum")
    out = ends.assign(rounds=total)
    return with_rate(out, "games", "rounds", "share")


def ties(ends: pd.DataFrame) -> pd.DataFrame:
    """How each round's winner was decided (the ways partition the rounds):
    ``decided_by`` = ``last_with_cards``, ``flock_off`` (one player had the best flock),
    ``sheep_show`` or ``draw`` (a tie for first broken by the Sheep Show or a fair
    draw); columns of :func:`sheepsim.stats.tie_breaks_table` (``tie_for_first``,
    ``games``, ``share`` and ``tie_rate`` with Wilson intervals). Wins on a tie per seat
    and per position: ``wins_on_tie`` in ``by_seat`` and ``first_player``."""
    frames = []
    for key, g in ends.groupby(_keys(ends), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        counts = g.set_index("end")["games"].reindex(list(END_NAMES)).to_numpy()
        t = tie_breaks_table(END_NAMES, counts, [False, False, True, True], int(counts.sum()))
        for col, v in reversed(list(zip(_keys(ends), key, strict=True))):
            t.insert(0, col, v)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


def flock_off_triggers(triggers: pd.DataFrame) -> pd.DataFrame:
    """How each Flock Off started: ``trigger`` = ``run_equals`` (the run of sheep equal
    to the players still in), ``run_passes`` (past them: a player went out on their
    last sheep, or a Methane discarded two sheep), ``everyone_out`` (nobody left with
    cards); ``games``, ``flock_offs``, ``share`` of the Flock Offs and ``share_of_rounds``,
    each with its Wilson interval."""
    t = triggers[triggers["trigger"] != "none"]
    keys = _keys(t)
    out = t.assign(flock_offs=t.groupby(keys, sort=False)["games"].transform("sum"),
                   rounds=triggers.groupby(keys, sort=False)["games"].transform("sum")
                   .loc[t.index])
    out = with_rate(out, "games", "flock_offs", "share")
    return with_rate(out, "games", "rounds", "share_of_rounds")


def _histograms(df: pd.DataFrame, value: str):
    """Per setting of a histogram frame (``value``, ``games`` columns): ``(setting
    columns as a dict, hist array indexed by value, the group's rows)``."""
    for key, g in df.groupby(_keys(df), sort=False):
        hist = np.zeros(int(g[value].max()) + 1)
        hist[g[value].to_numpy()] = g["games"].to_numpy()
        key = key if isinstance(key, tuple) else (key,)
        yield dict(zip(_keys(df), key, strict=True)), hist, g


def winning_margins(margins: pd.DataFrame) -> pd.DataFrame:
    """Winning margins of the Flock Off (the best flock value minus the next
    contender's; 0 = a tie for first): ``flock_offs``, ``mean_margin`` with its normal
    interval, ``share_tied`` (margin 0) with its Wilson interval, ``median_margin``,
    ``p90_margin``, ``max_margin``."""
    rows = []
    for setting, hist, _ in _histograms(margins, "margin"):
        n = hist.sum()
        x = np.arange(hist.size)
        mean, lo, hi, _ = mean_interval((hist * x).sum(), (hist * x * x).sum(), n)
        tlo, thi = wilson_interval(hist[0], n)
        q50, q90 = hist_quantiles(hist, [0.5, 0.9])
        rows.append({**setting, "flock_offs": int(n), "mean_margin": float(mean),
                     "mean_margin_lo": float(lo), "mean_margin_hi": float(hi),
                     "share_tied": hist[0] / n, "share_tied_lo": float(tlo),
                     "share_tied_hi": float(thi), "median_margin": int(q50),
                     "p90_margin": int(q90), "max_margin": hist.size - 1})
    return pd.DataFrame(rows)


def knockouts(hist: pd.DataFrame) -> pd.DataFrame:
    """Players knocked out (without cards) when the round ends: per count
    ``players_out``, ``games`` and ``share`` with its Wilson interval, and (the same on
    every row of a setting) ``mean_out`` per round with its normal interval."""
    out = hist.assign(rounds=hist.groupby(_keys(hist), sort=False)["games"].transform("sum"))
    out = with_rate(out, "games", "rounds", "share")
    x = out["players_out"] * out["games"]
    g = out.assign(_x=x, _x2=x * out["players_out"]).groupby(_keys(out), sort=False)
    mean, lo, hi, _ = mean_interval(g["_x"].transform("sum"), g["_x2"].transform("sum"),
                                    out["rounds"])
    return out.assign(mean_out=mean, mean_out_lo=lo, mean_out_hi=hi)


def round_length(turns: pd.DataFrame) -> pd.DataFrame:
    """Turns per round from the histogram: ``rounds, mean_turns`` (+ normal interval),
    ``sd_turns``, ``median_turns``, ``p10_turns``, ``p90_turns``, ``min_turns``,
    ``max_turns``."""
    rows = []
    for setting, hist, g in _histograms(turns, "turns"):
        n = hist.sum()
        mean, sd = hist_mean_sd(hist)
        half = 1.959963984540054 * sd / np.sqrt(n)
        q10, q50, q90 = hist_quantiles(hist, [0.1, 0.5, 0.9])
        rows.append({**setting, "rounds": int(n),
                     "mean_turns": mean, "mean_turns_lo": mean - half,
                     "mean_turns_hi": mean + half, "sd_turns": sd, "median_turns": int(q50),
                     "p10_turns": int(q10), "p90_turns": int(q90),
                     "min_turns": int(g["turns"].min()), "max_turns": int(g["turns"].max())})
    return pd.DataFrame(rows)


def ratio_interval(num, num_sq, num_x_den, den, den_sq, rounds, lo_bound=-np.inf,
                   hi_bound=np.inf):
    """Ratio estimate ``num / den`` of sums over rounds with its 95% normal interval
    clustered by round (the round is the unit): per round g, ``X_g`` (summed in ``num``,
    squares in ``num_sq``) over ``N_g`` trials (``den``, ``den_sq``), ``num_x_den`` the
    sum of ``X_g * N_g``. Variance of the ratio (delta method) = ``sum (X_g - m N_g)^2 /
    den^2 * G / (G - 1)``. Arrays; returns ``(estimate, lo, hi, stderr)``, the interval
    clipped to ``[lo_bound, hi_bound]``."""
    num, num_sq, num_x_den, den, den_sq, rounds = (
        np.asarray(a, dtype=np.float64) for a in (num, num_sq, num_x_den, den, den_sq, rounds))
    with np.errstate(invalid="ignore", divide="ignore"):
        m = num / den
        ss = np.maximum(num_sq - 2 * m * num_x_den + m * m * den_sq, 0.0)
        se = np.sqrt(ss * rounds / (rounds - 1)) / den
    return (m, np.clip(m - Z95 * se, lo_bound, hi_bound),
            np.clip(m + Z95 * se, lo_bound, hi_bound), se)


def card_power(start_hands: pd.DataFrame) -> pd.DataFrame:
    """Starting-hand composition, not card value: the win rate of the players whose
    starting hand (after the draft) holds ``count`` cards of ``kind``, pooled over the
    seats of each policy. A hand has a fixed size, so more of one kind means fewer of
    the others (8 sheep is a hand with few action cards): :func:`card_value` is the
    value of a card. Columns ``policy, kind, count, games, players_with, wins,
    win_rate`` with its 95% interval clustered by round (seats of one round are not
    independent: at most one wins), ``fair_share`` = 1/players and ``share_of_hands``
    (how often a starting hand holds that count)."""
    g = start_hands.groupby(_keys(start_hands, "policy", "kind", "count"), sort=False)
    out = g.agg(games=("games", "first"), players_with=("players_with", "sum"),
                wins=("wins", "sum"), players_with_sq=("players_with_sq", "sum"),
                wins_x_players=("wins_x_players", "sum")).reset_index()
    total = out.groupby(_keys(out, "policy", "kind"), sort=False)["players_with"].transform("sum")
    # W (1 if one of the round's seats with that count won) is 0 or 1: W^2 = W
    rate, lo, hi, _ = ratio_interval(out["wins"], out["wins"], out["wins_x_players"],
                                     out["players_with"], out["players_with_sq"], out["games"],
                                     0.0, 1.0)
    out = out.assign(win_rate=rate, win_rate_lo=lo, win_rate_hi=hi,
                     fair_share=1.0 / out["players"], share_of_hands=out["players_with"] / total)
    out = out.drop(columns=["players_with_sq", "wins_x_players"])
    return out.sort_values(_keys(out, "policy", "kind", "count"), kind="stable",
                           ignore_index=True)


def golden_start(card_power_table: pd.DataFrame) -> pd.DataFrame:
    """Starting-hand composition for the golden sheep, from the :func:`card_power`
    table: win rate of the players who start with it and of those who start without it
    (intervals clustered by round): ``policy, condition, players_with, wins, win_rate``
    (+ interval), ``fair_share``. Not paired: the paired effect of holding it is the
    golden row of :func:`card_value` (``golden_value``)."""
    cp = card_power_table[card_power_table["kind"] == "golden"]
    cond = np.where(cp["count"] > 0, "starts_with_golden", "starts_without_golden")
    cols = _keys(cp, "policy") + ["condition", "games", "players_with", "wins", "win_rate",
                                  "win_rate_lo", "win_rate_hi", "fair_share"]
    return cp.assign(condition=cond)[cols]


def card_use(use: pd.DataFrame) -> pd.DataFrame:
    """How each card kind is used, per policy (its seats pooled, the round as the unit):
    ``policy, kind, games, plays``, ``plays_per_round`` (the policy's seats together)
    with its interval, and per play: ``own_sheep_change`` (the player's flock value
    after the play minus before, the card itself included: playing a sheep costs 1, the
    golden sheep its worth), ``target_sheep_change`` (the target's, 0 without a
    target), ``knockouts`` (rivals left without cards: a Methane on a hand of two or
    fewer, a Horse played as the last card), ``self_out`` (the player's last card), each
    with its 95% interval clustered by round."""
    keys = _keys(use, "policy", "kind")
    sums = [c for c in use.columns if c not in keys and c not in ("slot", "games")]
    out = use.groupby(keys, sort=False).agg(games=("games", "first"),
                                            **{c: (c, "sum") for c in sums}).reset_index()
    mean, lo, hi, _ = mean_interval(out["plays"], out["plays_sq"], out["games"])
    res = out[keys + ["games", "plays"]].assign(plays_per_round=mean, plays_per_round_lo=lo,
                                                plays_per_round_hi=hi)
    for name in ("own_sheep_change", "target_sheep_change", "knockouts", "self_out"):
        m, lo, hi, _ = ratio_interval(out[name], out[f"{name}_sq"], out[f"{name}_x_plays"],
                                      out["plays"], out["plays_sq"], out["games"])
        res[name] = m
        res[f"{name}_lo"] = lo
        res[f"{name}_hi"] = hi
    return res


def card_value(cv: pd.DataFrame) -> pd.DataFrame:
    """Card value on common random numbers: for each card kind, the change in the
    holder's win rate when one card of that kind in its starting hand (after the
    draft) is replaced by a plain sheep, the rest of the deal and every random stream
    unchanged. ``value`` = ``win_rate_holding`` - ``win_rate_with_sheep_instead`` (in
    win-rate units: 0.05 = 5 percentage points; positive: the card is worth more than a
    sheep) with its paired 95% interval clustered by round, a two-sided normal
    ``pvalue`` and ``pvalue_holm``, Holm-adjusted over every row of ``cv`` (every kind,
    player count and field asked: one family, so "some card is worth more or less than a
    sheep" keeps its 5% error rate however many rows are tested); ``holders`` =
    seat-rounds starting with the kind, per ``field`` (the seats' policies) and
    ``policy`` (the holder's)."""
    keys = _keys(cv, "policy", "kind")
    sums = ["holders", "holders_sq", "wins_holding", "wins_replaced", "diff", "diff_sq",
            "diff_x_holders", "only_holding", "only_replaced"]
    out = cv.groupby(keys, sort=False).agg(games=("games", "first"),
                                           **{c: (c, "sum") for c in sums}).reset_index()
    from scipy.special import ndtr

    value, lo, hi, se = ratio_interval(out["diff"], out["diff_sq"], out["diff_x_holders"],
                                       out["holders"], out["holders_sq"], out["games"],
                                       -1.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(value) / se
        pvalue = np.where(se > 0, 2 * ndtr(-z), np.where(value == 0, 1.0, 0.0))
        res = out[keys + ["games", "holders"]].assign(
            value=value, value_lo=lo, value_hi=hi, pvalue=pvalue,
            pvalue_holm=holm_adjusted(pvalue) if len(pvalue) else pvalue,
            win_rate_holding=out["wins_holding"] / out["holders"],
            win_rate_with_sheep_instead=out["wins_replaced"] / out["holders"],
            fair_share=1.0 / out["players"])
    return res


def golden_value(cv: pd.DataFrame) -> pd.DataFrame:
    """The golden sheep's paired effect of holding it at the start: the golden rows of
    :func:`card_value` (the golden sheep replaced by a plain sheep, everything else
    unchanged; ``pvalue_holm`` adjusted over every row of :func:`card_value`)."""
    t = card_value(cv)
    return t[t["kind"] == "golden"].reset_index(drop=True)


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
    return dict(lazy_play_tables(frames))


def lazy_play_tables(frames: dict[str, pd.DataFrame], more: dict | None = None):
    """:func:`play_tables` as a :class:`~sheepsim.game.LazyTables`: each table built when
    first read (a metric reads one or two of the twelve); ``more``: further builders by
    name, after these."""
    tables = LazyTables({
        "by_seat": lambda: win_rate_by_seat(frames["seats"]),
        "by_policy": lambda: win_rate_by_policy(frames["slots"]),
        "first_player": lambda: first_player_test(frames["order"]),
        "round_ends": lambda: round_ends(frames["ends"]),
        "ties": lambda: ties(frames["ends"]),
        "flock_off_triggers": lambda: flock_off_triggers(frames["triggers"]),
        "margins": lambda: winning_margins(frames["margins"]),
        "knockouts": lambda: knockouts(frames["knockouts"]),
        "round_length": lambda: round_length(frames["turns"]),
        "card_power": lambda: card_power(frames["start_hands"]),
        "golden": lambda: golden_start(tables["card_power"]),
        "card_use": lambda: card_use(frames["card_use"]),
        **(more or {})})
    return tables
