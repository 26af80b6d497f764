"""Parallel Sheep Race kernels over many games, and their user-policy variants.

Each kernel simulates games ``start .. start+count-1`` split into ``n_blocks`` blocks
run with ``prange``. A block allocates its scratch once and keys every game's streams
by ``(seed, game index)``, so results never depend on blocks, chunks or threads.

Built-in policies are chosen by integer id inside these cached kernels. A user policy
(an ``@numba.njit`` function) cannot be cached across processes by numba (a kernel that
receives or captures a dispatcher gets a new cache key every process), so
:func:`kernels_for` re-jits the *same* functions with the policy names rebound: one copy
of the engine source, compiled once per policy set per process (a few seconds).
"""

from __future__ import annotations

import functools
import types

import numba as nb
import numpy as np

from sheepsim import rng
from sheepsim.games.race import engine, policies
from sheepsim.games.race.engine import N_LOG, placed_lanes, run_game, run_race, setup_race
from sheepsim.games.race.layout import N_BOARD, N_OPTIONS, N_RACE
from sheepsim.jit import njit, rejit


@njit(parallel=True)
def race_chunk(seed, start, count, n_blocks, cards, lane_cards, random_deal, track, ez_first,
               max_cubes, stage, blue_total, dice_faces, dice_nfaces, pace_id,
               joint, card_place, turns_total):
    """Simulate ``count`` single races of one stage.

    ``lane_cards`` ``(6,)`` card per lane, or with ``random_deal`` six cards drawn from
    the deck for every race (the DEAL stream). Accumulates per block:
    ``joint`` ``(n_blocks, 216)`` counts of (1st, 2nd, 3rd) lanes as ``36*a + 6*b + c``
    (semifinal only); ``card_place`` ``(n_blocks, n_cards, 6, 3)`` counts of card in lane
    finishing 1st/2nd/3rd; ``turns_total`` ``(n_blocks,)``.
    """
    n_cards = cards.shape[0]
    for blk in nb.prange(n_blocks):
        lo = start + (count * blk) // n_blocks
        hi = start + (count * (blk + 1)) // n_blocks
        streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
        board = np.zeros((6, N_BOARD), dtype=np.int64)
        race = np.zeros(N_RACE, dtype=np.int64)
        legal = np.zeros(N_OPTIONS, dtype=np.bool_)
        seen = np.zeros((2, 6), dtype=np.int64)
        log = np.zeros((1, N_LOG), dtype=np.int64)
        pace_ids = np.full(1, pace_id, dtype=np.int64)
        no_bets = np.zeros((1, 6), dtype=np.int64)
        deck = np.arange(n_cards)
        lanes = lane_cards.copy()
        places = np.empty(3, dtype=np.int64)
        for g in range(lo, hi):
            rng.seed_streams(streams, seed, g)
            if random_deal:
                for i in range(n_cards):
                    deck[i] = i
                rng.shuffle(streams, rng.DEAL, deck)
                lanes[:] = deck[:6]
            setup_race(board, race, cards, lanes, track, ez_first, max_cubes, stage, blue_total)
            turns_total[blk] += run_race(board, race, dice_faces, dice_nfaces, streams, pace_ids,
                                         0, no_bets, no_bets, seen, legal, log, False)
            placed_lanes(board, places)
            for k in range(3):
                if places[k] >= 0:
                    card_place[blk, lanes[places[k]], places[k], k] += 1
            if places[2] >= 0:
                joint[blk, 36 * places[0] + 6 * places[1] + places[2]] += 1


@njit(parallel=True)
def game_chunk(seed, start, count, n_blocks, bet_ids, pace_ids, cards, blue_total, track,
               ez_first, max_cubes, dice_semi, nfaces_semi, dice_final, nfaces_final, payoffs,
               bonus, card_odds_semi, card_odds_final, scores, winner, first, turns,
               race_cards):
    """Simulate ``count`` whole games; per-game rows go to the ``(count, ...)`` outputs:
    ``scores`` ``(count, n_players)``, ``winner``/``first`` ``(count,)``, ``turns``
    ``(count, 3)``, ``race_cards`` ``(count, 3, 3)`` (see :func:`engine.run_game`)."""
    n_cards = cards.shape[0]
    for blk in nb.prange(n_blocks):
        lo = (count * blk) // n_blocks
        hi = (count * (blk + 1)) // n_blocks
        streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
        board = np.zeros((6, N_BOARD), dtype=np.int64)
        race = np.zeros(N_RACE, dtype=np.int64)
        legal = np.zeros(N_OPTIONS, dtype=np.bool_)
        seen = np.zeros((2, 6), dtype=np.int64)
        log = np.zeros((1, N_LOG), dtype=np.int64)
        deck = np.arange(n_cards)
        for i in range(lo, hi):
            rng.seed_streams(streams, seed, start + i)
            w, f = run_game(bet_ids, pace_ids, cards, deck, blue_total, track, ez_first,
                            max_cubes, dice_semi, nfaces_semi, dice_final, nfaces_final,
                            payoffs, bonus, card_odds_semi, card_odds_final, streams, board,
                            race, seen, legal, log, scores[i], turns[i], race_cards[i])
            winner[i] = w
            first[i] = f


@njit
def trace_race(seed, game, cards, lane_cards, track, ez_first, max_cubes, stage, blue_total,
               dice_faces, dice_nfaces, pace_id, log, final_board):
    """One race with its per-turn log (for ``sheepsim race trace``); returns turns."""
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    rng.seed_streams(streams, seed, game)
    race = np.zeros(N_RACE, dtype=np.int64)
    legal = np.zeros(N_OPTIONS, dtype=np.bool_)
    seen = np.zeros((2, 6), dtype=np.int64)
    no_bets = np.zeros((1, 6), dtype=np.int64)
    setup_race(final_board, race, cards, lane_cards, track, ez_first, max_cubes, stage,
               blue_total)
    return run_race(final_board, race, dice_faces, dice_nfaces, streams,
                    np.full(1, pace_id, dtype=np.int64), 0, no_bets, no_bets, seen, legal, log,
                    True)


# ------------------------------------------------------------ user-policy variants
class Kernels(types.SimpleNamespace):
    """The kernel set for one policy configuration: race_chunk, game_chunk, trace_race."""


BUILTIN = Kernels(race_chunk=race_chunk, game_chunk=game_chunk, trace_race=trace_race)


def _chain_pace(previous, fn, policy_id):
    @nb.njit
    def dispatch(pid, lane, board, race, seen, legal, streams):
        if pid == policy_id:
            return fn(lane, board, race, seen, legal, streams)
        return previous(pid, lane, board, race, seen, legal, streams)

    return dispatch


def _chain_bets(previous, fn, policy_id):
    @nb.njit
    def dispatch(pid, kind, odds, payoffs, bonus, taken, my_open, out, streams):
        if pid == policy_id:
            fn(kind, odds, payoffs, bonus, taken, my_open, out, streams)
        else:
            previous(pid, kind, odds, payoffs, bonus, taken, my_open, out, streams)

    return dispatch


@functools.lru_cache(maxsize=16)
def kernels_for(user_pace: tuple = (), user_bets: tuple = ()) -> Kernels:
    """Kernels where pace id ``len(PACE_POLICIES) + k`` calls ``user_pace[k]`` (and the
    same for bets). With no user policies this is the cached built-in set."""
    if not user_pace and not user_bets:
        return BUILTIN
    pace = policies.choose_pace
    for k, fn in enumerate(user_pace):
        pace = _chain_pace(pace, fn, len(policies.PACE_POLICIES) + k)
    bets = policies.choose_bets
    for k, fn in enumerate(user_bets):
        bets = _chain_bets(bets, fn, len(policies.BET_POLICIES) + k)
    u_run_race = rejit(engine.run_race, choose_pace=pace)
    u_place_bets = rejit(engine.place_bets, choose_bets=bets)
    u_run_game = rejit(engine.run_game, run_race=u_run_race, place_bets=u_place_bets)
    return Kernels(
        race_chunk=rejit(race_chunk, parallel=True, run_race=u_run_race),
        game_chunk=rejit(game_chunk, parallel=True, run_game=u_run_game),
        trace_race=rejit(trace_race, run_race=u_run_race),
    )


def empty_race_accumulators(n_blocks: int, n_cards: int):
    return (np.zeros((n_blocks, 216), dtype=np.int64),
            np.zeros((n_blocks, n_cards, 6, 3), dtype=np.int64),
            np.zeros(n_blocks, dtype=np.int64))
