"""The plug-in ``sheepsim cache warm`` plays on the harness games, so that a first line-up
with plug-ins finds the game's plug-in entry kernel compiled (one per game, whatever the
plug-ins: :mod:`sheepsim.policy_values`); only the user's own plug-in, in its guard, is
left to compile then. Imported only by that run (numba)."""

import numba

from sheepsim.rng import policy_randbelow


@numba.njit
def any_option(kind, view, opts, n, rand):
    """A legal option drawn uniformly from the seat's own stream, in every game (as the
    built-in ``random``: its games end)."""
    return policy_randbelow(rand, n)
