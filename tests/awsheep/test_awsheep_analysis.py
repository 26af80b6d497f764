"""Analysis tables (DataFrames in, DataFrames out) on hand-made counts with exact
answers, the charts, and the tables of a real run against its counts."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from sheepsim.games.awsheep import analysis as A  # noqa: E402
from sheepsim.games.awsheep import layout as L  # noqa: E402
from sheepsim.games.awsheep import plots  # noqa: E402
from sheepsim.games.awsheep.jobs import round_counts  # noqa: E402
from sheepsim.games.awsheep.simulate import count_frames  # noqa: E402
from sheepsim.stats import wilson_interval  # noqa: E402


def test_win_rate_by_policy_pools_seats():
    slots = pd.DataFrame({"players": 3, "draft": False, "slot": [1, 2, 3],
                          "policy": ["counter", "random", "random"], "games": 100,
                          "wins": [50, 30, 20]})
    t = A.win_rate_by_policy(slots).set_index("policy")
    assert t.loc["random", "seats"] == 2 and t.loc["random", "seat_games"] == 200
    assert t.loc["random", "games"] == 100
    assert t.loc["random", "win_rate"] == 0.25
    assert (t["fair_share"] == 1 / 3).all()  # per seat-round, whatever the seats
    # the round is the unit: the two random seats won 50 of 100 rounds (one winner a
    # round), so the interval is Wilson(50, 100) / 2, not Wilson(50, 200)
    lo, hi = wilson_interval(50, 100)
    assert t.loc["random", "win_rate_lo"] == pytest.approx(float(lo) / 2)
    assert t.loc["random", "win_rate_hi"] == pytest.approx(float(hi) / 2)
    lo1, hi1 = wilson_interval(50, 100)
    assert t.loc["counter", "win_rate_lo"] == pytest.approx(float(lo1))
    assert not {"lo", "hi"} & set(t.columns)


def test_first_player_test_flags_a_big_advantage():
    order = pd.DataFrame({"players": 4, "draft": False, "position": [1, 2, 3, 4],
                          "games": 4000, "wins": [1300, 900, 900, 900]})
    t = A.first_player_test(order)
    assert t["win_rate"].iloc[0] == 0.325 and (t["fair_share"] == 0.25).all()
    assert t["pvalue"].iloc[0] < 1e-20 and t["chi2_pvalue"].iloc[0] < 1e-20
    even = A.first_player_test(order.assign(wins=1000))
    assert (even["pvalue"] > 0.9).all() and even["chi2_pvalue"].iloc[0] == 1.0


def test_round_length_from_the_histogram():
    turns = pd.DataFrame({"players": 4, "draft": True, "turns": [10, 11, 12],
                          "games": [1, 2, 1]})
    t = A.round_length(turns).iloc[0]
    assert t["rounds"] == 4 and t["mean_turns"] == 11.0 and t["median_turns"] == 11
    assert t["sd_turns"] == pytest.approx(np.std([10, 11, 11, 12], ddof=1))
    assert t["min_turns"] == 10 and t["max_turns"] == 12
    assert t["mean_turns_lo"] < 11 < t["mean_turns_hi"]


def _counter_in_slot_1(games, both, a_only, b_only):
    """Luck-vs-skill pairs of 4 players: ``counter`` against ``random`` in slot 1 only."""
    return pd.DataFrame({"players": 4, "draft": False, "slot": [1, 2, 3, 4],
                         "policy_a": ["counter", "random", "random", "random"],
                         "policy_b": "random", "games": games, "both": [both, 0, 0, 0],
                         "a_only": [a_only, 0, 0, 0], "b_only": [b_only, 0, 0, 0]})


def test_luck_vs_skill_paired_difference():
    r = A.luck_vs_skill(_counter_in_slot_1(1000, both=100, a_only=300, b_only=50)).iloc[0]
    assert r["win_rate"] == 0.4 and r["baseline_win_rate"] == 0.15 and r["diff"] == 0.25
    # per round the difference is +1 (300), -1 (50) or 0: variance from those sums
    d = np.r_[np.ones(300), -np.ones(50), np.zeros(650)]
    se = d.std(ddof=1) / np.sqrt(1000)
    assert r["diff_hi"] - r["diff"] == pytest.approx(1.959963984540054 * se)
    assert r["fair_share"] == 0.25 and r["pvalue"] < 1e-30


def test_tables_of_a_run_agree_with_its_counts():
    s, acc = round_counts(players=5, policies="counter,random,random,greedy,random",
                          games=400, seed=3, progress=False)
    f = count_frames(acc, 5, s.names, False)
    t = A.play_tables(f)
    assert t["by_seat"]["wins"].sum() == 400 == t["first_player"]["wins"].sum()
    assert t["by_policy"]["wins"].sum() == 400
    assert t["round_ends"]["games"].sum() == 400 and t["round_length"]["rounds"].iloc[0] == 400
    cp = t["card_power"]
    # every player-round appears once per card kind: 400 rounds x 5 seats
    assert (cp.groupby("kind")["players_with"].sum() == 2000).all()
    assert (cp.groupby("kind")["wins"].sum() == 400).all()
    # hand sizes: 5 players are dealt 7 cards each
    sizes = cp.assign(c=cp["count"] * cp["players_with"]).groupby("kind")["c"].sum().sum()
    assert sizes == 2000 * 7
    g = t["golden"].groupby("condition")["players_with"].sum()  # per policy: summed
    assert g["starts_with_golden"] + g["starts_without_golden"] == 2000
    assert "holds_golden_at_end" not in g.index  # part of winning, not an effect
    assert t["ties"]["games"].sum() == 400 and t["knockouts"]["games"].sum() == 400
    tie = t["ties"].set_index("decided_by")
    assert tie["tie_rate"].iloc[0] == (acc[L.A_END + L.END_SHEEP_SHOW]
                                       + acc[L.A_END + L.END_DRAW]) / 400
    assert t["by_seat"]["wins_on_tie"].sum() == tie.loc[["sheep_show", "draw"], "games"].sum()
    trig = t["flock_off_triggers"]
    assert trig["games"].sum() == trig["flock_offs"].iloc[0] == t["margins"]["flock_offs"].iloc[0]
    assert trig["flock_offs"].iloc[0] == tie.loc[["flock_off", "sheep_show", "draw"],
                                                 "games"].sum()
    use = t["card_use"].set_index("policy")
    assert use["plays"].sum() == acc[L.A_TURNS]  # every turn plays one card
    for df in t.values():
        for c in df.columns:
            if c.endswith("_lo"):
                assert (df[c] <= df[c[:-3]] + 1e-12).all() and (df[c[:-3]] <= df[c[:-3] + "_hi"]
                                                                 + 1e-12).all()


def test_charts_take_an_axis_and_return_the_figure():
    s, acc = round_counts(players=3, policies="random", games=200, seed=1, progress=False)
    t = A.play_tables(count_frames(acc, 3, s.names, False))
    fig, ax = plt.subplots()
    assert plots.win_rate_by_position_chart(t["first_player"], ax=ax) is fig
    assert plots.card_power_chart(t["card_power"], "pig", ax=ax) is fig
    own = plots.card_power_chart(t["card_power"])
    assert own is not fig and own.axes
    luck = pd.DataFrame({"players": [4], "draft": [False], "policy": ["counter"],
                         "baseline": ["random"], "win_rate": [0.4], "win_rate_lo": [0.38],
                         "win_rate_hi": [0.42], "baseline_win_rate": [0.25],
                         "baseline_win_rate_lo": [0.23], "baseline_win_rate_hi": [0.27],
                         "fair_share": [0.25]})
    assert plots.luck_vs_skill_chart(luck).axes
    plt.close("all")


def test_the_turn_order_finding_names_the_position_furthest_from_fair():
    # position 1 is the closest to fair yet the finding used to quote it with the
    # chi-square p of all positions; positions 4 and 2 are the ones that are off
    from sheepsim.games.awsheep.studies import turn_order_finding

    order = pd.DataFrame({"players": 4, "draft": False, "position": [1, 2, 3, 4],
                          "games": 100_000, "wins": [25_100, 24_000, 24_600, 26_300]})
    t = A.first_player_test(order)
    line = turn_order_finding(t)
    worst = t.set_index("position").loc[4]
    assert worst["pvalue"] == t["pvalue"].min()
    assert line.startswith("Turn order: position 4 is furthest from a fair share, winning 26.3% "
                           "of rounds (95% 26.0% to 26.6%; fair share 25.0%; exact binomial p = ")
    p4 = f"{worst['pvalue']:.1e}"
    holm = f"{min(1.0, 4 * worst['pvalue']):.1e}"  # the smallest p: Holm multiplies by 4
    assert f"p = {p4}, Holm-adjusted over the 4 positions p = {holm});" in line
    assert "chi-square test of equal positions p " in line
    assert line.endswith(": turn order matters. Another policy field gives another pattern.")
    fair = turn_order_finding(A.first_player_test(order.assign(wins=[25_010, 24_990, 25_000, 25_000])))
    assert fair.startswith("Turn order: position 1 is furthest") or fair.startswith(
        "Turn order: position 2 is furthest")
    assert fair.endswith(": no evidence that turn order matters. Another policy field gives "
                         "another pattern.")


def test_the_luck_finding_never_prints_p_as_zero():
    from sheepsim.games.awsheep.studies import luck_finding

    r = A.luck_vs_skill(_counter_in_slot_1(50_000, both=5000, a_only=17_000,
                                            b_only=7_600)).iloc[0]
    assert r["pvalue"] == 0.0  # underflows
    line = luck_finding(r)
    assert "McNemar p < 1e-300)." in line and "p = 0" not in line
    assert "random wins 25.2% (95% 24.8% to 25.6%)" in line  # the baseline with its interval
    # a difference of two rates is in percentage points: (17,000 - 7,600) / 50,000 = 18.8
    assert "difference +18.8 percentage points (95% " in line and "+18.8%" not in line
