"""Whole-game rules: scoring, bonus, final lanes, betting, turn order and tie-breaks."""

import numpy as np

from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race import policies as P
from sheepsim.games.race.jobs import GamesJob
from sheepsim.games.race.rules import load_rules

from .helpers import make_state
from .machine_bets import bet_rounds

PAYOFFS = np.array([[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1],
                    [18, 17, 16, 15, 14, 13]], dtype=np.int64)
BONUS = np.array([1, 3], dtype=np.int64)


def _placed_board(order):
    board, _ = make_state()
    for place, lane in enumerate(order, start=1):
        board[lane, L.PLACE] = place
    return board


def test_nicholas_scores_16():
    # Rulebook: "Nicholas has bet on sheep 1, 4, and 6. The order of the winning sheep is:
    # 1st sheep in lane 4, 2nd sheep in lane 5, 3rd sheep in lane 1. Nicholas wins 8
    # points ... and 7 points ... He also gets 1 bonus point ... His final score for this
    # race is 16 points."
    board = _placed_board([3, 4, 0])
    bets = np.zeros((1, 6), dtype=np.int64)
    bets[0, [0, 3, 5]] = 1
    scores = np.zeros(1, dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    engine.score_race(board, bets, PAYOFFS, BONUS, False, 0, scores, stamp, 1)
    assert scores[0] == 16


def test_bonus_for_three_placed_sheep_and_final_pays_winner_only():
    # Rulebook: "Any player who bets on 3 winning sheep gains 3 bonus points." and
    # "Only the winning sheep will payoff for bets in the final race"
    board = _placed_board([3, 4, 0])
    bets = np.zeros((2, 6), dtype=np.int64)
    bets[0, [0, 3, 4]] = 1
    bets[1, [3, 4]] = 1
    scores = np.zeros(2, dtype=np.int64)
    engine.score_race(board, bets, PAYOFFS, BONUS, False, 0, scores, np.zeros(2, np.int64), 2)
    assert scores[0] == 8 + 4 + 7 + 3
    scores[:] = 0
    engine.score_race(board, bets, PAYOFFS, BONUS, True, 0, scores, np.zeros(2, np.int64), 2)
    assert scores.tolist() == [15, 15]


def test_final_lane_assignment():
    # Rulebook: "Lane 6: The 1st place sheep from the 1st semifinal race. Lane 5: The 1st
    # place sheep from the 2nd semifinal race. Lane 4: ... 2nd ... 1st semifinal ...
    # Lane 1: The 3rd place sheep from the 2nd semifinal race."
    final = np.full(6, -1, dtype=np.int64)
    sf1_cards = np.array([10, 11, 12, 13, 14, 15], dtype=np.int64)
    sf2_cards = np.array([20, 21, 22, 23, 24, 25], dtype=np.int64)
    engine.assign_final_lanes(0, sf1_cards, np.array([2, 0, 5]), final)  # SF1: 12, 10, 15
    engine.assign_final_lanes(1, sf2_cards, np.array([1, 3, 4]), final)  # SF2: 21, 23, 24
    assert final.tolist() == [24, 15, 23, 10, 21, 12]


def test_stack_tie_breaks():
    # shared/rulebooks/README.md: "Score ties ... go to the token on top of the stack: initially the first
    # player on top, then clockwise order; a token that moves onto a space goes on top.
    # Points are awarded in turn order starting with the first player."
    scores = np.array([5, 5, 5], dtype=np.int64)
    stamp = np.array([1, 3, 2], dtype=np.int64)
    assert engine.leader(scores, stamp) == 1
    # Seats 0 and 2 both score 16 in a race that starts with seat 2: seat 2 is paid
    # first, seat 0 after it, so seat 0's token ends on top and leads.
    board = _placed_board([3, 4, 0])
    bets = np.zeros((3, 6), dtype=np.int64)
    bets[0, [0, 3, 5]] = 1
    bets[2, [0, 3, 5]] = 1
    scores = np.zeros(3, dtype=np.int64)
    stamp = np.array([1, 2, 3], dtype=np.int64)
    engine.score_race(board, bets, PAYOFFS, BONUS, False, 2, scores, stamp, 3)
    assert scores.tolist() == [16, 0, 16]
    assert engine.leader(scores, stamp) == 0


def test_open_bets_are_unique_and_hidden_bets_may_repeat_them():
    # Rulebook: "You cannot bet on a sheep that has already been chosen during this round
    # of betting." / "you may bet on a sheep chosen by another player in the first round"
    odds = np.full((6, 3), 1 / 6)
    odds[5, 0] = 0.5
    n = 6
    bet_ids = np.full(n, P.FAVOURITE, dtype=np.int64)
    # the race machine's bet rounds (to_move's rows, apply), the open round then the
    # hidden one, in turn order from seat 2
    bets, open_lane, rival_open = bet_rounds(load_rules(), np.arange(6), False, bet_ids, 2,
                                             odds=odds, payoffs=(PAYOFFS, BONUS))
    assert sorted(open_lane.tolist()) == list(range(6))
    assert open_lane[2] == 5  # the first bettor takes the favourite
    assert rival_open[0].tolist() == [1 if lane != open_lane[0] else 0 for lane in range(6)]
    assert (bets.sum(axis=1) == 3).all()
    assert bets[:, 5].sum() >= 2  # favourite lane 6 bet again, hidden


def test_whole_games_are_consistent():
    rules = load_rules()
    job = GamesJob(rules, 3, "ev-approx,favourite,random", "greedy,partisan,saver", 5)
    scores, winner, first, turns, race_cards = job.rows(0, 400)
    # the winner has the top score
    assert (scores[np.arange(400), winner] == scores.max(axis=1)).all()
    assert ((first >= 0) & (first < 3)).all() and len(set(first.tolist())) == 3
    # semifinals place three different cards; the final's winner came from their top 3
    for g in range(400):
        sf = set(race_cards[g, :2].ravel().tolist())
        assert len(sf) == 6 and race_cards[g, 2, 0] in sf
    assert (turns > 0).all()
    # Points per semifinal per seat are at most 12 + 11 + 9 + 3 = 35 and the final pays
    # at most 18, so a game total is at most 88.
    assert scores.max() <= 88
