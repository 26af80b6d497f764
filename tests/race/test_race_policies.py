"""Built-in pace and bet policies on hand-built boards; a sentinel user policy."""

import numba
import numpy as np
import pytest

from sheepsim import rng
from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race import policies as P
from sheepsim.games.race.rules import load_rules
from sheepsim.rng import new_streams

from .helpers import make_state

NO_BETS = np.zeros((2, 6), dtype=np.int64)


def _legal(board, race, lane):
    from sheepsim.games.race import engine

    legal = np.zeros(L.N_OPTIONS, dtype=np.bool_)
    engine.legal_options(board, race, lane, legal)
    return legal


def _choose(pid, board, race, lane, seen=NO_BETS):
    return P.choose_pace(pid, lane, board, race, seen, _legal(board, race, lane),
                         P.policy_stream(new_streams()))


def test_greedy_crosses_with_the_first_option_in_the_crossing_order():
    # Issue 2: "(1) if some legal option crosses the Finish Line, take the first such in
    # the order WALK_FREE, WALK_RECOVER, TROT_BLUE, GALLOP_BLUE2, GALLOP_RED, ..."
    board, race = make_state(positions=(20,) * 6, cubes=((1, 1, 1),) * 6)
    assert _choose(P.GREEDY, board, race, 0) == L.WALK_FREE
    board, race = make_state(positions=(18,) * 6, cubes=((1, 2, 0),) * 6, trot=3, gallop=5)
    assert _choose(P.GREEDY, board, race, 0) == L.TROT_BLUE


def test_greedy_moves_farthest_without_exhausting():
    # "(2) else, among legal options that do not exhaust the sheep, the one that moves
    # farthest"; ties by GALLOP_RED, GALLOP_BLUE2, GALLOP_WHITE, TROT_BLUE, ...
    board, race = make_state(positions=(0,) * 6, cubes=((1, 2, 0),) * 6, trot=3, gallop=5)
    assert _choose(P.GREEDY, board, race, 0) == L.GALLOP_RED
    # At square 10 with one red cube, galloping to 15 is fine (outside the End Zone);
    # at square 12 it would end on 17 with no cubes: exhausted, so it walks instead.
    board, race = make_state(positions=(10,) * 6, cubes=((1, 0, 0),) * 6, gallop=5)
    assert _choose(P.GREEDY, board, race, 0) == L.GALLOP_RED
    board, race = make_state(positions=(12,) * 6, cubes=((1, 0, 0),) * 6, gallop=5)
    assert _choose(P.GREEDY, board, race, 0) == L.WALK_RECOVER
    # "(3) else the legal option that moves farthest": in the End Zone with one red cube
    # only gallop (exhausting) and the free walk exist; the free walk is non-exhausting.
    board, race = make_state(positions=(16,) * 6, cubes=((1, 0, 0),) * 6, gallop=3)
    assert _choose(P.GREEDY, board, race, 0) == L.WALK_FREE


def test_random_pace_only_picks_legal_options_uniformly():
    board, race = make_state(cubes=((1, 0, 1),) * 6)
    legal = _legal(board, race, 0)
    streams = new_streams()
    from sheepsim import rng

    rng.seed_streams(streams, 7, 0)
    picks = [P.choose_pace(P.RANDOM_PACE, 0, board, race, NO_BETS, legal, P.policy_stream(streams))
             for _ in range(5000)]
    counts = np.bincount(picks, minlength=L.N_OPTIONS)
    assert set(np.flatnonzero(counts)) == set(np.flatnonzero(legal))
    # 5 legal options, 1000 expected each; sd = sqrt(5000*0.2*0.8) ~ 28, allow 5 sd
    assert np.all(np.abs(counts[legal] - 1000) < 5 * 28.3)


def test_saver_keeps_white_for_the_end_zone():
    board, race = make_state(positions=(2,) * 6, cubes=((0, 0, 1),) * 6)
    assert _choose(P.GREEDY, board, race, 0) == L.GALLOP_WHITE
    assert _choose(P.SAVER, board, race, 0) == L.WALK_RECOVER


def test_steady_rests_with_one_cube_outside_the_end_zone():
    board, race = make_state(positions=(4,) * 6, cubes=((1, 0, 0),) * 6)
    assert _choose(P.STEADY, board, race, 0) == L.REST
    assert _choose(P.SAVER, board, race, 0) == L.GALLOP_RED


def test_partisan_pushes_own_bets_and_stalls_rivals_open_bets():
    seen = np.zeros((2, 6), dtype=np.int64)
    seen[L.MY_BETS, 0] = 1
    seen[L.RIVAL_OPEN, 1] = 1
    board, race = make_state(positions=(4,) * 6, cubes=((1, 1, 0),) * 6)
    assert _choose(P.PARTISAN, board, race, 0, seen) == L.GALLOP_RED   # my sheep: run
    assert _choose(P.PARTISAN, board, race, 1, seen) == L.WALK_RECOVER  # rival's: crawl
    # A rival's sheep in the End Zone with one cube left is exhausted when possible.
    board, race = make_state(positions=(16,) * 6, cubes=((1, 0, 0),) * 6, gallop=2)
    assert _choose(P.PARTISAN, board, race, 1, seen) == L.GALLOP_RED
    # Another player's hidden bets are not visible: lane 3 is treated as nobody's.
    assert _choose(P.PARTISAN, board, race, 2, seen) == _choose(P.SAVER, board, race, 2, seen)


def _bets(pid, kind, odds, taken=None, my_open=-1):
    payoffs = np.array([[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1],
                        [18, 17, 16, 15, 14, 13]], dtype=np.int64)
    bonus = np.array([1, 3], dtype=np.int64)
    taken = np.zeros(6, dtype=np.bool_) if taken is None else taken
    out = np.full(2, -1, dtype=np.int64)
    P.choose_bets(pid, kind, odds, payoffs, bonus, taken, my_open, out,
                  P.policy_stream(new_streams()))
    return out.tolist()


def test_bet_policies_respect_the_open_bet_rule_and_their_criteria():
    odds = np.array([[0.0, 0.05, 0.1], [0.05, 0.1, 0.15], [0.1, 0.15, 0.2],
                     [0.15, 0.2, 0.2], [0.2, 0.25, 0.2], [0.5, 0.25, 0.15]])
    taken = np.array([0, 0, 0, 0, 0, 1], dtype=np.bool_)
    assert _bets(P.FAVOURITE, L.BET_OPEN, odds)[0] == 5
    assert _bets(P.FAVOURITE, L.BET_OPEN, odds, taken)[0] == 4
    assert _bets(P.LONGSHOT, L.BET_OPEN, odds)[0] == 0
    ev = [P.lane_ev(odds, np.array([[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1],
                                    [18, 17, 16, 15, 14, 13]]), lane, False) for lane in range(6)]
    assert _bets(P.EV_APPROX, L.BET_OPEN, odds, taken)[0] == int(np.argmax(ev[:5]))
    hidden = _bets(P.FAVOURITE, L.BET_HIDDEN, odds, taken, my_open=4)
    assert hidden == [5, 3]  # others' open lanes are allowed for hidden bets
    final = _bets(P.LONGSHOT, L.BET_FINAL, odds)
    assert final == [0, 1]


def _near_ev_choices(kind, odds, taken=None, my_open=-1, games=300):
    """near-ev's choices over ``games`` seeded policy streams."""
    payoffs = np.array([[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1],
                        [18, 17, 16, 15, 14, 13]], dtype=np.int64)
    bonus = np.array([1, 3], dtype=np.int64)
    taken = np.zeros(6, dtype=np.bool_) if taken is None else taken
    picks = []
    for g in range(games):
        streams = new_streams()
        rng.seed_streams(streams, 5, g)
        out = np.full(2, -1, dtype=np.int64)
        P.choose_bets(P.NEAR_EV, kind, odds, payoffs, bonus, taken, my_open, out,
                      P.policy_stream(streams))
        picks.append(tuple(out.tolist()))
    return picks, payoffs, bonus


def test_near_ev_draws_among_bets_within_its_share_of_the_best():
    # lanes 2-4 have EVs within 15% of each other (3.8, 3.76, 3.8), lanes 0-1 far below
    odds = np.array([[0.0, 0.05, 0.1], [0.05, 0.1, 0.1], [0.2, 0.2, 0.2],
                     [0.27, 0.2, 0.2], [0.3, 0.3, 0.25], [0.23, 0.2, 0.2]])
    taken = np.array([0, 0, 0, 0, 0, 1], dtype=np.bool_)
    picks, payoffs, bonus = _near_ev_choices(L.BET_OPEN, odds, taken)
    ev = np.array([P.lane_ev(odds, payoffs, lane, False) for lane in range(6)])
    near = set(np.flatnonzero((ev >= ev[:5].max() * (1 - P.NEAR_EV_SHARE)) & ~taken).tolist())
    assert len(near) >= 2  # the set-up offers a real choice
    # every near-best untaken lane is drawn, and nothing else (300 draws: a lane drawn
    # with probability 1/len(near) <= 1/2 is missed with probability 2**-300)
    assert {p[0] for p in picks} == near
    # hidden: pairs with the open bet, never the open lane itself, EV near the best set
    picks, *_ = _near_ev_choices(L.BET_HIDDEN, odds, taken, my_open=0)
    sets = {(a, b): P.set_ev(odds, payoffs, bonus, 0, a, b)
            for a in range(6) for b in range(a + 1, 6) if 0 not in (a, b)}
    best = max(sets.values())
    assert all(p in sets and sets[p] >= best * (1 - P.NEAR_EV_SHARE) for p in picks)
    assert len(set(picks)) >= 2
    picks, *_ = _near_ev_choices(L.BET_FINAL, odds)
    pairs = {(a, b): P.lane_ev(odds, payoffs, a, True) + P.lane_ev(odds, payoffs, b, True)
             for a in range(6) for b in range(a + 1, 6)}
    best = max(pairs.values())
    assert set(picks) == {p for p, v in pairs.items() if v >= best * (1 - P.NEAR_EV_SHARE)}


# ------------------------------------------------------------------ user policies
@numba.njit
def reverse_random(lane, board, race, seen, legal, rand):
    """Sentinel user policy: the k-th legal option counted from the end, k drawn from
    the policy stream (no built-in plays like this, so a fallback would show)."""
    n = 0
    for o in range(L.N_OPTIONS):
        if legal[o]:
            n += 1
    k = P.randbelow(rand, n)
    for o in range(L.N_OPTIONS - 1, -1, -1):
        if legal[o]:
            if k == 0:
                return o
            k -= 1
    return -1


def _trace(kernels, pace_id, seed=8, game=3):
    rules = load_rules()
    log = np.zeros((2000, engine.N_LOG), dtype=np.int64)
    board = np.zeros((6, L.N_BOARD), dtype=np.int64)
    turns = kernels.trace_race(seed, game, rules.kernel_rules(), np.arange(6), L.SEMIFINAL,
                               pace_id, log, board)
    return rules, log[:turns]


def test_user_pace_policy_makes_its_own_choices_from_its_own_stream():
    """Replay the sentinel's trace in Python: every logged option is the one the
    sentinel picks from the legal options with draws from the game's POLICY stream; the
    dice are those of a built-in policy under the same seed (it never saw them)."""
    from sheepsim.games.race.kernels import BUILTIN, kernels_for

    rules, log = _trace(kernels_for((reverse_random,), ()), P.N_PACE_POLICIES)
    _, greedy_log = _trace(BUILTIN, P.GREEDY)
    n = min(len(log), len(greedy_log))
    assert np.array_equal(log[:n, engine.LOG_TOTAL], greedy_log[:n, engine.LOG_TOTAL])
    streams = new_streams()
    rng.seed_streams(streams, 8, 3)
    rand = P.policy_stream(streams)
    table = engine.new_table()
    engine.setup_race(table, rules.kernel_rules(), np.arange(6), L.SEMIFINAL)
    board, race = table.board, table.race
    legal = np.zeros(L.N_OPTIONS, dtype=np.bool_)
    for row in log:
        lane = int(row[engine.LOG_LANE])
        assert engine.select_sheep(board, int(row[engine.LOG_TOTAL]))[0] == lane
        engine.legal_options(board, race, lane, legal)
        options = np.flatnonzero(legal)[::-1]
        expected = options[P.randbelow(rand, len(options))]
        assert row[engine.LOG_OPTION] == expected
        engine.apply_option(board, race, lane, expected)
    assert engine.race_over(board, race)


def test_unknown_policy_ids_raise():
    from sheepsim.games.race.kernels import BUILTIN

    with pytest.raises(ValueError, match="unknown pace policy"):
        _trace(BUILTIN, P.N_PACE_POLICIES)
    with pytest.raises(ValueError, match="unknown bet policy"):
        _bets(P.N_BET_POLICIES, L.BET_OPEN, np.full((6, 3), 1 / 6))
