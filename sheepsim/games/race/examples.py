"""Example user policies: copy this file to write your own.

Use them with ``--policy sheepsim.games.race.examples:always_gallop`` (pace) or
``--bet-policy sheepsim.games.race.examples:inside_lanes`` (bets). A user policy is an
``@numba.njit`` function ``policy(kind, view, opts, n, rand) -> i`` (documented in
:mod:`sheepsim.games.race.policies`): ``kind`` the decision, ``view`` what the player sees
(offsets ``V_*`` of :mod:`sheepsim.games.race.layout`), ``opts[:n]`` the legal choices one
per row, ``rand`` the seat's own random stream, the only randomness it gets (draw with
``policies.randbelow(rand, n)`` or ``policies.uniform(rand)``); it returns the chosen
row. The engine re-compiles its kernels around it the first time (several seconds) and
caches them on disk for the next run.
"""

import numba as nb

from sheepsim.games.race import layout as L
from sheepsim.games.race.exact.lanegraph import own_state
from sheepsim.games.race.policies import GREEDY, decide


@own_state  # it looks only at the selected sheep: the exact solver may use it
@nb.njit
def always_gallop(kind, view, opts, n, rand):
    """Gallop whenever any gallop payment is legal (red first), else play greedy (a
    built-in asked through the same signature, ``policies.decide``)."""
    for option in (L.GALLOP_RED, L.GALLOP_BLUE2, L.GALLOP_WHITE):
        for i in range(n):
            if opts[i, 0] == option:
                return i
    return decide(GREEDY, kind, view, opts, n, rand)


@nb.njit
def inside_lanes(kind, view, opts, n, rand):
    """Bet on the lowest-numbered lanes allowed (they pay the most): the first row, as
    the rows come in increasing order."""
    return 0
