"""The coin game of :mod:`tests.harness.coin_machine` with two decision kinds asked of two
policies per seat (slot ``role``): odd rounds' picks are kind 1, asked of each seat's
policy of role 1 (the slot ``role``)."""

import numba

from tests.harness.coin_machine import (  # noqa: F401 - the machine's slots
    MAX_DECISIONS,
    MAX_OPTIONS,
    OPTION_WIDTH,
    OPTIONS,
    ROUNDS,
    RULES,
    TURN,
    VIEW_LEN,
    N,
    apply,
    decide,
    load_rules,
    scores,
    start,
    state_size,
    view,
    winner,
)

KINDS = ("pick", "pick_odd")
KIND_PHASES = (0, 1)


@numba.njit(inline="always")
def role(kind):
    return kind


@numba.njit
def to_move(st, R, opts):
    if st[TURN] >= R[ROUNDS] * st[N]:
        return -1, 0, 0
    for i in range(R[OPTIONS]):
        opts[i, 0] = i
    return st[TURN] % st[N], (st[TURN] // st[N]) % 2, R[OPTIONS]
