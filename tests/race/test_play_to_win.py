"""Playing to win the game (issue 47, item 3): ``race advise|ev --scores`` in the final.

The small cases are worked out by hand. With every sheep on square 20 holding a blue
cube, the next sheep selected crosses whatever pace it takes, so the final's winner is
the dice's lane: final dice d6 + (2,0,0,0,0,0) select lanes 1-6 with 5, 5, 6, 6, 7, 7
chances in 36 (totals 7 and 8 select lanes 6 and 5). The win chances are checked
against :func:`stack_winner`, written here from the rulebook (a literal stack of
scoring tokens), not with the module's own tie-break.
"""

import json
from fractions import Fraction
from itertools import combinations

import pytest

from sheepsim.cli import main
from sheepsim.errors import SheepsimError
from sheepsim.games.race import standings as S
from sheepsim.games.race.advise import advise
from sheepsim.games.race.exact.from_position import exact_from_position
from sheepsim.games.race.rules import load_rules

AT_LINE = "final 20.010 20.010 20.010 20.010 20.010 20.010"
#: lane 5 selected one square short: TROT_BLUE crosses now, WALK_FREE waits on 20
LANE5_SHORT = "final 20.010 20.010 20.010 20.010 19.010 20.010"
DICE = [Fraction(k, 36) for k in (5, 5, 6, 6, 7, 7)]
PAY = (18, 17, 16, 15, 14, 13)


def stack_winner(scores, pairs, first, stack_top_down, w) -> int:
    """Who wins the game when lane ``w`` wins the final: the tokens as a physical
    stack per space; points awarded in turn order from ``first``, a token that moves
    lands on top; the winner is the highest score, ties to the top token."""
    n = len(scores)
    spaces = {}  # score -> tokens bottom to top
    for seat in reversed(stack_top_down):
        spaces.setdefault(scores[seat], []).append(seat)
    final = list(scores)
    for step in range(n):
        seat = (first + step) % n
        gain = PAY[w] if w in pairs[seat] else 0
        if gain:
            spaces[final[seat]].remove(seat)
            final[seat] += gain
            spaces.setdefault(final[seat], []).append(seat)
    return spaces[max(final)][-1]


def by_stack(scores, seat, pairs, tie_order=None) -> Fraction:
    order = list(range(len(scores))) if tie_order is None else tie_order
    first = min(range(len(scores)), key=lambda k: (-scores[k], order.index(k)))
    return sum((DICE[w] for w in range(6)
                if stack_winner(scores, pairs, first, order, w) == seat), Fraction(0))


def test_the_hand_worked_winner_distribution():
    assert [Fraction(p).limit_denominator(1000) for p in exact_from_position(AT_LINE).winner] == DICE


def test_behind_by_16_only_the_long_shots_win_the_game():
    # seat 1 has 10, seat 2 has 26 and bets 3,5 (the pair of highest expected points here:
    # 7/36*14 + 6/36*16 = 194/36). Seat 1 wins only if lane 1 (10+18=28) or lane 2
    # (10+17=27) wins and seat 2 scores nothing: the long-shot pair 1,2, 10/36, for
    # 175/36 expected points; the points pair 3,5 never wins the game.
    res = exact_from_position(AT_LINE)
    st = S.standings("10,26", 1, rival_bets="3,5")
    table = S.game_table(res.winner, load_rules(), st, st.rival_bets, "win").set_index("lanes")
    assert table.index[0] == "1,2"
    assert table.loc["1,2", "p_win"] == pytest.approx(10 / 36, abs=1e-12)
    assert table.loc["1,2", "ev"] == pytest.approx(175 / 36, abs=1e-12)
    assert table.loc["3,5", "p_win"] == 0 and table.loc["3,5", "ev"] == pytest.approx(194 / 36)
    assert table.loc["3,5", "best_for_points"] and not table.loc["1,2", "best_for_points"]
    for pair in combinations(range(6), 2):  # every pair against the literal stack
        want = by_stack((10, 26), 0, [pair, (2, 4)])
        assert table.loc[f"{pair[0] + 1},{pair[1] + 1}", "p_win"] == pytest.approx(float(want), abs=1e-12)


def test_a_tie_goes_to_the_token_that_moved_last():
    # behind by 17: lane 2 gives 10+17 = 27 = 27, and seat 1 moved onto 27 (seat 2 did
    # not score): seat 1's token is on top, so a tie wins
    res = exact_from_position(AT_LINE)
    st = S.standings("10,27", 1, rival_bets="3,5")
    table = S.game_table(res.winner, load_rules(), st, st.rival_bets, "win").set_index("lanes")
    assert table.loc["1,2", "p_win"] == pytest.approx(10 / 36, abs=1e-12)
    assert table.loc["1,2", "win_if"] == "1,2"


@pytest.mark.parametrize(("scores", "pairs", "tie_order"), [
    ((11, 11), [(0, 5), (0, 4)], [1, 0]),   # both score 18 on lane 1: the later mover wins
    ((11, 11), [(0, 5), (0, 4)], [0, 1]),
    ((20, 11, 15), [(0, 1), (3, 4), (0, 4)], None),
    ((5, 9, 9, 3), [(5, 2), (0, 1), (1, 2), (0, 3)], [3, 2, 1, 0]),
    ((0, 0, 0), [(0, 1), (0, 1), (0, 1)], [2, 0, 1]),  # all alike: the last to score wins
])
def test_tie_breaks_match_a_literal_stack(scores, pairs, tie_order):
    rules = load_rules()
    order = None if tie_order is None else ",".join(str(s + 1) for s in tie_order)
    for seat in range(len(scores)):
        rivals = [p for k, p in enumerate(pairs) if k != seat]
        st = S.standings(scores, seat + 1, order, [[a + 1, b + 1] for a, b in rivals])
        win = S.win_lanes(st, pairs[seat], rivals, rules)
        want = [stack_winner(scores, pairs, st.first_player, list(st.tie_order), w) == seat
                for w in range(6)]
        assert win.tolist() == [float(x) for x in want]


def test_advise_win_differs_from_points_exactly():
    # seat 1 (10) holds lanes 5 and 1, seat 2 (26) holds 3 and 5; lane 5 is selected on
    # square 19. TROT_BLUE wins the final for lane 5 now: 14 points, but seat 2 gets 14
    # too, so no win. WALK_FREE leaves it on 20 and the dice choose the winner: 5/36
    # (lane 1: 28 > 26) to win the game, 18*5/36 + 14*7/36 = 188/36 points.
    a = advise(LANE5_SHORT, 5, hidden="5,1", scores="10,26", rival_bets="3,5")
    t = a.table.set_index("option")
    assert a.goal == "win" and a.best == "WALK_FREE"
    assert t.loc["WALK_FREE", "p_win"] == pytest.approx(float(by_stack((10, 26), 0, [(4, 0), (2, 4)])),
                                                         abs=1e-12)
    assert t.loc["WALK_FREE", "p_win"] == pytest.approx(5 / 36, abs=1e-12)
    assert t.loc["TROT_BLUE", "p_win"] == 0
    assert t.loc["WALK_FREE", "expected_points"] == pytest.approx(188 / 36, abs=1e-12)
    assert t.loc["TROT_BLUE", "expected_points"] == pytest.approx(14, abs=1e-12)
    assert a.meta_fields["best_for_points"] == ["TROT_BLUE"]
    assert a.meta_fields["objectives_disagree"]
    assert a.margin == pytest.approx(5 / 36, abs=1e-12)
    points = advise(LANE5_SHORT, 5, hidden="5,1", scores="10,26", rival_bets="3,5",
                    objective="points")
    assert points.best == "TROT_BLUE" and points.goal == "points"
    assert points.table.set_index("option").loc["WALK_FREE", "p_win"] == pytest.approx(5 / 36)
    # without scores: expected points, as before
    plain = advise(LANE5_SHORT, 5, hidden="5,1")
    assert plain.best == "TROT_BLUE" and "p_win" not in plain.table


def test_equal_scores_default_to_points_and_say_so():
    a = advise(LANE5_SHORT, 5, hidden="5,1", scores="7,7", rival_bets="3,5")
    assert a.goal == "points" and a.meta_fields["goal_reason"] == "the default when all scores are equal"
    assert "p_win" in a.table


def test_advise_simulated_win_chance_agrees_with_exact():
    # the same position with the random pace policy: after WALK_FREE every sheep that
    # moves crosses, so the winner is the dice's lane whatever the policy: p_win 5/36;
    # 4,000 races per option, a binomial standard error of sqrt(p(1-p)/n) = 0.0055, and
    # the test allows 4.5 of them
    a = advise(LANE5_SHORT, 5, hidden="5,1", scores="10,26", rival_bets="3,5", policy="random",
               games=4_000, seed=3)
    t = a.table.set_index("option")
    assert a.method == "monte carlo" and a.best == "WALK_FREE"
    assert abs(t.loc["WALK_FREE", "p_win"] - 5 / 36) <= 4.5 * t.loc["WALK_FREE", "p_win_se"]
    assert t.loc["TROT_BLUE", "p_win"] == 0


def run_json(capsys, *argv):
    code = main(list(argv) + ["--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_ev_command_ranks_the_final_pairs_by_the_win(capsys):
    doc = run_json(capsys, "race", "ev", "--position", AT_LINE, "--scores", "10,26",
                   "--rival-bets", "3,5")
    meta, game = doc["meta"], doc["game"]
    assert list(doc) == ["meta", "game", "lanes", "sets"]
    assert meta["goal"] == "win" and meta["best_for_win"] == "1,2" and meta["best_for_points"] == "3,5"
    assert meta["win_gain"] == pytest.approx(10 / 36, abs=1e-12)
    assert meta["points_cost"] == pytest.approx(19 / 36, abs=1e-12)
    assert game[0]["lanes"] == "1,2" and game[0]["p_win"] == pytest.approx(10 / 36, abs=1e-12)
    points = run_json(capsys, "race", "ev", "--position", AT_LINE, "--scores", "10,26",
                      "--rival-bets", "3,5", "--objective", "points")
    assert points["game"][0]["lanes"] == "3,5" and points["meta"]["goal"] == "points"


def test_ev_rivals_default_to_the_pair_of_highest_expected_points(capsys):
    # from the start of the standard final the rival bets what race ev recommends
    doc = run_json(capsys, "race", "ev", "--stage", "final", "--scores", "20,26")
    best_sets = doc["sets"][0]["lanes"]
    assert doc["meta"]["rival_bets"] == [best_sets]
    assert doc["meta"]["objectives_disagree"] and doc["meta"]["best_for_points"] == best_sets


def test_semifinal_scores_rank_by_points(capsys):
    doc = run_json(capsys, "race", "ev", "--scores", "3,9")
    assert doc["meta"]["goal"] == "points" and "game" not in doc


@pytest.mark.parametrize(("argv", "message"), [
    (["--scores", "5"], "one score per player"),
    (["--scores", "5,x"], "whole numbers"),
    (["--scores", "5,1.5"], "whole numbers"),
    (["--scores=-1,4"], "whole numbers >= 0"),
    (["--scores", "1,2,3,4,5,6,7"], "2 to 6 players"),
    (["--scores", "5,6", "--seat", "3"], "seat"),
    (["--seat", "2"], "applies with the scores"),
    (["--objective", "win"], "needs the scores"),
    (["--scores", "5,6", "--tie-order", "2,2"], "tie order"),
    (["--scores", "5,6", "--rival-bets", "1,2/3,4"], "one pair per rival"),
    (["--scores", "5,6", "--rival-bets", "1,7"], "two different lanes 1-6"),
])
@pytest.mark.parametrize("command", [
    ["race", "ev", "--stage", "final"],
    ["race", "advise", "--position", LANE5_SHORT, "--lane", "5", "--hidden", "5,1"],
])
def test_bad_standings_exit_2_with_one_line(capsys, command, argv, message):
    assert main(command + argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and len(err.strip().splitlines()) == 1


def test_win_in_a_semifinal_is_refused(capsys):
    assert main(["race", "ev", "--scores", "3,9", "--objective", "win"]) == 2
    assert "exact only in the final" in capsys.readouterr().err
    with pytest.raises(SheepsimError, match="exact only in the final"):
        advise("semifinal 7.101 9.110 6.020 8.201 12.110 10.111", 4, open_bet=4,
               scores=[3, 9], objective="win")


def test_python_final_bets_is_the_cli_answer(capsys):
    from sheepsim.games.race import final_bets

    cli = run_json(capsys, "race", "ev", "--position", AT_LINE, "--scores", "10,26",
                   "--rival-bets", "3,5", "--seat", "1")
    res = final_bets([10, 26], position=AT_LINE, rival_bets="3,5")
    assert res.tables["game"].to_dict("records") == cli["game"]
    for key in ("goal", "best_for_win", "best_for_points", "win_gain", "rival_bets", "scores"):
        assert res.meta[key] == cli["meta"][key]


def test_ev_simulated_win_chance_agrees_with_exact(capsys):
    # --mc from the hand-worked position: the pair 1,2 wins the game 10/36 of the time;
    # 4,000 races give a binomial standard error sqrt(p(1-p)/n) = 0.0071; 4.5 of them allowed
    doc = run_json(capsys, "race", "ev", "--position", AT_LINE, "--scores", "10,26",
                   "--rival-bets", "3,5", "--mc", "--games", "4000", "--seed", "5", "--quiet")
    assert doc["meta"]["method"] == "monte carlo"
    row = next(r for r in doc["game"] if r["lanes"] == "1,2")
    assert row["p_win_se"] == pytest.approx((10 / 36 * 26 / 36 / 4000) ** 0.5, rel=0.1)
    assert abs(row["p_win"] - 10 / 36) <= 4.5 * row["p_win_se"]
    assert next(r for r in doc["game"] if r["lanes"] == "3,5")["p_win"] == 0
