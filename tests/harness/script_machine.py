"""A toy game for the harness's course metrics ("script"): two seats, eight turns of one
forced decision each; turn ``t`` (0-based) gives seat ``t % 2`` the points of rules key
``p{t + 1}``. No chance: every game is the same, so each metric has a known value. The
higher total wins; a tie is a draw."""

import numba

from sheepsim.harness.rules import loader

RULES = {f"p{t}": 0 for t in range(1, 9)}
load_rules = loader(__package__, "script", RULES)
KINDS = ("score",)
MAX_OPTIONS, OPTION_WIDTH, VIEW_LEN = 1, 1, 1
TURN, SCORE = 0, 1


def state_size(players):
    return SCORE + players


@numba.njit
def start(st, R, players, chance):
    pass


@numba.njit
def to_move(st, R, opts):
    if st[TURN] >= 8:
        return -1, 0, 0
    opts[0, 0] = 0
    return st[TURN] % 2, 0, 1


@numba.njit
def apply(st, R, seat, kind, opts, choice, chance):
    st[SCORE + seat] += R[st[TURN]]
    st[TURN] += 1


@numba.njit
def scores(st, R, out):
    out[0] = st[SCORE]
    out[1] = st[SCORE + 1]


@numba.njit
def winner(st, R):
    if st[SCORE] == st[SCORE + 1]:
        return -1
    return 0 if st[SCORE] > st[SCORE + 1] else 1


@numba.njit
def view(st, R, seat, out):
    out[0] = st[TURN]


@numba.njit
def decide(pid, kind, view, opts, n, rand):
    return 0
