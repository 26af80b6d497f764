"""Sheep Race chunk kernels over many games, and their user-policy variants.

Each kernel simulates games ``start .. start+count-1`` serially and releases the GIL:
the driver runs chunks on a thread pool (or Dask workers). :class:`Kernels` allocates
a chunk's scratch in Python and every game's streams are keyed by ``(seed, game
index)``, so results never depend on chunks or threads.

Built-in policies are chosen by integer id inside these cached kernels. For user
policies (``@numba.njit`` functions) :func:`kernels_for` recompiles the kernels with the
policy dispatch rebound (:func:`sheepsim.jit.rebind` derives which functions reach it):
one copy of the engine source, compiled once per policy set and cached in that set's
own folder (:func:`sheepsim.jit.variant_key`).
"""

from __future__ import annotations

import functools
import types

import numpy as np

from sheepsim import rng
from sheepsim.games.race import greedy_table, policies
from sheepsim.games.race.engine import (
    N_LOG,
    new_game_scratch,
    new_table,
    placed_lanes,
    run_game,
    run_race,
    setup_race,
    stage_dice,
)
from sheepsim.games.race.layout import FINAL, N_JOINT, N_LANES, Seats
from sheepsim.jit import fresh_copies, njit, rebind, variant_key


@njit
def fill_races(seed, start, count, rules, lane_cards, random_deal, stage, pace_ids, out, work):
    """Simulate ``count`` single races of one stage with one pace policy.

    ``rules`` a ``KernelRules`` record; ``pace_ids`` ``(1,)`` the policy id, or None for
    ``greedy`` (see :func:`engine.run_race`); ``lane_cards`` ``(6,)`` card per lane, or with
    ``random_deal`` six cards drawn from the deck for every race (the DEAL stream).
    Adds to ``out`` = ``(joint, card_place, turns)``: ``joint`` ``(N_JOINT,)`` counts of
    (1st, 2nd, 3rd) lanes as ``36*a + 6*b + c`` (semifinal only); ``card_place``
    ``(n_cards, 6, 3)`` counts of card in lane finishing 1st/2nd/3rd; ``turns`` ``(1,)``.
    ``work`` the chunk's arrays (:meth:`Kernels.race_chunk`).

    Every sheep ``greedy`` (``pace_ids`` None) and a supply that never binds (the chunk's
    ``greedy`` tables are not empty, :func:`greedy_table.new_tables`): each race is
    played from per-card transition tables, race by race identical to
    :func:`engine.run_race` and about twice as fast (``benchmarks/bench_c_yardstick.py``).
    """
    joint, card_place, turns = out
    streams, table, no_bets, no_log, deck, lanes, places, gtables, gwork = work
    n_cards = rules.cards.shape[0]
    rand = streams[rng.POLICY:rng.POLICY + 1]
    seats = Seats(no_bets, no_bets)
    dice = stage_dice(rules, stage)
    tabled = gtables.shape[0] > 0
    if pace_ids is None and tabled:
        greedy_table.fill_tables(rules, gtables)
    need = 1 if stage == FINAL else 3
    for lane in range(N_LANES):
        lanes[lane] = lane_cards[lane]
    for g in range(start, start + count):
        # only the streams a race draws from (the others are independent of them);
        # ``greedy`` (pace_ids None) draws nothing from the policy stream
        rng.seed_stream(streams, rng.DICE, seed, g)
        if pace_ids is not None:
            rng.seed_stream(streams, rng.POLICY, seed, g)
        if random_deal:
            rng.seed_stream(streams, rng.DEAL, seed, g)
            for i in range(n_cards):
                deck[i] = i
            rng.shuffle(streams, rng.DEAL, deck)
            for lane in range(N_LANES):  # a loop: see engine.run_game on slice copies
                lanes[lane] = deck[lane]
        if pace_ids is None and tabled:
            turns[0] += greedy_table.run_race(rules, gtables, lanes, dice, streams, need,
                                              gwork, places)
        else:
            setup_race(table, rules, lanes, stage)
            turns[0] += run_race(table, dice, streams, rand, pace_ids, seats, 0, no_log)
            placed_lanes(table.board, places)
        for k in range(3):
            if places[k] >= 0:
                card_place[lanes[places[k]], places[k], k] += 1
        if places[2] >= 0:
            joint[N_LANES * (N_LANES * places[0] + places[1]) + places[2]] += 1


@njit
def fill_games(seed, start, rules, card_odds, bet_ids, pace_ids, rows, exact, streams,
               scratch):
    """Simulate whole games ``start .. start+count-1``, ``count = rows[0].shape[0]``.

    ``card_odds`` ``(semifinal, final)`` public odds tables ``(n_cards, 6, 3)``;
    ``bet_ids`` ``(n_players,)``; ``pace_ids`` ``(n_players,)`` or None (every seat
    ``greedy``). Fills the per-game ``rows`` =
    ``(scores (count, n_players), winner (count,), first (count,), turns (count, 3),
    race_cards (count, 3, 3))`` (see :func:`engine.run_game`, also for ``exact``: ``rules``
    or None). ``streams`` and ``scratch`` (:func:`engine.new_game_scratch`) the chunk's."""
    scores, winner, first, turns, race_cards = rows
    rand = streams[rng.POLICY:rng.POLICY + 1]
    for i in range(scores.shape[0]):
        rng.seed_streams(streams, seed, start + i)
        winner[i], first[i] = run_game(rules, card_odds, bet_ids, pace_ids, streams, rand,
                                       scratch, (scores[i], turns[i], race_cards[i]), exact)


@njit
def fill_trace(seed, game, rules, lane_cards, stage, pace_ids, log, board, streams, table,
               no_bets):
    """One race with its per-turn ``log`` ``(rows, N_LOG)`` (for ``sheepsim race trace``);
    ``board`` ``(6, N_BOARD)`` receives the final board. Returns the turns."""
    rng.seed_streams(streams, seed, game)
    setup_race(table, rules, lane_cards, stage)
    turns = run_race(table, stage_dice(rules, stage), streams,
                     streams[rng.POLICY:rng.POLICY + 1], pace_ids,
                     Seats(no_bets, no_bets), 0, log)
    for lane in range(N_LANES):  # a loop: see engine.run_game on slice copies
        for col in range(board.shape[1]):
            board[lane, col] = table.board[lane, col]
    return turns


# ------------------------------------------------------------ user-policy variants
class Kernels(types.SimpleNamespace):
    """The kernel set for one policy configuration (``fill_races``, ``fill_games``,
    ``fill_trace``) and the Python calls that allocate their arrays: the kernels
    allocate nothing, so numba compiles none of numpy's allocation routines for them
    (about 2 s of a cold ``race odds``, measured with the compile listener of
    ``benchmarks/bench_compile.py``)."""

    def race_chunk(self, seed, start, count, rules, lane_cards, random_deal, stage,
                   pace_ids, out, tables=True):
        """:func:`fill_races` with the chunk's arrays (``tables=False``: the engine's
        turn loop even where the ``greedy`` tables apply, for tests and benchmarks)."""
        n_cards = rules.cards.shape[0]
        no_bets = np.zeros((1, N_LANES), dtype=np.int64)
        gtables = greedy_table.new_tables(rules) if tables and pace_ids is None else \
            np.zeros(0, dtype=np.int64)
        work = (rng.new_streams(), new_table(), no_bets, np.zeros((0, N_LOG), dtype=np.int64),
                np.arange(n_cards, dtype=np.int64), np.zeros(N_LANES, dtype=np.int64),
                np.zeros(3, dtype=np.int64), gtables, np.zeros((3, N_LANES), dtype=np.int64))
        self.fill_races(seed, start, count, rules, np.asarray(lane_cards, dtype=np.int64),
                        random_deal, stage, pace_ids, out, work)

    def game_chunk(self, seed, start, rules, card_odds, bet_ids, pace_ids, rows, exact):
        """:func:`fill_games` with the chunk's arrays."""
        scratch = new_game_scratch(rules.cards.shape[0], bet_ids.shape[0])
        self.fill_games(seed, start, rules, card_odds, bet_ids, pace_ids, rows, exact,
                        rng.new_streams(), scratch)

    def trace_race(self, seed, game, rules, lane_cards, stage, pace_id, log, board):
        """One race with its per-turn ``log`` and final ``board`` (:func:`fill_trace`);
        returns the turns."""
        return self.fill_trace(seed, game, rules, np.asarray(lane_cards, dtype=np.int64),
                               stage, np.full(1, pace_id, dtype=np.int64), log, board,
                               rng.new_streams(), new_table(), np.zeros((1, N_LANES), dtype=np.int64))


BUILTIN = Kernels(fill_races=fill_races, fill_games=fill_games, fill_trace=fill_trace)
#: The built-in kernels' calls, as functions (tests and benchmarks call them).
race_chunk, game_chunk, trace_race = BUILTIN.race_chunk, BUILTIN.game_chunk, BUILTIN.trace_race


def _chain_pace(previous, fn, policy_id):
    @njit(cache=False)
    def dispatch(pid, lane, board, race, seen, legal, rand):
        if pid == policy_id:
            return fn(lane, board, race, seen, legal, rand)
        return previous(pid, lane, board, race, seen, legal, rand)

    return dispatch


def _chain_bets(previous, fn, policy_id):
    @njit(cache=False)
    def dispatch(pid, kind, odds, payoffs, bonus, taken, my_open, out, rand):
        if pid == policy_id:
            fn(kind, odds, payoffs, bonus, taken, my_open, out, rand)
        else:
            previous(pid, kind, odds, payoffs, bonus, taken, my_open, out, rand)

    return dispatch


@functools.lru_cache(maxsize=16)
def kernels_for(user_pace: tuple = (), user_bets: tuple = ()) -> Kernels:
    """Kernels where pace id ``N_PACE_POLICIES + k`` calls ``user_pace[k]`` (and the same
    for bets); any other unknown id raises. With no user policies: the cached built-ins.

    Which functions are recompiled is derived (:func:`sheepsim.jit.rebind`): every
    kernel function that reaches ``choose_pace`` or ``choose_bets``, nothing listed here.
    """
    if not user_pace and not user_bets:
        return BUILTIN
    bets = policies.choose_bets
    for k, fn in enumerate(fresh_copies(user_bets)):
        bets = _chain_bets(bets, fn, policies.N_BET_POLICIES + k)
    swap = {policies.choose_pace: pace_dispatch(user_pace), policies.choose_bets: bets}
    key = variant_key(user_pace, user_bets)
    return Kernels(**{name: rebind(kernel, swap, key) for name, kernel in vars(BUILTIN).items()})


def pace_dispatch(user_pace: tuple):
    """``choose_pace`` extended so that id ``N_PACE_POLICIES + k`` calls ``user_pace[k]``
    (``choose_pace`` itself when there are none): what :func:`sheepsim.jit.rebind` puts in
    place of ``policies.choose_pace`` in any kernel that plays a race."""
    pace = policies.choose_pace
    for k, fn in enumerate(fresh_copies(user_pace)):
        pace = _chain_pace(pace, fn, policies.N_PACE_POLICIES + k)
    return pace


def kernel_pace_ids(pace_ids: np.ndarray):
    """What the kernels take for these seats' pace ids: None when every seat plays
    ``greedy`` (the kernels are then compiled without the policy dispatch)."""
    return None if (np.asarray(pace_ids) == policies.GREEDY).all() else pace_ids


def empty_race_counts(n_cards: int):
    """Zeroed ``(joint (N_JOINT,), card_place (n_cards, 6, 3), turns (1,))`` int64."""
    return (np.zeros(N_JOINT, dtype=np.int64), np.zeros((n_cards, N_LANES, 3), dtype=np.int64),
            np.zeros(1, dtype=np.int64))
