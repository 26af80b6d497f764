"""Invariants under arbitrary legal play (hypothesis) and reproducibility."""

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sheepsim.games.race import engine
from sheepsim.games.race import layout as L
from sheepsim.games.race.jobs import play_games, race_counts
from sheepsim.games.race.policies import RANDOM_BET, decide
from sheepsim.games.race.rules import load_rules

RULES = load_rules()


@settings(max_examples=60, deadline=None)
@given(lanes=st.permutations(range(12)), data=st.data())
def test_cubes_positions_and_termination(lanes, data):
    """Any sequence of dice totals and legal options: blue cubes are conserved between
    cards and supply, red and white never increase, positions never decrease, and the
    race ends (each turn either moves a sheep or adds a cube, so it cannot cycle)."""
    stage = data.draw(st.sampled_from([L.SEMIFINAL, L.FINAL]))
    table = engine.new_table()
    board, race = table.board, table.race
    engine.setup_race(table, RULES.kernel_rules(), np.array(lanes[:6]), stage)
    blue_total = board[:, L.BLUE].sum() + race[L.SUPPLY_BLUE]
    assert blue_total == RULES.supply[1]
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    turns = 0
    while not engine.race_over(board, race):
        before = board.copy()
        total = data.draw(st.integers(1, 9))
        lane, _ = engine.select_sheep(board, total)
        assert board[lane, L.STATUS] == L.RUNNING
        engine.legal_options(board, race, lane, legal)
        assert legal.any()
        option = data.draw(st.sampled_from(np.flatnonzero(legal).tolist()))
        engine.apply_option(board, race, lane, option)
        assert board[:, L.BLUE].sum() + race[L.SUPPLY_BLUE] == blue_total
        assert (board[:, L.POS] >= before[:, L.POS]).all()
        assert (board[:, L.RED] <= before[:, L.RED]).all()
        assert (board[:, L.WHITE] <= before[:, L.WHITE]).all()
        assert (board[:, L.RED] + board[:, L.BLUE] + board[:, L.WHITE] <= 3).all()
        turns += 1
        # 6 sheep x (21 squares + 3 cubes of rest) bounds the number of turns
        assert turns <= 6 * 24 * 4
    engine.place_remaining(board, race)
    places = sorted(board[:, L.PLACE].tolist())
    assert places[-(1 if stage == L.FINAL else 3):] == ([1] if stage == L.FINAL else [1, 2, 3])


def test_race_counts_identical_for_threads_and_chunks():
    a = race_counts(games=30_000, seed=9, threads=1, chunk_size=30_000, progress=False)
    b = race_counts(games=30_000, seed=9, threads=2, chunk_size=7_001, progress=False)
    c = race_counts(games=30_000, seed=9, random_deal=False, threads=2, chunk_size=1 << 20,
                    progress=False)
    for x in (b, c):
        assert np.array_equal(a.joint, x.joint) and np.array_equal(a.card_place, x.card_place)
        assert a.turns == x.turns
    d = race_counts(games=30_000, seed=10, progress=False)
    assert not np.array_equal(a.joint, d.joint)


def test_whole_games_identical_for_threads_and_chunks():
    kw = dict(players=4, bet_policy="ev-approx,random,favourite,longshot",
              pace_policy="greedy,random,partisan,steady", games=3_000, seed=4, progress=False)
    a = play_games(threads=1, chunk_size=3_000, **kw)
    b = play_games(threads=2, chunk_size=701, **kw)
    for name in ("wins", "score_sum", "score_sq", "wins_by_order", "score_hist", "turns"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_common_random_numbers_same_dice_for_different_policies():
    """Dice come from their own stream: a policy that draws random numbers does not
    shift the dice of one that does not."""
    from sheepsim.games.race.simulate import resolve_policies
    from sheepsim.games.race.trace import traced_race

    logs = [traced_race(RULES, np.arange(6), L.SEMIFINAL, resolve_policies(name), 1, 3, 17).turns
            for name in ("greedy", "random")]
    n = min(len(logs[0]), len(logs[1]))
    assert np.array_equal(logs[0][:n, engine.LOG_TOTAL], logs[1][:n, engine.LOG_TOTAL])


@numba.njit
def random_bets(kind, view, opts, n, rand):
    """The built-in ``random`` bets written as a plug-in (its line-up's races are cut,
    every seat's pace through the dispatch: ``cut.race_turns``)."""
    return decide(RANDOM_BET, kind, view, opts, n, rand)


def test_greedy_without_dispatch_equals_greedy_through_the_dispatch():
    """``pace_ids=None`` compiles the turn loop without the policy dispatch; it must play
    exactly as the dispatch does for the greedy id: single races, and whole games (the
    race machine's all-``greedy`` races, ``machine.own``, against the races of a line-up
    with a plug-in, ``cut.race_turns``, which dispatches every seat's pace)."""
    from sheepsim.games.race.jobs import GamesJob
    from sheepsim.games.race.kernels import BUILTIN, empty_race_counts
    from sheepsim.games.race.policies import GREEDY

    kr = RULES.kernel_rules()
    counts = []
    for pace_ids in (None, np.array([GREEDY])):
        out = empty_race_counts(len(RULES.cards))
        BUILTIN.race_chunk(6, 100, 3_000, kr, np.arange(6), True, L.SEMIFINAL, pace_ids, out)
        counts.append(out)
    for a, b in zip(*counts, strict=True):
        assert np.array_equal(a, b)
    assert counts[0][0].sum() == 3_000
    # (ev-approx, favourite, random: no exact solver; exact ev is tested in test_exact_game)
    plain = GamesJob(RULES, 3, "ev-approx,favourite,random", "greedy", 6)
    cut = GamesJob(RULES, 3, f"ev-approx,favourite,{__name__}:random_bets", "greedy", 6)
    assert cut.policies().has_plugins and not plain.policies().has_plugins
    for a, b in zip(plain.rows(0, 300), cut.rows(0, 300), strict=True):
        assert np.array_equal(a, b)
