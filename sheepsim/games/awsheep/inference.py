"""The ``counter`` policy's inference of the rivals' hidden sheep from the public card
flow (what each rival's unseen cards are likely worth).

Unseen cards are the deck (after the public removals) minus the pile, the viewer's own
hand and every card it has seen in other hands. Each card the viewer does not know
(in a rival's hand or set aside) is taken to hold the average sheep value of the unseen
cards, except in hands known to hold no sheep; a sheep seen without its kind (after a
Piggin' Out) counts the average value of an unseen sheep card.
"""

from sheepsim.jit import njit

from .layout import (
    ANY_SHEEP,
    DOGHOUSE,
    GOLDEN,
    HORSE,
    METHANE,
    N_KINDS,
    N_KNOW,
    PIG,
    SHEEP,
    V_ASIDE_TOTAL,
    V_DECK,
    V_GOLDEN_WORTH,
    V_HAND,
    V_KNOWN,
    V_N_PLAYERS,
    V_NO_SHEEP,
    V_PILE_COUNTS,
    V_PLAYERS_IN,
    V_RUN,
    V_SEAT,
    V_SIZES,
)

OUT = -1000.0  # running out of cards loses the round
FLOCK_OFF_WEIGHT = 3.0  # a Flock Off now settles the round: weigh its margin more
RUN_WEIGHT = 0.25  # lengthening the run helps the leader
SIZE_WEIGHT = 0.1  # more cards: longer in the round, more choice


@njit
def unseen_rates(view):
    """``(value per unknown card, value per seen-but-unnamed sheep)``."""
    me = view[V_SEAT]
    n = view[V_N_PLAYERS]
    w = view[V_GOLDEN_WORTH]
    pool_s = view[V_DECK + SHEEP] - view[V_PILE_COUNTS + SHEEP] - view[V_HAND + SHEEP]
    pool_g = view[V_DECK + GOLDEN] - view[V_PILE_COUNTS + GOLDEN] - view[V_HAND + GOLDEN]
    anys = 0
    unknown = view[V_ASIDE_TOTAL]
    for h in range(n):
        if h == me:
            continue
        base = V_KNOWN + h * N_KNOW
        pool_s -= view[base + SHEEP]
        pool_g -= view[base + GOLDEN]
        anys += view[base + ANY_SHEEP]
        seen = 0
        for slot in range(N_KNOW):
            seen += view[base + slot]
        if view[V_NO_SHEEP + h] == 0:
            unknown += max(0, view[V_SIZES + h] - seen)
    pool_s = max(pool_s, 0)
    pool_g = max(pool_g, 0)
    cards = pool_s + pool_g
    per_sheep = (pool_s + w * pool_g) / cards if cards > 0 else 1.0
    rest = max(0.0, pool_s + w * pool_g - anys * per_sheep)
    per_card = rest / unknown if unknown > 0 else 0.0
    return per_card, per_sheep


@njit
def estimated_value(view, h, per_card, per_sheep):
    """Expected sheep value of rival ``h``'s hand."""
    base = V_KNOWN + h * N_KNOW
    seen = 0
    for slot in range(N_KNOW):
        seen += view[base + slot]
    v = (view[base + SHEEP] + view[V_GOLDEN_WORTH] * view[base + GOLDEN]
         + per_sheep * view[base + ANY_SHEEP])
    if view[V_NO_SHEEP + h] == 0:
        v += per_card * max(0, view[V_SIZES + h] - seen)
    return v


@njit
def counter_score(view, kind, target):
    """Estimated margin (own sheep value minus the best rival's) after playing
    ``kind`` at ``target``, with the Flock Off, run and running-out terms."""
    me = view[V_SEAT]
    n = view[V_N_PLAYERS]
    w = view[V_GOLDEN_WORTH]
    per_card, per_sheep = unseen_rates(view)
    my_size = -1
    for k in range(N_KINDS):
        my_size += view[V_HAND + k]
    own = view[V_HAND + SHEEP] + w * view[V_HAND + GOLDEN]
    if kind == SHEEP:
        own -= 1
    elif kind == GOLDEN:
        own -= w
    best = -1e9
    t_value = estimated_value(view, target, per_card, per_sheep) if target >= 0 else 0.0
    t_size = view[V_SIZES + target] if target >= 0 else 0
    for h in range(n):
        if h == me or view[V_SIZES + h] == 0:
            continue
        v = estimated_value(view, h, per_card, per_sheep)
        if h == target:
            if kind == PIG:
                v = 0.0
            elif kind == HORSE:
                if my_size == 0:
                    continue  # takes my empty hand: out of the round
                v = own
            elif kind == METHANE:
                if t_size <= 2:
                    continue  # discards its whole hand: out of the round
                non_sheep = t_size - t_value
                v = max(0.0, v - max(0.0, 2.0 - non_sheep))
        best = max(best, v)
    if kind == PIG and target >= 0:
        own += t_value
    elif kind == HORSE and target >= 0:
        own, my_size = t_value, t_size
    elif kind == DOGHOUSE and target >= 0 and my_size > 0:
        my_size += 1
    if my_size <= 0:
        return OUT
    if best < -1e8:
        return -OUT  # every rival is out: this card wins the round
    margin = own - best
    score = margin + SIZE_WEIGHT * my_size
    if kind == SHEEP or kind == GOLDEN:
        if view[V_RUN] + 1 >= view[V_PLAYERS_IN]:
            return FLOCK_OFF_WEIGHT * margin
        score += RUN_WEIGHT * margin
    return score
