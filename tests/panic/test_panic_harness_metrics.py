"""Shear Panic's metrics from the harness (:mod:`sheepsim.games.panic.metrics`): each is
computed from the harness's counts of the games Shear Panic's job plays, and those
counts agree with the game's own (its tally and its traces) on the same games."""

import math

import numpy as np
import pytest

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.jobs import MACHINE, MetricsJob
from sheepsim.games.panic.metrics import METRICS
from sheepsim.games.panic.simulate import trace_game
from sheepsim.harness import machine as M
from sheepsim.harness.metrics import METRICS as SHARED
from sheepsim.harness.tables import fields

GAMES = 40


@pytest.fixture(scope="module", params=["random", "greedy"])
def played(request):
    job = MetricsJob(None, 3, request.param, seed=3)
    counts = job.chunk(0, GAMES)
    return request.param, job, counts, job.tables(counts, GAMES)


def test_panic_lists_the_shared_metrics_and_its_own():
    names = [m.name for m in METRICS]
    assert len(names) == len(set(names)) >= 15
    own = {"seat_win_spread", "tie_rate", "mean_turns", "tile_pick_spread"}
    # every shared metric but draw_rate (a game always has a winner); the names it shares
    # with the game's own metrics are the game's
    assert set(names) == own | {m.name for m in SHARED} - {"draw_rate"}
    assert all(m.job == "games" for m in METRICS)


def test_the_harness_counts_are_the_games(played):
    """On the same games: the harness's wins are the tally's; its turns are the tally's
    plus one opening push per seat (sd_turns the same), so ``mean_turns`` keeps the
    game's count; its ties for the top score are the tally's tie-breaks (``tie_rate``
    the same either way); its asked decisions are the decisions the traces of the games
    record, and every decision is counted once by kind."""
    policy, job, counts, t = played
    f = fields(counts["harness"], 3, len(M.load(MACHINE).kinds))
    acc = counts["acc"]
    assert np.array_equal(f["wins"], acc[L.A_WINS:L.A_WINS + 3])
    assert f["turns"][0] == acc[L.A_TURNS] + 3 * GAMES
    assert f["turns_sq"][0] == acc[L.A_TURNS_SQ] + 6 * acc[L.A_TURNS] + 9 * GAMES
    assert f["tied"][0] == acc[L.A_TIE_BREAK + 1] + acc[L.A_TIE_BREAK + 2]
    assert f["kind_decisions"].sum() == f["decisions"][0] > f["asked"][0] > 0
    traced = sum(len(trace_game(None, 3, [policy], seed=3, game=g).decisions)
                 for g in range(GAMES))
    assert f["asked"][0] == traced
    gl = t["game_length"].iloc[0]
    assert gl["mean_turns"] == pytest.approx(t["turns"]["mean_turns"].iloc[0] + 3)
    assert gl["mean_decisions"] == pytest.approx(f["decisions"][0] / GAMES)


def test_every_metric_is_computed_from_the_tables(played):
    """Each metric has a finite value; those that read a count directly equal it."""
    _, job, counts, t = played
    values = {m.name: m.compute(t, job.rules, 3) for m in METRICS}
    assert all(math.isfinite(v) for v in values.values()), values
    acc = counts["acc"]
    assert values["mean_decisions"] == pytest.approx(
        fields(counts["harness"], 3, len(M.load(MACHINE).kinds))["decisions"][0] / GAMES)
    assert values["mean_turns"] == pytest.approx(acc[L.A_TURNS] / GAMES)
    assert values["tie_rate"] == pytest.approx(acc[L.A_TIE_BREAK + 1:L.A_TIE_BREAK + 3].sum()
                                               / GAMES)
    assert values["first_player_edge"] == pytest.approx(acc[L.A_WINS] / GAMES - 1 / 3)
    assert 0 < values["outcome_uniformity"] <= 1
    assert 0 < values["forced_share"] < 1 and values["branching"] > 1
