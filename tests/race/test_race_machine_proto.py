"""PROTOTYPE (branch only): the race's whole game on the harness
(``sheepsim/games/race/machine.py``) plays the engine's games: per-game scores and
winners identical, for all-``greedy`` pace and for built-in pace policies mixed per seat
(``benchmarks/race_machine.py check`` runs the larger set)."""

import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.race.policies import FIRST_USER_ID
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import game_rows, resolve_policies
from sheepsim.harness import machine as M
from sheepsim.harness.jobs import run_games

MACHINE = "sheepsim.games.race.machine"


def machine_games(rules, pol, players, first, n):
    m = M.load(MACHINE)
    pids = np.array([*pol.bet_ids, *pol.pace_ids], dtype=np.int64)  # role-major
    R = m.module.make_R(rules, players)
    return run_games(m, m.kernel((), FIRST_USER_ID, pids), R, players, pids, False, 3, first,
                     n, outcomes=True)


@pytest.mark.parametrize("players, pace, bets", [
    (4, "greedy", "ev-approx,random,favourite,near-ev"),
    (3, "random,saver,steady", "ev-approx"),
    (6, "partisan,greedy,random,steady,saver,greedy", "random,longshot,ev-approx,random,"
                                                      "near-ev,favourite"),
])
def test_the_machine_plays_the_engines_games(players, pace, bets):
    rules = load_rules()
    pol = resolve_policies(pace, bets, players)
    _, fail, winners, scores, _ = machine_games(rules, pol, players, 40, 300)
    e_scores, e_winners = game_rows(rules, pol, 3, 40, 300)[:2]
    assert fail[0] == 0
    np.testing.assert_array_equal(scores, e_scores)
    np.testing.assert_array_equal(winners, e_winners)


def test_the_machine_refuses_lookahead_pace():
    rules = load_rules()
    pol = resolve_policies("lookahead,greedy", "random", 2)
    with pytest.raises(SheepsimError, match="lookahead"):
        machine_games(rules, pol, 2, 0, 1)
