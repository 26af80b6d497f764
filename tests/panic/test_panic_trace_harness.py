"""``panic trace`` comes from the shared harness: a built-in seat's stretches move the
event log and the decision log to the harness's event rows (slot ``own_events``), a
plug-in seat's cut turn its events and asked decisions (slot ``events``). A traced game
is the game ``play`` plays (the pinned traces are in ``test_panic_pinned.py`` and
``test_panic_pinned_commands.py``; the plug-ins' traces in ``test_panic_user_policy.py``)."""

import numpy as np
import pytest
from test_panic_cut import USERS

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies import resolve_policies
from sheepsim.games.panic.policies.decide import FIRST_USER_ID
from sheepsim.games.panic.simulate import trace_game

LINEUPS = [  # (players, policies, playouts): every built-in, rollout's playouts apart
    (4, ["random"] * 4, 4),
    (3, ["greedy", "greedy-v1", "random"], 4),
    (3, ["rollout", "rollout-v1", "greedy"], 1),
    (4, [USERS[2], "random", USERS[1], "greedy"], 4),  # plug-ins: view_hash, last_option
]


@pytest.mark.parametrize("players,policies,playouts", LINEUPS)
def test_a_traced_game_is_the_game_play_plays(rules, players, policies, playouts):
    """Games 0-2 of seed 8: the trace's final state, winner and scores are those of the
    same game played untraced on the harness (its tally: the engine's accumulator row of
    points, wins, sheep shorn, turns, panics, regroup rolls); the event log has one menu
    action a turn, and the decisions table one menu choice per menu action with two
    options or more."""
    from sheepsim.games.panic.scratch import new_scratch
    from sheepsim.harness import layout as H
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import run_games

    R = rules.kernel_array(players)
    ids, users = resolve_policies(policies)
    pids = np.array(ids, dtype=np.int64)
    m = M.load("sheepsim.games.panic.machine")
    kernel = m.kernel(users, FIRST_USER_ID, pids)
    off = m.offsets(players)
    for game in range(3):
        tr = trace_game(rules, players=players, policies=policies, seed=8, game=game,
                        playouts=playouts)
        acc, fail, *_ = run_games(m, kernel, R, players, pids, False, 8, game, 1,
                                  scratch=new_scratch(1, playouts))
        assert fail[H.F_CODE] == 0
        row = acc[off[H.O_GAME]:]
        st = tr.state
        assert tr.scores == row[L.A_POINTS:L.A_POINTS + players].tolist()
        assert row[L.A_WINS + tr.winner] == 1
        assert np.array_equal(st[L.ST_SHORN:L.ST_SHORN + L.N_COLOURS],
                              row[L.A_SHORN:L.A_SHORN + L.N_COLOURS])
        for field, total in ((L.ST_TURNS, L.A_TURNS), (L.ST_PANICS, L.A_PANICS),
                             (L.ST_REGROUP_ROLLS, L.A_REGROUP_ROLLS)):
            assert st[field] == row[total]
        actions = int((tr.log[:, 0] == L.EV_ACTION).sum())
        assert actions == st[L.ST_TURNS] > 20
        asked = tr.decisions[tr.decisions["kind"] == "action"]
        assert 0 < len(asked) <= actions and (asked["n_options"] >= 2).all()
        assert set(tr.decisions["seat"]) == set(range(1, players + 1))
