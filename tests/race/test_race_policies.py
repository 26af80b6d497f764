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


# ------------------------------------------------- the one signature: decide(kind, view, opts)
PAYOFFS = np.array([[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1],
                    [18, 17, 16, 15, 14, 13]], dtype=np.int64)
BONUS = np.array([1, 3], dtype=np.int64)


def _pace_inputs(board, race, lane, seen):
    legal = _legal(board, race, lane)
    opts = np.zeros((L.MAX_OPTS, 1), dtype=np.int64)
    n = P.pace_rows(legal, opts)
    view = np.zeros(L.N_VIEW)
    P.fill_pace_view(view, lane, 1, 3, board, race, seen)
    return legal, view, opts[:n], n


def test_pace_rows_are_the_legal_options_in_order_and_the_view_has_the_table():
    board, race = make_state(positions=[3, 0, 0, 0, 0, 0], cubes=[(1, 2, 1)] + [(1, 1, 1)] * 5)
    seen = np.array([[1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0]], dtype=np.int64)
    legal, view, opts, n = _pace_inputs(board, race, 0, seen)
    assert opts[:, 0].tolist() == np.flatnonzero(legal).tolist() and n == legal.sum() >= 2
    assert view[L.V_LANE] == 0 and view[L.V_SEAT] == 1 and view[L.V_PLAYERS] == 3
    assert view[L.V_BOARD + L.POS] == 3 and view[L.V_BOARD + L.BLUE] == 2
    assert view[L.V_RACE + L.TRACK] == race[L.TRACK]
    assert view[L.V_MY_BETS:L.V_MY_BETS + 6].tolist() == [1, 0, 0, 0, 0, 0]
    assert view[L.V_RIVAL_OPEN:L.V_RIVAL_OPEN + 6].tolist() == [0, 2, 0, 0, 0, 0]


@pytest.mark.parametrize("pid", [P.GREEDY, P.RANDOM_PACE, P.SAVER, P.STEADY, P.PARTISAN])
def test_built_in_pace_policies_choose_the_same_through_the_one_signature(pid):
    """decide(pid, PACE, view, opts) returns the row of the option choose_pace returns on
    the engine's own arrays, over many states (random: the same draws of the same stream)."""
    gen = np.random.default_rng(7)
    asked = 0
    for _ in range(300):
        pos = gen.integers(0, 19, 6).tolist()
        cubes = [tuple(gen.integers(0, 3, 3).tolist()) for _ in range(6)]
        board, race = make_state(positions=pos, cubes=cubes)
        race[L.SUPPLY_BLUE] = gen.integers(0, 4)
        lane = int(gen.integers(0, 6))
        seen = gen.integers(0, 2, (2, 6)).astype(np.int64)
        legal, view, opts, n = _pace_inputs(board, race, lane, seen)
        if n < 2:
            continue
        a, b = new_streams(), new_streams()
        rng.seed_streams(a, 1, asked)
        rng.seed_streams(b, 1, asked)
        option = P.choose_pace(pid, lane, board, race, seen, legal, P.policy_stream(a))
        row = P.decide(pid, L.PACE, view, opts, n, P.policy_stream(b))
        assert opts[row, 0] == option
        asked += 1
    assert asked > 100


def _bet_inputs(kind, odds, taken, my_open):
    opts = np.zeros((L.MAX_OPTS, 1 if kind == L.BET_OPEN else 2), dtype=np.int64)
    n = P.bet_rows(kind, taken, my_open, opts)
    view = np.zeros(L.N_VIEW)
    P.fill_bet_view(view, 0, 4, my_open, np.zeros(6, dtype=np.int64),
                    np.zeros(6, dtype=np.int64), odds, PAYOFFS, BONUS, taken)
    return view, opts[:n], n


def test_bet_rows_are_the_legal_choices():
    taken = np.array([0, 1, 0, 0, 1, 0], dtype=np.bool_)
    odds = np.full((6, 3), 1 / 6)
    _, opts, n = _bet_inputs(L.BET_OPEN, odds, taken, -1)
    assert opts[:, 0].tolist() == [0, 2, 3, 5] and n == 4
    _, opts, n = _bet_inputs(L.BET_HIDDEN, odds, taken, 2)
    assert [tuple(r) for r in opts] == [(a, b) for a in range(6) for b in range(a + 1, 6)
                                        if 2 not in (a, b)] and n == 10
    view, opts, n = _bet_inputs(L.BET_FINAL, odds, taken, -1)
    assert n == 15 and all(a < b for a, b in opts)
    assert view[L.V_LANE] == -1 and view[L.V_MY_OPEN] == -1
    assert view[L.V_TAKEN:L.V_TAKEN + 6].tolist() == [0, 1, 0, 0, 1, 0]
    assert view[L.V_PAYOFFS + 6 * 3 + 5] == 13 and view[L.V_BONUS + 1] == 3


@pytest.mark.parametrize("pid", [P.RANDOM_BET, P.FAVOURITE, P.LONGSHOT, P.NEAR_EV, P.EV_APPROX])
def test_built_in_bet_policies_choose_the_same_through_the_one_signature(pid):
    gen = np.random.default_rng(11)
    for g in range(60):
        odds = gen.dirichlet(np.ones(6), 3).T.copy()
        taken = gen.random(6) < 0.3
        my_open = int(gen.integers(0, 6))
        for kind in (L.BET_OPEN, L.BET_HIDDEN, L.BET_FINAL):
            mo = my_open if kind == L.BET_HIDDEN else -1
            view, opts, n = _bet_inputs(kind, odds, taken, mo)
            a, b = new_streams(), new_streams()
            rng.seed_streams(a, 2, g)
            rng.seed_streams(b, 2, g)
            out = np.full(2, -1, dtype=np.int64)
            P.choose_bets(pid, kind, odds, PAYOFFS, BONUS, taken, mo, out, P.policy_stream(a))
            row = P.decide(pid, kind, view, opts, n, P.policy_stream(b))
            if kind == L.BET_OPEN:
                assert opts[row, 0] == out[0]
            else:
                assert sorted(opts[row]) == sorted(out)


# ------------------------------------------------------------------ user policies
@numba.njit
def reverse_random(kind, view, opts, n, rand):
    """Sentinel user policy: the k-th option counted from the end, k drawn from its
    stream (no built-in plays like this, so a fallback would show)."""
    return n - 1 - P.randbelow(rand, n)


def _trace(pace_ids, user_pace=(), seed=8, game=3):
    """``race trace``'s race (the harness's, :func:`~sheepsim.games.race.trace.traced_race`)
    of seats playing the pace ids ``pace_ids``, the plug-ins ``user_pace`` from
    ``FIRST_USER_ID`` on: ``(rules, its turn log, the race)``."""
    from sheepsim.games.race.simulate import PolicySet
    from sheepsim.games.race.trace import traced_race

    rules = load_rules()
    pol = PolicySet(tuple(map(str, pace_ids)), np.array(pace_ids, dtype=np.int64),
                    user_pace=tuple(user_pace))
    race = traced_race(rules, np.arange(6), L.SEMIFINAL, pol, len(pace_ids), seed, game)
    return rules, race.turns, race


def test_user_pace_policy_makes_its_own_choices_from_its_own_stream():
    """Replay the sentinel's trace (seat 1 of 2; seat 0 greedy) in Python: every option
    seat 1 took is the one the sentinel picks from the legal options with draws from its
    own pace stream, keyed by (seed, game, seat 1, pace phase); the dice are those of a
    built-in policy under the same seed (it never saw them)."""
    from sheepsim.harness import layout as H

    rules, log, traced = _trace([P.GREEDY, P.FIRST_USER_ID], (reverse_random,))
    _, greedy_log, _ = _trace([P.GREEDY, P.GREEDY])
    n = min(len(log), len(greedy_log))
    assert np.array_equal(log[:n, engine.LOG_TOTAL], greedy_log[:n, engine.LOG_TOTAL])
    streams = np.zeros((1, 2), dtype=np.uint64)
    rng.seed_policy_stream(streams, 0, 8, 3, 1, L.PACE_PHASE)
    table = engine.new_table()
    engine.setup_race(table, rules.kernel_rules(), np.arange(6), L.SEMIFINAL)
    board, race = table.board, table.race
    legal = np.zeros(L.N_OPTIONS, dtype=np.bool_)
    asked = 0
    for row in log:
        lane = int(row[engine.LOG_LANE])
        assert engine.select_sheep(board, int(row[engine.LOG_TOTAL]))[0] == lane
        engine.legal_options(board, race, lane, legal)
        if row[engine.LOG_PLAYER] == 1 and legal.sum() > 1:
            options = np.flatnonzero(legal)[::-1]
            assert row[engine.LOG_OPTION] == options[P.randbelow(streams, len(options))]
            asked += 1
        engine.apply_option(board, race, lane, int(row[engine.LOG_OPTION]))
    assert engine.race_over(board, race) and asked > 5
    # the decisions log: every seat-1 decision, its choice counted from the end
    logged = traced.decisions
    assert (logged[:, H.L_SEAT] == 1).sum() == asked
    assert (logged[:, H.L_KIND] == L.PACE).all() and traced.fail[H.F_CODE] == 0


def test_unknown_policy_ids_raise():
    view = np.zeros(L.N_VIEW)
    opts = np.array([[0], [1]], dtype=np.int64)
    with pytest.raises(ValueError, match="unknown pace policy"):
        P.decide(P.FIRST_USER_ID, L.PACE, view, opts, 2, P.policy_stream(new_streams()))
    with pytest.raises(ValueError, match="unknown bet policy"):
        _bets(P.N_BET_POLICIES, L.BET_OPEN, np.full((6, 3), 1 / 6))
