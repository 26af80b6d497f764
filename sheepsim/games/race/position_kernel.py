"""Monte Carlo from a race in progress: many races continued from one board.

Race ``g`` draws its dice from the streams keyed by ``(seed, g)``, so two calls with the
same seed and different starting boards (say, after two different pace choices) see the
same dice: common random numbers for paired comparisons.
"""

import numba as nb
import numpy as np

from sheepsim import rng
from sheepsim.games.race.engine import N_LOG, placed_lanes, run_race
from sheepsim.games.race.layout import N_OPTIONS, TURN
from sheepsim.jit import njit


@njit
def races_from(board0, race0, seed, start, count, dice_faces, dice_nfaces, pace_id,
               seen_bets, joint, place, turns):
    """Continue the race ``board0``/``race0`` ``count`` times (races ``start..``).

    Every later turn is played by pace policy ``pace_id`` seeing ``seen_bets`` ``(2, 6)``
    (rows MY_BETS, RIVAL_OPEN). Adds to ``joint`` ``(216,)`` the (1st, 2nd, 3rd) counts
    as ``36a + 6b + c`` (semifinal), ``place`` ``(6, 3)`` lane-place counts, ``turns``
    ``(1,)`` turns played.
    """
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    board = board0.copy()
    race = race0.copy()
    legal = np.zeros(N_OPTIONS, dtype=np.bool_)
    seen = np.zeros((2, 6), dtype=np.int64)
    log = np.zeros((1, N_LOG), dtype=np.int64)
    pace_ids = np.full(1, pace_id, dtype=np.int64)
    bets = seen_bets[0:1].copy()
    rival = seen_bets[1:2].copy()
    places = np.empty(3, dtype=np.int64)
    for g in range(start, start + count):
        rng.seed_streams(streams, seed, g)
        board[:] = board0
        race[:] = race0
        turns[0] += run_race(board, race, dice_faces, dice_nfaces, streams, pace_ids, 0,
                             bets, rival, seen, legal, log, False) - race0[TURN]
        placed_lanes(board, places)
        for k in range(3):
            if places[k] >= 0:
                place[places[k], k] += 1
        if places[2] >= 0:
            joint[36 * places[0] + 6 * places[1] + places[2]] += 1


def chain_pace(previous, fn, policy_id):
    """A pace dispatch calling user policy ``fn`` for ``policy_id``, else ``previous``."""

    @nb.njit
    def dispatch(pid, lane, board, race, seen, legal, streams):
        if pid == policy_id:
            return fn(lane, board, race, seen, legal, streams)
        return previous(pid, lane, board, race, seen, legal, streams)

    return dispatch


@njit
def race_outcomes(board0, race0, seed, start, dice_faces, dice_nfaces, pace_id, seen_bets,
                  out):
    """Like :func:`races_from`, but one outcome per race: ``out`` ``(count,)`` receives
    ``36a + 6b + c`` for races ``start..start+count-1`` (the final: the winner ``a`` at
    ``36a``), for paired comparisons of several starting boards on the same dice."""
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    board = board0.copy()
    race = race0.copy()
    legal = np.zeros(N_OPTIONS, dtype=np.bool_)
    seen = np.zeros((2, 6), dtype=np.int64)
    log = np.zeros((1, N_LOG), dtype=np.int64)
    pace_ids = np.full(1, pace_id, dtype=np.int64)
    bets = seen_bets[0:1].copy()
    rival = seen_bets[1:2].copy()
    places = np.empty(3, dtype=np.int64)
    for i in range(out.shape[0]):
        rng.seed_streams(streams, seed, start + i)
        board[:] = board0
        race[:] = race0
        run_race(board, race, dice_faces, dice_nfaces, streams, pace_ids, 0, bets, rival, seen,
                 legal, log, False)
        placed_lanes(board, places)
        out[i] = 36 * places[0] + 6 * max(places[1], 0) + max(places[2], 0)
