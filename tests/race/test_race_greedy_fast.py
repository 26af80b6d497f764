"""The engine's ``greedy`` fast path gives exactly what the ``greedy`` policy gives.

When every seat plays ``greedy`` the turn loop plays
:func:`~sheepsim.games.race.policies.greedy_option` (the sheep's values in locals, the
legal options derived inline) instead of filling ``legal`` and calling ``greedy``. These
tests compare the two on every sheep state of a range wider than any standard card, and
compare whole simulations through both paths (``pace_ids=None`` vs the dispatch with the
``greedy`` id) race by race, and pin the counts of fixed seeds so that an edit of the
kernels cannot change any result silently.
"""

import hashlib

import numba
import numpy as np

from sheepsim.games.race import layout as L
from sheepsim.games.race.engine import LOG_OPTIONS, N_LOG, legal_options, n_legal
from sheepsim.games.race.jobs import play_games
from sheepsim.games.race.kernels import empty_race_counts, race_chunk
from sheepsim.games.race.policies import GREEDY, PACE_POLICIES, greedy, greedy_option
from sheepsim.games.race.rules import load_rules
from sheepsim.games.race.simulate import GAME_COUNTS, resolve_policies
from sheepsim.games.race.trace import traced_race


@numba.njit(cache=False)
def _mismatches(track, ez_first, max_cubes, max_cube, max_move, max_supply):
    """Count running-sheep states where ``greedy_option`` differs from ``greedy`` given
    the ``legal`` array the engine fills, and where ``n_legal`` (the options the
    all-``greedy`` path counts for the harness's metrics) differs from the options
    ``legal`` allows; returns ``(states, mismatches, count mismatches)``."""
    board = np.zeros((6, L.N_BOARD), dtype=np.int64)
    race = np.zeros(L.N_RACE, dtype=np.int64)
    seen = np.zeros((2, 6), dtype=np.int64)
    legal = np.zeros(L.N_OPTIONS, dtype=np.bool_)
    rand = np.zeros((1, 2), dtype=np.uint64)
    race[L.TRACK], race[L.EZ_FIRST], race[L.MAX_CUBES] = track, ez_first, max_cubes
    lane = 3
    states = bad = bad_n = 0
    for pos in range(track + 1):
        for red in range(max_cube + 1):
            for blue in range(max_cube + 1):
                for white in range(max_cube + 1):
                    if pos >= ez_first and red + blue + white == 0:
                        continue  # exhausted: never selected
                    for trot in range(max_move + 1):
                        for gallop in range(max_move + 1):
                            for supply in range(max_supply + 1):
                                states += 1
                                board[lane, L.POS], board[lane, L.RED] = pos, red
                                board[lane, L.BLUE], board[lane, L.WHITE] = blue, white
                                board[lane, L.TROT], board[lane, L.GALLOP] = trot, gallop
                                race[L.SUPPLY_BLUE] = supply
                                legal_options(board, race, lane, legal)
                                want = greedy(lane, board, race, seen, legal, rand)
                                got = greedy_option(pos, red, blue, white, trot, gallop, supply,
                                                    track, ez_first, max_cubes)
                                bad += got != want
                                count = 0
                                for o in range(L.N_OPTIONS):
                                    count += legal[o]
                                bad_n += n_legal((pos, red, blue, white, trot, gallop), supply,
                                                 ez_first, max_cubes) != count
    return states, bad, bad_n


def test_fast_greedy_equals_the_policy_and_counts_its_options_on_every_sheep_state():
    # standard track (20 squares, End Zone 5, 3 cubes at most) and two variants: a short
    # track with a 4-cube limit, a long one with a 1-cube limit (REST can be illegal);
    # trot and gallop 0-7 in any order, up to 4 cubes of each colour, supply 0-3
    for track, end_zone, max_cubes in ((20, 5, 3), (9, 4, 4), (30, 10, 1)):
        states, bad, bad_n = _mismatches(track, track - end_zone + 1, max_cubes, max_cube=4,
                                         max_move=7, max_supply=3)
        assert states > 100_000
        assert bad == 0, (track, end_zone, max_cubes, bad)
        assert bad_n == 0, (track, end_zone, max_cubes, bad_n)


def _race_counts(seed, games, pace_ids, random_deal=False, stage=L.SEMIFINAL):
    rules = load_rules()
    out = empty_race_counts(len(rules.cards))
    race_chunk(seed, 0, games, rules.kernel_rules(), np.arange(6, dtype=np.int64), random_deal,
               stage, pace_ids, out)
    return out


def test_fast_path_and_policy_dispatch_play_the_same_races():
    for seed, random_deal in ((3, False), (11, True)):
        fast = _race_counts(seed, 3_000, None, random_deal)
        dispatched = _race_counts(seed, 3_000, np.array([GREEDY], dtype=np.int64), random_deal)
        for a, b in zip(fast, dispatched, strict=True):
            np.testing.assert_array_equal(a, b)


# (turns, sha256 of joint + card x lane x place counts + turns, first 16 hex digits) of
# 20,000 races of the rules file's first six cards, greedy, by (seed, random deal, stage),
# taken before the turn loop was rewritten for speed: a kernel change must keep them.
PINNED = {
    (1, False, L.SEMIFINAL): (887_018, "c030d038a8ad454b"),
    (5, False, L.SEMIFINAL): (888_328, "7ba808041058dfcd"),
    (2013, True, L.SEMIFINAL): (889_471, "e6597f21c7ff3aff"),
    (7, False, L.FINAL): (612_863, "991979c940fae907"),
    (8, True, L.FINAL): (606_123, "16be71731b5d069e"),
}


def test_counts_of_fixed_seeds_are_unchanged():
    for (seed, random_deal, stage), pinned in PINNED.items():
        out = _race_counts(seed, 20_000, None, random_deal, stage)
        assert (int(out[2][0]), _digest(*out)) == pinned, (seed, random_deal, stage)


def _digest(*arrays):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()[:16]


# (turns, digest of the per-turn log and the final board) of one traced race by (seed,
# stage, pace policy id): the dispatch path of the turn loop, pinned like PINNED (the log's
# columns before LOG_OPTIONS, the legal options' column added in 0.6.0 for the race
# machine: the pinned columns unchanged)
PINNED_TRACES = {
    (10, L.SEMIFINAL, 0): (47, "ca2ac1910a3af7b3"),
    (11, L.FINAL, 2): (32, "9b0eef2f74fd0e17"),
    (12, L.SEMIFINAL, 4): (46, "5a074b286d6cf172"),
}


def test_traces_of_fixed_seeds_are_unchanged():
    rules = load_rules()
    for (seed, stage, pace_id), pinned in PINNED_TRACES.items():
        race = traced_race(rules, np.arange(6), stage, resolve_policies(PACE_POLICIES[pace_id]),
                         1, seed, 0)
        turns = len(race.turns)
        log = np.zeros((400, N_LOG), dtype=np.int64)  # (the digest's rows: as pinned)
        log[:turns] = race.turns
        assert (turns, _digest(log[:, :LOG_OPTIONS], race.board)) == pinned, (seed, stage, pace_id)


# digest of every GameResults accumulator of 3,000 whole 4-player games by (seed, bet
# policy, pace policies), pinned like PINNED
PINNED_GAMES = {
    (1, "ev-approx", "greedy"): "4525f3d9b389db59",
    (2, "near-ev", "greedy"): "0a85b904e90d841a",
    (3, "random", "saver,greedy,steady,partisan"): "dd8db03d1edd8202",
}


def test_whole_games_of_fixed_seeds_are_unchanged():
    rules = load_rules()
    for (seed, bets, pace), pinned in PINNED_GAMES.items():
        res = play_games(rules, 4, bets, pace, games=3000, seed=seed, threads=1, progress=False)
        assert _digest(*(getattr(res, k) for k in GAME_COUNTS)) == pinned, (seed, bets, pace)
