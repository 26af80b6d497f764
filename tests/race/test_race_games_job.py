"""The race's whole-game job (``jobs.GamesJob``: ``race play``, ``compare``, ``balance``'s
games, the race's own metrics, studies) plays a line-up of built-in policies on the race
machine through the harness (its per-game rows from the machine's slot ``result``), the
engine's games row for row; a line-up with a plug-in keeps the engine's game kernel. The
pinned outputs of every race command (``test_race_pinned.py``) hold either way."""

import numpy as np
import pytest

from sheepsim import plugins
from sheepsim.errors import SheepsimError
from sheepsim.games.race.jobs import GamesJob, raise_machine_failure
from sheepsim.games.race.simulate import GAME_COUNTS, PolicySet, game_chunk_fn, game_rows
from sheepsim.harness import layout as H

LINEUPS = [
    (4, "ev-approx", "greedy", 400),
    (2, "random", "random", 400),
    (5, "longshot,favourite,near-ev,random,ev-approx", "partisan,saver,greedy,steady,random",
     300),
    (3, "win,ev,ev-approx", "lookahead,greedy,saver", 6),
]
NAMES = ["scores", "winner", "first", "turns", "race_cards"]


@pytest.mark.parametrize("players, bets, pace, games", LINEUPS,
                         ids=[f"{p}-{b}-{q}" for p, b, q, _ in LINEUPS])
def test_the_jobs_rows_are_the_engines(players, bets, pace, games):
    """Every per-game row (scores, winner, first player, turns per race, the cards placed
    in each race) and every count equals the engine's, for the same games."""
    job = GamesJob(None, players, bets, pace, 7)
    got = job.rows(30, games)
    want = game_rows(job.rules, job.policies(), 7, 30, games)
    for name, a, b in zip(NAMES, got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert "machine_rows" in job._fns  # (played by the machine, not the engine)
    counts = job.chunk(30, games)
    engine = game_chunk_fn(job.rules, job.policies(), 7)(30, games)
    for name, e in zip(GAME_COUNTS, engine, strict=True):
        np.testing.assert_array_equal(counts[name], e, err_msg=name)


def test_a_lineup_with_a_plugin_plays_the_engine():
    """(The plug-in of the pinned outputs: its engine kernels are compiled for them.)"""
    plugin = "tests.race.test_race_pinned:reverse_random"
    job = GamesJob(None, 3, ["ev-approx", plugin, "random"], "greedy", 2)
    assert job.policies().has_plugins
    got = job.rows(0, 50)
    want = game_rows(job.rules, job.policies(), 2, 0, 50)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert "machine_rows" not in job.__dict__.get("_fns", {})


@pytest.mark.parametrize("kind, role", [(3, "pace"), (1, "bet")])
@pytest.mark.parametrize("code", [plugins.ILLEGAL_CHOICE, plugins.WROTE_INPUTS])
def test_a_failure_on_the_machine_is_the_engines_line(kind, role, code):
    """The built-in policies never fail, so the machine's path fails only where a plug-in
    seat would (once the machine plays plug-ins): its line, from the harness's failure
    record, is the engine's for the same failure (``kernels.check_asks``: the seat's
    policy of the decision's role, its seat, the game, the kind, the choice)."""
    from sheepsim.games.race.kernels import check_asks, new_asks
    from sheepsim.games.race.layout import (
        BET_PHASE,
        F_CHOICE,
        F_CODE,
        F_GAME,
        F_KIND,
        F_N,
        F_PHASE,
        F_SEAT,
        PACE_PHASE,
    )

    ids = np.zeros(3, dtype=np.int64)  # (the names alone are read)
    pol = PolicySet(("greedy", "x:pace", "saver"), ids, ("ev-approx", "x:bet", "random"), ids)
    asks = new_asks(3)
    for field, value in ((F_CODE, code), (F_SEAT, 1), (F_GAME, 1234), (F_CHOICE, 15),
                         (F_N, 15), (F_KIND, kind),
                         (F_PHASE, PACE_PHASE if role == "pace" else BET_PHASE)):
        asks.fail[field] = value
    with pytest.raises(SheepsimError) as engine_err:
        check_asks(asks, (pol.pace_names, pol.bet_names))
    fail = np.zeros(H.FAIL_WIDTH, dtype=np.int64)
    for field, value in ((H.F_CODE, code), (H.F_SEAT, 1), (H.F_GAME, 1234), (H.F_CHOICE, 15),
                         (H.F_N, 15), (H.F_KIND, kind), (H.F_PID, 99)):
        fail[field] = value
    with pytest.raises(SheepsimError) as machine_err:
        raise_machine_failure(fail, pol)
    assert str(machine_err.value) == str(engine_err.value)
    assert f"'x:{role}' (seat 2) in game 1234" in str(machine_err.value)
    assert machine_err.value.game == 1234
    raise_machine_failure(np.zeros(H.FAIL_WIDTH, dtype=np.int64), pol)  # no failure: nothing
