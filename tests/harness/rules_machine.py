"""The toy game ``coin_machine`` with its built-in policies in the optional slot
``decide_rules`` (they read the rules vector ``R``) and no ``decide``: policy 1, "last",
picks the last option, counting the options from ``R`` rather than from ``n``."""

import numba

from sheepsim import rng
from tests.harness.coin_machine import (  # noqa: F401  (the machine's other slots)
    KINDS,
    MAX_DECISIONS,
    MAX_OPTIONS,
    OPTION_WIDTH,
    OPTIONS,
    RULES,
    VIEW_LEN,
    apply,
    load_rules,
    scores,
    start,
    state_size,
    to_move,
    view,
    winner,
)


@numba.njit
def decide_rules(pid, kind, seen, opts, n, rand, R):
    if pid == 1:  # "last"
        return R[OPTIONS] - 1
    return rng.policy_randbelow(rand, n)
