"""Plug-in pace and bet policies on the race machine (``sheepsim/games/race/cut.py``):
each race is cut before a plug-in seat's pace decision, which the harness asks through
its guard, as it asks every bet. The games are the engine's with the same plug-ins
(the engine's game kernel compiled around them, ``engine.run_game``, removed in 0.8.0
once the machine played every line-up: its rows and lines are pinned here, taken when
the machine's equalled them): every game's rows (scores, winner, first player, turns and
cards placed per race), for plug-ins in pace and bet roles beside built-ins, 3-6 players
(``view_hash`` makes any difference in a view or an option list a different game, and
draws from its stream); a plug-in that is a built-in written as a plug-in leaves every
count of the harness as the built-in does; a plug-in's bad answer stops the run with the
engine's one line."""

from dataclasses import replace

import numba
import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.examples import always_gallop, inside_lanes
from sheepsim.games.race.jobs import HarnessJob
from sheepsim.games.race.policies import (
    EV_APPROX,
    FAVOURITE,
    FIRST_USER_ID,
    GREEDY,
    LOOKAHEAD,
    NEAR_EV,
    RANDOM_BET,
    RANDOM_PACE,
    SAVER,
    STEADY,
    WIN,
    decide,
    randbelow,
)
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import PolicySet, odds_tables
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M
from sheepsim.harness.jobs import raise_run_failure, run_games
from sheepsim.policy_values import POLICY_VALUE_SLOTS

from .helpers import rows_digest

MACHINE = "sheepsim.games.race.machine"


@numba.njit
def stream_pick(kind, view, opts, n, rand):
    """A uniform row from its own stream (``random``'s pace, as a plug-in)."""
    return randbelow(rand, n)


@numba.njit
def view_hash(kind, view, opts, n, rand):
    """Everything it is shown (the whole view to 1e-6, every column of every option row,
    the rows' width) hashed with one draw into its choice."""
    h = np.uint64(1469598103934665603)
    for j in range(view.shape[0]):
        v = np.int64(np.round(view[j] * 1e6))
        h = (h ^ np.uint64(v & 0xFFFFFFFF)) * np.uint64(1099511628211)
    for i in range(n):
        for j in range(opts.shape[1]):
            h = (h ^ np.uint64(opts[i, j] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    h = h ^ np.uint64(kind) ^ np.uint64(opts.shape[1]) ^ np.uint64(randbelow(rand, 7))
    return np.int64(h % np.uint64(n))


@numba.njit
def as_random(kind, view, opts, n, rand):
    """The built-in ``random`` pace and bets, asked through the one signature."""
    return decide(RANDOM_PACE if kind == L.PACE else RANDOM_BET, kind, view, opts, n, rand)


@numba.njit
def past_last(kind, view, opts, n, rand):
    """An illegal answer: one past the last row."""
    return n


@numba.njit
def writes_view(kind, view, opts, n, rand):
    """Writes to its view."""
    view[L.V_SEAT] = 99.0
    return 0


@numba.njit
def reads_past(kind, view, opts, n, rand):
    """Reads past the end of its view (a bounds-checked copy: an IndexError)."""
    return np.int64(view[L.N_VIEW + 5]) % n


#: one set of plug-ins for every line-up (the engine compiles its kernels once for it):
#: pace ids from FIRST_USER_ID, then the bets' (as simulate.resolve_policies numbers them)
USER_PACE = (view_hash, stream_pick, always_gallop, past_last, writes_view)
USER_BETS = (view_hash, stream_pick, inside_lanes, past_last, writes_view)
P_HASH, P_PICK, P_GALLOP, P_PAST, P_WRITES = range(FIRST_USER_ID, FIRST_USER_ID + 5)
B_HASH, B_PICK, B_INSIDE, B_PAST, B_WRITES = range(FIRST_USER_ID + 5, FIRST_USER_ID + 10)
NAMES = {P_HASH: "view_hash", P_PICK: "stream_pick", P_GALLOP: "always_gallop",
         P_PAST: "past_last", P_WRITES: "writes_view", B_HASH: "view_hash",
         B_PICK: "stream_pick", B_INSIDE: "inside_lanes", B_PAST: "past_last",
         B_WRITES: "writes_view"}


def _policies(pace, bets) -> PolicySet:
    def names(ids, builtin):
        return tuple(NAMES.get(i) or builtin[i] for i in ids)

    from sheepsim.games.race.policies import BET_POLICIES, PACE_POLICIES

    return PolicySet(names(pace, PACE_POLICIES), np.array(pace, dtype=np.int64),
                     names(bets, BET_POLICIES), np.array(bets, dtype=np.int64), USER_PACE,
                     USER_BETS)


def machine_games(rules, pol, first, n, seed, users=USER_PACE + USER_BETS):
    """``(acc, fail, winners, scores)`` of the race machine on the harness."""
    m = M.load(MACHINE)
    players = len(pol.pace_ids)
    pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)  # role-major
    R = m.module.make_R(rules, players, odds_tables(rules), pids)
    return run_games(m, m.kernel(users, FIRST_USER_ID, pids), R, players, pids, False, seed,
                     first, n, outcomes=True)[:4]


#: (pace ids, bet ids, seed, games): plug-ins in pace and bet roles beside built-ins
LINEUPS = [
    ([P_HASH, GREEDY, P_PICK], [EV_APPROX, B_HASH, RANDOM_BET], 1, 200),
    ([GREEDY, P_GALLOP, RANDOM_PACE, P_HASH], [B_INSIDE, B_PICK, FAVOURITE, EV_APPROX], 2, 200),
    ([P_HASH, P_HASH, P_HASH, P_HASH, P_HASH], [B_HASH] * 5, 3, 100),
    ([SAVER, P_PICK, STEADY, P_GALLOP, GREEDY, P_HASH], [NEAR_EV, B_HASH, B_INSIDE, EV_APPROX,
                                                         B_PICK, RANDOM_BET], 4, 100),
    ([GREEDY] * 4, [B_HASH, EV_APPROX, B_PICK, RANDOM_BET], 5, 200),  # plug-in bets only
    ([LOOKAHEAD, P_HASH, GREEDY], [WIN, B_HASH, EV_APPROX], 6, 6),  # R with the exact rules
]


#: rows_digest of the engine's rows (scores, winner, first, turns, race_cards) of games
#: 10.. of each line-up of LINEUPS (its seed as key)
PINNED_ROWS = {1: "7d29af9082e65d31", 2: "150995760034fece", 3: "2e7a6ba63f4920fb",
               4: "32288882812526d0", 5: "4bfb265d13a8bba1", 6: "502f3d09d2239d70"}


@pytest.mark.parametrize("pace,bets,seed,games", LINEUPS)
def test_the_machine_plays_the_engines_games_with_plugins(pace, bets, seed, games):
    rules = load_rules()
    pol = _policies(pace, bets)
    m = M.load(MACHINE)
    players = len(pace)
    pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)
    R = m.module.make_R(rules, players, odds_tables(rules), pids)
    # the kernel's plug-ins: the line-ups seat none past B_INSIDE, so the first 8 (the
    # POLICY_VALUE_SLOTS of the plug-in entry `sheepsim cache warm` compiles), the same
    # ids: that entry is loaded, not compiled again for a tuple of 10 (about 30 CPU s
    # cold, 2026-12-07). The line-up whose R holds the exact rules compiles an entry of
    # its own anyway (R's type) and gets all ten: more plug-ins than POLICY_VALUE_SLOTS
    users = USER_PACE + USER_BETS
    if not m.module.needs_exact(pids):
        users = users[:POLICY_VALUE_SLOTS]
    assert max(i for i in pids if i >= FIRST_USER_ID) < FIRST_USER_ID + len(users)
    acc, fail, winners, scores, _, res = run_games(
        m, m.kernel(users, FIRST_USER_ID, pids), R, players, pids, False, seed,
        10, games, outcomes=True, results=True)
    assert fail[H.F_CODE] == 0
    # (GamesJob.rows' layout of slot result: first, turns per race, the races' cards)
    rows = (scores, winners, res[:, 0], res[:, 1:4], res[:, 4:].reshape(games, 3, 3))
    assert rows_digest(*rows) == PINNED_ROWS[seed]
    off = M.load(MACHINE).offsets(len(pace))
    assert acc[off[H.O_ASKED]] > games  # the plug-ins were asked


@pytest.mark.parametrize("players,plugged", [(3, [0]), (4, [1, 3]), (6, [0, 1, 2, 3, 4, 5])])
def test_a_builtin_as_a_plugin_leaves_every_count_of_the_harness(players, plugged):
    """``as_random`` is ``random`` (pace and bets): seated in place of it, the whole
    accumulator (decisions, options and lone options by kind, asked, turns, the course
    of the lead) is the built-ins', so a plug-in seat's cut race is counted as the
    machine counts a race it plays itself."""
    rules = load_rules()
    base = PolicySet(("random",) * players, np.full(players, RANDOM_PACE),
                     ("random",) * players, np.full(players, RANDOM_BET))
    pace, bets = [RANDOM_PACE] * players, [RANDOM_BET] * players
    for s in plugged:
        pace[s], bets[s] = FIRST_USER_ID, FIRST_USER_ID + 1
    mixed = PolicySet(("x",) * players, np.array(pace), ("x",) * players, np.array(bets))
    ref = machine_games(rules, base, 0, 150, 8, users=())
    got = machine_games(rules, mixed, 0, 150, 8, users=(as_random, as_random))
    for a, b in zip(ref, got, strict=True):
        np.testing.assert_array_equal(a, b)


#: the engine's lines for the bad answers (pinned from its game kernel, see the top)
_WROTE = ("wrote to its read-only inputs (view or opts) when asked a {!r} decision with {} "
          "options; a policy must not change what it is shown")
BAD_LINES = [
    "policy 'past_last' (seat 2) in game 0 returned option 3, not one of its 3 legal options "
    "0..2 (a 'pace' decision)",
    "policy 'past_last' (seat 3) in game 0 returned option 4, not one of its 4 legal options "
    "0..3 (a 'bet_open' decision)",
    "policy 'writes_view' (seat 1) in game 0 " + _WROTE.format("pace", 2),
    "policy 'writes_view' (seat 2) in game 0 " + _WROTE.format("bet_open", 5),
]


@pytest.mark.parametrize("pace,bets,kind,engines", [
    ([GREEDY, P_PAST, RANDOM_PACE], [EV_APPROX] * 3, "pace", BAD_LINES[0]),
    ([GREEDY] * 4, [EV_APPROX, RANDOM_BET, B_PAST, EV_APPROX], "bet_open", BAD_LINES[1]),
    ([P_WRITES, GREEDY, GREEDY], [EV_APPROX] * 3, "pace", BAD_LINES[2]),
    ([GREEDY] * 3, [RANDOM_BET, B_WRITES, EV_APPROX], "bet_open", BAD_LINES[3]),
])
def test_a_bad_answer_is_the_engines_one_line(pace, bets, kind, engines):
    """A plug-in's illegal choice or write to its view stops the run at the same game
    with the engine's line: the policy, its seat, the game, the decision's kind, its
    options and the choice."""
    rules = load_rules()
    pol = _policies(pace, bets)
    # the one plug-in the line-up seats, given alone (its id FIRST_USER_ID): the kernel is
    # the plug-in entry `sheepsim cache warm` compiles (the ten of USER_PACE + USER_BETS,
    # more than POLICY_VALUE_SLOTS, would compile another: about 16 CPU s cold,
    # 2026-12-07); the line names the plug-in by the name it was given, whatever its id
    (plugin,) = {i for i in (*pace, *bets) if i >= FIRST_USER_ID}
    pol = replace(pol, **{k: np.where(ids == plugin, FIRST_USER_ID, ids) for k, ids in
                          (("pace_ids", pol.pace_ids), ("bet_ids", pol.bet_ids))})
    users = ((USER_PACE + USER_BETS)[plugin - FIRST_USER_ID],)
    _, fail, _, _ = machine_games(rules, pol, 0, 30, 11, users=users)
    with pytest.raises(SheepsimError) as ours:
        raise_run_failure(fail, M.load(MACHINE), "The Sheep Race", len(pace),
                          pol.policy_name)
    line = str(ours.value)
    assert line == engines and "\n" not in line
    assert f"a {kind!r} decision" in line and "(seat " in line and "in game " in line


def test_the_metrics_job_plays_plugins():
    """``HarnessJob`` (``race metrics``' harness job) takes plug-in names: its counts
    are the machine's, and a plug-in's bad choice is one line from its check."""
    rules = load_rules()
    pace = [f"{__name__}:view_hash", "greedy", f"{__name__}:stream_pick"]
    bets = ["ev-approx", f"{__name__}:view_hash", "random"]
    job = HarnessJob(rules, 3, bets, pace, seed=1)
    got = job.chunk(10, 40)
    job.check(got, 40)
    f = FIRST_USER_ID  # (resolve_policies' ids: the pace plug-ins, then the bets')
    ids = PolicySet(("x",) * 3, np.array([f, GREEDY, f + 1]), ("x",) * 3,
                    np.array([EV_APPROX, f + 2, RANDOM_BET]))
    acc, _, _, _ = machine_games(rules, ids, 10, 40, 1, users=(view_hash, stream_pick, view_hash))
    np.testing.assert_array_equal(got["acc"], acc)
    bad = HarnessJob(rules, 3, "random", ["greedy", f"{__name__}:past_last", "greedy"], seed=1)
    with pytest.raises(SheepsimError, match=r"past_last' \(seat 2\) in game \d+ returned "
                                            r"option \d+, not one of its \d+ legal options"):
        bad.check(bad.chunk(0, 20), 20)


def test_an_index_past_the_view_is_one_line(capsys):
    """An index outside the plug-in's view stops ``race variants`` on a harness metric
    (the race machine) with one line naming the error and the plug-in, exit code 2."""
    from sheepsim.cli import main

    code = main(["race", "variants", "--set", "race.payoffs.bonus_three=2", "--players", "3",
                 "--games", "200", "--metric", "mean_decisions", "--quiet", "--pace-policy",
                 f"{__name__}:reads_past"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "IndexError" in err[0] and f"{__name__}:reads_past" in err[0], err
