"""A toy game for the harness's slot ``own`` ("turns"): ``rounds`` rounds in which every
seat in turn makes ``picks`` decisions of ``options`` options, each gaining a chance draw
below ``choice + 2`` points (often 0: turns that change no score); most points wins, the
lower seat on a tie. With rules key ``own`` 1 the machine plays the seats of policy 0
(``random``) itself, one decision a stretch and at most ``OWN_STRETCHES`` stretches a
call (so a turn spans calls), drawing from the same streams the harness would ask with,
and seats of policy 1 (``first``, standing for a plug-in) are asked; with ``own`` 2 it
plays every seat (:mod:`.own_all_machine` declares so: ``OWN_BUILTINS``). So every
line-up must count the same whatever ``own`` is."""

import numba

from sheepsim import rng
from sheepsim.harness.layout import P_ASKED, P_KINDS

RULES = {"rounds": 1, "picks": 1, "options": 1, "own": 0}
ROUNDS, PICKS, OPTIONS, OWN = range(4)
KINDS = ("pick",)
MAX_OPTIONS, OPTION_WIDTH, VIEW_LEN = 8, 1, 1
OWN_STRETCHES = 3
N, TURN, PICK, SCORE = range(4)


def state_size(players):
    return SCORE + 2 * players  # the scores, then each seat's policy id


@numba.njit
def start(st, R, players, chance):
    st[N] = players


@numba.njit
def seated(st, R, seat_pid):
    for s in range(st[N]):
        st[SCORE + st[N] + s] = seat_pid[s]


@numba.njit
def to_move(st, R, opts):
    if st[TURN] >= R[ROUNDS] * st[N]:
        return -1, 0, 0
    seat = st[TURN] % st[N]
    if R[OWN] == 2 or (R[OWN] == 1 and st[SCORE + st[N] + seat] == 0):
        return seat, 0, 0
    for i in range(R[OPTIONS]):
        opts[i, 0] = i
    return seat, 0, R[OPTIONS]


@numba.njit
def _gain(st, R, seat, choice, chance):
    st[SCORE + seat] += rng.randbelow(chance, 0, choice + 2)
    st[PICK] += 1
    if st[PICK] == R[PICKS]:
        st[PICK] = 0
        st[TURN] += 1


@numba.njit
def apply(st, R, seat, kind, opts, choice, chance):
    _gain(st, R, seat, opts[choice, 0], chance)


@numba.njit
def own(st, R, seat, streams, scratch, report, played):
    rows = 0
    n = R[OPTIONS]
    while rows < played.shape[0] and st[TURN] < R[ROUNDS] * st[N]:
        seat = st[TURN] % st[N]
        pid = st[SCORE + st[N] + seat]
        if pid != 0 and R[OWN] != 2:  # a seat it does not play
            break
        choice = 0
        if n > 1 and pid == 0:
            row = 1 + seat  # its stream: after the one chance row, phase 0
            choice = rng.policy_randbelow(streams[row:row + 1], n)
        report[P_ASKED] += n > 1
        report[P_KINDS] += 1
        report[P_KINDS + 1] += n
        report[P_KINDS + 2] += n == 1
        _gain(st, R, seat, choice, streams[0:1])
        played[rows, 0] = seat
        played[rows, 1] = 1
        for s in range(st[N]):
            played[rows, 2 + s] = st[SCORE + s]
        rows += 1
    return rows


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


@numba.njit
def decide(pid, kind, view, opts, n, rand):
    if pid == 1:  # "first"
        return 0
    return rng.policy_randbelow(rand, n)
