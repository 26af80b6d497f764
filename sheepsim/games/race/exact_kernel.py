"""The exact race solver's numba kernel: a forward pass over the joint lane states.

A joint state is one state per lane (see :mod:`~sheepsim.games.race.lanegraph`) plus,
in a semifinal with two sheep across the line, which of them crossed first. Joint
states are numbered in mixed radix over the lanes' state numbers; every move raises
one lane's number, so visiting joint numbers in increasing order visits every state
after all states that lead to it, and one pass pushes all probability to the end.
"""

import numpy as np

from sheepsim.games.race.engine import place_remaining, race_over, select_sheep
from sheepsim.games.race.layout import (
    BLUE,
    FINAL,
    FINISHED,
    N_BOARD,
    N_PLACED,
    N_RUNNING,
    PLACE,
    POS,
    RED,
    RUNNING,
    STAGE,
    STATUS,
    SUPPLY_BLUE,
    WHITE,
)
from sheepsim.jit import njit

#: Columns of a lane state row (as in lanegraph).
S_POS, S_RED, S_BLUE, S_WHITE, S_STATUS = range(5)
#: A self-loop probability this close to 1 means the race can never end.
STUCK = 1.0 - 1e-12


@njit
def fill_board(states, digits, higher_first, board, race, blue_total):
    """Write the joint state into ``board``/``race``; return the finished lanes as
    ``first * 8 + second`` (-1 where none), the order the placings were won in."""
    n_fin = 0
    fin_a = -1
    fin_b = -1
    running = 0
    blue = 0
    for lane in range(6):
        row = states[lane, digits[lane]]
        board[lane, POS] = row[S_POS]
        board[lane, RED] = row[S_RED]
        board[lane, BLUE] = row[S_BLUE]
        board[lane, WHITE] = row[S_WHITE]
        board[lane, STATUS] = row[S_STATUS]
        board[lane, PLACE] = 0
        blue += row[S_BLUE]
        if row[S_STATUS] == RUNNING:
            running += 1
        elif row[S_STATUS] == FINISHED:
            if n_fin == 0:
                fin_a = lane
            else:
                fin_b = lane
            n_fin += 1
    if n_fin == 2 and higher_first:
        fin_a, fin_b = fin_b, fin_a
    if fin_a >= 0:
        board[fin_a, PLACE] = 1
    if fin_b >= 0:
        board[fin_b, PLACE] = 2
    race[N_PLACED] = n_fin
    race[N_RUNNING] = running
    race[SUPPLY_BLUE] = blue_total - blue
    return fin_a, fin_b


@njit
def record_end(board, race, mass, out):
    """Award the remaining places of a race that ended without enough crossings."""
    place_remaining(board, race)
    a = b = c = 0
    for lane in range(6):
        p = board[lane, PLACE]
        if p == 1:
            a = lane
        elif p == 2:
            b = lane
        elif p == 3:
            c = lane
    out[36 * a + 6 * b + c] += mass


@njit
def spread(states, nxt, digits, board, race, totals, tprob, lane_p, lane_next):
    """Where the dice send this state: ``lane_p[l]`` probability that lane ``l`` makes
    its next move (to state ``lane_next[l]``); returns the probability of a no-op turn
    (a rest that recovers nothing)."""
    supply_class = min(race[SUPPLY_BLUE], 2)
    stay = 0.0
    for lane in range(6):
        lane_p[lane] = 0.0
    for t in range(totals.shape[0]):
        lane, _ = select_sheep(board, totals[t])
        d = digits[lane]
        n = nxt[lane, d, supply_class]
        if n == d:
            stay += tprob[t]
        else:
            lane_p[lane] += tprob[t]
            lane_next[lane] = n
    return stay


@njit
def solve_joint(states, nxt, sizes, start, start_higher_first, totals, tprob, race0,
                blue_total, out):
    """Exact distribution of the race's result from the joint state ``start``.

    ``states`` ``(6, S, 5)``, ``nxt`` ``(6, S, 3)``, ``sizes`` ``(6,)`` the lane graphs;
    ``start`` ``(6,)`` lane states; ``totals``/``tprob`` ``(T,)`` dice totals and their
    probabilities; ``race0`` ``(N_RACE,)`` the fixed race entries. Adds to ``out``
    ``(216,)`` the probability of each (1st, 2nd, 3rd) as ``36a + 6b + c`` (the final:
    the winner ``a`` at index ``36a``). Returns the number of joint states visited.
    """
    stride = np.ones(6, np.int64)
    for lane in range(4, -1, -1):
        stride[lane] = stride[lane + 1] * sizes[lane + 1]
    n_joint = stride[0] * sizes[0]
    first = 0
    for lane in range(6):
        first += start[lane] * stride[lane]
    mass = np.zeros((2, n_joint - first), np.float64)
    mass[1 if start_higher_first else 0, 0] = 1.0
    final = race0[STAGE] == FINAL
    board = np.zeros((6, N_BOARD), np.int64)
    race = race0.copy()
    digits = start.copy()
    lane_p = np.zeros(6)
    lane_next = np.zeros(6, np.int64)
    visited = 0
    for idx in range(first, n_joint):
        if idx > first:  # odometer: digits of idx
            lane = 5
            digits[lane] += 1
            while digits[lane] == sizes[lane]:
                digits[lane] = 0
                lane -= 1
                digits[lane] += 1
        for hf in range(2):
            m = mass[hf, idx - first]
            if m == 0.0:
                continue
            visited += 1
            fin_a, fin_b = fill_board(states, digits, hf == 1, board, race, blue_total)
            if race_over(board, race):
                record_end(board, race, m, out)
                continue
            stay = spread(states, nxt, digits, board, race, totals, tprob, lane_p, lane_next)
            if stay >= STUCK:
                raise ValueError("the race can never end from this position: every "
                                 "possible move is a rest that recovers nothing")
            m = m / (1.0 - stay)
            for lane in range(6):
                if lane_p[lane] == 0.0:
                    continue
                p = m * lane_p[lane]
                new = idx + (lane_next[lane] - digits[lane]) * stride[lane]
                if states[lane, lane_next[lane], S_STATUS] != FINISHED:
                    mass[hf, new - first] += p
                elif final:
                    out[36 * lane] += p
                elif fin_b >= 0:
                    out[36 * fin_a + 6 * fin_b + lane] += p
                elif fin_a >= 0:
                    mass[1 if fin_a > lane else 0, new - first] += p
                else:
                    mass[0, new - first] += p
    return visited
