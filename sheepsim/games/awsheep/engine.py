"""One round of Aw, Sheep! in numba: deal, draft, turns and card effects.

Rules (shared/rulebooks/README.md, "Aw, Sheep!"): the deck is reduced by player count
and dealt equally; the optional draft keeps one card and passes the rest left until
every card is kept; the first player is drawn at random and play is clockwise (seat
order). A turn plays one card on the pile and resolves it. The end of the round
(:mod:`.ending`) is checked after every turn.

Streams: the deal (``S_DEAL``), the first player and random Doghouse draws
(``S_CHANCE``), draft picks (``S_DRAFT + seat``, phase 1 of the seat's stream), play
decisions (``S_POLICY + seat``, phase 0: every seat its own), the final fair draw
(``S_TIE``).
"""

from sheepsim import rng
from sheepsim.jit import njit

from .cards import hand_size, hix, move_card, random_kind, sheep_value, swap_hands, to_pile
from .ending import check_end
from .knowledge import seen_leave, seen_move, seen_pig, seen_swap
from .layout import (
    CTX_PHASE,
    DOGHOUSE,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAFT,
    EV_GIVE,
    EV_OUT,
    EV_PIG,
    EV_PLAY,
    EV_SWAP,
    EV_TAKE,
    GOLDEN,
    HORSE,
    K_DISCARD,
    K_DRAFT,
    K_GIVE,
    K_PLAY,
    K_RETURN,
    METHANE,
    N_KINDS,
    NO_TARGET,
    PHASE_DRAFT,
    PHASE_PLAY,
    PIG,
    R_ASIDE_RANDOM,
    R_DECK,
    R_DRAFT,
    R_GOLDEN_WORTH,
    R_HAND_SIZE,
    R_N_PLAYERS,
    R_REMOVE,
    R_TAKER_CHOOSES,
    RANDOM,
    S_CHANCE,
    S_DEAL,
    SHEEP,
    ST_ASIDE,
    ST_ENDED,
    ST_FIRST,
    ST_HAND,
    ST_IN_BEFORE,
    ST_MOVED,
    ST_N_PLAYERS,
    ST_PILE,
    ST_START_HAND,
    ST_TRACK,
    ST_TURN_SEAT,
    ST_TURNS,
    ST_USE,
    ST_WINNER,
    U_KNOCKOUTS,
    U_OWN,
    U_PLAYS,
    U_SELF_OUT,
    U_TARGET,
    USE_WIDTH,
)
from .table import ask, log_event


@njit
def deal(st, R, w):
    """Fresh state: named removals and random set-aside, equal hands, first player.
    The pile area holds the shuffled deck while dealing (no allocation)."""
    n = R[R_N_PLAYERS]
    st[:] = 0
    st[ST_N_PLAYERS] = n
    seat_pid = w.seat_pid
    for s in range(n):
        if seat_pid[s] != RANDOM:
            st[ST_TRACK] = 1
    size = 0
    for k in range(N_KINDS):
        st[ST_ASIDE + k] = R[R_REMOVE + k]
        for _ in range(R[R_DECK + k] - R[R_REMOVE + k]):
            st[ST_PILE + size] = k
            size += 1
    cards = st[ST_PILE:ST_PILE + size]
    rng.shuffle(w.streams, S_DEAL, cards)
    aside = R[R_ASIDE_RANDOM]
    h = R[R_HAND_SIZE]
    for i in range(aside):
        st[ST_ASIDE + cards[i]] += 1
    for s in range(n):
        for i in range(aside + s * h, aside + (s + 1) * h):
            st[hix(s, cards[i])] += 1
    cards[:] = 0
    st[ST_FIRST] = rng.randbelow(w.streams, S_CHANCE, n)
    st[ST_TURN_SEAT] = st[ST_FIRST]
    # a: cards set aside unseen (random), b: the named removals (public)
    log_event(st, w, EV_DEAL, st[ST_FIRST], -1, -1, aside,
              st[ST_ASIDE:ST_ASIDE + N_KINDS].sum() - aside)


@njit
def pack_options(st, seat, opts):
    """Draft options: one row ``[kind, copies]`` per kind in ``seat``'s pack."""
    m = 0
    for k in range(N_KINDS):
        c = st[ST_START_HAND + seat * N_KINDS + k]
        if c > 0:
            opts[m, 0] = k
            opts[m, 1] = c
            m += 1
    return m


@njit
def draft(st, R, w):
    """Animal Auction: the dealt hands become packs (kept in ``ST_START_HAND``); each
    player keeps one card of the pack in hand, then every pack passes left (to the next
    seat), until every card is kept."""
    n = R[R_N_PLAYERS]
    opts, ctx = w.opts, w.ctx
    ctx[CTX_PHASE] = PHASE_DRAFT
    for i in range(n * N_KINDS):
        st[ST_START_HAND + i] = st[ST_HAND + i]
        st[ST_HAND + i] = 0
    for pick in range(R[R_HAND_SIZE]):
        for s in range(n):
            m = pack_options(st, s, opts)
            k = opts[ask(st, R, w, s, K_DRAFT, -1, m, -1), 0]
            st[ST_START_HAND + s * N_KINDS + k] -= 1
            st[hix(s, k)] += 1
            log_event(st, w, EV_DRAFT, s, k, (s + 1) % n, pick, 0)
        for k in range(N_KINDS):
            last = st[ST_START_HAND + (n - 1) * N_KINDS + k]
            for s in range(n - 1, 0, -1):
                st[ST_START_HAND + s * N_KINDS + k] = st[ST_START_HAND + (s - 1) * N_KINDS + k]
            st[ST_START_HAND + k] = last
    ctx[CTX_PHASE] = PHASE_PLAY


@njit
def hand_options(st, seat, opts, other):
    """One row ``[kind, other]`` per kind in ``seat``'s hand."""
    m = 0
    for k in range(N_KINDS):
        if st[hix(seat, k)] > 0:
            opts[m, 0] = k
            opts[m, 1] = other
            m += 1
    return m


@njit
def play_options(st, seat, opts):
    """Rows ``[kind, target]``: each action card at each rival holding cards (no such
    rival, or a Doghouse as the last card: ``NO_TARGET``, no effect); sheep untargeted."""
    n = st[ST_N_PLAYERS]
    last_card = hand_size(st, seat) == 1
    rivals = 0  # bit t: seat t is a rival holding cards
    for t in range(n):
        if t != seat and hand_size(st, t) > 0:
            rivals |= 1 << t
    m = 0
    for k in range(N_KINDS):
        if st[hix(seat, k)] == 0:
            continue
        first = m
        if k != SHEEP and k != GOLDEN and not (k == DOGHOUSE and last_card):
            for t in range(n):
                if (rivals >> t) & 1:
                    opts[m, 0] = k
                    opts[m, 1] = t
                    m += 1
        if m == first:
            opts[m, 0] = k
            opts[m, 1] = NO_TARGET
            m += 1
    return m


@njit
def doghouse(st, R, w, actor, target):
    """A trade (README): the actor chooses one card to give and, at the same time, the
    target chooses two cards from the hand it holds *before* the trade (drawn at random
    from that hand with ``doghouse_cards = "drawn_at_random"``); fewer than two: all it
    has. The given card arrives last, so it is never handed back, and a target with one
    card gives it, keeps the actor's card and stays in."""
    opts = w.opts
    m = hand_options(st, actor, opts, target)
    give = opts[ask(st, R, w, actor, K_GIVE, target, m, -1), 0]
    # the target's cards leave its pre-trade hand before the given card arrives; the
    # actor still holds ``give`` (the cards it receives only add to its hand)
    moved = 1
    for _ in range(2):
        if hand_size(st, target) == 0:
            break
        if R[R_TAKER_CHOOSES]:
            k = random_kind(st, target, w.streams, S_CHANCE)
        else:
            m = hand_options(st, target, opts, actor)
            k = opts[ask(st, R, w, target, K_RETURN, actor, m, -1), 0]
        move_card(st, target, actor, k)
        seen_move(st, target, actor, k)
        log_event(st, w, EV_TAKE, target, k, actor, 0, 0)
        moved += 1
    move_card(st, actor, target, give)
    seen_move(st, actor, target, give)
    log_event(st, w, EV_GIVE, actor, give, target, 0, 0)
    st[ST_MOVED] = moved


@njit
def methane(st, R, w, actor, target):
    """The target discards two cards of its choice onto the pile (all if fewer)."""
    opts = w.opts
    for _ in range(2):
        if hand_size(st, target) == 0:
            break
        m = hand_options(st, target, opts, actor)
        k = opts[ask(st, R, w, target, K_DISCARD, actor, m, -1), 0]
        st[hix(target, k)] -= 1
        to_pile(st, k)
        seen_leave(st, target, k)
        st[ST_MOVED] += 1
        log_event(st, w, EV_DISCARD, target, k, actor, 0, 0)


@njit
def piggin_out(st, w, actor, target):
    """Take every sheep card (plain and golden) from the target's hand."""
    plain = st[hix(target, SHEEP)]
    golden = st[hix(target, GOLDEN)]
    seen_pig(st, actor, target, plain, golden)
    for _ in range(plain):
        move_card(st, target, actor, SHEEP)
    for _ in range(golden):
        move_card(st, target, actor, GOLDEN)
    st[ST_MOVED] = plain + golden
    log_event(st, w, EV_PIG, actor, PIG, target, plain, golden)


@njit
def resolve(st, R, w, seat, kind, target):
    """The played card's effect (sheep and untargeted cards: none)."""
    if target < 0:
        return
    if kind == DOGHOUSE:
        doghouse(st, R, w, seat, target)
    elif kind == METHANE:
        methane(st, R, w, seat, target)
    elif kind == HORSE:
        st[ST_MOVED] = hand_size(st, seat) + hand_size(st, target)
        swap_hands(st, seat, target)
        seen_swap(st, seat, target)
        log_event(st, w, EV_SWAP, seat, HORSE, target, 0, 0)
    elif kind == PIG:
        piggin_out(st, w, seat, target)


@njit
def play_turn(st, R, w, seat):
    """``seat`` plays one card face up on the pile and resolves it; what the play did
    is tallied in ``ST_USE`` (:data:`~.layout.USE_NAMES`)."""
    n = st[ST_N_PLAYERS]
    for s in range(n):
        st[ST_IN_BEFORE + s] = 1 if hand_size(st, s) > 0 else 0
    opts = w.opts
    i = ask(st, R, w, seat, K_PLAY, -1, play_options(st, seat, opts), -1)
    kind = opts[i, 0]
    target = opts[i, 1]
    worth = R[R_GOLDEN_WORTH]
    own_before = sheep_value(st, seat, worth)
    target_before = sheep_value(st, target, worth) if target >= 0 else 0
    st[hix(seat, kind)] -= 1
    to_pile(st, kind)
    seen_leave(st, seat, kind)
    st[ST_MOVED] = 0
    log_event(st, w, EV_PLAY, seat, kind, target, 0, 0)
    resolve(st, R, w, seat, kind, target)
    st[ST_TURNS] += 1
    use = ST_USE + (seat * N_KINDS + kind) * USE_WIDTH
    st[use + U_PLAYS] += 1
    st[use + U_OWN] += sheep_value(st, seat, worth) - own_before
    if target >= 0:
        st[use + U_TARGET] += sheep_value(st, target, worth) - target_before
    for s in range(n):
        if st[ST_IN_BEFORE + s] == 1 and hand_size(st, s) == 0:
            log_event(st, w, EV_OUT, s, -1, -1, 0, 0)
            if s == seat:
                st[use + U_SELF_OUT] += 1
            else:
                st[use + U_KNOCKOUTS] += 1


@njit
def next_seat(st, seat):
    """The next seat clockwise that still holds cards."""
    n = st[ST_N_PLAYERS]
    for d in range(1, n + 1):
        s = (seat + d) % n
        if hand_size(st, s) > 0:
            return s
    return seat


@njit
def start_round(st, R, w):
    """The deal and, if the rules say so, the draft."""
    deal(st, R, w)
    if R[R_DRAFT]:
        draft(st, R, w)


@njit
def play_from_start(st, R, w):
    """Play a dealt (and drafted) round to its end; the hands now are the starting
    hands. Returns the winning seat (also ``st[ST_WINNER]``)."""
    n = st[ST_N_PLAYERS]
    for i in range(n * N_KINDS):
        st[ST_START_HAND + i] = st[ST_HAND + i]
    seat = st[ST_FIRST]
    while True:
        st[ST_TURN_SEAT] = seat
        play_turn(st, R, w, seat)
        check_end(st, R, w)
        if st[ST_ENDED]:
            return st[ST_WINNER]
        seat = next_seat(st, seat)


@njit
def play_round(st, R, w):
    """A whole round from the deal; returns the winning seat (also ``st[ST_WINNER]``)."""
    start_round(st, R, w)
    return play_from_start(st, R, w)


@njit
def start_replaced(st, R, w, seat, kind, R_replay):
    """The deal and draft of the plain round, then one card of ``kind`` in ``seat``'s
    starting hand replaced by a plain sheep (``seat`` must hold one); ``R_replay`` (a
    scratch copy, ``R``'s length) becomes the rules vector of the replayed round: the
    deck it is played with, one card of ``kind`` fewer and one sheep more, so the public
    deck every player reasons from (``build_view``'s ``V_DECK``) is the real one."""
    start_round(st, R, w)
    st[hix(seat, kind)] -= 1
    st[hix(seat, SHEEP)] += 1
    R_replay[:] = R
    R_replay[R_DECK + kind] -= 1
    R_replay[R_DECK + SHEEP] += 1


@njit
def play_round_replaced(st, R, w, seat, kind, R_replay):
    """:func:`play_round` with one card of ``kind`` in ``seat``'s starting hand (after
    the draft) replaced by a plain sheep (:func:`start_replaced`). The deal, draft and
    every stream are the ones of the plain round (the caller keys the streams the
    same): the card value's counterfactual, played with the deck it holds (before, the
    players believed the public deck of the plain round: one card of ``kind`` more,
    one sheep fewer than in play)."""
    start_replaced(st, R, w, seat, kind, R_replay)
    return play_from_start(st, R_replay, w)
