"""The race's whole-game job (``jobs.GamesJob``: ``race play``, ``compare``, ``balance``'s
games, the race's own metrics, studies) plays every line-up on the race machine through
the harness (its per-game rows from the machine's slot ``result``; a line-up with a
plug-in has its races cut before the plug-in's pace decisions, ``cut.py``). Its rows are
the engine's games: :data:`PINNED_ROWS` are digests of the rows of the engine's own game
kernel (``engine.run_game``, removed in 0.8.0 once the machine played every line-up),
pinned when the machine's rows equalled them. The pinned outputs of every race command
(``test_race_pinned.py``) hold too."""

import numpy as np
import pytest

from sheepsim import plugins
from sheepsim.errors import SheepsimError
from sheepsim.games.race.jobs import MACHINE, GamesJob
from sheepsim.games.race.simulate import GAME_COUNTS, PolicySet
from sheepsim.harness import layout as H
from sheepsim.harness.jobs import raise_run_failure
from sheepsim.harness.machine import load

from .helpers import rows_digest

LINEUPS = [
    (4, "ev-approx", "greedy", 400),
    (2, "random", "random", 400),
    (5, "longshot,favourite,near-ev,random,ev-approx", "partisan,saver,greedy,steady,random",
     300),
    (3, "win,ev,ev-approx", "lookahead,greedy,saver", 6),
]
#: rows_digest of the engine's rows (scores, winner, first, turns, race_cards) of games
#: 30.. of seed 7 for each line-up of LINEUPS (players as key)
PINNED_ROWS = {4: "60339b0034432a5b", 2: "484e1a090f84528c", 5: "48eea8cb3f713831",
               3: "1e6b659793b44062"}
#: the same for the line-up with a plug-in of test_a_lineup_with_a_plugin (games 0-49)
PINNED_PLUGIN_ROWS = "d98e18e9673742b1"


@pytest.mark.parametrize("players, bets, pace, games", LINEUPS,
                         ids=[f"{p}-{b}-{q}" for p, b, q, _ in LINEUPS])
def test_the_jobs_rows_are_the_engines(players, bets, pace, games):
    """Every per-game row (scores, winner, first player, turns per race, the cards placed
    in each race) is the engine's, for the same games; the counts are their sums."""
    job = GamesJob(None, players, bets, pace, 7)
    got = job.rows(30, games)
    shapes = [(games, players), (games,), (games,), (games, 3), (games, 3, 3)]
    assert [a.shape for a in got] == shapes and all(a.dtype == np.int64 for a in got)
    assert rows_digest(*got) == PINNED_ROWS[players]
    scores, winner, first, turns, race_cards = got
    counts = job.chunk(30, games)
    assert set(counts) == set(GAME_COUNTS)
    assert counts["wins"].tolist() == np.bincount(winner, minlength=players).tolist()
    assert counts["wins_by_order"].tolist() == np.bincount((winner - first) % players,
                                                           minlength=players).tolist()
    assert counts["turns"].tolist() == turns.sum(0).tolist()
    assert counts["score_sum"].tolist() == scores.sum(0).tolist()
    assert counts["final_wins_by_card"].sum() == games == counts["wins"].sum()


def test_a_lineup_with_a_plugin_plays_the_machine():
    """(The plug-in of the pinned outputs.) A line-up with a plug-in plays the race
    machine too, cut before the plug-in's decisions: the engine's games."""
    plugin = "tests.race.test_race_pinned:reverse_random"
    job = GamesJob(None, 3, ["ev-approx", plugin, "random"], "greedy", 2)
    assert job.policies().has_plugins
    assert rows_digest(*job.rows(0, 50)) == PINNED_PLUGIN_ROWS
    assert "machine" in job._fns


@pytest.mark.parametrize("kind, role", [(3, "pace"), (1, "bet")])
@pytest.mark.parametrize("code", [plugins.ILLEGAL_CHOICE, plugins.WROTE_INPUTS])
def test_a_failure_on_the_machine_is_the_single_races_line(kind, role, code):
    """The built-in policies never fail, so the machine's path fails only where a plug-in
    seat would: its line, from the harness's failure record, is the single races' for
    the same record (``PolicySet.check`` on the engine's ``asks.fail``, which is the
    harness's record: the seat's policy of the decision's role, its seat, the game, the
    kind, the choice)."""
    from sheepsim.games.race.kernels import new_asks

    ids = np.zeros(3, dtype=np.int64)  # (the names alone are read)
    pol = PolicySet(("greedy", "x:pace", "saver"), ids, ("ev-approx", "x:bet", "random"), ids)
    asks = new_asks(3)
    fail = np.zeros(H.FAIL_WIDTH, dtype=np.int64)
    for record in (asks.fail, fail):
        for field, value in ((H.F_CODE, code), (H.F_SEAT, 1), (H.F_GAME, 1234),
                             (H.F_CHOICE, 15), (H.F_N, 15), (H.F_KIND, kind), (H.F_PID, 99)):
            record[field] = value
    with pytest.raises(SheepsimError) as single_err:
        pol.check(asks)
    with pytest.raises(SheepsimError) as machine_err:
        machine_failure(fail, pol)
    assert str(machine_err.value) == str(single_err.value)
    assert f"'x:{role}' (seat 2) in game 1234" in str(machine_err.value)
    assert machine_err.value.game == 1234 == single_err.value.game
    machine_failure(np.zeros(H.FAIL_WIDTH, dtype=np.int64), pol)  # no failure: nothing
    pol.check(new_asks(3))


def machine_failure(fail, pol):
    """``GamesJob.raise_failure`` for the line-up ``pol``: the harness's line, a policy
    named by its role."""
    raise_run_failure(fail, load(MACHINE), "The Sheep Race", 3, pol.policy_name)


def test_the_machines_broken_contract_is_the_harness_line():
    """A failure record that is no policy's (a machine's bug) gets the harness's line,
    which names the game, the machine and what its ``to_move`` gave."""
    ids = np.zeros(3, dtype=np.int64)
    pol = PolicySet(("greedy",) * 3, ids, ("random",) * 3, ids)
    fail = np.zeros(H.FAIL_WIDTH, dtype=np.int64)
    for field, value in ((H.F_CODE, H.RULES_BROKEN), (H.F_SEAT, 5), (H.F_GAME, 77), (H.F_N, 0),
                         (H.F_KIND, 2)):
        fail[field] = value
    with pytest.raises(SheepsimError) as err:
        machine_failure(fail, pol)
    assert str(err.value) == (
        "The Sheep Race's machine 'sheepsim.games.race.machine' broke the harness contract "
        "in game 77: to_move gave seat 5, kind 2, 0 options (a seat below 3, a kind below 4, "
        f"1 to {load(MACHINE).module.MAX_OPTIONS} options)")
    assert err.value.game == 77
