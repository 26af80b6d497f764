"""A toy game for the harness's tests ("coin"): ``rounds`` rounds in which every seat in
turn picks one of ``options`` options and gains a chance draw below ``choice + 2``
points; most points wins, the lower seat on a tie. ``fault`` breaks the machine on
purpose: 1, ``to_move`` names a seat that is not at the table at the 4th decision; 2,
the game never ends."""

import numba

from sheepsim import rng
from sheepsim.harness.rules import loader

RULES = {"rounds": 1, "options": 1, "fault": 0}
ROUNDS, OPTIONS, FAULT = range(3)
load_rules = loader(__package__ or "coin_machine", "coin", RULES)
KINDS = ("pick",)
MAX_OPTIONS, OPTION_WIDTH, VIEW_LEN = 8, 1, 2
MAX_DECISIONS = 1000
N, TURN, SCORE = range(3)
RESULT_LEN = 2  # a game's own result: the decisions made, the points of all seats


def state_size(players):
    return SCORE + players


@numba.njit
def start(st, R, players, chance):
    st[N] = players


@numba.njit
def to_move(st, R, opts):
    if st[TURN] >= R[ROUNDS] * st[N]:
        return -1, 0, 0
    if R[FAULT] == 1 and st[TURN] == 3:
        return st[N], 0, 1
    for i in range(R[OPTIONS]):
        opts[i, 0] = i
    return st[TURN] % st[N], 0, R[OPTIONS]


@numba.njit
def apply(st, R, seat, kind, opts, choice, chance):
    st[SCORE + seat] += rng.randbelow(chance, 0, opts[choice, 0] + 2)
    if R[FAULT] != 2:
        st[TURN] += 1


@numba.njit
def scores(st, R, out):
    for s in range(st[N]):
        out[s] = st[SCORE + s]


@numba.njit
def winner(st, R):
    best = 0
    for s in range(st[N]):
        if st[SCORE + s] > st[SCORE + best]:
            best = s
    return best


@numba.njit
def view(st, R, seat, out):
    out[0] = st[TURN]
    out[1] = st[SCORE + seat]


@numba.njit
def decide(pid, kind, view, opts, n, rand):
    if pid == 1:  # "first"
        return 0
    return rng.policy_randbelow(rand, n)


@numba.njit
def result(st, R, out):
    out[0] = st[TURN]
    out[1] = 0
    for s in range(st[N]):
        out[1] += st[SCORE + s]
