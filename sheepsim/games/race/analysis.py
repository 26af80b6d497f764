"""Sheep Race results as DataFrames (counts in, tables out).

The table functions are pure: they take merged counts (:class:`RaceCounts`,
:class:`GameResults` or plain arrays) and return a DataFrame, so each number can be
checked exactly against a distribution built by hand. The jobs that simulate them
(``race_counts``, ``play_games``, ``estimate_*``: sequential stopping, convergence
traces) live in :mod:`sheepsim.games.race.jobs`.

Column conventions (stable; other tools parse them): lanes are numbered 1-6, places
are ``first``/``second``/``third``, probabilities are ``p_*`` with Wilson 95% bounds
``p_*_lo``/``p_*_hi``, expected values are in points per race with normal 95% bounds
``*_lo``/``*_hi`` and standard error ``*_se``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.games.race.layout import N_JOINT, N_LANES
from sheepsim.games.race.rules import RaceRules
from sheepsim.games.race.simulate import (
    GameResults,
    RaceCounts,
    policy_groups,
)
from sheepsim.stats import (
    Z95,
    binomial_two_sided_p,
    chi_square_uniform_p,
    hist_mean_sd,
    hist_quantiles,
    holm_adjusted,
    holm_reject,
    mean_interval,
    normal_interval,
    pooled_mean_interval,
    pooled_rate_interval,
    symmetry_note,
    tie_breaks_table,
    ties_note,
    wilson_interval,
)

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
    cols: dict[str, object] = {"lane": np.arange(1, 7), "card": _lane_cards(counts)}
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


def _lane_cards(counts: RaceCounts) -> list[str]:
    if counts.lanes is None:
        return ["(random deal)"] * N_LANES
    return [counts.rules.cards[i].name for i in counts.lanes]


# ------------------------------------------------------------------ payoffs per outcome
def stage_payoffs(rules: RaceRules, stage: str) -> np.ndarray:
    """Printed payoffs ``(places, 6)`` in points: ``(3, 6)`` Table 1 for the semifinal,
    ``(1, 6)`` Table 2 for the final."""
    if stage == "final":
        return np.asarray(rules.payoff_final, dtype=np.float64)[None, :]
    return np.asarray(rules.payoff_semifinal, dtype=np.float64)


def outcome_counts(counts: RaceCounts) -> np.ndarray:
    """Integer counts of one race's outcome over ``counts.games`` races.

    Semifinal: ``(216,)`` races where lanes a, b, c finished 1st, 2nd, 3rd, at index
    ``36a + 6b + c`` (lanes 0-5; the joint counts). Final: ``(6,)`` races won per lane.
    """
    n = counts.games
    out = counts.place_counts[:, 0] if counts.stage == "final" else counts.joint
    if out.sum() != n:
        raise SheepsimError(f"{n - out.sum()} of {n} races have no complete result")
    return np.asarray(out, dtype=np.int64)


def bet_sets(stage: str) -> list[tuple[int, ...]]:
    """Every set of bets a player can hold (lanes 0-5): the 20 sets of 3 lanes in a
    semifinal, the 15 pairs in the final."""
    return list(combinations(range(N_LANES), 2 if stage == "final" else 3))


def set_payoff_matrix(sets, rules: RaceRules, stage: str) -> np.ndarray:
    """Points a player holding each set of bets scores for each outcome.

    Returns ``(len(sets), 216)`` for the semifinal (outcome ``36a + 6b + c``; the bonus
    for two or three of the set placing is included) or ``(len(sets), 6)`` for the final
    (outcome = winning lane; only the winner pays, no bonus).
    """
    sets = [tuple(s) for s in sets]
    if stage == "final":
        pay = np.asarray(rules.payoff_final, dtype=np.float64)
        out = np.zeros((len(sets), N_LANES))
        for i, s in enumerate(sets):
            out[i, list(s)] = pay[list(s)]
        return out
    pay = np.asarray(rules.payoff_semifinal, dtype=np.float64)
    bonus = np.array([0.0, 0.0, rules.bonus_two, rules.bonus_three])
    idx = np.arange(N_JOINT)
    placed = np.stack([idx // N_LANES**2, (idx // N_LANES) % N_LANES, idx % N_LANES])  # (3, N_JOINT)
    out = np.zeros((len(sets), N_JOINT))
    for i, s in enumerate(sets):
        member = np.isin(placed, list(s))  # (3, 216)
        out[i] = (member * pay[np.arange(3)[:, None], placed]).sum(axis=0)
        out[i] += bonus[member.sum(axis=0)]
    return out


def payoff_moments(payoff: np.ndarray, p: np.ndarray, n: int):
    """Mean and standard error of per-race points.

    ``payoff`` ``(n_sets, n_outcomes)`` points per outcome, ``p`` ``(n_outcomes,)`` the
    empirical outcome distribution of ``n`` races. Because each race's points are a
    function of its outcome, the sample variance is exact from ``p``:
    ``n/(n-1) * (E[x^2] - E[x]^2)``. Returns ``(ev, se)``, each ``(n_sets,)``.
    """
    ev = payoff @ p
    ex2 = (payoff * payoff) @ p
    var = np.maximum(ex2 - ev * ev, 0.0) * (n / (n - 1) if n > 1 else np.nan)
    return ev, np.sqrt(var / n)


# ------------------------------------------------------------------ per-lane EV and fair payoffs
def fair_payoffs(p_place: np.ndarray, payoff: np.ndarray, by: str = "lane"):
    """Payoffs that make every lane's single-bet EV equal the table's mean EV.

    ``p_place`` ``(6, k)`` P(lane finishes in place k); ``payoff`` ``(k, 6)`` printed
    points. ``by="lane"`` scales each lane's printed column by ``mean_ev / ev_lane``
    (keeps the printed ratio between places); ``by="place"`` balances every place row
    on its own: ``fair[k, l] = mean_l(p[l, k] * payoff[k, l]) / p[l, k]``. Both give
    ``sum_k p[l, k] * fair[k, l] == mean_ev`` for every lane. A lane (or place) that
    never happened gets NaN (no finite payoff is fair).

    Returns ``(fair (k, 6), mean_ev)``.
    """
    p_place = np.asarray(p_place, dtype=np.float64)
    payoff = np.asarray(payoff, dtype=np.float64)
    contrib = p_place.T * payoff  # (k, 6) expected points from each place
    ev = contrib.sum(axis=0)
    mean_ev = float(ev.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        if by == "lane":
            fair = payoff * (mean_ev / ev)[None, :]
        elif by == "place":
            fair = contrib.mean(axis=1, keepdims=True) / p_place.T
        else:
            raise ValueError(f"by must be 'lane' or 'place', got {by!r}")
    fair[~np.isfinite(fair)] = np.nan
    return fair, mean_ev


def lane_bonus_share(joint, games: int, rules: RaceRules) -> np.ndarray:
    """Expected bonus points per semifinal that a bet on each lane earns ``(6,)``.

    The bonus belongs to a set of three bets, not to one lane, so it is attributed: in
    each outcome a set's bonus (+``bonus_two`` for exactly two placed, +``bonus_three``
    for three) is shared equally among its placed lanes, and a lane's share is averaged
    over the 10 sets of three containing it (every set equally likely). The shares of
    the three lanes of a set average, over the 20 sets, to the mean bonus of a set.
    ``joint`` ``(216,)`` counts of ordered top-three outcomes over ``games`` races.
    """
    p = np.asarray(joint, dtype=np.float64) / games
    idx = np.arange(N_JOINT)
    placed = np.stack([idx // N_LANES**2, (idx // N_LANES) % N_LANES, idx % N_LANES])
    bonus = np.array([0.0, 0.0, rules.bonus_two, rules.bonus_three])
    share = np.zeros(N_LANES)
    sets = bet_sets("semifinal")
    for s in sets:
        in_set = np.isin(placed, list(s)).sum(axis=0)  # (216,) lanes of the set placed
        per_lane = bonus[in_set] / np.maximum(in_set, 1)
        for lane in s:
            share[lane] += float((p * per_lane * (placed == lane).any(axis=0)).sum())
    return share / (len(sets) * 3 / N_LANES)  # each lane is in 10 of the 20 sets


def fair_payoffs_with_bonus(p_place: np.ndarray, payoff: np.ndarray, bonus_share: np.ndarray):
    """Like :func:`fair_payoffs` (``by="lane"``) with the bonus counted: each lane's
    printed column is scaled so that its single-bet EV plus its ``bonus_share``
    (:func:`lane_bonus_share`) equals the mean over lanes of that sum. Returns
    ``(fair (k, 6), mean value)``; NaN where a lane never placed."""
    p_place = np.asarray(p_place, dtype=np.float64)
    payoff = np.asarray(payoff, dtype=np.float64)
    ev = (p_place.T * payoff).sum(axis=0)
    value = ev + bonus_share
    target = float(value.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        fair = payoff * ((target - bonus_share) / ev)[None, :]
    fair[~np.isfinite(fair)] = np.nan
    return fair, target


def lane_ev_table(counts: RaceCounts) -> pd.DataFrame:
    """The odds table plus, per lane: ``ev_lo``/``ev_hi``/``ev_se`` (normal 95% interval
    of a single bet's points, bonus excluded), the printed ``payoff_first``/
    ``payoff_second``/``payoff_third`` and the fair ones ``fair_first``/... (each lane's
    printed payoffs times ``fair_multiplier`` = table mean EV / lane EV, so every lane's
    EV equals ``mean_ev``; this ignores the bonus), ``bonus_share`` (the lane's share of
    the set bonus, :func:`lane_bonus_share`; 0 in the final, which pays no bonus) and the
    fair payoffs with the bonus counted ``fair_bonus_first``/... (every lane's EV plus
    bonus share equal, :func:`fair_payoffs_with_bonus`). Final: second/third columns are
    NaN."""
    table = odds_table(counts)
    pay = stage_payoffs(counts.rules, counts.stage)  # (k, 6)
    k = pay.shape[0]
    p_place = counts.place_counts[:, :k] / counts.games  # (6, k)
    # A single bet's points take the value payoff[k, l] with probability p[l, k] (places
    # are exclusive), so its moments follow from the marginals.
    single = np.zeros((N_LANES, N_LANES * k))
    probs = np.zeros(N_LANES * k)
    for lane in range(N_LANES):
        for place in range(k):
            single[lane, lane * k + place] = pay[place, lane]
            probs[lane * k + place] = p_place[lane, place]
    ev, se = payoff_moments(single, probs, counts.games)
    lo, hi = normal_interval(ev, se)
    fair, mean_ev = fair_payoffs(p_place, pay, by="lane")
    pos = table.columns.get_loc("ev") + 1
    extra = {"ev_lo": lo, "ev_hi": hi, "ev_se": se}
    for i, name in enumerate(PLACES):
        extra[f"payoff_{name}"] = pay[i] if i < k else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        multiplier = mean_ev / ev
    extra["fair_multiplier"] = np.where(np.isfinite(multiplier), multiplier, np.nan)
    for i, name in enumerate(PLACES):
        extra[f"fair_{name}"] = fair[i] if i < k else np.nan
    share = np.zeros(N_LANES) if counts.stage == "final" else \
        lane_bonus_share(counts.joint, counts.games, counts.rules)
    fair_bonus, _ = fair_payoffs_with_bonus(p_place, pay, share)
    extra["bonus_share"] = share
    for i, name in enumerate(PLACES):
        extra[f"fair_bonus_{name}"] = fair_bonus[i] if i < k else np.nan
    extra["mean_ev"] = mean_ev
    for j, (col, val) in enumerate(extra.items()):
        table.insert(pos + j, col, val)
    return table


# ------------------------------------------------------------------ sets of bets
def _set_label(s) -> str:
    return ",".join(str(lane + 1) for lane in s)


def _check_taken(taken) -> tuple[int, ...]:
    """``taken``: lanes (1-6) already bet openly by other players."""
    taken = tuple(sorted({int(t) for t in (taken or ())}))
    if any(not 1 <= t <= N_LANES for t in taken):
        raise SheepsimError(f"taken lanes must be between 1 and {N_LANES}, got {list(taken)}")
    if len(taken) >= N_LANES:
        raise SheepsimError("all six lanes are taken: no open bet is left")
    return taken


def bet_sets_table(counts: RaceCounts, taken=()) -> pd.DataFrame:
    """All sets of bets ranked by EV (bonus included, from the joint distribution of the
    top three, not from independent marginals). Sets that cannot be placed given
    ``taken`` (all three lanes taken openly: a player opens on an untaken lane) rank
    after every set that can.

    Columns: ``rank`` (1 = best placeable set), ``lanes`` ("1,4,6"), ``cards``,
    ``ev``/``ev_lo``/``ev_hi``/``ev_se`` (points per race), ``gap_to_best``/``gap_to_best_lo``/
    ``gap_to_best_hi`` (EV minus the EV of the best set that can be placed, with a paired
    interval: both sets score on the same races),
    ``bonus_ev`` (expected bonus points), ``p_any_placed`` (at least one bet pays),
    ``p_two_placed``/``p_three_placed`` (exactly two / all three of the set in the top
    three; NaN in the final) each with Wilson ``_lo``/``_hi``, ``open_allowed`` (the set
    holds a lane nobody has bet openly, so it can be placed given ``taken``; always True
    in the final, which has no open bets), ``games``.
    """
    taken = _check_taken(taken)
    rules, stage, n = counts.rules, counts.stage, counts.games
    outcomes = outcome_counts(counts)
    p = outcomes / n
    sets = bet_sets(stage)
    payoff = set_payoff_matrix(sets, rules, stage)
    ev, se = payoff_moments(payoff, p, n)
    # the best set a player can still place: at least one lane open (the final has no
    # open bets); a set on three openly taken lanes cannot be the reference
    allowed = np.array([stage == "final" or any(lane + 1 not in taken for lane in s) for s in sets])
    best = int(np.flatnonzero(allowed)[np.argmax(ev[allowed])])
    gap, gap_se = payoff_moments(payoff - payoff[best], p, n)
    names = _lane_cards(counts)
    rows = []
    for i, s in enumerate(sets):
        row = {"lanes": _set_label(s), "cards": ",".join(names[lane] for lane in s),
               "ev": ev[i], "ev_se": se[i], "gap_to_best": gap[i], "gap_to_best_se": gap_se[i]}
        for name, mask in _set_hits(s, stage).items():
            if mask is None:  # not defined for this stage
                row[f"p_{name}"] = row[f"p_{name}_lo"] = row[f"p_{name}_hi"] = np.nan
                continue
            k = int(outcomes[mask].sum())
            lo, hi = wilson_interval(k, n)
            row[f"p_{name}"], row[f"p_{name}_lo"], row[f"p_{name}_hi"] = k / n, float(lo), float(hi)
        if stage == "final":
            row["bonus_ev"] = 0.0
        else:
            row["bonus_ev"] = (rules.bonus_two * row["p_two_placed"]
                               + rules.bonus_three * row["p_three_placed"])
        row["open_allowed"] = bool(allowed[i])
        rows.append(row)
    df = pd.DataFrame(rows)
    df["ev_lo"], df["ev_hi"] = normal_interval(df["ev"], df["ev_se"])
    df["gap_to_best_lo"], df["gap_to_best_hi"] = normal_interval(df["gap_to_best"], df["gap_to_best_se"])
    # sets that can be placed rank first; sets on three taken lanes come last
    df = df.sort_values(["open_allowed", "ev", "lanes"], ascending=[False, False, True],
                        kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    df["games"] = n
    order = ["rank", "lanes", "cards", "ev", "ev_lo", "ev_hi", "ev_se", "gap_to_best", "gap_to_best_lo",
             "gap_to_best_hi", "gap_to_best_se", "bonus_ev"]
    order += [c for c in df.columns if c.startswith("p_")] + ["open_allowed", "games"]
    return df[order]


def _set_hits(s, stage) -> dict[str, np.ndarray | None]:
    """Outcome masks: the set has at least one / exactly two / all three placed."""
    if stage == "final":
        win = np.isin(np.arange(N_LANES), list(s))
        return {"any_placed": win, "two_placed": None, "three_placed": None}
    idx = np.arange(N_JOINT)
    placed = np.stack([idx // N_LANES**2, (idx // N_LANES) % N_LANES, idx % N_LANES])
    m = np.isin(placed, list(s)).sum(axis=0)
    return {"any_placed": m >= 1, "two_placed": m == 2, "three_placed": m == 3}


def open_bet_table(counts: RaceCounts, taken=()) -> pd.DataFrame:
    """The best open bet given the lanes other players already took openly.

    A semifinal bettor places one open bet on an untaken lane, then two hidden bets on
    any other lanes (taken ones included); every player is paid on their own, so the
    value of opening on lane L is the EV of the best set of three that contains L.
    One row per lane: ``lane``, ``card``, ``taken``, ``ev_single`` (one bet on the lane,
    no bonus), ``best_set`` (lanes of the best set containing it), ``hidden_lanes``,
    ``ev_set``/``ev_set_lo``/``ev_set_hi`` (points per race with bonus), ``recommended``
    (True for the best untaken lane; ties on ``ev_set`` go to the higher ``ev_single``),
    ``games``.
    """
    if counts.stage == "final":
        raise SheepsimError("the final has no open bets (both bets are hidden)")
    taken = _check_taken(taken)
    sets = bet_sets_table(counts)  # ranked best first
    lanes = lane_ev_table(counts)
    rows = []
    for lane in range(1, N_LANES + 1):
        with_lane = sets[[str(lane) in s.split(",") for s in sets["lanes"]]].iloc[0]
        rows.append({"lane": lane, "card": lanes["card"].iloc[lane - 1],
                     "taken": lane in taken, "ev_single": lanes["ev"].iloc[lane - 1],
                     "best_set": with_lane["lanes"],
                     "hidden_lanes": ",".join(x for x in with_lane["lanes"].split(",") if x != str(lane)),
                     "ev_set": with_lane["ev"], "ev_set_lo": with_lane["ev_lo"],
                     "ev_set_hi": with_lane["ev_hi"]})
    df = pd.DataFrame(rows)
    # Several open lanes can lead to the same best set; then open on the one with the
    # higher single-bet EV, which keeps rivals from opening on it.
    best = df[~df["taken"]].sort_values(["ev_set", "ev_single"], ascending=False, kind="stable").index[0]
    df["recommended"] = df.index == best
    df["games"] = counts.games
    return df


# ------------------------------------------------------------------ balance over random deals
def race_tables(counts: RaceCounts, report: str, taken=()) -> dict[str, pd.DataFrame]:
    """The tables of single races (``race odds``/``race ev``, from the start or from a
    position): ``report`` ``"odds"`` the lanes' odds; ``"ev"`` the lanes' bet EVs, the
    bet sets and, in a semifinal, the open bet (``taken``: lanes already bet openly)."""
    if report == "odds":
        return {"lanes": odds_table(counts)}
    tables = {"lanes": lane_ev_table(counts), "sets": bet_sets_table(counts, taken)}
    if counts.stage == "semifinal":
        tables["open_bet"] = open_bet_table(counts, taken)
    return tables


def convergence_rows(df: pd.DataFrame, col: str, label_col: str, prefix: str) -> list[dict]:
    """A run's convergence quantities (:meth:`sheepsim.game.Job.convergence`): column
    ``col`` of ``df`` with its ``_lo``/``_hi`` interval, one per row, named
    ``"{col} {prefix}{label}"`` (``"p_first lane 3"``)."""
    return [{"quantity": f"{col} {prefix}{label}", "estimate": est, "lo": lo, "hi": hi}
            for label, est, lo, hi in zip(df[label_col], df[col], df[f"{col}_lo"],
                                          df[f"{col}_hi"], strict=True)]


def fair_payoff_table(p_place: np.ndarray, payoff: np.ndarray, stage: str, by: str = "lane",
                      games: int | None = None, bonus_share=None) -> pd.DataFrame:
    """Implied fair payoffs next to the printed table (Table 1 or Table 2), long format.

    ``p_place`` ``(6, k)`` P(lane finishes in place) over random deals, ``payoff``
    ``(k, 6)`` printed points. One row per (place, lane): ``stage``, ``place``, ``lane``,
    ``p`` (probability of that place), ``printed``, ``fair`` (see :func:`fair_payoffs`;
    it ignores the bonus), ``fair_lo``/``fair_hi`` (with ``games``, ``by="lane"``: the 95%
    interval from the lane's single-bet EV interval over ``games`` races, the mean EV held
    fixed; a lane whose EV interval reaches 0 has no upper bound),
    ``difference`` = printed - fair (positive: the table overpays that bet),
    ``ratio`` = printed / fair, ``lane_ev`` (the lane's EV with the printed table),
    ``mean_ev``, ``bonus_share`` (``bonus_share`` ``(6,)``, the lane's share of the set
    bonus, :func:`lane_bonus_share`; 0 when not given, as in the final) and
    ``fair_with_bonus`` (:func:`fair_payoffs_with_bonus`).
    """
    p_place = np.asarray(p_place, dtype=np.float64)
    payoff = np.asarray(payoff, dtype=np.float64)
    fair, mean_ev = fair_payoffs(p_place, payoff, by=by)
    share = np.zeros(N_LANES) if bonus_share is None else np.asarray(bonus_share, dtype=np.float64)
    fair_bonus, _ = fair_payoffs_with_bonus(p_place, payoff, share)
    lane_ev = (p_place.T * payoff).sum(axis=0)
    fair_lo = fair_hi = np.full_like(fair, np.nan)
    if games and by == "lane":
        second = (p_place.T * payoff**2).sum(axis=0)  # E[points^2] of one bet per lane
        half = Z95 * np.sqrt(np.maximum(second - lane_ev**2, 0.0) / games)
        with np.errstate(divide="ignore", invalid="ignore"):
            fair_lo = payoff * mean_ev / (lane_ev + half)[None, :]
            fair_hi = np.where(lane_ev - half > 0, payoff * mean_ev / (lane_ev - half)[None, :],
                               np.inf)
    rows = []
    for k in range(payoff.shape[0]):
        for lane in range(N_LANES):
            f = fair[k, lane]
            rows.append({"stage": stage, "place": PLACES[k], "lane": lane + 1,
                         "p": p_place[lane, k], "printed": payoff[k, lane], "fair": f,
                         "fair_lo": fair_lo[k, lane], "fair_hi": fair_hi[k, lane],
                         "difference": payoff[k, lane] - f,
                         "ratio": payoff[k, lane] / f if f > 0 else np.nan,
                         "lane_ev": lane_ev[lane], "mean_ev": mean_ev,
                         "bonus_share": share[lane], "fair_with_bonus": fair_bonus[k, lane]})
    return pd.DataFrame(rows)


def final_lane_table(lane_wins, games: int, rules: RaceRules) -> pd.DataFrame:
    """P(win the final) per lane as seated in real games (lane 6 = winner of semifinal 1,
    ...). ``lane_wins`` ``(6,)`` counts over ``games`` games. Columns: ``lane``,
    ``p_first``/``_lo``/``_hi``, ``payoff_first`` (Table 2), ``ev``, ``games``."""
    lane_wins = np.asarray(lane_wins)
    lo, hi = wilson_interval(lane_wins, games)
    p = lane_wins / games
    return pd.DataFrame({"lane": np.arange(1, 7), "p_first": p, "p_first_lo": lo, "p_first_hi": hi,
                         "payoff_first": rules.payoff_final, "ev": p * rules.payoff_final,
                         "games": games})


#: A card is flagged over/under-powered only if it also differs from the fair share by
#: at least this much (relative: 0.10 = wins 10% more or less often than an average
#: card). With enough games every tiny difference is "significant"; a designer cares
#: about differences big enough to change a game.
MIN_CARD_EFFECT = 0.10


def card_strength_table(card_place, games: int, rules: RaceRules, alpha: float = 0.05,
                        final_wins=None, n_games: int | None = None,
                        min_effect: float = MIN_CARD_EFFECT) -> pd.DataFrame:
    """Card strength over random deals, with over/under-powered cards flagged.

    ``card_place`` ``(n_cards, 6, 3)`` counts of card-in-lane placings over ``games``
    semifinals with random deals. A card runs in 6/n_cards of races, so the number of
    races it wins is Binomial(games, q) with q = (6/n_cards) * P(win | it runs); the
    intervals are Wilson intervals for q scaled to P(win | it runs). If every card were
    equally strong, q would be exactly 1/n_cards for winning and 3/n_cards for the top
    three (one winner, three placings per race). Each card is tested against that with
    an exact binomial test and flagged (``over``/``under``) where Holm's correction over
    the cards rejects at family-wise ``alpha`` *and* the point estimate of the effect,
    ``effect_<x>`` = observed / fair share - 1, is at least ``min_effect`` in size
    (:data:`MIN_CARD_EFFECT`). Each outcome (win, top 3, final win) is its own family of
    ``n_cards`` tests: ``pvalue_<x>_raw`` is the card's own test, ``pvalue_<x>_holm``
    the Holm-adjusted value within the outcome's family (rejected where it is at most
    ``alpha``).

    ``final_wins`` ``(n_cards,)`` optional counts of final wins over ``n_games`` whole
    games (each game deals 12 cards), tested the same way.

    Columns: ``card``, ``p_win``/``_lo``/``_hi``, ``p_top3``/``_lo``/``_hi``,
    ``effect_win``, ``pvalue_win_raw``, ``pvalue_win_holm``, ``flag_win``, and the same
    for ``top3`` (and ``final_win`` with ``final_wins``), ``games``.
    """
    card_place = np.asarray(card_place)
    n_cards = card_place.shape[0]
    share = N_LANES / n_cards  # share of races a given card runs in
    df = pd.DataFrame({"card": rules.card_names})
    tests = {"win": (card_place[:, :, 0].sum(axis=1), games, share, 1.0 / n_cards),
             "top3": (card_place.sum(axis=(1, 2)), games, share, 3.0 / n_cards)}
    if final_wins is not None:
        per_game = min(12, n_cards) / n_cards  # a whole game deals 12 cards
        tests["final_win"] = (np.asarray(final_wins), n_games, per_game, 1.0 / n_cards)
    for name, (k, n, runs_share, q0) in tests.items():
        lo, hi = wilson_interval(k, n)
        df[f"p_{name}"] = k / n / runs_share
        df[f"p_{name}_lo"] = lo / runs_share
        df[f"p_{name}_hi"] = np.minimum(hi / runs_share, 1.0)
        pvals = binomial_two_sided_p(k, np.full(n_cards, n), q0)
        effect = k / n / q0 - 1.0
        reject = holm_reject(pvals, alpha) & (np.abs(effect) >= min_effect)
        df[f"effect_{name}"] = effect
        df[f"pvalue_{name}_raw"] = pvals
        df[f"pvalue_{name}_holm"] = holm_adjusted(pvals)
        df[f"flag_{name}"] = np.where(reject, np.where(effect > 0, "over", "under"), "")
    df["games"] = games
    return df


# ------------------------------------------------------------------ whole games
def score_distribution_table(res: GameResults) -> pd.DataFrame:
    """Per seat, from the score histogram (scores of 200+ are counted as 200):
    ``seat``, ``mean_score``, ``sd_score``, ``p10``/``p25``/``median``/``p75``/``p90``,
    ``min_score``, ``max_score``, ``games``."""
    rows = []
    for seat in range(res.players):
        hist = res.score_hist[seat]
        mean, sd = hist_mean_sd(hist)
        q = hist_quantiles(hist, [0.10, 0.25, 0.5, 0.75, 0.90])
        present = np.nonzero(hist)[0]
        rows.append({"seat": seat + 1, "mean_score": mean, "sd_score": sd, "p10": q[0], "p25": q[1],
                     "median": q[2], "p75": q[3], "p90": q[4], "min_score": int(present.min()),
                     "max_score": int(present.max()), "games": res.games})
    return pd.DataFrame(rows)


def first_player_table(res: GameResults, alpha: float = 0.05) -> pd.DataFrame:
    """Win rate by position in semifinal 1's turn order (1 = the first player, drawn at
    random), tested against the fair share 1/n: ``turn_order``, ``wins``, ``p_win``/
    ``_lo``/``_hi``, ``fair_share``, ``pvalue_raw`` (exact two-sided binomial test; row
    1 is the first-seat advantage test), ``pvalue_holm`` (Holm-adjusted over the ``players``
    positions, one family), ``significant`` (``pvalue_holm`` at most ``alpha``),
    ``pvalue_all_orders`` (chi-square test that every position wins
    equally often), ``wins_on_tie`` (of ``wins``, those from a tie for first, which the
    token stack decides: the first player's token starts on top), ``tie_rate`` (share of
    games with a tie for first), ``note`` (non-empty when ties are common enough to drive
    the differences, see :func:`sheepsim.stats.ties_note`), ``games``."""
    n, players = res.games, res.players
    wins = res.wins_by_order
    lo, hi = wilson_interval(wins, n)
    pvals = binomial_two_sided_p(wins, np.full(players, n), 1.0 / players)
    tie_rate = float(res.tied_first[2:].sum() / n)
    identical = len(set(zip(res.policies.bet_names, res.policies.pace_names, strict=True))) == 1
    df = pd.DataFrame({
        "turn_order": np.arange(1, players + 1), "wins": wins, "p_win": wins / n,
        "p_win_lo": lo, "p_win_hi": hi, "fair_share": 1.0 / players, "pvalue_raw": pvals,
        "pvalue_holm": holm_adjusted(pvals), "significant": holm_reject(pvals, alpha),
        "pvalue_all_orders": chi_square_uniform_p(wins),
        "wins_on_tie": res.tie_wins_by_order, "tie_rate": tie_rate,
        "note": ties_note(tie_rate, "the token stack", identical), "games": n})
    df.attrs["must_show"] = ["pvalue_raw", "pvalue_holm"]
    return df


def tie_table(res: GameResults) -> pd.DataFrame:
    """How the winner was decided: ``score`` (one seat had the top score) or
    ``token_stack`` (a tie for first, broken by the token stack; rules README: "Score ties
    (for the leader and for the game) go to the token on top of the stack"). Columns of
    :func:`sheepsim.stats.tie_breaks_table`."""
    tied = res.tied_first
    return tie_breaks_table(("score", "token_stack"), [tied[1], tied[2:].sum()],
                            [False, True], res.games)


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
    that played it, with the game as the unit: seats in one game share the dice, so the
    intervals come from the per-game totals of those seats
    (:func:`sheepsim.stats.pooled_rate_interval`, :func:`~sheepsim.stats.pooled_mean_interval`).
    ``win_rate`` is per seat-game (fair share ``1 / players``, wins decided by the token
    stack included); when every seat plays the pair it is exactly ``1 / players``, its
    interval collapses to that value and ``win_rate_note`` says why."""
    groups, pairs = policy_groups(res.policies)
    rows = []
    for k, (bet, pace) in enumerate(pairs):
        idx = np.flatnonzero(groups == k)
        wins = int(res.wins[idx].sum())
        rate, lo, hi = pooled_rate_interval(wins, res.policy_win_sq[k], res.games, len(idx),
                                            players=res.players)
        mean, mlo, mhi, _ = pooled_mean_interval(res.score_sum[idx].sum(), res.policy_score_sq[k],
                                                 res.games, len(idx))
        rows.append({"bet_policy": bet, "pace_policy": pace, "seats": len(idx),
                     "wins": wins, "win_rate": float(rate), "win_rate_lo": float(lo),
                     "win_rate_hi": float(hi), "mean_score": float(mean),
                     "mean_score_lo": float(mlo), "mean_score_hi": float(mhi),
                     "win_rate_note": symmetry_note(len(idx), res.players, "policy pair"),
                     "games": res.games, "seed": res.seed})
    return pd.DataFrame(rows)


def turns_table(res: GameResults) -> pd.DataFrame:
    """Mean turns per race (semifinal 1, semifinal 2, final)."""
    return pd.DataFrame({"race": ["semifinal 1", "semifinal 2", "final"],
                         "mean_turns": res.turns / res.games, "games": res.games})


def final_lane_wins(race_cards: np.ndarray) -> np.ndarray:
    """Wins per final lane (0-5) from whole-game rows ``race_cards`` ``(count, 3, 3)``
    (card finishing 1st-3rd in semifinal 1, semifinal 2, final). The final seats the k-th
    (0-based) of semifinal r in lane index ``5 - 2k - r`` (lane 6 = winner of semifinal 1)."""
    winner_card = race_cards[:, 2, 0]
    lane = np.full(len(race_cards), -1, dtype=np.int64)
    for r in range(2):
        for k in range(3):
            lane[race_cards[:, r, k] == winner_card] = 5 - 2 * k - r
    if (lane < 0).any():
        raise SheepsimError("a final winner was not among the semifinal top three")
    return np.bincount(lane, minlength=N_LANES)


def balance_tables(semi: RaceCounts, lane_wins, final_card_wins, games: int) -> dict[str, pd.DataFrame]:
    """Balance tables: ``fair_payoffs`` (Table 1 from semifinals over random deals, Table 2
    from finals as seated in whole games), ``cards`` (card strength), ``semifinal_lanes``
    (lane odds/EV/fair payoffs over random deals), ``final_lanes``."""
    rules = semi.rules
    p_semi = semi.place_counts / semi.games
    p_final = (np.asarray(lane_wins) / games)[:, None]
    share = lane_bonus_share(semi.joint, semi.games, rules)
    fair = pd.concat([fair_payoff_table(p_semi, stage_payoffs(rules, "semifinal"), "semifinal",
                                        games=semi.games, bonus_share=share),
                      fair_payoff_table(p_final, stage_payoffs(rules, "final"), "final",
                                        games=games)],
                     ignore_index=True)
    cards = card_strength_table(semi.card_place, semi.games, rules, final_wins=final_card_wins,
                                n_games=games)
    return {"fair_payoffs": fair, "cards": cards, "semifinal_lanes": lane_ev_table(semi),
            "final_lanes": final_lane_table(lane_wins, games, rules)}


def game_tables(res: GameResults) -> dict[str, pd.DataFrame]:
    """Every whole-game table: seats, policies, turns, score distribution, turn order,
    tie-breaks."""
    return {"seats": seat_table(res), "policies": policy_table(res), "turns": turns_table(res),
            "scores": score_distribution_table(res), "turn_order": first_player_table(res),
            "tie_breaks": tie_table(res)}
