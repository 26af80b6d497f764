"""A plug-in rung for the ladder tests: bank whenever banking is an option (Pig)."""

import numba


@numba.njit
def always_bank(kind, view, opts, n, rand):
    return n - 1
