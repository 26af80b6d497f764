"""``advise``: expected points of each pace option, exact and on common random numbers."""

import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race.advise import advise, points_per_outcome
from sheepsim.games.race.exact.from_position import exact_from_position
from sheepsim.games.race.rules import load_rules

# lanes 1-6: Requeijao, Pecorino, Feta, Manchego, Roquefort, Stilton; lane 4 holds 2 red
# and 1 white on square 8
MID = "semifinal supply=14  7.101 9.110 6.020 8.201 12.110 10.111"
BETS = dict(open_bet=4, hidden="1,6", rival_open="2,5")


def test_exact_advice_equals_odds_of_each_resulting_position():
    a = advise(MID, 4, **BETS)
    assert a.method == "exact" and a.note == ""
    rules = load_rules()
    pts = points_per_outcome(rules, "semifinal", (3, 0, 5))
    for _, row in a.table.iterrows():
        after = MID.replace("8.201", row["after"])
        want = exact_from_position(after, rules).joint @ pts
        assert row["expected_points"] == pytest.approx(want, abs=1e-12)
        assert row["expected_points_lo"] == row["expected_points_hi"] == row["expected_points"]
    # only the legal options are listed (no blue: no trot/gallop by blue, no rest at 3 cubes)
    assert set(a.table["option"]) == {"GALLOP_RED", "GALLOP_WHITE", "TROT_WHITE", "WALK_WHITE"}
    assert a.best == a.table["option"].iloc[0]
    # a gallop by red and one by white end on the same square, and greedy plays the
    # resulting sheep alike: both are best, and the margin is to the trot
    assert a.tied == ("GALLOP_RED", "GALLOP_WHITE") and a.table["best"].sum() == 2
    assert a.margin == pytest.approx(a.table["expected_points"].iloc[0] - a.table["expected_points"].iloc[2])


def test_points_per_outcome_counts_payoffs_and_bonus():
    rules = load_rules()
    pts = points_per_outcome(rules, "semifinal", (3, 0, 5))
    # lanes 4, 1, 6 place 1st, 2nd, 3rd: 8 + 9 + 1 and the +3 bonus for all three
    assert pts[36 * 3 + 6 * 0 + 5] == 8 + 9 + 1 + 3
    assert pts[36 * 3 + 6 * 1 + 2] == 8  # one placed: no bonus
    assert pts[36 * 1 + 6 * 0 + 5] == 9 + 1 + 1  # two placed: +1
    final = points_per_outcome(rules, "final", (2, 4))
    assert final[36 * 2] == 16 and final[36 * 4 + 7] == 14 and final[36 * 1] == 0


def test_monte_carlo_advice_agrees_with_exact():
    exact = advise(MID, 4, **BETS).table.set_index("option")
    mc = advise(MID, 4, **BETS, method="mc", games=4_000, seed=9).table.set_index("option")
    # each option's mean within 4.5 of its standard errors; paired gaps likewise
    diff = (mc["expected_points"] - exact["expected_points"]).abs()
    assert (diff <= 4.5 * mc["expected_points_se"]).all()
    gap = (mc["gap_to_best"] - (exact["expected_points"] - exact["expected_points"].loc[mc.index[0]])).abs()
    assert (gap <= 4.5 * mc["gap_to_best_se"] + 1e-12).all()


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(lane=2, position="semifinal F1 X17 12.010 0.030 F2 3.111", hidden="1"),
     "only a running sheep"),
    (dict(lane=4, open_bet=2, rival_open="2"), "rival bet openly"),
    (dict(lane=4, open_bet=1, hidden="1,2"), "another lane"),
    (dict(lane=4, hidden="1,2,3", open_bet=4), "at most 3"),
    (dict(lane=7, hidden="1"), "a lane number 1-6, got 7"),
    (dict(lane=4, policy="partisan", method="exact", hidden="1"), "bets"),
])
def test_bad_advice_requests(kwargs, message):
    kwargs = {"position": MID, **kwargs}
    with pytest.raises(SheepsimError, match=message):
        advise(kwargs.pop("position"), kwargs.pop("lane"), **kwargs)


# lane 6 has finished 1st; a player whose only bet is lane 6 gets its payoff whatever
# lane 1 does next, so every option of lane 1 is worth the same
DECIDED = "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"


@pytest.mark.parametrize("method", ["exact", "mc"])
def test_equal_options_are_all_marked_best(method):
    a = advise(DECIDED, 1, hidden="6", method=method, games=500, seed=1)
    assert len(a.table) > 1 and a.table["best"].all()
    assert set(a.tied) == set(a.table["option"]) and a.margin == 0.0
    # lane 6 placed 1st pays 6 (standard.toml Table 1, row 1st, lane 6)
    assert a.table["expected_points"].to_numpy() == pytest.approx(6.0, abs=1e-9)
    assert "tie, all options give equal expected points" in a.headline(1)


def test_advice_states_its_objective_and_the_bets_it_used():
    a = advise(MID, 4, **BETS)
    assert a.meta_fields["bets"] == [4, 1, 6] and a.meta_fields["rival_open"] == [2, 5]
    assert "expected points from this race" in a.objective
    assert "lanes 4, 1, 6" in a.objective and "played by greedy" in a.objective
    assert "ev" not in a.table.columns and "expected_points" in a.table.columns
    assert "tie, GALLOP_RED, GALLOP_WHITE give equal expected points" in a.headline(4)
    # a unique best: marked alone, the margin to the runner-up in the headline
    b = advise(DECIDED, 1, open_bet=5, hidden="1,3", rival_open="6,2")
    assert b.tied == ("WALK_RECOVER",) and b.table["best"].sum() == 1
    assert f"best WALK_RECOVER, by {b.margin:.4f} points" in b.headline(1)


def test_advice_without_bets_is_refused():
    with pytest.raises(SheepsimError, match="advise needs your bets"):
        advise(MID, 4, rival_open="2,5")
