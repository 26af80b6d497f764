"""Aw, Sheep!'s round as a state machine for the shared harness (:mod:`sheepsim.harness`).

The rules (shared/rulebooks/README.md, "Aw, Sheep!"): the deck is reduced by player
count and dealt equally; the optional draft keeps one card and passes the rest left
until every card is kept; the first player is drawn at random and play is clockwise. A
turn plays one card on the pile and resolves it. The round ends when only one player
still holds cards (that player wins) or when the run of consecutive sheep on the pile
reaches the players still in (the Flock Off: most sheep wins, the golden sheep worth
``golden_worth``; everyone out at once: among those in before that turn). Ties go to the
Sheep Show, or a fair draw (``tie_break``). sheepsim decisions: the last-player check
comes first; the run check is "reaches or passes", or "equals" (``flock_off_run``).

The round waits in one of the steps below for one seat's choice (``to_move`` lists its options,
``apply`` plays it and every chance event after it, up to the next decision):

* ``DRAFT``: the Animal Auction, every seat in turn keeps a card of its pack, then the
  packs pass left, until every card is kept;
* ``PLAY``: the player on turn plays a card (and its target);
* ``GIVE``: In the Doghouse, the actor's card for the target; then ``RETURN``: the
  target's two cards back, one decision each (drawn from ``S_CHANCE`` instead with
  ``doghouse_cards = "drawn_at_random"``); the given card arrives last;
* ``DISCARD``: Power of Methane, the target's two discards, one decision each;
* ``GUESS``: the Sheep Show, every tied seat in seat order guesses the pile card at
  ``X_POS``; wrong guessers drop out unless all were wrong; a fair draw (``S_TIE``) when
  the pile runs out.

The decision kinds are :mod:`.layout`'s ``K_*`` (the option rows and views are the
engine's), the chance rows its ``S_CHANCE``, ``S_DEAL``, ``S_TIE`` and the stream phase
of a draft pick its ``PHASE_DRAFT``: the harness keys them as the engine did, so every
draw is where it was. The state is :mod:`.layout`'s ``ST_*`` vector and the step
fields ``X_*`` after it.
"""

from sheepsim import rng
from sheepsim.jit import njit

from .cards import hand_size, hix, is_sheep, move_card, random_kind, sheep_value, swap_hands, to_pile
from .knowledge import build_view, seen_leave, seen_move, seen_pig, seen_swap
from .layout import (
    ACC_LEN,
    DOGHOUSE,
    END_DRAW,
    END_FLOCK_OFF,
    END_LAST,
    END_SHEEP_SHOW,
    EV_DEAL,
    EV_DISCARD,
    EV_DRAFT,
    EV_DRAW,
    EV_DROP,
    EV_END,
    EV_FLOCK_OFF,
    EV_GIVE,
    EV_GUESS,
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
    K_GUESS,
    K_PLAY,
    K_RETURN,
    KIND_DECISIONS,
    LOG_HEAD,
    LOG_WIDTH,
    MAX_OPTS,
    MAX_PLAYERS,
    METHANE,
    N_GAME_STREAMS,
    N_KINDS,
    NO_TARGET,
    OPT_WIDTH,
    PHASE_DRAFT,
    PHASE_PLAY,
    PIG,
    R_ASIDE_RANDOM,
    R_DECK,
    R_DRAFT,
    R_GOLDEN_WORTH,
    R_HAND_SIZE,
    R_LEN,
    R_N_PLAYERS,
    R_REMOVE,
    R_RUN_PASSES,
    R_TAKER_CHOOSES,
    R_TIE_BREAK,
    RANDOM,
    S_CHANCE,
    S_DEAL,
    S_TIE,
    SHEEP,
    ST_ASIDE,
    ST_END_REASON,
    ST_ENDED,
    ST_FIRST,
    ST_IN_BEFORE,
    ST_LEN,
    ST_MARGIN,
    ST_MOVED,
    ST_N_PLAYERS,
    ST_PILE,
    ST_PILE_LEN,
    ST_RUN,
    ST_SHOW_CARDS,
    ST_START_HAND,
    ST_TIED,
    ST_TRACK,
    ST_TRIGGER,
    ST_TURN_SEAT,
    ST_TURNS,
    ST_USE,
    ST_WINNER,
    TIE_DRAW,
    TRIGGER_EVERYONE_OUT,
    TRIGGER_RUN_EQUALS,
    TRIGGER_RUN_PASSES,
    U_KNOCKOUTS,
    U_OWN,
    U_PLAYS,
    U_SELF_OUT,
    U_TARGET,
    USE_WIDTH,
    V_DECK,
    V_LEN,
)
from .policies import decide  # noqa: F401  (the harness binds it: the built-in policies)
from .tally import tally as _tally

#: the rules: :class:`~.rules.AwSheepRules` loads its own file (``R`` is its
#: ``kernel_array``), so the harness reads no keys of it
RULES = {}
KINDS = KIND_DECISIONS
KIND_PHASES = tuple(PHASE_DRAFT if k == K_DRAFT else PHASE_PLAY for k in range(len(KINDS)))
CHANCE_STREAMS = N_GAME_STREAMS
MAX_OPTIONS, OPTION_WIDTH = MAX_OPTS, OPT_WIDTH
VIEW_LEN = V_LEN
#: the game's own counts after the harness's (:mod:`.tally`, layout ``A_*``)
TALLY_LEN = ACC_LEN
#: ``R`` is the rules vector (``R_LEN``) and two entries more: the card value's
#: counterfactual (:func:`.simulate.card_value_counts`), one card of kind ``R[RX_KIND]`` in seat
#: ``R[RX_SEAT]``'s starting hand (after the draft) replaced by a plain sheep, the
#: round then played with the deck that makes (one card of that kind fewer, one sheep
#: more: the public deck of every view); -1: none. A seat without such a card plays no
#: round (no winner).
RX_SEAT, RX_KIND = R_LEN, R_LEN + 1
MACHINE_R_LEN = R_LEN + 2

# ---------------------------------------------------------------- the step fields
DRAFT, PLAY, GIVE, RETURN, DISCARD, GUESS, OVER = range(7)
X_STEP = ST_LEN     # the step the round waits in
X_SEAT = ST_LEN + 1  # the seat to decide (draft: the seat picking; guess: the guesser)
X_ACTOR = ST_LEN + 2  # the player of the Doghouse or Methane
X_TARGET = ST_LEN + 3  # its target
X_GIVE = ST_LEN + 4  # Doghouse: the card the actor gives (it arrives last)
X_COUNT = ST_LEN + 5  # cards handed back or discarded so far
X_PICK = ST_LEN + 6  # draft: the pick
X_POS = ST_LEN + 7  # Sheep Show: the pile card being guessed
X_ALIVE = ST_LEN + 8  # Sheep Show: seats tied before this card's guesses
X_WRONG = ST_LEN + 9  # Sheep Show: wrong guesses at this card
X_OWN_BEFORE = ST_LEN + 10  # the player's flock value before its play
X_TARGET_BEFORE = ST_LEN + 11  # its target's
X_KIND = ST_LEN + 12  # the card played
X_TRACE = ST_LEN + 13  # 1: record the events (a trace)
X_EVENTS_N = ST_LEN + 14  # events recorded since the harness last took them
X_REPLACED = ST_LEN + 15  # 1: the card value's replacement was made (RX_*)
X_LEN = 16
#: the events of a trace: :mod:`.layout`'s trace log rows ``[event, seat, kind, target,
#: a, b, run, pile_len, sizes, hands]``; one step records at most EVENT_CAP, in the
#: scratch after the state (not zeroed before every round: each row is written first)
EVENT_WIDTH = LOG_WIDTH
EVENT_CAP = 4 * MAX_PLAYERS + 8
X_EVENTS = ST_LEN + X_LEN
SCRATCH_LEN = EVENT_CAP * EVENT_WIDTH
#: a round's own result (slot ``result``): every seat's starting hand (after the draft,
#: seat-major by kind; ``MAX_PLAYERS`` seats, those not seated 0), so that the card
#: value replays only the rounds in which the seat holds the kind
RESULT_LEN = MAX_PLAYERS * N_KINDS


def state_size(players):
    return ST_LEN + X_LEN


# ------------------------------------------------------------------- the trace
@njit
def trace_on(st, R):
    st[X_TRACE] = 1


@njit
def log_event(st, ev, seat, kind, target, a, b):
    """Record an event with the run, the pile, the hand sizes and every hand (a trace
    only)."""
    if st[X_TRACE] == 0:
        return
    row = X_EVENTS + st[X_EVENTS_N] * EVENT_WIDTH
    st[X_EVENTS_N] += 1
    st[row:row + EVENT_WIDTH] = 0
    st[row] = ev
    st[row + 1] = seat
    st[row + 2] = kind
    st[row + 3] = target
    st[row + 4] = a
    st[row + 5] = b
    st[row + 6] = st[ST_RUN]
    st[row + 7] = st[ST_PILE_LEN]
    for s in range(st[ST_N_PLAYERS]):
        st[row + LOG_HEAD + s] = hand_size(st, s)
        for k in range(N_KINDS):
            st[row + LOG_HEAD + MAX_PLAYERS + s * N_KINDS + k] = st[hix(s, k)]


@njit
def events(st, R, out):
    m = min(st[X_EVENTS_N], out.shape[0])
    for i in range(m):
        row = X_EVENTS + i * EVENT_WIDTH
        for j in range(EVENT_WIDTH):
            out[i, j] = st[row + j]
    st[X_EVENTS_N] = 0
    return m


# ------------------------------------------------------------------- the deal
@njit
def start(st, R, players, chance):
    """The deal (named removals, the random set-aside, equal hands, the first player)
    and the first decision: the draft's first pick, or the first player's turn."""
    n = R[R_N_PLAYERS]
    st[ST_N_PLAYERS] = n
    size = 0
    for k in range(N_KINDS):
        st[ST_ASIDE + k] = R[R_REMOVE + k]
        for _ in range(R[R_DECK + k] - R[R_REMOVE + k]):
            st[ST_PILE + size] = k
            size += 1
    cards = st[ST_PILE:ST_PILE + size]
    rng.shuffle(chance, S_DEAL, cards)
    aside = R[R_ASIDE_RANDOM]
    h = R[R_HAND_SIZE]
    for i in range(aside):
        st[ST_ASIDE + cards[i]] += 1
    for s in range(n):
        for i in range(aside + s * h, aside + (s + 1) * h):
            st[hix(s, cards[i])] += 1
    cards[:] = 0
    st[ST_FIRST] = rng.randbelow(chance, S_CHANCE, n)
    st[ST_TURN_SEAT] = st[ST_FIRST]
    # a: cards set aside unseen (random), b: the named removals (public)
    log_event(st, EV_DEAL, st[ST_FIRST], -1, -1, aside,
              st[ST_ASIDE:ST_ASIDE + N_KINDS].sum() - aside)
    if R[R_DRAFT]:  # the dealt hands become packs
        for i in range(n * N_KINDS):
            st[ST_START_HAND + i] = st[hix(0, 0) + i]
            st[hix(0, 0) + i] = 0
        st[X_STEP] = DRAFT
        st[X_SEAT] = 0
        st[X_PICK] = 0
    else:
        start_play(st, R)


@njit
def seated(st, R, seat_pid):
    """Keep the knowledge bookkeeping only when a seat's policy reads it (``random``
    reads no view but the Sheep Show pile)."""
    for s in range(st[ST_N_PLAYERS]):
        if seat_pid[s] != RANDOM:
            st[ST_TRACK] = 1


@njit
def start_play(st, R):
    """The hands now are the starting hands (after the card value's replacement, if
    any); the first player's turn."""
    n = st[ST_N_PLAYERS]
    seat, kind = R[RX_SEAT], R[RX_KIND]
    if seat >= 0:
        if st[hix(seat, kind)] == 0:  # nothing to replace: no round
            st[ST_ENDED] = 1
            st[ST_WINNER] = -1
            st[X_STEP] = OVER
            return
        st[hix(seat, kind)] -= 1
        st[hix(seat, SHEEP)] += 1
        st[X_REPLACED] = 1
    for i in range(n * N_KINDS):
        st[ST_START_HAND + i] = st[hix(0, 0) + i]
    begin_turn(st, st[ST_FIRST])


@njit
def begin_turn(st, seat):
    n = st[ST_N_PLAYERS]
    st[ST_TURN_SEAT] = seat
    for s in range(n):
        st[ST_IN_BEFORE + s] = 1 if hand_size(st, s) > 0 else 0
    st[X_STEP] = PLAY
    st[X_SEAT] = seat


# ---------------------------------------------------------------- the options
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
def to_move(st, R, opts):
    step = st[X_STEP]
    if step == PLAY:
        seat = st[X_SEAT]
        return seat, K_PLAY, play_options(st, seat, opts)
    if step == GIVE:
        actor = st[X_ACTOR]
        return actor, K_GIVE, hand_options(st, actor, opts, st[X_TARGET])
    if step == RETURN:
        target = st[X_TARGET]
        return target, K_RETURN, hand_options(st, target, opts, st[X_ACTOR])
    if step == DISCARD:
        target = st[X_TARGET]
        return target, K_DISCARD, hand_options(st, target, opts, st[X_ACTOR])
    if step == DRAFT:
        seat = st[X_SEAT]
        return seat, K_DRAFT, pack_options(st, seat, opts)
    if step == GUESS:
        pos = st[X_POS]
        opts[0, 0] = 1
        opts[0, 1] = pos
        opts[1, 0] = 0
        opts[1, 1] = pos
        return st[X_SEAT], K_GUESS, 2
    return -1, 0, 0


# --------------------------------------------------------------- the choices
@njit
def apply(st, R, seat, kind, opts, choice, chance):
    k = opts[choice, 0]
    if kind == K_PLAY:
        play(st, R, seat, k, opts[choice, 1], chance)
    elif kind == K_GIVE:
        st[X_GIVE] = k
        st[ST_MOVED] = 1
        st[X_COUNT] = 0
        doghouse_returns(st, R, chance)
    elif kind == K_RETURN:
        take(st, st[X_TARGET], st[X_ACTOR], k)
        doghouse_returns(st, R, chance)
    elif kind == K_DISCARD:
        target = st[X_TARGET]
        st[hix(target, k)] -= 1
        to_pile(st, k)
        seen_leave(st, target, k)
        st[ST_MOVED] += 1
        log_event(st, EV_DISCARD, target, k, st[X_ACTOR], 0, 0)
        st[X_COUNT] += 1
        if st[X_COUNT] == 2 or hand_size(st, target) == 0:
            end_turn(st, R, chance)
    elif kind == K_DRAFT:
        draft_pick(st, R, seat, k)
    else:
        guess(st, R, seat, k, chance)


@njit
def draft_pick(st, R, seat, k):
    """``seat`` keeps a card of ``k`` from its pack; after the last seat the packs pass
    left, after the last pick play starts."""
    n = st[ST_N_PLAYERS]
    st[ST_START_HAND + seat * N_KINDS + k] -= 1
    st[hix(seat, k)] += 1
    log_event(st, EV_DRAFT, seat, k, (seat + 1) % n, st[X_PICK], 0)
    if seat + 1 < n:
        st[X_SEAT] = seat + 1
        return
    for j in range(N_KINDS):
        last = st[ST_START_HAND + (n - 1) * N_KINDS + j]
        for s in range(n - 1, 0, -1):
            st[ST_START_HAND + s * N_KINDS + j] = st[ST_START_HAND + (s - 1) * N_KINDS + j]
        st[ST_START_HAND + j] = last
    st[X_PICK] += 1
    st[X_SEAT] = 0
    if st[X_PICK] == R[R_HAND_SIZE]:
        start_play(st, R)


@njit
def play(st, R, seat, kind, target, chance):
    """``seat`` plays ``kind`` face up on the pile at ``target`` and resolves it."""
    worth = R[R_GOLDEN_WORTH]
    st[X_OWN_BEFORE] = sheep_value(st, seat, worth)
    st[X_TARGET_BEFORE] = sheep_value(st, target, worth) if target >= 0 else 0
    st[hix(seat, kind)] -= 1
    to_pile(st, kind)
    seen_leave(st, seat, kind)
    st[ST_MOVED] = 0
    log_event(st, EV_PLAY, seat, kind, target, 0, 0)
    resolve(st, R, seat, kind, target, chance)


@njit
def resolve(st, R, seat, kind, target, chance):
    """The effect of the card ``kind`` ``seat`` played at ``target`` (sheep and untargeted
    cards: none): the decision it waits for (Doghouse, Methane), else the turn ends."""
    st[X_KIND] = kind
    st[X_TARGET] = target
    st[X_ACTOR] = seat
    if target < 0:
        end_turn(st, R, chance)
    elif kind == DOGHOUSE:
        st[X_STEP] = GIVE
    elif kind == METHANE:
        st[X_COUNT] = 0
        st[X_STEP] = DISCARD  # the target held cards (a rival holding cards)
    elif kind == HORSE:
        st[ST_MOVED] = hand_size(st, seat) + hand_size(st, target)
        swap_hands(st, seat, target)
        seen_swap(st, seat, target)
        log_event(st, EV_SWAP, seat, HORSE, target, 0, 0)
        end_turn(st, R, chance)
    else:  # PIG: every sheep card of the target
        plain = st[hix(target, SHEEP)]
        golden = st[hix(target, GOLDEN)]
        seen_pig(st, seat, target, plain, golden)
        for _ in range(plain):
            move_card(st, target, seat, SHEEP)
        for _ in range(golden):
            move_card(st, target, seat, GOLDEN)
        st[ST_MOVED] = plain + golden
        log_event(st, EV_PIG, seat, PIG, target, plain, golden)
        end_turn(st, R, chance)


@njit
def take(st, target, actor, k):
    """One card of ``k`` the Doghouse target hands the actor."""
    move_card(st, target, actor, k)
    seen_move(st, target, actor, k)
    log_event(st, EV_TAKE, target, k, actor, 0, 0)
    st[ST_MOVED] += 1
    st[X_COUNT] += 1


@njit
def doghouse_returns(st, R, chance):
    """The target's cards for the actor, up to two from its pre-trade hand (drawn at
    random, or its decision), then the given card; the turn ends."""
    target, actor = st[X_TARGET], st[X_ACTOR]
    while st[X_COUNT] < 2 and hand_size(st, target) > 0:
        if not R[R_TAKER_CHOOSES]:
            st[X_STEP] = RETURN
            return
        take(st, target, actor, random_kind(st, target, chance, S_CHANCE))
    give = st[X_GIVE]
    move_card(st, actor, target, give)
    seen_move(st, actor, target, give)
    log_event(st, EV_GIVE, actor, give, target, 0, 0)
    end_turn(st, R, chance)


@njit
def end_turn(st, R, chance):
    """What the play did (``ST_USE``), who went out, the end of the round; else the next
    seat holding cards is on turn."""
    n = st[ST_N_PLAYERS]
    seat, kind, target = st[ST_TURN_SEAT], st[X_KIND], st[X_TARGET]
    worth = R[R_GOLDEN_WORTH]
    st[ST_TURNS] += 1
    use = ST_USE + (seat * N_KINDS + kind) * USE_WIDTH
    st[use + U_PLAYS] += 1
    st[use + U_OWN] += sheep_value(st, seat, worth) - st[X_OWN_BEFORE]
    if target >= 0:
        st[use + U_TARGET] += sheep_value(st, target, worth) - st[X_TARGET_BEFORE]
    for s in range(n):
        if st[ST_IN_BEFORE + s] == 1 and hand_size(st, s) == 0:
            log_event(st, EV_OUT, s, -1, -1, 0, 0)
            if s == seat:
                st[use + U_SELF_OUT] += 1
            else:
                st[use + U_KNOCKOUTS] += 1
    check_end(st, R, chance)
    if st[X_STEP] != GUESS and not st[ST_ENDED]:
        begin_turn(st, next_seat(st, seat))


@njit
def next_seat(st, seat):
    """The next seat clockwise that still holds cards."""
    n = st[ST_N_PLAYERS]
    for d in range(1, n + 1):
        s = (seat + d) % n
        if hand_size(st, s) > 0:
            return s
    return seat


# ------------------------------------------------------------------ the end
@njit
def finish(st, winner, reason):
    st[ST_ENDED] = 1
    st[ST_WINNER] = winner
    st[ST_END_REASON] = reason
    st[X_STEP] = OVER
    log_event(st, EV_END, winner, -1, -1, reason, 0)


@njit
def tied_count(st):
    c = 0
    for s in range(st[ST_N_PLAYERS]):
        c += st[ST_TIED + s]
    return c


@njit
def only_tied(st):
    for s in range(st[ST_N_PLAYERS]):
        if st[ST_TIED + s]:
            return s
    return -1


@njit
def fair_draw(st, chance):
    """A uniform pick among the seats still tied."""
    j = rng.randbelow(chance, S_TIE, tied_count(st))
    for s in range(st[ST_N_PLAYERS]):
        if st[ST_TIED + s]:
            if j == 0:
                log_event(st, EV_DRAW, s, -1, -1, 0, 0)
                finish(st, s, END_DRAW)
                return
            j -= 1


@njit
def check_end(st, R, chance):
    """After a turn: one player with cards wins; nobody with cards or a long enough run
    of sheep: the Flock Off."""
    left = 0
    for s in range(st[ST_N_PLAYERS]):
        if hand_size(st, s) > 0:
            left += 1
    if left == 1:
        for s in range(st[ST_N_PLAYERS]):
            if hand_size(st, s) > 0:
                finish(st, s, END_LAST)
    elif left == 0:
        st[ST_TRIGGER] = TRIGGER_EVERYONE_OUT
        flock_off(st, R, chance, True)
    elif st[ST_RUN] == left or (st[ST_RUN] > left and R[R_RUN_PASSES]):
        st[ST_TRIGGER] = TRIGGER_RUN_EQUALS if st[ST_RUN] == left else TRIGGER_RUN_PASSES
        flock_off(st, R, chance, False)


@njit
def flock_off(st, R, chance, before):
    """Most sheep in hand wins among the players still in (``before``: among those in
    before the last turn, everyone being out); ties go to the tie break."""
    n = st[ST_N_PLAYERS]
    worth = R[R_GOLDEN_WORTH]
    best = -1
    for s in range(n):
        contender = st[ST_IN_BEFORE + s] if before else hand_size(st, s) > 0
        st[ST_TIED + s] = 1 if contender else 0
        if contender:
            best = max(best, sheep_value(st, s, worth))
    second = -1  # the best value below ``best`` among the contenders
    for s in range(n):
        if st[ST_TIED + s]:
            v = sheep_value(st, s, worth)
            if v < best:
                st[ST_TIED + s] = 0
                second = max(second, v)
    tied = tied_count(st)
    st[ST_MARGIN] = 0 if tied > 1 else best - max(second, 0)
    log_event(st, EV_FLOCK_OFF, -1, -1, -1, best, tied)
    if tied == 1:
        finish(st, only_tied(st), END_FLOCK_OFF)
    elif R[R_TIE_BREAK] == TIE_DRAW:
        fair_draw(st, chance)
    else:
        show_card(st, 0, chance)


@njit
def show_card(st, pos, chance):
    """The Sheep Show reads pile card ``pos``: the first tied seat guesses (a fair draw
    when the pile has run out)."""
    if pos >= st[ST_PILE_LEN]:
        fair_draw(st, chance)
        return
    st[X_POS] = pos
    st[X_ALIVE] = tied_count(st)
    st[X_WRONG] = 0
    st[X_STEP] = GUESS
    st[X_SEAT] = next_tied(st, 0)


@njit
def next_tied(st, first):
    for s in range(first, st[ST_N_PLAYERS]):
        if st[ST_TIED + s]:
            return s
    return -1


@njit
def guess(st, R, seat, g, chance):
    """``seat`` guessed ``g`` (1: a sheep); after the last tied seat, wrong guessers drop
    out unless all were wrong."""
    pos = st[X_POS]
    truth = 1 if is_sheep(st[ST_PILE + pos]) else 0
    log_event(st, EV_GUESS, seat, st[ST_PILE + pos], -1, g, pos)
    if g != truth:
        st[ST_TIED + seat] = 2
        st[X_WRONG] += 1
    nxt = next_tied(st, seat + 1)
    if nxt >= 0:
        st[X_SEAT] = nxt
        return
    for s in range(st[ST_N_PLAYERS]):
        if st[ST_TIED + s] == 2:
            if st[X_WRONG] == st[X_ALIVE]:
                st[ST_TIED + s] = 1  # all wrong: nobody drops out
            else:
                st[ST_TIED + s] = 0
                log_event(st, EV_DROP, s, -1, -1, 0, pos)
    st[ST_SHOW_CARDS] = pos + 1
    if tied_count(st) == 1:
        finish(st, only_tied(st), END_SHEEP_SHOW)
    else:
        show_card(st, pos + 1, chance)


# ------------------------------------------------------------ what the harness reads
@njit
def scores(st, R, out):
    """Every seat's flock value (the golden sheep worth ``golden_worth``)."""
    worth = R[R_GOLDEN_WORTH]
    for s in range(st[ST_N_PLAYERS]):
        out[s] = sheep_value(st, s, worth)


@njit
def winner(st, R):
    return st[ST_WINNER]


@njit
def view(st, R, seat, out):
    """:func:`~.knowledge.build_view` with the decision's other player and the Sheep
    Show card."""
    step = st[X_STEP]
    other = -1
    show = -1
    if step == GIVE:
        other = st[X_TARGET]
    elif step == RETURN or step == DISCARD:
        other = st[X_ACTOR]
    elif step == GUESS:
        show = st[X_POS]
    build_view(st, R, seat, other, show, out)
    if st[X_REPLACED]:  # the deck the replayed round is played with
        out[V_DECK + R[RX_KIND]] -= 1
        out[V_DECK + SHEEP] += 1


@njit
def needs_view(pid, kind):
    """``random`` reads the view only to guess in the Sheep Show."""
    return pid != RANDOM or kind == K_GUESS


@njit
def result(st, R, out):
    """Every seat's starting hand (:data:`RESULT_LEN`)."""
    m = st[ST_N_PLAYERS] * N_KINDS
    for i in range(m):
        out[i] = st[ST_START_HAND + i]


@njit
def tally(st, R, acc, seat_pid, rotation):
    """The round's own counts (:func:`.tally.tally`) into ``acc`` (the game's block);
    none for a card value replay (``RX_SEAT``: only its winner is read)."""
    if R[RX_SEAT] < 0:
        _tally(acc, st, seat_pid, rotation)
