"""The end of a round: last player with cards, the Flock Off and the Sheep Show.

README: the round ends when only one player still holds cards (that player wins) or
when the run of consecutive sheep on the pile reaches the number of players still in
(the Flock Off: most sheep wins, the golden sheep worth ``golden_worth``). If everyone
is out at once, the Flock Off is held among the players who were in before that turn.
Ties go to the Sheep Show: the pile is read from its first card; every tied player
guesses "sheep" or "not a sheep"; wrong guessers drop out unless all are wrong; if the
pile runs out, a fair draw (``S_TIE``) among those left.

sheepsim decisions: the last-player check comes first (a turn that leaves one player
with cards ends the round there even if the run is long enough); the run check is
"reaches or passes" (a player going out on their last sheep lowers the count while the
run grows), or "equals" as the rulebook literally says (rules option ``flock_off_run``).
"""

from sheepsim import rng
from sheepsim.jit import njit

from .cards import hand_size, is_sheep, players_in, sheep_value
from .layout import (
    END_DRAW,
    END_FLOCK_OFF,
    END_LAST,
    END_SHEEP_SHOW,
    EV_DRAW,
    EV_DROP,
    EV_END,
    EV_FLOCK_OFF,
    EV_GUESS,
    K_GUESS,
    R_GOLDEN_WORTH,
    R_RUN_PASSES,
    R_TIE_BREAK,
    S_TIE,
    ST_END_REASON,
    ST_ENDED,
    ST_IN_BEFORE,
    ST_MARGIN,
    ST_N_PLAYERS,
    ST_PILE,
    ST_PILE_LEN,
    ST_RUN,
    ST_SHOW_CARDS,
    ST_TIED,
    ST_TRIGGER,
    ST_WINNER,
    TIE_DRAW,
    TRIGGER_EVERYONE_OUT,
    TRIGGER_RUN_EQUALS,
    TRIGGER_RUN_PASSES,
)
from .table import ask, log_event


@njit
def finish(st, w, winner, reason):
    st[ST_ENDED] = 1
    st[ST_WINNER] = winner
    st[ST_END_REASON] = reason
    log_event(st, w, EV_END, winner, -1, -1, reason, 0)


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
def fair_draw(st, w):
    """A uniform pick among the seats still tied."""
    j = rng.randbelow(w.streams, S_TIE, tied_count(st))
    for s in range(st[ST_N_PLAYERS]):
        if st[ST_TIED + s]:
            if j == 0:
                log_event(st, w, EV_DRAW, s, -1, -1, 0, 0)
                finish(st, w, s, END_DRAW)
                return
            j -= 1


@njit
def guess_card(st, R, w, pos):
    """Every tied player guesses pile card ``pos``; wrong guessers drop out unless all
    are wrong."""
    n = st[ST_N_PLAYERS]
    opts = w.opts
    truth = 1 if is_sheep(st[ST_PILE + pos]) else 0
    alive = tied_count(st)
    wrong = 0
    for s in range(n):
        if st[ST_TIED + s] == 0:
            continue
        opts[0, 0] = 1
        opts[0, 1] = pos
        opts[1, 0] = 0
        opts[1, 1] = pos
        g = opts[ask(st, R, w, s, K_GUESS, -1, 2, pos), 0]
        log_event(st, w, EV_GUESS, s, st[ST_PILE + pos], -1, g, pos)
        if g != truth:
            st[ST_TIED + s] = 2
            wrong += 1
    for s in range(n):
        if st[ST_TIED + s] == 2:
            if wrong == alive:
                st[ST_TIED + s] = 1  # all wrong: nobody drops out
            else:
                st[ST_TIED + s] = 0
                log_event(st, w, EV_DROP, s, -1, -1, 0, pos)
    st[ST_SHOW_CARDS] = pos + 1


@njit
def sheep_show(st, R, w):
    """Read the pile from its first card until one tied player remains; a fair draw if
    the pile runs out."""
    for pos in range(st[ST_PILE_LEN]):
        guess_card(st, R, w, pos)
        if tied_count(st) == 1:
            finish(st, w, only_tied(st), END_SHEEP_SHOW)
            return
    fair_draw(st, w)


@njit
def flock_off(st, R, w, before):
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
    # winning margin: 0 on a tie; best alone against nobody (the others out): best
    st[ST_MARGIN] = 0 if tied > 1 else best - max(second, 0)
    log_event(st, w, EV_FLOCK_OFF, -1, -1, -1, best, tied)
    if tied == 1:
        finish(st, w, only_tied(st), END_FLOCK_OFF)
    elif R[R_TIE_BREAK] == TIE_DRAW:
        fair_draw(st, w)
    else:
        sheep_show(st, R, w)


@njit
def check_end(st, R, w):
    """After a turn: one player with cards wins; nobody with cards or a long enough run
    of sheep: the Flock Off."""
    left = players_in(st)
    if left == 1:
        for s in range(st[ST_N_PLAYERS]):
            if hand_size(st, s) > 0:
                finish(st, w, s, END_LAST)
    elif left == 0:
        st[ST_TRIGGER] = TRIGGER_EVERYONE_OUT
        flock_off(st, R, w, True)
    elif st[ST_RUN] == left or (st[ST_RUN] > left and R[R_RUN_PASSES]):
        st[ST_TRIGGER] = TRIGGER_RUN_EQUALS if st[ST_RUN] == left else TRIGGER_RUN_PASSES
        flock_off(st, R, w, False)
