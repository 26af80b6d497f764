"""``advise``: expected points of each pace option, exact and on common random numbers."""

import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race.advise import advise, points_per_outcome
from sheepsim.games.race.position_odds import exact_from_position
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
        assert row["ev"] == pytest.approx(want, abs=1e-12)
        assert row["ev_lo"] == row["ev_hi"] == row["ev"]
    # only the legal options are listed (no blue: no trot/gallop by blue, no rest at 3 cubes)
    assert set(a.table["option"]) == {"GALLOP_RED", "GALLOP_WHITE", "TROT_WHITE", "WALK_WHITE"}
    assert a.best == a.table["option"].iloc[0]
    assert a.margin == pytest.approx(a.table["ev"].iloc[0] - a.table["ev"].iloc[1])


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
    diff = (mc["ev"] - exact["ev"]).abs()
    assert (diff <= 4.5 * mc["ev_se"]).all()
    gap = (mc["gap_to_best"] - (exact["ev"] - exact["ev"].loc[mc.index[0]])).abs()
    assert (gap <= 4.5 * mc["gap_se"] + 1e-12).all()


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(lane=2, position="semifinal F1 X17 12.010 0.030 F2 3.111"), "only a running sheep"),
    (dict(lane=4, open_bet=2, rival_open="2"), "rival bet openly"),
    (dict(lane=4, open_bet=1, hidden="1,2"), "another lane"),
    (dict(lane=4, hidden="1,2,3", open_bet=4), "at most 3"),
    (dict(lane=7), "a lane number 1-6, got 7"),
    (dict(lane=4, policy="partisan", method="exact"), "bets"),
])
def test_bad_advice_requests(kwargs, message):
    kwargs = {"position": MID, **kwargs}
    with pytest.raises(SheepsimError, match=message):
        advise(kwargs.pop("position"), kwargs.pop("lane"), **kwargs)
