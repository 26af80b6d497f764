"""Exact checks of the bet-EV tables against distributions built by hand."""

from itertools import combinations

import numpy as np
import pytest
from analysis_helpers import counts_from_outcomes, random_outcomes

from sheepsim.errors import SheepsimError
from sheepsim.games.race import analysis as an


def race_points(rules, bets, outcome):
    """Points of one semifinal for a player holding ``bets`` (lanes 0-5), by the rulebook."""
    pay = rules.payoff_semifinal
    hits = [place for place, lane in enumerate(outcome) if lane in bets]
    bonus = {2: rules.bonus_two, 3: rules.bonus_three}.get(len(hits), 0)
    return sum(pay[place, outcome[place]] for place in hits) + bonus


def per_race(rules, bets, outcomes):
    return np.array([race_points(rules, bets, o) for o, k in outcomes.items() for _ in range(k)], float)


def test_set_ev_from_known_distribution(rules):
    # (lanes 1,2,3 finish 1-2-3) x3, (6,5,4) x5, (3,1,6) x2 -- worked by hand with Table 1:
    # set {1,2,3}: 12 + 8 + 4 + bonus 3 = 27; 0; 9 + 9 + bonus 1 = 19 -> EV 119/10
    outcomes = {(0, 1, 2): 3, (5, 4, 3): 5, (2, 0, 5): 2}
    sets = an.bet_sets_table(counts_from_outcomes(rules, outcomes))
    row = sets[sets["lanes"] == "1,2,3"].iloc[0]
    assert row["ev"] == pytest.approx(11.9)
    x = per_race(rules, {0, 1, 2}, outcomes)
    assert row["ev_se"] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size))
    assert row["p_three_placed"] == pytest.approx(0.3)
    assert row["p_two_placed"] == pytest.approx(0.2)
    assert row["p_any_placed"] == pytest.approx(0.5)
    assert row["bonus_ev"] == pytest.approx(0.3 * 3 + 0.2 * 1)


def test_lane_ev_from_known_distribution(rules):
    outcomes = {(0, 1, 2): 3, (5, 4, 3): 5, (2, 0, 5): 2}
    lanes = an.lane_ev_table(counts_from_outcomes(rules, outcomes))
    # lane 1: 1st x3 (12), 2nd x2 (9) -> (36 + 18) / 10
    assert lanes.loc[0, "ev"] == pytest.approx(5.4)
    x = np.array([12] * 3 + [9] * 2 + [0] * 5, float)
    assert lanes.loc[0, "ev_se"] == pytest.approx(x.std(ddof=1) / np.sqrt(10))
    assert lanes.loc[0, "p_first"] == pytest.approx(0.3)
    assert lanes["ev"].tolist() == pytest.approx(
        an.odds_table(counts_from_outcomes(rules, outcomes))["ev"].tolist()
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_best_set_equals_brute_force(rules, seed):
    outcomes = random_outcomes(seed)
    counts = counts_from_outcomes(rules, outcomes)
    sets = an.bet_sets_table(counts)
    assert len(sets) == 20
    brute = {
        ",".join(str(x + 1) for x in s): per_race(rules, set(s), outcomes) for s in combinations(range(6), 3)
    }
    for _, row in sets.iterrows():
        x = brute[row["lanes"]]
        assert row["ev"] == pytest.approx(x.mean())
        assert row["ev_se"] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size))
    best = max(brute, key=lambda k: brute[k].mean())
    assert sets.iloc[0]["lanes"] == best
    assert list(sets["rank"]) == list(range(1, 21))
    # the gap interval is paired: both sets score on the same races
    second = sets.iloc[1]
    d = brute[second["lanes"]] - brute[best]
    assert second["gap_to_best"] == pytest.approx(d.mean())
    assert second["gap_to_best_se"] == pytest.approx(d.std(ddof=1) / np.sqrt(d.size))


@pytest.mark.parametrize("taken", [(), (6,), (4, 5, 6), (1, 2, 3, 4, 5)])
def test_open_bet_equals_brute_force(rules, taken):
    outcomes = random_outcomes(7)
    counts = counts_from_outcomes(rules, outcomes)
    table = an.open_bet_table(counts, taken)
    # brute force: an open lane L (untaken) plus any two hidden lanes other than L
    best_value, best_lanes = -1.0, None
    for lane in range(6):
        if lane + 1 in taken:
            continue
        for hidden in combinations([x for x in range(6) if x != lane], 2):
            v = per_race(rules, {lane, *hidden}, outcomes).mean()
            if v > best_value + 1e-12:
                best_value, best_lanes = v, {lane, *hidden}
    rec = table[table["recommended"]].iloc[0]
    assert rec["ev_set"] == pytest.approx(best_value)
    assert not rec["taken"]
    rec_lanes = {int(x) - 1 for x in rec["best_set"].split(",")}
    assert per_race(rules, rec_lanes, outcomes).mean() == pytest.approx(best_value)
    assert rec["lane"] - 1 in rec_lanes and best_lanes is not None
    sets = an.bet_sets_table(counts, taken)
    allowed = sets[sets["open_allowed"]]
    assert allowed.iloc[0]["ev"] == pytest.approx(best_value)


def test_final_pairs(rules):
    outcomes = {0: 10, 3: 30, 5: 60}
    counts = counts_from_outcomes(rules, outcomes, stage="final")
    sets = an.bet_sets_table(counts)
    assert len(sets) == 15
    pay = rules.payoff_final
    for _, row in sets.iterrows():
        lanes = [int(x) - 1 for x in row["lanes"].split(",")]
        x = np.array([pay[w] if w in lanes else 0 for w, k in outcomes.items() for _ in range(k)], float)
        assert row["ev"] == pytest.approx(x.mean())
        assert row["ev_se"] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size))
    assert sets.iloc[0]["lanes"] == "4,6"
    assert np.isnan(sets["p_two_placed"]).all()
    with pytest.raises(SheepsimError):
        an.open_bet_table(counts)


@pytest.mark.parametrize("by", ["lane", "place"])
def test_fair_payoffs_give_equal_evs(rules, by):
    counts = counts_from_outcomes(rules, random_outcomes(11, races=2000))
    p = counts.place_counts / counts.games
    fair, mean_ev = an.fair_payoffs(p, rules.payoff_semifinal, by=by)
    printed_ev = (p.T * rules.payoff_semifinal).sum(axis=0)
    assert mean_ev == pytest.approx(printed_ev.mean())
    ok = ~np.isnan(fair).any(axis=0)
    assert (p.T * fair).sum(axis=0)[ok] == pytest.approx(np.full(ok.sum(), mean_ev))
    if by == "lane":  # keeps each lane's printed ratio between places
        ratio = fair / rules.payoff_semifinal
        assert np.allclose(ratio[:, ok], ratio[0, ok])


def test_fair_payoff_table_final_and_never_winning_lane(rules):
    p = np.array([[0.0], [0.1], [0.1], [0.2], [0.2], [0.4]])
    table = an.fair_payoff_table(p, rules.payoff_final[None, :], "final")
    assert np.isnan(table.loc[0, "fair"])  # a lane that never wins has no fair payoff
    mean_ev = (p[:, 0] * rules.payoff_final).mean()
    assert (table["p"] * table["fair"]).iloc[1:].tolist() == pytest.approx([mean_ev] * 5)
    assert table["difference"].iloc[1:].tolist() == pytest.approx(
        (table["printed"] - table["fair"]).iloc[1:].tolist()
    )
    assert table["ratio"].iloc[1:].tolist() == pytest.approx(
        (table["printed"] / table["fair"]).iloc[1:].tolist()
    )


def test_lane_ev_table_fair_columns(rules):
    counts = counts_from_outcomes(rules, random_outcomes(5, races=3000))
    lanes = an.lane_ev_table(counts)
    fair_ev = (
        lanes["p_first"] * lanes["fair_first"]
        + lanes["p_second"] * lanes["fair_second"]
        + lanes["p_third"] * lanes["fair_third"]
    )
    ok = lanes["ev"] > 0
    assert fair_ev[ok].tolist() == pytest.approx([lanes["mean_ev"].iloc[0]] * ok.sum())


def test_bad_taken(rules):
    counts = counts_from_outcomes(rules, random_outcomes(3))
    with pytest.raises(SheepsimError):
        an.open_bet_table(counts, (7,))
    with pytest.raises(SheepsimError):
        an.open_bet_table(counts, (1, 2, 3, 4, 5, 6))


def test_incomplete_joint_is_an_error(rules):
    counts = counts_from_outcomes(rules, {(0, 1, 2): 5})
    counts.games = 6
    with pytest.raises(SheepsimError):
        an.bet_sets_table(counts)
