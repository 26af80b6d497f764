"""Pig's rules as a state machine for sheepsim's harness, and its one heuristic policy.

On your turn roll the die as often as you like, adding each roll to the turn total; the
bust face loses the turn total and ends the turn; banking adds the turn total to your
score and ends the turn. The first player to bank ``target`` points wins. Seat 1 starts.
"""

import numba

from sheepsim import rng
from sheepsim.harness.rules import loader

#: the rules file's keys (``[pig]`` in standard.toml), each with its smallest value
RULES = {"target": 1, "die_faces": 2, "bust_face": 1}
TARGET, FACES, BUST = range(len(RULES))
load_rules = loader(__package__, "pig", RULES)

KINDS = ("roll-or-bank",)
MAX_OPTIONS, OPTION_WIDTH = 2, 1
ROLL, BANK = 0, 1  # an option row holds its action; rows are in this order
#: the state: player count, seat to move, turn total, winner (-1: none yet), scores
N, SEAT, TURN, WINNER, SCORE = range(5)
#: a seat's view: its turn total, its score, the best rival score, the target
VIEW_LEN = 4
HOLD_20 = 1  # "hold-20"'s position in the game's policies


def state_size(players):
    return SCORE + players


@numba.njit
def start(st, R, players, chance):
    st[N] = players
    st[WINNER] = -1


@numba.njit
def to_move(st, R, opts):
    if st[WINNER] >= 0:
        return -1, 0, 0
    opts[0, 0] = ROLL
    if st[TURN] == 0:  # a turn starts with a roll
        return st[SEAT], 0, 1
    opts[1, 0] = BANK
    return st[SEAT], 0, 2


@numba.njit
def apply(st, R, seat, kind, opts, choice, chance):
    if opts[choice, 0] == ROLL:
        face = 1 + rng.randbelow(chance, 0, R[FACES])
        if face != R[BUST]:
            st[TURN] += face
            return
    else:
        st[SCORE + seat] += st[TURN]
        if st[SCORE + seat] >= R[TARGET]:
            st[WINNER] = seat
    st[TURN] = 0
    st[SEAT] = (seat + 1) % st[N]


@numba.njit
def scores(st, R, out):
    for s in range(st[N]):
        out[s] = st[SCORE + s]


@numba.njit
def winner(st, R):
    return st[WINNER]


@numba.njit
def view(st, R, seat, out):
    best = 0
    for s in range(st[N]):
        if s != seat:
            best = max(best, st[SCORE + s])
    out[0] = st[TURN]
    out[1] = st[SCORE + seat]
    out[2] = best
    out[3] = R[TARGET]


@numba.njit
def decide(pid, kind, view, opts, n, rand):
    if pid == HOLD_20:  # bank at 20 in the turn, or when banking wins
        return BANK if view[0] >= 20 or view[1] + view[0] >= view[3] else ROLL
    return rng.policy_randbelow(rand, n)  # random


def option_text(kind, row):
    return ("roll", "bank")[row[0]]
