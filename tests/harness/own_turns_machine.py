"""A toy game for the harness's slot ``own_turns`` (a stretch spanning several seats'
turns): ``rounds`` rounds in which every seat in turn picks one of ``options`` options,
gaining a chance draw below ``choice + 2`` points into its pot; the pots are paid into the
scores at the round's end (so a round's turns but its last end with the scores before
it). Round ``r`` starts at seat ``r * (players - 1) % players``, the seat that ended the
round before (one turn of two decisions). With rules key ``own`` 1 the machine plays each
round itself as one stretch (every seat ``random``, drawing from the stream the harness
would ask with), its turns and last seat told by ``own_turns``; so a line-up must count
the same whatever ``own`` is."""

import numba
import numpy as np

from sheepsim import rng
from sheepsim.harness.layout import P_ASKED, P_KINDS
from tests.harness.own_machine import scores, view, winner  # noqa: F401 - the same layout

RULES = {"rounds": 1, "options": 1, "own": 0}
ROUNDS, OPTIONS, OWN = range(3)
KINDS = ("pick",)
MAX_OPTIONS, OPTION_WIDTH, VIEW_LEN = 8, 1, 1
N, ROUND, PICK, SCORE = range(4)  # own_machine's N, TURN, PICK, SCORE: its slots serve


def state_size(players):
    return SCORE + 2 * players  # the scores, then the pots


def new_scratch(players, R):
    return np.zeros(2, dtype=np.int64)  # the last stretch's turns and last seat


@numba.njit
def start(st, R, players, chance):
    st[N] = players


@numba.njit(inline="always")
def _seat(st):
    return (st[ROUND] * (st[N] - 1) + st[PICK]) % st[N]


@numba.njit
def to_move(st, R, opts):
    if st[ROUND] >= R[ROUNDS]:
        return -1, 0, 0
    if R[OWN] == 1:
        return _seat(st), 0, 0
    for i in range(R[OPTIONS]):
        opts[i, 0] = i
    return _seat(st), 0, R[OPTIONS]


@numba.njit
def _pick(st, R, seat, choice, chance):
    st[SCORE + st[N] + seat] += rng.randbelow(chance, 0, choice + 2)
    st[PICK] += 1
    if st[PICK] == st[N]:  # the round's end: the pots paid
        for s in range(st[N]):
            st[SCORE + s] += st[SCORE + st[N] + s]
            st[SCORE + st[N] + s] = 0
        st[PICK] = 0
        st[ROUND] += 1


@numba.njit
def apply(st, R, seat, kind, opts, choice, chance):
    _pick(st, R, seat, opts[choice, 0], chance)


@numba.njit
def own(st, R, seat, streams, scratch, report, played):
    n = R[OPTIONS]
    first = seat
    for _ in range(st[N]):  # the round, one stretch
        seat = _seat(st)
        choice = 0
        if n > 1:
            row = 1 + seat  # its stream: after the one chance row, phase 0
            choice = rng.policy_randbelow(streams[row:row + 1], n)
        report[P_ASKED] += n > 1
        report[P_KINDS] += 1
        report[P_KINDS + 1] += n
        report[P_KINDS + 2] += n == 1
        scratch[1] = seat
        _pick(st, R, seat, choice, streams[0:1])
    scratch[0] = st[N]
    played[0, 0] = first
    played[0, 1] = st[N]
    for s in range(st[N]):
        played[0, 2 + s] = st[SCORE + s]
    return 1


@numba.njit(inline="always")
def own_turns(st, scratch, played, j):
    return scratch[0], scratch[1]


@numba.njit
def decide(pid, kind, seen, opts, n, rand):
    return rng.policy_randbelow(rand, n)
