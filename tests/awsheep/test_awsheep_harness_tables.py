"""Aw, Sheep!'s play tables and metrics from the harness (issue 46, item 1): the
harness's ``game_length``, ``decisions`` and ``course`` tables cross-checked against the
game's own counts and a round's decision log, and the shared metrics computed from them."""

import numpy as np
import pytest

import sheepsim
from sheepsim import driver
from sheepsim.games.awsheep.jobs import HARNESS_TABLES, PlayJob
from sheepsim.harness import layout as H
from sheepsim.harness import metrics as harness_metrics
from sheepsim.harness.jobs import run_games


def _round_log(s, seed, game):
    """Every decision of round ``game`` of ``seed`` (forced ones included), as logged."""
    _, _, _, _, log = run_games(s.machine, s.kernel, s.R, s.players, s.pids, False, seed,
                                game, 1, False, log_rows=1000)
    assert 0 < len(log) < 1000
    return log


def _harness_turns(log) -> int:
    """The harness's turns of a round: runs of decisions by one seat (a response by the
    target of a card is a turn of its own, so these are not the game's turns)."""
    seats = log[:, H.L_SEAT]
    return 1 + int((seats[1:] != seats[:-1]).sum())


@pytest.mark.parametrize("players,policies,draft", [
    (4, "counter,greedy,random,random", False), (3, "random", True)])
def test_harness_game_length_and_decisions_are_the_rounds_logged_decisions(players, policies,
                                                                              draft):
    """Rounds 0-39 of seed 9: the harness's ``game_length`` and ``decisions`` rows are
    the totals of the rounds' decision logs (every decision, forced ones included)."""
    n = 40
    job = PlayJob(None, players, policies, 9, draft)
    s = job._s()
    t = job.tables(job.chunk(0, n), n)
    logs = [_round_log(s, 9, g) for g in range(n)]
    dec = np.array([len(x) for x in logs], dtype=float)
    turns = np.array([_harness_turns(x) for x in logs], dtype=float)
    gl = t["game_length"].iloc[0]
    assert gl["games"] == n
    assert gl["mean_decisions"] == pytest.approx(dec.mean(), rel=1e-12)
    assert gl["sd_decisions"] == pytest.approx(dec.std(ddof=1), rel=1e-9)
    assert gl["mean_turns"] == pytest.approx(turns.mean(), rel=1e-12)
    assert gl["sd_turns"] == pytest.approx(turns.std(ddof=1), rel=1e-9)
    every = np.concatenate(logs)
    assert gl["asked_share"] == pytest.approx((every[:, H.L_ASKED] == 1).mean(), rel=1e-12)
    d = t["decisions"]
    assert list(d["kind"]) == [k.lower() for k in s.machine.kinds]
    for k, row in enumerate(d.itertuples()):
        mine = every[every[:, H.L_KIND] == k]
        assert row.per_game == pytest.approx(len(mine) / n, rel=1e-12)
        if len(mine):
            assert row.mean_options == pytest.approx(mine[:, H.L_N].mean(), rel=1e-12)
            assert row.forced_share == pytest.approx((mine[:, H.L_N] == 1).mean(), abs=1e-12)
        else:
            assert np.isnan(row.mean_options)
    assert (d["per_game"] > 0).sum() >= 2  # more than one kind of decision was made


def test_the_harness_course_covers_the_rounds_a_seat_won():
    job = PlayJob(None, 4, "counter,random,greedy,random", 5, rotate=True)
    t = driver.run(job, games=3000).tables
    assert set(HARNESS_TABLES) <= set(t)
    course = t["course"].iloc[0]
    assert course["won_games"] == t["by_seat"]["wins"].sum() > 0
    assert 0 <= course["comeback_rate"] <= 1 and 0 <= course["mean_decided_at"] <= 1
    assert course["mean_lead_changes"] >= 0 and course["mean_winner_deficit"] >= 0
    # the game's own tables are the game's: its round_length counts its own turns
    assert t["round_length"]["rounds"].iloc[0] == t["game_length"]["games"].iloc[0] == 3000


def test_awsheep_gets_the_harness_metrics():
    table = sheepsim.metrics("aw-sheep").tables["metrics"]
    names = list(table["metric"])
    assert len(names) == len(set(names)) >= 15
    # all but the harness's outcomes (no such table), and its turns (not the game's turns)
    shared = {m.name for m in harness_metrics.METRICS} - {"draw_rate", "tie_rate", "sd_turns"}
    assert shared <= set(names)
    own = {"first_player_edge", "skill_edge", "flock_off_share", "mean_turns"}
    assert own <= set(names)
