"""The harness (:mod:`sheepsim.harness`) on a toy game (``coin_machine``): its accounting
on hand-made games with known answers, the one-line failures of a broken machine or a
game that never ends, and games found through entry points."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sheepsim
from sheepsim import driver
from sheepsim import game as registry
from sheepsim.errors import SheepsimError
from sheepsim.harness import jobs
from sheepsim.harness import layout as H
from sheepsim.harness import machine as M
from sheepsim.harness.declare import game as declare

HERE = Path(__file__).parent
COIN = declare(name="coin", command="coin", title="Coin", min_players=2, max_players=4,
               policies=("random", "first"), machine="tests.harness.coin_machine")


SCRIPT = declare(name="script", command="script", title="Script", min_players=2,
                 max_players=2, policies=("random",), machine="tests.harness.script_machine")


@pytest.fixture
def coin(monkeypatch):
    """The toy games, installed as entry points would install them."""
    monkeypatch.setattr(registry, "_installed_games", lambda: (COIN, SCRIPT))
    return COIN


@pytest.mark.parametrize("points, expected", [
    # (A, B) at each turn's end: (3,0) (3,0) (3,0) (3,5) (7,5) (7,5) (7,5) (7,6); A wins.
    # The sole leader goes A, A, A, B, A...: 2 changes; the last turn A did not lead is
    # the 4th of 8, so A led for good after 4/8 = 0.5 of the turns; A's largest deficit
    # is 5 - 3 = 2; at the middle turn (the 4th) A was behind: a comeback.
    ((3, 0, 0, 5, 4, 0, 0, 1), (2, 0.5, 2, 1)),
    # (2,0) (2,2) (2,2) (2,2) (3,2)...: ties for the top interrupt A's lead without
    # ending it (0 changes), A is sole leader for good after the 4th turn (0.5), never
    # behind (deficit 0), level at the middle turn (no comeback)
    ((2, 2, 0, 0, 1, 0, 0, 0), (0, 0.5, 0, 0)),
    # B leads from the 2nd turn on: (1,0) (1,4) ...; B wins, 1 change, for good after 1/8
    ((1, 4, 0, 0, 0, 0, 0, 0), (1, 0.125, 1, 0)),
])
def test_the_course_of_a_game_on_hand_made_games(coin, tmp_path, points, expected):
    path = tmp_path / "script.toml"
    path.write_text("[script]\n" + "".join(f"p{t + 1} = {v}\n" for t, v in enumerate(points)))
    res = sheepsim.play("script", rules=str(path), players=2, games=20, quiet=True)
    c = res.tables["course"].iloc[0]
    assert c["won_games"] == 20
    changes, decided, deficit, comeback = expected
    assert c["mean_lead_changes"] == changes and c["mean_decided_at"] == decided
    assert c["mean_winner_deficit"] == deficit and c["comeback_rate"] == comeback
    assert c["mean_lead_changes_lo"] == c["mean_lead_changes_hi"] == changes  # no spread
    length = res.tables["game_length"].iloc[0]
    assert length["mean_turns"] == 8 and length["asked_share"] == 0


def _rules(tmp_path, rounds, options, fault=0):
    path = tmp_path / "coin.toml"
    path.write_text(f"[coin]\nrounds = {rounds}\noptions = {options}\nfault = {fault}\n")
    return str(path)


def test_forced_games_are_counted_exactly(coin, tmp_path):
    """One round, one option: every seat makes one forced decision (never asked), so a
    game is exactly ``players`` decisions and turns, none asked, one option each."""
    job = coin.job("play", rules=_rules(tmp_path, 1, 1), players=3, policies="random", seed=4)
    res = driver.run(job, games=500, progress=False)
    length = res.tables["game_length"].iloc[0]
    assert length["mean_decisions"] == 3 and length["mean_turns"] == 3
    assert length["sd_decisions"] == 0 and length["asked_share"] == 0
    dec = res.tables["decisions"].iloc[0]
    assert dec["per_game"] == 3 and dec["mean_options"] == 1 and dec["forced_share"] == 1


def test_asked_decisions_and_options(coin, tmp_path):
    """Three rounds of 5 options: 3 x players decisions, every one asked, 5 options."""
    job = coin.job("play", rules=_rules(tmp_path, 3, 5), players=2, policies="random", seed=1)
    res = driver.run(job, games=300, progress=False)
    length = res.tables["game_length"].iloc[0]
    assert length["mean_decisions"] == 6 and length["asked_share"] == 1
    assert res.tables["decisions"].iloc[0]["mean_options"] == 5


def test_wins_scores_and_ties_match_the_outcomes(coin, tmp_path):
    """The accumulated tables agree with the per-game outcomes the head-to-heads read:
    wins by seat, mean score, and ties for the top score."""
    job = coin.job("play", rules=_rules(tmp_path, 2, 3), players=3, policies="random", seed=2)
    res = driver.run(job, games=400, chunk_games=64, progress=False)
    winners, scores = job.outcomes(0, 400)
    seat = res.tables["by_seat"]
    assert list(seat["wins"]) == [int((winners == s).sum()) for s in range(3)]
    assert np.allclose(seat["mean_score"], scores.mean(axis=0))
    top = scores.max(axis=1)
    tied = ((scores == top[:, None]).sum(axis=1) > 1).mean()
    assert res.tables["outcomes"]["tie_for_top_rate"].iloc[0] == pytest.approx(tied)
    assert 0 < tied < 1  # the toy game has ties: the check is not vacuous


def test_a_list_of_games_plays_those_games_and_gives_their_results(coin, tmp_path):
    """``run_games`` on a list of game indices (any order, repeats) plays exactly those
    games of the range (rotated seats too), the slot ``result`` gives each one's row, and
    without ``counts`` the same games are played, nothing counted."""
    from sheepsim.harness.jobs import run_games

    job = coin.job("play", rules=_rules(tmp_path, 2, 3), players=3,
                   policies="random,first,random", seed=6, rotate=True)
    kernel, pids, R = job._setup()
    acc, _, winners, scores, _ = run_games(job.machine, kernel, R, 3, pids, True, 6, 0, 40,
                                           True)
    games = np.array([31, 4, 4, 17, 0], dtype=np.int64)
    acc_l, fail, win_l, scores_l, _, res = run_games(job.machine, kernel, R, 3, pids, True, 6,
                                                     0, 0, True, games=games, results=True)
    assert fail[0] == 0 and acc_l[0] == len(games)
    assert np.array_equal(win_l, winners[games]) and np.array_equal(scores_l, scores[games])
    assert len(set(winners[games])) > 1  # the games differ: the check is not vacuous
    assert np.array_equal(res, np.column_stack([np.full(len(games), 6), scores[games].sum(1)]))
    *_, none = run_games(job.machine, kernel, R, 3, pids, True, 6, 0, 5, False, results=True)
    assert none.shape == (0, 2)  # results come with the outcomes only
    acc_n, _, win_n, scores_n, _ = run_games(job.machine, kernel, R, 3, pids, True, 6, 0, 0,
                                             True, games=games, counts=False)
    assert acc_n.shape == (0,)  # nothing counted, the same outcomes
    assert np.array_equal(win_n, win_l) and np.array_equal(scores_n, scores_l)


def test_a_machine_that_names_a_seat_not_at_the_table_is_one_line(coin, tmp_path):
    with pytest.raises(SheepsimError, match=r"broke the harness contract in game 0: to_move "
                                            r"gave seat 2, kind 0, 1 options") as err:
        sheepsim.play("coin", rules=_rules(tmp_path, 3, 1, fault=1), players=2, games=50,
                      quiet=True)
    assert "\n" not in str(err.value)


def test_a_game_that_never_ends_stops_the_run_with_one_line(coin, tmp_path):
    with pytest.raises(SheepsimError, match=r"Coin game 0 ran past 1,000 decisions"):
        sheepsim.play("coin", rules=_rules(tmp_path, 3, 2, fault=2), players=2, games=50,
                      quiet=True)


def test_a_rules_file_is_checked_key_by_key(coin, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[coin]\nrounds = 0\noptions = 2\nfault = 0\n")
    with pytest.raises(SheepsimError, match=r"coin\.rounds"):
        coin.load_rules(str(bad))
    bad.write_text("[coin]\nrounds = 1\noptions = 2\nfault = 0\nextra = 1\n")
    with pytest.raises(SheepsimError, match=r"extra"):
        coin.load_rules(str(bad))


def test_the_trace_logs_every_decision(coin, tmp_path):
    tr = sheepsim.trace("coin", rules=_rules(tmp_path, 3, 2), players=2, seed=3,
                        policy="first,random", quiet=True)
    table = tr.tables["decisions"]
    assert len(table) == 6 and list(table["seat"]) == [1, 2, 1, 2, 1, 2]
    assert (table[table.seat == 1]["choice"] == 0).all()  # "first"


class _EntryPoint:
    def __init__(self, name, value, load):
        self.name, self.value, self.load = name, value, load


def test_an_entry_point_that_cannot_be_loaded_is_one_line(monkeypatch):
    import importlib.metadata

    def broken():
        raise ImportError("No module named 'gone'")

    for load, says in ((broken, "cannot be loaded: ImportError"),
                       (lambda: object(), "is not a sheepsim.game.Game")):
        monkeypatch.setattr(importlib.metadata, "entry_points",
                            lambda group, load=load: [_EntryPoint("gone", "gone.game:GAME", load)])
        with pytest.raises(SheepsimError, match=rf"the installed game 'gone' \(gone.game:GAME\) {says}"):
            registry._installed_games.__wrapped__()


def test_an_entry_point_game_joins_the_registry(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [_EntryPoint("coin", "x:GAME", lambda: COIN)])
    assert registry._installed_games.__wrapped__() == (COIN,)


def _metric(name):
    from sheepsim.harness.metrics import METRICS

    return next(m for m in METRICS if m.name == name).compute


def test_branching_forced_share_and_spreads_on_hand_made_games(coin, tmp_path):
    """One round of one option (every decision forced, every game 3 decisions long), then
    three rounds of five options (none forced): the metrics' known values."""
    forced = driver.run(coin.job("play", rules=_rules(tmp_path, 1, 1), players=3,
                                 policies="random", seed=4), games=300,
                        progress=False).tables
    assert _metric("branching")(forced, None, 3) == 1
    assert _metric("forced_share")(forced, None, 3) == 1
    assert _metric("sd_turns")(forced, None, 3) == 0 == _metric("sd_decisions")(forced, None, 3)
    asked = driver.run(coin.job("play", rules=_rules(tmp_path, 3, 5), players=2,
                                policies="random", seed=1), games=300,
                       progress=False).tables
    assert _metric("branching")(asked, None, 2) == 5
    assert _metric("forced_share")(asked, None, 2) == 0


def test_outcome_uniformity_is_the_winners_normalised_entropy(coin, tmp_path):
    """The script game's winner is always seat 1 (3 + 4 against 5 + 1 points): 0. The
    coin game's winners spread over the seats: the entropy of the win counts over
    log(players), computed here by hand from the per-game outcomes."""
    path = tmp_path / "script.toml"
    path.write_text("[script]\n" + "".join(f"p{t + 1} = {v}\n"
                                           for t, v in enumerate((3, 0, 0, 5, 4, 0, 0, 1))))
    res = sheepsim.play("script", rules=str(path), players=2, games=20, quiet=True)
    assert _metric("outcome_uniformity")(res.tables, None, 2) == 0
    job = coin.job("play", rules=_rules(tmp_path, 2, 3), players=3, policies="random", seed=2)
    tables = driver.run(job, games=400, progress=False).tables
    winners, _ = job.outcomes(0, 400)
    p = np.bincount(winners, minlength=3) / 400
    assert 0 < p.min()  # every seat wins some: not the degenerate case
    expected = -(p * np.log(p)).sum() / np.log(3)
    assert _metric("outcome_uniformity")(tables, None, 3) == pytest.approx(expected, rel=1e-12)


def _own_counts(machine, pids, picks, options, own, trace=False):
    m = M.load(f"tests.harness.{machine}")
    pids = np.array(pids, dtype=np.int64)
    R = np.array([4, picks, options, own], dtype=np.int64)
    acc, fail, winners, scores, _ = jobs.run_games(m, m.kernel((), 2, pids, trace), R, 3,
                                                   pids, True, 7, 0, 300, outcomes=True)
    assert fail[H.F_CODE] == 0
    return acc, winners, scores


@pytest.mark.parametrize("pids", [(0, 0, 0), (0, 1, 0), (1, 0, 1)])
@pytest.mark.parametrize("picks, options", [(3, 3), (2, 1)])
def test_stretches_a_machine_plays_itself_count_as_asked_ones(pids, picks, options):
    """Slot ``own``: the toy machine playing its ``random`` seats' decisions itself
    (rules key ``own`` 1) or every seat's (2) counts every game as the harness asking
    each decision does (0): the whole accumulator (decisions, turns, asked, kinds,
    scores, the course from the turns' end scores) and the outcomes, with turns spanning
    calls of ``own`` and asked seats between its stretches; so does the own-only entry
    (:func:`sheepsim.harness.loop.play_own_games`) of a machine that declares
    ``OWN_BUILTINS``, and its general entry (a trace's)."""
    asked = _own_counts("own_machine", pids, picks, options, 0)
    acc, _, _ = asked
    off = M.load("tests.harness.own_machine").offsets(3)
    assert acc[off[H.O_TURNS]] == 300 * 12 and acc[off[H.O_DECISIONS]] == 300 * 12 * picks
    assert acc[off[H.O_WON]] == 300 and acc[off[H.O_LEAD_CHANGES]] > 0
    for found in (_own_counts("own_machine", pids, picks, options, 1),
                  _own_counts("own_machine", pids, picks, options, 2),
                  _own_counts("own_all_machine", pids, picks, options, 2),
                  _own_counts("own_all_machine", pids, picks, options, 2, trace=True)):
        for a, b in zip(found, asked, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("players, options", [(2, 3), (3, 2), (4, 1)])
def test_a_stretch_spanning_turns_counts_as_asked_ones(players, options):
    """Slot ``own_turns``: the toy machine playing each round of every seat's turns
    itself as one stretch (rules key ``own`` 1), a round's scores changing at its end
    only and its first seat the one that ended the round before (one turn across two
    stretches), counts every game as the harness asking each decision does (0): the
    whole accumulator (decisions, turns, asked, kinds, the course) and the outcomes."""
    m = M.load("tests.harness.own_turns_machine")
    pids = np.zeros(players, dtype=np.int64)
    found = []
    for own in (0, 1):
        R = np.array([5, options, own], dtype=np.int64)
        acc, fail, winners, scores, _ = jobs.run_games(m, m.kernel((), 1, pids), R, players,
                                                       pids, True, 7, 0, 300, outcomes=True)
        assert fail[H.F_CODE] == 0
        found.append((acc, winners, scores))
    off = m.offsets(players)
    acc = found[0][0]
    # a turn is a seat's decisions in a row: each round's first seat ended the one before
    assert acc[off[H.O_TURNS]] == 300 * (5 * (players - 1) + 1)
    assert acc[off[H.O_DECISIONS]] == 300 * 5 * players
    assert acc[off[H.O_WON]] == 300 and acc[off[H.O_LEAD_CHANGES]] > 0
    for a, b in zip(found[1], found[0], strict=True):
        np.testing.assert_array_equal(a, b)
