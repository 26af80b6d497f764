"""Exact checks of the game-as-unit pooled intervals, tie tables and fair payoffs with
the bonus, from data built by hand (no simulation)."""

import numpy as np
import pandas as pd
import pytest
from analysis_helpers import counts_from_outcomes, random_outcomes
from scipy import stats as st

from sheepsim.games.race import analysis as an
from sheepsim.games.race.simulate import GameResults, resolve_policies, tie_counts
from sheepsim.stats import (
    TIE_NOTE_RATE,
    Z95,
    group_sums,
    pooled_mean_interval,
    pooled_rate_interval,
    tie_breaks_table,
    ties_note,
    wilson_interval,
)


def test_group_sums_are_sums_of_per_game_totals():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 30, size=(50, 4))
    groups = np.array([0, 1, 0, 1])
    total, total_sq = group_sums(x, groups, 2)
    t = np.stack([x[:, [0, 2]].sum(1), x[:, [1, 3]].sum(1)], axis=1)
    assert total.tolist() == t.sum(0).tolist() and total_sq.tolist() == (t * t).sum(0).tolist()
    # sums of chunks add up to the sums of the whole (counts merge by addition)
    a, b = group_sums(x[:20], groups, 2), group_sums(x[20:], groups, 2)
    assert (a[0] + b[0]).tolist() == total.tolist() and (a[1] + b[1]).tolist() == total_sq.tolist()


def test_pooled_mean_interval_uses_the_game_as_unit():
    rng = np.random.default_rng(1)
    common = rng.normal(0, 10, size=(400, 1))  # a shared per-game effect: seats correlate
    x = np.rint(30 + common + rng.normal(0, 3, size=(400, 3))).astype(np.int64)
    t = x.sum(1)
    mean, lo, hi, se = pooled_mean_interval(t.sum(), (t * t).sum(), 400, 3)
    assert mean == pytest.approx(x.mean())
    assert se == pytest.approx(t.std(ddof=1) / np.sqrt(400) / 3)
    assert (lo, hi) == pytest.approx((mean - Z95 * se, mean + Z95 * se))
    # treating the 1200 seat-games as independent understates the error here
    naive = x.std(ddof=1) / np.sqrt(x.size)
    assert se > 1.5 * naive


def test_pooled_rate_interval_one_winner_per_game_is_wilson_over_games():
    # two of four seats share a policy; the group wins 130 of 400 games (never twice)
    rate, lo, hi = pooled_rate_interval(130, 130, 400, 2)
    wlo, whi = wilson_interval(130, 400)
    assert rate == pytest.approx(130 / 800)
    assert (lo, hi) == pytest.approx((wlo / 2, whi / 2))
    ci = st.binomtest(130, 400).proportion_ci(method="wilson")
    assert lo == pytest.approx(ci.low / 2)
    # every seat plays it: the rate is exactly 1/4; told so (players=), the interval is too
    rate, lo, hi = pooled_rate_interval(400, 400, 400, 4)
    assert rate == 0.25 and hi == pytest.approx(0.25) and lo < 0.25
    assert pooled_rate_interval(400, 400, 400, 4, players=4) == (0.25, 0.25, 0.25)
    # all four seats but it won every game: still a Wilson interval below 1/2 when only
    # two of four seats play it
    assert pooled_rate_interval(400, 400, 400, 2, players=4)[1] < 0.5


def test_pooled_rate_interval_several_successes_per_game_is_normal_cluster():
    t = np.array([0, 1, 2, 2, 0, 1, 2, 0] * 10)  # successes of 2 seats per game
    rate, lo, hi = pooled_rate_interval(t.sum(), (t * t).sum(), t.size, 2)
    se = t.std(ddof=1) / np.sqrt(t.size) / 2
    assert rate == pytest.approx(t.mean() / 2)
    assert (lo, hi) == pytest.approx((rate - Z95 * se, rate + Z95 * se))


def test_tie_breaks_table_and_note():
    table = tie_breaks_table(("points", "sheep_left", "turn_order"), [80, 15, 5],
                             [False, True, True], 100)
    assert table["decided_by"].tolist() == ["points", "sheep_left", "turn_order"]
    assert table["share"].tolist() == pytest.approx([0.8, 0.15, 0.05])
    assert table["tie_rate"].tolist() == pytest.approx([0.2] * 3)
    lo, hi = wilson_interval(20, 100)
    assert (table.loc[0, "tie_rate_lo"], table.loc[0, "tie_rate_hi"]) == pytest.approx((float(lo), float(hi)))
    assert ties_note(TIE_NOTE_RATE / 2, "x", True) == ""
    assert "50.0% of games tie" in ties_note(0.5, "the token stack", False)
    assert "same policies" in ties_note(0.5, "the token stack", True)
    assert "same policies" not in ties_note(0.5, "the token stack", False)


def test_race_tie_counts():
    scores = np.array([[10, 12, 12, 3], [20, 5, 5, 5], [7, 7, 7, 7], [1, 2, 3, 4]])
    order = np.array([2, 0, 3, 1])  # the winner's turn order in each game
    tied, tie_wins = tie_counts(scores, order)
    assert tied.tolist() == [0, 2, 1, 0, 1]  # by number of seats sharing the top score
    assert tie_wins.tolist() == [0, 0, 1, 1]  # games 1 and 3 had a tie


def _game_results(rules, scores, winner, first, bets, paces):
    """GameResults from per-game rows, with the same reductions as game_chunk_fn."""
    players = scores.shape[1]
    pol = resolve_policies(paces, bets, players)
    from sheepsim.games.race.simulate import policy_groups

    groups, pairs = policy_groups(pol)
    order = (winner - first) % players
    won = (winner[:, None] == np.arange(players)).astype(np.int64)
    hist = np.stack([np.bincount(scores[:, s], minlength=201) for s in range(players)])
    tied, tie_wins = tie_counts(scores, order)
    return GameResults(rules, pol, 0, len(winner), won.sum(0), scores.sum(0), (scores ** 2).sum(0),
                       np.bincount(order, minlength=players), hist, np.zeros(3, np.int64),
                       np.zeros(len(rules.cards), np.int64), tied, tie_wins,
                       group_sums(won, groups, len(pairs))[1], group_sums(scores, groups, len(pairs))[1])


def test_race_policy_turn_order_and_tie_tables(rules):
    rng = np.random.default_rng(4)
    n = 600
    scores = rng.integers(0, 6, size=(n, 3)) * 5  # coarse scores: many ties
    first = rng.integers(0, 3, n)
    winner = scores.argmax(1)
    res = _game_results(rules, scores, winner, first, ["ev", "random", "ev"], ["greedy"])
    pol = an.policy_table(res).set_index("bet_policy")
    ev_total = scores[:, [0, 2]].sum(1)
    mean, lo, hi, _ = pooled_mean_interval(ev_total.sum(), (ev_total ** 2).sum(), n, 2)
    assert pol.loc["ev", "mean_score"] == pytest.approx(scores[:, [0, 2]].mean())
    assert (pol.loc["ev", "mean_score_lo"], pol.loc["ev", "mean_score_hi"]) == pytest.approx((lo, hi))
    ev_wins = int(np.isin(winner, [0, 2]).sum())
    wlo, whi = wilson_interval(ev_wins, n)
    assert pol.loc["ev", "win_rate"] == pytest.approx(ev_wins / (2 * n))
    assert (pol.loc["ev", "win_rate_lo"], pol.loc["ev", "win_rate_hi"]) == pytest.approx((wlo / 2, whi / 2))

    tables = an.game_tables(res)
    ties = tables["tie_breaks"]
    n_tied = int(((scores == scores.max(1, keepdims=True)).sum(1) > 1).sum())
    assert ties["decided_by"].tolist() == ["score", "token_stack"]
    assert ties["games"].tolist() == [n - n_tied, n_tied]
    order = tables["turn_order"]
    assert order["tie_rate"].iloc[0] == pytest.approx(n_tied / n)
    on_tie = (scores == scores.max(1, keepdims=True)).sum(1) > 1
    expect = np.bincount(((winner - first) % 3)[on_tie], minlength=3)
    assert order["wins_on_tie"].tolist() == expect.tolist()
    assert order["note"].iloc[0].startswith(f"{n_tied / n:.1%}")  # different policies:
    assert "same policies" not in order["note"].iloc[0]  # no claim about symmetry

    same = _game_results(rules, scores, winner, first, ["ev"], ["greedy"])
    assert "same policies" in an.first_player_table(same)["note"].iloc[0]
    one = an.policy_table(same).iloc[0]
    # every seat plays the pair: 1/3 exactly, the interval collapsed to it, and why
    assert one["win_rate"] == one["win_rate_lo"] == one["win_rate_hi"] == 1 / 3
    assert one["win_rate_note"].startswith("exact by symmetry: every seat plays this policy pair")
    assert (an.policy_table(res)["win_rate_note"] == "").all()  # no seat-wide pair there


def test_lane_bonus_share_by_hand(rules):
    # every race ends 1-2-3 (lanes 0, 1, 2). Lane 0 is in 10 sets: {0,1,2} (3 placed:
    # bonus_three shared by 3), 6 sets with one of lanes 1-2 (bonus_two shared by 2) and 3
    # sets with no other placed lane (no bonus).
    counts = counts_from_outcomes(rules, {(0, 1, 2): 7})
    share = an.lane_bonus_share(counts.joint, counts.games, rules)
    b2, b3 = rules.bonus_two, rules.bonus_three
    assert share[0] == pytest.approx((b3 / 3 + 6 * b2 / 2) / 10)
    assert share[:3] == pytest.approx([share[0]] * 3) and share[3:].tolist() == [0, 0, 0]
    # the shares of a set's lanes, averaged over the 20 sets, give the mean set bonus
    counts = counts_from_outcomes(rules, random_outcomes(6, races=800))
    share = an.lane_bonus_share(counts.joint, counts.games, rules)
    sets = an.bet_sets_table(counts)
    assert share.sum() * 10 / 20 == pytest.approx(sets["bonus_ev"].mean())


def test_fair_payoffs_with_bonus_equalise_ev_plus_share(rules):
    counts = counts_from_outcomes(rules, random_outcomes(7, races=3000))
    lanes = an.lane_ev_table(counts)
    value = (lanes["p_first"] * lanes["fair_bonus_first"] + lanes["p_second"] * lanes["fair_bonus_second"]
             + lanes["p_third"] * lanes["fair_bonus_third"] + lanes["bonus_share"])
    ok = lanes["ev"] > 0
    target = (lanes["ev"] + lanes["bonus_share"]).mean()
    assert value[ok].tolist() == pytest.approx([target] * ok.sum())
    p = counts.place_counts / counts.games
    table = an.fair_payoff_table(p, rules.payoff_semifinal, "semifinal",
                                 bonus_share=lanes["bonus_share"].to_numpy())
    first = table[table["place"] == "first"].reset_index()
    assert first["fair_with_bonus"].tolist() == pytest.approx(lanes["fair_bonus_first"].tolist(), nan_ok=True)


def test_taken_sets_that_cannot_be_placed_do_not_rank_first(rules):
    counts = counts_from_outcomes(rules, random_outcomes(2))
    best = an.bet_sets_table(counts).iloc[0]
    taken = tuple(int(x) for x in best["lanes"].split(","))
    sets = an.bet_sets_table(counts, taken)
    top = sets.iloc[0]
    assert bool(top["open_allowed"]) and top["lanes"] != best["lanes"]
    assert top["gap_to_best"] == 0 and top["rank"] == 1
    blocked = sets[~sets["open_allowed"]]
    assert blocked["lanes"].tolist() == [best["lanes"]] and blocked["rank"].iloc[0] == 20
    assert blocked["gap_to_best"].iloc[0] > 0  # it beats every set that can be placed
    assert isinstance(sets, pd.DataFrame)


def test_wilson_bounds_at_the_edges_are_exact():
    # an interval around a rate of exactly 1/4 (every seat plays the policy) must reach it
    lo, hi = wilson_interval(np.array([0, 37, 40]), np.array([40, 40, 40]))
    assert lo[0] == 0.0 and hi[2] == 1.0 and 0 < lo[1] < hi[1] < 1
    assert pooled_rate_interval(40, 40, 40, 4)[2] == 0.25
