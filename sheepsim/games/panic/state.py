"""A Shear Panic game's state from start to finish, as numba kernels: the starting flock
(:func:`init_state`), the winner (:func:`winner`) and a finished game's counts
(:func:`accumulate`, the accumulator layout ``layout.A_*``). The machine
(:mod:`.machine`) plays the games on the harness; the turns are in :mod:`.turns`.
"""

import numpy as np

from sheepsim.games.panic.layout import (
    A_END,
    A_FIELD_PTS,
    A_GAMES,
    A_PANICS,
    A_POINTS,
    A_POINTS_SQ,
    A_REGROUP_ROLLS,
    A_SHEEP_LEFT,
    A_SHORN,
    A_TIE_BREAK,
    A_TURN_HIST,
    A_TURNS,
    A_TURNS_SQ,
    A_WINS,
    MAX_FIELDS,
    MAX_TURN_HIST,
    N_COLOURS,
    N_SHEEP,
    R_N_PLAYERS,
    R_START_COL,
    R_START_COLOUR,
    R_START_FACING,
    R_START_ROW,
    ST_ALIVE,
    ST_COL,
    ST_COLOUR,
    ST_END_REASON,
    ST_FACING,
    ST_FIELD_PTS,
    ST_LAST_ACTOR,
    ST_PANICS,
    ST_PREV_KIND,
    ST_REGROUP_ROLLS,
    ST_ROW,
    ST_SCORE,
    ST_SHORN,
    ST_TIE_BREAK,
    ST_TURNS,
)
from sheepsim.games.panic.track import own_sheep
from sheepsim.jit import kernel


@kernel
def init_state(st, R):
    """The starting flock from the rules, counter 0, no menu used, no score."""
    st[:] = 0
    for s in range(N_SHEEP):
        st[ST_ROW + s] = R[R_START_ROW + s]
        st[ST_COL + s] = R[R_START_COL + s]
        st[ST_COLOUR + s] = R[R_START_COLOUR + s]
        st[ST_ALIVE + s] = 1
    st[ST_FACING] = R[R_START_FACING]
    st[ST_PREV_KIND] = -1
    st[ST_LAST_ACTOR] = -1


@kernel
def winner(st, R):
    """Most points; tie: most own sheep left; tie: who would play earliest next (the
    seat after the last one to act, clockwise). Records which rule decided."""
    n_players = R[R_N_PLAYERS]
    first = st[ST_LAST_ACTOR] + 1
    best = np.int64(-1)
    n_top_points = 0
    n_top_sheep = 0
    for k in range(n_players):
        seat = (first + k) % n_players
        if best < 0:
            best = seat
            continue
        ps = st[ST_SCORE + seat]
        pb = st[ST_SCORE + best]
        if ps > pb or (ps == pb and own_sheep(st, R, seat) > own_sheep(st, R, best)):
            best = seat
    top = st[ST_SCORE + best]
    sheep = own_sheep(st, R, best)
    for seat in range(n_players):
        if st[ST_SCORE + seat] == top:
            n_top_points += 1
            if own_sheep(st, R, seat) == sheep:
                n_top_sheep += 1
    if n_top_points == 1:
        st[ST_TIE_BREAK] = 0
    elif n_top_sheep == 1:
        st[ST_TIE_BREAK] = 1
    else:
        st[ST_TIE_BREAK] = 2
    return best


@kernel
def accumulate(acc, st, R, win):
    """Add one finished game to the accumulator vector."""
    acc[A_GAMES] += 1
    acc[A_WINS + win] += 1
    for seat in range(R[R_N_PLAYERS]):
        pts = st[ST_SCORE + seat]
        acc[A_POINTS + seat] += pts
        acc[A_POINTS_SQ + seat] += pts * pts
        acc[A_SHEEP_LEFT + seat] += own_sheep(st, R, seat)
        for f in range(MAX_FIELDS):
            acc[A_FIELD_PTS + seat * MAX_FIELDS + f] += st[ST_FIELD_PTS + seat * MAX_FIELDS + f]
    for c in range(N_COLOURS):
        acc[A_SHORN + c] += st[ST_SHORN + c]
    turns = st[ST_TURNS]
    acc[A_TURNS] += turns
    acc[A_TURNS_SQ] += turns * turns
    acc[A_TURN_HIST + min(turns, MAX_TURN_HIST - 1)] += 1
    acc[A_END + st[ST_END_REASON]] += 1
    acc[A_TIE_BREAK + st[ST_TIE_BREAK]] += 1
    acc[A_PANICS] += st[ST_PANICS]
    acc[A_REGROUP_ROLLS] += st[ST_REGROUP_ROLLS]
