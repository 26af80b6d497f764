"""Example user policies: copy this file to write your own.

Use them with ``--policy sheepsim.games.race.examples:always_gallop`` (pace) or
``--bet-policy sheepsim.games.race.examples:inside_lanes`` (bets). A user policy is an
``@numba.njit`` function with the signature documented in
:mod:`sheepsim.games.race.policies`; its last argument ``rand`` is the policy random
stream, the only randomness it gets (draw with ``policies.randbelow(rand, n)`` or
``policies.uniform(rand)``). The engine re-compiles its kernels around it the first
time (several seconds) and caches them on disk for the next run.
"""

import numba as nb

from sheepsim.games.race import layout as L
from sheepsim.games.race.exact.lanegraph import own_state
from sheepsim.games.race.policies import greedy


@own_state  # it looks only at the selected sheep: the exact solver may use it
@nb.njit
def always_gallop(lane, board, race, seen, legal, rand):
    """Gallop whenever any gallop payment is legal (red first), else play greedy."""
    for option in (L.GALLOP_RED, L.GALLOP_BLUE2, L.GALLOP_WHITE):
        if legal[option]:
            return option
    return greedy(lane, board, race, seen, legal, rand)


@nb.njit
def inside_lanes(kind, odds, payoffs, bonus, taken, my_open, out, rand):
    """Bet on the lowest-numbered lanes allowed (they pay the most)."""
    k = 0
    for lane in range(6):
        if kind == L.BET_OPEN and taken[lane]:
            continue
        if kind == L.BET_HIDDEN and lane == my_open:
            continue
        out[k] = lane
        k += 1
        if kind == L.BET_OPEN or k == 2:
            return
