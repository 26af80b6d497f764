"""Hands, pile and the run: small numba helpers on the state vector.

A hand is the count vector ``st[ST_HAND + seat * N_KINDS : ... + N_KINDS]``; the pile
is a sequence of kinds. Every card that reaches the pile goes through :func:`to_pile`,
which keeps the run of consecutive sheep (the golden sheep included) up to date.
"""

from sheepsim import rng
from sheepsim.jit import njit

from .layout import (
    GOLDEN,
    N_KINDS,
    SHEEP,
    ST_HAND,
    ST_N_PLAYERS,
    ST_PILE,
    ST_PILE_LEN,
    ST_RUN,
)


@njit(inline="always")
def hix(seat, kind):
    """Index of ``hand[seat, kind]`` in the state vector."""
    return ST_HAND + seat * N_KINDS + kind


@njit(inline="always")
def is_sheep(kind):
    return kind == SHEEP or kind == GOLDEN


@njit(inline="always")
def hand_size(st, seat):
    n = 0
    for k in range(N_KINDS):
        n += st[hix(seat, k)]
    return n


@njit
def players_in(st):
    """Players still holding cards."""
    n = 0
    for s in range(st[ST_N_PLAYERS]):
        if hand_size(st, s) > 0:
            n += 1
    return n


@njit
def sheep_value(st, seat, golden_worth):
    """Flock Off score: plain sheep count 1, the golden sheep ``golden_worth``."""
    return st[hix(seat, SHEEP)] + golden_worth * st[hix(seat, GOLDEN)]


@njit
def to_pile(st, kind):
    """Put a card on the discard pile: a sheep lengthens the run, anything else resets it."""
    st[ST_PILE + st[ST_PILE_LEN]] = kind
    st[ST_PILE_LEN] += 1
    if is_sheep(kind):
        st[ST_RUN] += 1
    else:
        st[ST_RUN] = 0


@njit
def random_kind(st, seat, streams, purpose):
    """Kind of a card drawn uniformly from ``seat``'s hand (it must hold one)."""
    j = rng.randbelow(streams, purpose, hand_size(st, seat))
    for k in range(N_KINDS):
        j -= st[hix(seat, k)]
        if j < 0:
            return k
    return -1


@njit
def move_card(st, giver, taker, kind):
    st[hix(giver, kind)] -= 1
    st[hix(taker, kind)] += 1


@njit
def swap_hands(st, a, b):
    for k in range(N_KINDS):
        t = st[hix(a, k)]
        st[hix(a, k)] = st[hix(b, k)]
        st[hix(b, k)] = t
