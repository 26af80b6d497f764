"""Race positions: the text format, validation, exact and simulated odds from a position."""

import numpy as np
import pandas as pd
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.exact.from_position import (
    exact_from_position,
    exact_tables,
    mc_from_position,
    position_odds,
)
from sheepsim.games.race.exact.position import as_position, parse_position, position_arrays
from sheepsim.games.race.rules import load_rules

# standard lanes 1-6: Requeijao 1/1/1, Pecorino 2/1/0, Feta 0/3/0, Manchego 2/0/1,
# Roquefort 1/2/0, Stilton 1/1/1 (red/blue/white); 5 blue on the cards + 14 = 19
MID = "semifinal supply=14  7.101 9.110 6.020 8.201 12.110 10.111"
LATE = "semifinal supply=12  F1 X17 12.010 0.030 F2 3.111"


def test_text_round_trip_and_arrays():
    pos = parse_position(MID)
    assert parse_position(pos.text()) == pos
    board, race, lanes = position_arrays(pos, load_rules())
    assert board[0].tolist()[:5] == [7, 1, 0, 1, L.RUNNING]
    assert race[L.SUPPLY_BLUE] == 14 and race[L.N_RUNNING] == 6 and race[L.N_PLACED] == 0
    late, race_l, _ = position_arrays(parse_position(LATE), load_rules())
    assert late[0, L.PLACE] == 1 and late[4, L.PLACE] == 2 and late[1, L.STATUS] == L.EXHAUSTED
    assert race_l[L.N_PLACED] == 2 and race_l[L.N_RUNNING] == 3


def test_dict_and_frame_give_the_same_position():
    rows = [dict(square=7, red=1, blue=0, white=1, status="running"),
            dict(square=9, red=1, blue=1, white=0), dict(square=6, red=0, blue=2, white=0),
            dict(square=8, red=2, blue=0, white=1), dict(square=12, red=1, blue=1, white=0),
            dict(square=10, red=1, blue=1, white=1)]
    want = parse_position(MID)
    assert as_position({"stage": "semifinal", "supply": 14, "sheep": rows}) == want
    assert as_position(pd.DataFrame(rows), stage="semifinal", supply=14) == want
    assert as_position({"supply": 14, "sheep": MID.split()[2:]}) == want


@pytest.mark.parametrize(("text", "message"), [
    ("7.101 9.110 6.020 8.201 12.110", "needs 6 sheep"),
    ("7.301 9.110 6.020 8.201 12.110 10.111", "never recovered"),      # 3 red on a 1-red card
    ("7.101 9.110 6.020 8.201 12.110 18.000", "exhausted"),            # empty in the End Zone
    ("F1 F2 F3 F4 12.110 10.111", "awards 3"),                         # more than 3 placed
    ("F1 F3 6.020 8.201 12.110 10.111", "crossing order"),
    ("F 9.110 6.020 8.201 12.110 10.111", "not a sheep"),              # finished without place
    ("X12 9.110 6.020 8.201 12.110 10.111", "End Zone"),               # exhausted outside
    ("final F1 F2 6.020 8.201 12.110 10.111", "awards 1"),
    ("supply=30 7.101 9.110 6.020 8.201 12.110 10.111", "blue cubes"),
    ("25.101 9.110 6.020 8.201 12.110 10.111", "not on the track"),
])
def test_impossible_positions_are_refused(text, message):
    with pytest.raises(SheepsimError, match=message):
        position_arrays(parse_position(text), load_rules())


def test_starting_line_position_equals_start_odds():
    start = "0.111 0.210 0.030 0.201 0.120 0.111"
    for stage in ("semifinal", "final"):
        a = exact_from_position(start, stage=stage)
        b = exact_odds(stage=stage)
        assert np.allclose(a.p_place, b.p_place, atol=1e-14)


def test_finished_positions_are_certain():
    res = exact_from_position("F1 X17 12.010 F3 F2 3.111")  # three crossed: over
    assert res.joint[36 * 0 + 6 * 4 + 3] == 1.0


def test_late_position_exact_against_monte_carlo():
    # lanes 1 and 5 placed 1st and 2nd; the 3rd place goes to one of lanes 3, 4, 6
    exact = exact_from_position(LATE)
    assert exact.p_place[0, 0] == pytest.approx(1.0) and exact.p_place[4, 1] == pytest.approx(1.0)
    mc = mc_from_position(LATE, games=20_000, seed=4)
    p, got = exact.p_place, mc.place_counts / mc.games
    # 4.5 binomial standard errors at the exact p (fixed seed)
    assert np.all(np.abs(got - p) <= 4.5 * np.sqrt(p * (1 - p) / mc.games) + 1e-12)


def test_position_odds_picks_the_method():
    assert position_odds(LATE, policy="greedy").__class__.__name__ == "ExactOdds"
    assert position_odds(LATE, policy="partisan", games=2_000).__class__.__name__ == "RaceCounts"
    with pytest.raises(SheepsimError, match="bets"):
        position_odds(LATE, policy="partisan", method="exact")


def test_exact_tables_collapse_intervals():
    from sheepsim.games.race.analysis import bet_sets_table, lane_ev_table

    res = exact_from_position(MID)
    tabs = exact_tables(res, {"lanes": lane_ev_table, "sets": bet_sets_table})
    lanes, sets = tabs["lanes"], tabs["sets"]
    assert np.allclose(lanes["p_first"], res.p_place[:, 0], atol=1e-14)
    assert (lanes["p_first_lo"] == lanes["p_first"]).all() and (lanes["ev_se"] == 0).all()
    assert "games" not in lanes.columns
    # the best set's EV from the joint table by hand (lanes 0-5, bonus +1/+3)
    pay = load_rules().payoff_semifinal
    best = [int(x) - 1 for x in sets["lanes"].iloc[0].split(",")]
    ev = 0.0
    for idx in np.flatnonzero(res.joint):
        placed = (idx // 36, idx // 6 % 6, idx % 6)
        hits = [k for k in range(3) if placed[k] in best]
        ev += res.joint[idx] * (sum(pay[k, placed[k]] for k in hits) + {2: 1, 3: 3}.get(len(hits), 0))
    assert sets["ev"].iloc[0] == pytest.approx(ev, abs=1e-12)
