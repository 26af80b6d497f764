"""Monte Carlo from a race in progress: many races continued from one board.

Race ``g`` draws its dice from the streams keyed by ``(seed, g)``, so two calls with the
same seed and different starting boards (say, after two different pace choices) see the
same dice: common random numbers for paired comparisons.

User pace policies: :func:`~sheepsim.games.race.exact.from_position.continuation_kernel`
runs these kernels rebuilt to take them as function values (``kernels.plugged``:
compiled once whatever the plug-ins, as the single races).
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.race.engine import placed_lanes, run_race
from sheepsim.games.race.layout import (
    MAX_OPTS,
    N_LANES,
    N_OPTIONS,
    N_PHASES,
    N_VIEW,
    PACE_PHASE,
    TURN,
    Asks,
    Seats,
    Table,
)
from sheepsim.harness.layout import FAIL_WIDTH
from sheepsim.jit import njit


@njit
def _continuation_table(board0, race0, seen_bets):
    """Scratch for continuing ``board0``/``race0``: ``(table, seats, places (3,), asks)``.
    ``seen_bets`` ``(2, 6)`` (rows MY_BETS, RIVAL_OPEN) becomes the one seat's bets;
    ``asks`` its policy stream and a plug-in's inputs (the view's odds, payoffs and bonus
    zeros: a position has none)."""
    table = Table(board0.copy(), race0.copy(), np.zeros((2, N_LANES), dtype=np.int64),
                  np.zeros(N_OPTIONS, dtype=np.bool_))
    seats = Seats(seen_bets[0:1].copy(), seen_bets[1:2].copy())
    asks = Asks(np.zeros((N_PHASES, 2), dtype=np.uint64), np.zeros(N_VIEW, dtype=np.float64),
                np.zeros((MAX_OPTS, 1), dtype=np.int64), np.zeros((MAX_OPTS, 2), dtype=np.int64),
                np.zeros(FAIL_WIDTH, dtype=np.int64))
    return table, seats, np.empty(3, dtype=np.int64), asks


@njit(inline="always")
def _restart(table, board0, race0):
    """Set the race back to ``board0``/``race0``."""
    table.board[:] = board0
    table.race[:] = race0


@njit(inline="always")
def _added(turns, race0):
    """The turns a race continued from ``race0`` added (``turns`` :func:`engine.run_race`'s
    result: negative when the policy failed)."""
    if turns < 0:
        raise ValueError("pace policy returned an illegal option or wrote to its inputs")
    return turns - race0[TURN]


@njit(inline="always")
def _seed(streams, asks, seed, g):
    """Key the only streams a race draws from (the others are independent of them)."""
    rng.seed_stream(streams, rng.DICE, seed, g)
    rng.seed_policy_stream(asks.streams, PACE_PHASE, seed, g, 0, PACE_PHASE)


@njit
def races_from(board0, race0, seed, start, count, dice, pace_ids, seen_bets, out, users=None):
    """Continue the race ``board0``/``race0`` ``count`` times (races ``start..``).

    ``dice`` ``(faces, nfaces)`` of the stage; every later turn is played by the pace
    policy ``pace_ids`` ``(1,)`` (or None: ``greedy``, see :func:`engine.run_race`) seeing
    ``seen_bets`` ``(2, 6)`` (rows MY_BETS, RIVAL_OPEN). Adds to ``out`` =
    ``(joint, place, turns)``: ``joint`` ``(216,)`` the (1st, 2nd, 3rd) counts as
    ``36a + 6b + c`` (semifinal), ``place`` ``(6, 3)`` lane-place counts, ``turns``
    ``(1,)`` turns played. ``users`` the plug-ins as function values in the kernel
    rebuilt for them (``kernels.plugged``), omitted in the built-in kernels.
    """
    joint, place, turns = out
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    table, seats, places, asks = _continuation_table(board0, race0, seen_bets)
    for g in range(start, start + count):
        _seed(streams, asks, seed, g)
        _restart(table, board0, race0)
        t = run_race(table, dice, streams, asks, pace_ids, seats, 0, users=users)
        turns[0] += _added(t, race0)
        placed_lanes(table.board, places)
        for k in range(3):
            if places[k] >= 0:
                place[places[k], k] += 1
        if places[2] >= 0:
            joint[36 * places[0] + 6 * places[1] + places[2]] += 1


@njit
def race_outcomes(board0, race0, seed, start, dice, pace_ids, seen_bets, out, users=None):
    """Like :func:`races_from`, but one outcome per race: ``out`` ``(count,)`` receives
    ``36a + 6b + c`` for races ``start..start+count-1`` (the final: the winner ``a`` at
    ``36a``), for paired comparisons of several starting boards on the same dice."""
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    table, seats, places, asks = _continuation_table(board0, race0, seen_bets)
    for i in range(out.shape[0]):
        _seed(streams, asks, seed, start + i)
        _restart(table, board0, race0)
        t = run_race(table, dice, streams, asks, pace_ids, seats, 0, users=users)
        _added(t, race0)
        placed_lanes(table.board, places)
        out[i] = 36 * places[0] + 6 * max(places[1], 0) + max(places[2], 0)

