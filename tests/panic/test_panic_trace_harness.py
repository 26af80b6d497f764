"""``panic trace`` of built-in line-ups comes from the shared harness: the machine's
stretches move the event log and the decision log to the harness's event rows (slot
``own_events``), and the trace is the one the engine's own trace kernel plays (the
pinned traces are in ``test_panic_pinned.py`` and ``test_panic_pinned_commands.py``)."""

import numpy as np
import pytest

from sheepsim.games.panic import engine
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies import resolve_policies
from sheepsim.games.panic.simulate import trace_game

LINEUPS = [  # (players, policies, playouts): every built-in, rollout's playouts apart
    (4, "random", 4),
    (3, "greedy,greedy-v1,random", 4),
    (3, "rollout,rollout-v1,greedy", 1),
]


@pytest.mark.parametrize("players,policies,playouts", LINEUPS)
def test_built_in_traces_are_the_engine_trace_kernels(rules, monkeypatch, players, policies,
                                                       playouts):
    """Games 0-2 of seed 8: the same event log rows, decision log, final state and winner
    as the engine's trace kernel (built-ins only: ``engine.BUILTIN``), which the trace no
    longer calls for them."""
    R = rules.kernel_array(players)
    ids, _ = resolve_policies(policies.split(",") if "," in policies else [policies] * players)
    pids, po = engine.kernel_policies(ids, playouts)
    monkeypatch.setattr(engine, "kernels_for", None)  # a built-in trace must not reach it
    for game in range(3):
        tr = trace_game(rules, players=players, policies=policies, seed=8, game=game,
                        playouts=playouts)
        st = np.zeros(L.ST_LEN, dtype=np.int64)
        log = engine.new_log()
        run = engine.BUILTIN.trace_game(R, pids, 8, game, po, st, log,
                                        np.zeros(L.ACC_LEN, dtype=np.int64))
        assert run.failure is None and (log[:run.log_rows, 0] == L.EV_ACTION).sum() > 5
        assert np.array_equal(tr.log, log[:run.log_rows])
        assert np.array_equal(tr.state, st) and tr.winner == run.winner
        assert tr.decisions["seat"].tolist() == (run.decisions[:, L.D_SEAT] + 1).tolist()
        assert tr.decisions["kind"].tolist() == [L.KIND_NAMES[k].lower()
                                                 for k in run.decisions[:, L.D_KIND]]
        assert tr.decisions["choice"].tolist() == run.decisions[:, L.D_CHOICE].tolist()
        assert tr.decisions["n_options"].tolist() == run.decisions[:, L.D_N].tolist()
        assert len(tr.decisions) > 20
