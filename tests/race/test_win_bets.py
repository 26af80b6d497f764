"""The ``win`` bet policy of whole games (issue 47, item 3): in the final, the pair with
the highest chance of winning the game; in the semifinals, the ``ev`` bets.

Checked against tools written apart from it: the hand-worked final of
test_play_to_win.py (every sheep on square 20, so the winner is the dice's lane) with the
literal token stack of its ``by_stack``; ``race ev --objective win`` (its table,
:func:`sheepsim.games.race.standings.game_table`, and the API call
:func:`~sheepsim.games.race.standings.final_bets`) on real finals. Exact quantities:
tolerances are rounding (1e-12 on probabilities).
"""

from itertools import combinations, permutations

import numpy as np
import pytest

from sheepsim.games.race import engine
from sheepsim.games.race import policies as P
from sheepsim.games.race import standings as S
from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.exact.win_bets import final_pair_values, win_final_pair
from sheepsim.games.race.rules import load_rules

from .machine_bets import bet_rounds
from .test_play_to_win import DICE, PAY, by_stack

PAIRS = list(combinations(range(6), 2))


def _joint(winner):
    """The kernel's ``(216,)`` final distribution: P(lane w wins) at ``36 * w``."""
    joint = np.zeros(216)
    joint[36 * np.arange(6)] = winner
    return joint


def _stamp(tie_order):
    """Token stamps of a stack given top first (the higher stamp is on top)."""
    stamp = np.zeros(len(tie_order), np.int64)
    for i, seat in enumerate(tie_order):
        stamp[seat] = len(tie_order) - i
    return stamp


def _pick(seat, scores, stamp, joint, kr):
    scores = np.asarray(scores, np.int64)
    out = np.full(2, -1, np.int64)
    win_final_pair(seat, scores, stamp, engine.leader(scores, stamp), joint, kr.payoffs,
                   kr.bonus, out)
    return int(out[0]), int(out[1])


def test_the_final_pair_maximises_the_chance_on_the_literal_token_stack():
    # Every rival assumed on the pair of highest expected points, here 3,5 (0-based 2,4:
    # 6/36 * 16 + 7/36 * 14). For each standings, the pair is the best of the 15 by the
    # literal stack's chance, then by expected points, then in pair order.
    kr = load_rules().kernel_rules()
    joint = _joint([float(p) for p in DICE])
    cases = 0
    for scores in [(10, 26), (20, 20), (26, 10), (30, 13), (40, 22), (22, 40), (8, 25)]:
        for order in permutations(range(2)):
            cases += _check_stack_case(scores, list(order), joint, kr)
    for scores in [(20, 26, 14), (30, 30, 30), (12, 30, 29), (25, 25, 9), (20, 36, 30, 35),
                   (24, 24, 24, 24), (31, 25, 18, 30)]:
        for order in list(permutations(range(len(scores))))[::5]:
            cases += _check_stack_case(scores, list(order), joint, kr)
    assert cases > 100


def _check_stack_case(scores, order, joint, kr):
    n = len(scores)
    stamp = _stamp(order)
    for seat in range(n):
        p_win, ev, rival = final_pair_values(seat, np.array(scores, np.int64), stamp,
                                             engine.leader(np.array(scores), stamp), joint,
                                             kr.payoffs, kr.bonus)
        assert tuple(rival) == (2, 4)
        chances = {}
        for pair in PAIRS:
            pairs = [(2, 4)] * n
            pairs[seat] = pair
            want = by_stack(scores, seat, pairs, order)
            assert p_win[pair] == pytest.approx(float(want), abs=1e-12)
            assert ev[pair] == pytest.approx(float(sum(DICE[x] * PAY[x] for x in pair)), abs=1e-12)
            chances[pair] = (want, sum(DICE[x] * PAY[x] for x in pair))
        best = max(PAIRS, key=lambda q: (*chances[q], -PAIRS.index(q)))
        assert _pick(seat, scores, stamp, joint, kr) == best
    return n


def test_behind_the_long_shots_and_level_the_stack_decides():
    kr = load_rules().kernel_rules()
    joint = _joint([float(p) for p in DICE])
    # behind by 16 against a rival on 3,5: only lanes 1 and 2 win the game (10/36)
    assert _pick(0, (10, 26), _stamp([0, 1]), joint, kr) == (0, 1)
    # far ahead: every pair wins surely, so the ev pair (3,5) is kept
    assert _pick(0, (40, 10), _stamp([0, 1]), joint, kr) == (2, 4)
    # hopeless (behind by 19): no pair wins, the ev pair is kept
    assert _pick(0, (10, 29), _stamp([1, 0]), joint, kr) == (2, 4)


def test_the_final_pair_is_race_ev_objective_win_s_best_on_real_finals():
    rules = load_rules()
    kr = rules.kernel_rules()
    gen = np.random.default_rng(47)
    for _ in range(2):
        res = exact_odds(rules, gen.permutation(len(rules.cards))[:6], "final")
        joint = _joint(res.winner)
        for _ in range(100):
            n = int(gen.integers(2, 7))
            scores = gen.integers(20, 45, n)
            order = [int(s) for s in gen.permutation(n)]
            seat = int(gen.integers(0, n))
            st = S.Standings(tuple(int(s) for s in scores), seat, tuple(order))
            rivals, _ = S.rival_pairs(st, lambda r=res: r.winner, rules)
            table = S.game_table(res.winner, rules, st, rivals, "win")
            a, b = _pick(seat, scores, _stamp(order), joint, kr)
            assert f"{a + 1},{b + 1}" == table["lanes"].iloc[0]
    # and through the API of `race ev --stage final --scores ... --objective win`
    res = exact_odds(rules, None, "final")
    for scores, seat, order in [((30, 24, 20, 27), 3, (1, 0, 3, 2)), ((18, 34), 1, (0, 1)),
                                ((25, 25, 25), 2, (2, 0, 1)), ((40, 20, 39, 12, 30), 5,
                                                               (4, 3, 2, 1, 0))]:
        api = S.final_bets(",".join(map(str, scores)), seat=seat, objective="win",
                           tie_order=",".join(str(s + 1) for s in order))
        a, b = _pick(seat - 1, scores, _stamp(order), _joint(res.winner), kr)
        assert api.meta["goal"] == "win" and api.meta["best_for_win"] == f"{a + 1},{b + 1}"


def _final_bets(bet_ids, scores, stamp, first, pace_ids=None):
    """Whole games' final betting (the race machine's bet round) with the standings."""
    rules = load_rules()
    bets, _, rival_open = bet_rounds(rules, [3, 7, 1, 10, 5, 8], True, bet_ids, first, pace_ids,
                                     (np.array(scores, np.int64), stamp),
                                     seed=(5, int(stamp.sum())))
    joint = exact_odds(rules, [3, 7, 1, 10, 5, 8], "final").winner
    return bets, _joint(joint), rival_open


def test_win_seats_in_whole_games_bet_legally_and_never_read_rivals_hidden_bets():
    kr = load_rules().kernel_rules()
    scores, stamp = (31, 22, 40, 28), np.array([3, 1, 4, 2], np.int64)
    first = engine.leader(np.array(scores), stamp)  # seat 3 (0-based 2) leads
    seen = {}
    for rivals in ([P.EV] * 3, [P.RANDOM_BET] * 3, [P.LONGSHOT, P.FAVOURITE, P.RANDOM_BET],
                   [P.WIN, P.LONGSHOT, P.WIN]):
        ids = [rivals[0], P.WIN, rivals[1], rivals[2]]  # seat 2 bets last of four from seat 3
        bets, joint, rival_open = _final_bets(ids, scores, stamp, first)
        assert (bets.sum(axis=1) == 2).all() and (rival_open == 0).all()  # all hidden
        mine = tuple(np.flatnonzero(bets[1]).tolist())
        assert mine == _pick(1, scores, stamp, joint, kr)
        seen[tuple(map(tuple, bets[[0, 2, 3]]))] = mine
    assert len(seen) > 1 and len(set(seen.values())) == 1  # rivals' bets differ, its pair does not
    # seat 2 trails the leader by 18, rivals assumed on ev's 5,6: only lane 1 wins it the
    # game (18 points, level, its token on top), so 1 and the best other lane, 1,5; ev's
    # own pair, 5,6, never wins
    assert mine == (0, 4)
    assert np.flatnonzero(_final_bets([P.EV] * 4, scores, stamp, first)[0][1]).tolist() == [4, 5]


def test_win_bets_as_ev_in_the_semifinals():
    rules = load_rules()
    gen = np.random.default_rng(3)
    for _ in range(4):
        n = int(gen.integers(2, 7))
        lanes = gen.permutation(len(rules.cards))[:6]
        scores = np.array(gen.integers(0, 40, n), np.int64)
        stamp = np.array(gen.permutation(n) + 1, np.int64)
        first = int(gen.integers(0, n))
        got = []
        for pid in (P.WIN, P.EV):
            got.append(bet_rounds(rules, lanes, False, np.full(n, pid, np.int64), first,
                                  standings=(scores, stamp))[:2])
        assert np.array_equal(got[0][0], got[1][0]) and np.array_equal(got[0][1], got[1][1])


def test_whole_games_with_win_bets_do_not_depend_on_threads_or_chunks():
    from sheepsim.games.race.jobs import play_games

    kw = dict(players=3, bet_policy="win,ev,win", pace_policy="greedy", games=8, seed=11,
              progress=False)
    a = play_games(threads=1, chunk_size=8, **kw)
    b = play_games(threads=2, chunk_size=3, **kw)
    for name in ("wins", "score_sum", "score_sq", "wins_by_order", "score_hist", "turns",
                 "tied_first"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_race_play_takes_win_bets_and_says_which_odds_they_read(capsys):
    import json

    from sheepsim.cli import main

    assert main(["race", "play", "--players", "2", "--games", "2", "--bet-policy", "win,ev",
                 "--format", "json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["meta"]["bet_policies"] == ["win", "ev"]
    assert doc["meta"]["ev_odds"] == {"method": "exact", "pace": "greedy",
                                      "solved": "each dealt race from the start"}
    assert sum(r["wins"] for r in doc["seats"]) == 2
