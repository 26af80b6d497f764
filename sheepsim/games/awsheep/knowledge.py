"""What each player has seen of the other hands, and the view a policy receives.

The table keeps, for every viewer ``v`` and holder ``h``, lower bounds
``known[v, h, slot]`` on the cards of each kind ``v`` knows ``h`` holds (slot
``ANY_SHEEP``: sheep cards ``v`` saw move without seeing which kind), and a flag
``no_sheep[v, h]``: the cards of ``h`` that ``v`` does not know hold no sheep. These are
built only from what the README lets a player see: cards reaching the pile (public),
hand sizes (public), cards the viewer gave, took or swapped itself, and public actions
and targets (a Piggin' Out shows everyone that the target has no sheep left).

Every update keeps the bounds valid: a holder losing ``c`` cards the viewer did not
see lowers each bound by ``c``; a holder gaining unseen cards clears ``no_sheep``.
The bookkeeping runs only when some seat's policy reads it (``st[ST_TRACK]``).
"""

from sheepsim.jit import njit

from .cards import hand_size, hix, is_sheep, players_in
from .layout import (
    ANY_SHEEP,
    GOLDEN,
    MAX_PLAYERS,
    N_KINDS,
    N_KNOW,
    R_DECK,
    R_GOLDEN_WORTH,
    R_REMOVE,
    SHEEP,
    ST_ASIDE,
    ST_FIRST,
    ST_KNOWN,
    ST_N_PLAYERS,
    ST_NO_SHEEP,
    ST_PILE,
    ST_PILE_LEN,
    ST_RUN,
    ST_TRACK,
    ST_TURNS,
    V_ASIDE_TOTAL,
    V_DECK,
    V_FIRST,
    V_GOLDEN_WORTH,
    V_HAND,
    V_KNOWN,
    V_N_PLAYERS,
    V_NO_SHEEP,
    V_OTHER,
    V_PILE,
    V_PILE_COUNTS,
    V_PILE_LEN,
    V_PLAYERS_IN,
    V_RUN,
    V_SEAT,
    V_SHOW_POS,
    V_SIZES,
    V_TURNS,
)


@njit(inline="always")
def kix(v, h, slot):
    """Index of ``known[v, h, slot]`` in the state vector."""
    return ST_KNOWN + (v * MAX_PLAYERS + h) * N_KNOW + slot


@njit(inline="always")
def nix(v, h):
    return ST_NO_SHEEP + v * MAX_PLAYERS + h


@njit
def forget_one(st, v, h, kind):
    """``v`` saw ``h`` lose one card of ``kind``: lower the bound that covered it."""
    i = kix(v, h, kind)
    if st[i] > 0:
        st[i] -= 1
    elif is_sheep(kind) and st[kix(v, h, ANY_SHEEP)] > 0:
        st[kix(v, h, ANY_SHEEP)] -= 1


@njit
def forget_unseen(st, v, h, count):
    """``h`` lost ``count`` cards ``v`` did not see: at most ``count`` of any slot."""
    for slot in range(N_KNOW):
        i = kix(v, h, slot)
        st[i] = max(0, st[i] - count)


@njit
def seen_leave(st, h, kind):
    """Everyone sees ``h``'s card of ``kind`` reach the pile."""
    if st[ST_TRACK] == 0:
        return
    for v in range(st[ST_N_PLAYERS]):
        if v != h:
            forget_one(st, v, h, kind)


@njit
def seen_move(st, giver, taker, kind):
    """A card of ``kind`` passes from ``giver`` to ``taker``: both see it, nobody else."""
    if st[ST_TRACK] == 0:
        return
    for v in range(st[ST_N_PLAYERS]):
        if v == giver:
            st[kix(v, taker, kind)] += 1
        elif v == taker:
            forget_one(st, v, giver, kind)
        else:
            forget_unseen(st, v, giver, 1)
            st[nix(v, taker)] = 0


@njit
def seen_swap(st, a, b):
    """``a`` and ``b`` swapped hands (already swapped in ``st``): each now knows the
    other's hand exactly; everyone else's bounds follow the hands."""
    if st[ST_TRACK] == 0:
        return
    for v in range(st[ST_N_PLAYERS]):
        if v == a or v == b:
            other = b if v == a else a
            for k in range(N_KINDS):
                st[kix(v, other, k)] = st[hix(other, k)]
            st[kix(v, other, ANY_SHEEP)] = 0
            st[nix(v, other)] = 1
        else:
            for slot in range(N_KNOW):
                t = st[kix(v, a, slot)]
                st[kix(v, a, slot)] = st[kix(v, b, slot)]
                st[kix(v, b, slot)] = t
            t = st[nix(v, a)]
            st[nix(v, a)] = st[nix(v, b)]
            st[nix(v, b)] = t


@njit
def seen_pig(st, actor, target, plain, golden):
    """``actor`` took ``plain`` sheep and ``golden`` golden sheep from ``target``
    (before the move in ``st``): everyone sees how many sheep moved and that the target
    has none left; the two players also see which."""
    if st[ST_TRACK] == 0:
        return
    for v in range(st[ST_N_PLAYERS]):
        if v == target:
            st[kix(v, actor, SHEEP)] += plain
            st[kix(v, actor, GOLDEN)] += golden
        elif v != actor:
            ks = st[kix(v, target, SHEEP)]
            kg = st[kix(v, target, GOLDEN)]
            st[kix(v, actor, SHEEP)] += ks
            st[kix(v, actor, GOLDEN)] += kg
            st[kix(v, actor, ANY_SHEEP)] += max(0, plain + golden - ks - kg)
        if v != target:
            st[kix(v, target, SHEEP)] = 0
            st[kix(v, target, GOLDEN)] = 0
            st[kix(v, target, ANY_SHEEP)] = 0
            st[nix(v, target)] = 1


@njit
def build_view(st, R, seat, other, show_pos, view):
    """Fill ``view`` (``V_LEN``) with what ``seat`` sees; ``other`` is the other
    player of a sub-decision (-1 none), ``show_pos`` the Sheep Show card (-1 none)."""
    n = st[ST_N_PLAYERS]
    view[:] = 0
    view[V_SEAT] = seat
    view[V_N_PLAYERS] = n
    view[V_FIRST] = st[ST_FIRST]
    view[V_TURNS] = st[ST_TURNS]
    view[V_RUN] = st[ST_RUN]
    view[V_PLAYERS_IN] = players_in(st)
    view[V_GOLDEN_WORTH] = R[R_GOLDEN_WORTH]
    view[V_OTHER] = other
    view[V_SHOW_POS] = show_pos
    for k in range(N_KINDS):
        view[V_HAND + k] = st[hix(seat, k)]
        view[V_DECK + k] = R[R_DECK + k] - R[R_REMOVE + k]
    view[V_ASIDE_TOTAL] = aside_random_count(st, R)
    m = st[ST_PILE_LEN]
    view[V_PILE_LEN] = m
    for i in range(m):
        k = st[ST_PILE + i]
        view[V_PILE + i] = k
        view[V_PILE_COUNTS + k] += 1
    for h in range(n):
        view[V_SIZES + h] = hand_size(st, h)
        if h != seat:
            for slot in range(N_KNOW):
                view[V_KNOWN + h * N_KNOW + slot] = st[kix(seat, h, slot)]
            view[V_NO_SHEEP + h] = st[nix(seat, h)]


@njit
def aside_random_count(st, R):
    """Cards set aside at random (the named removals are public, the rest unseen)."""
    total = 0
    for k in range(N_KINDS):
        total += st[ST_ASIDE + k] - R[R_REMOVE + k]
    return total
