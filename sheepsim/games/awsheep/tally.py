"""Aw, Sheep!'s own counts of a finished round (layout ``A_*``): who won by seat, slot
and turn order, how the round ended, starting hands and card use by policy group."""

from sheepsim.jit import njit

from .cards import hand_size
from .layout import (
    A_END,
    A_GAMES,
    A_MARGIN,
    A_OUT,
    A_OUT_HIST,
    A_SHOW_CARDS,
    A_START_N,
    A_START_SQ,
    A_START_WH,
    A_START_WINS,
    A_TIE_WINS,
    A_TIE_WINS_BY_ORDER,
    A_TRIGGER,
    A_TURN_HIST,
    A_TURNS,
    A_TURNS_SQ,
    A_USE,
    A_WINS,
    A_WINS_BY_ORDER,
    A_WINS_BY_SLOT,
    END_DRAW,
    END_SHEEP_SHOW,
    MAX_MARGIN,
    MAX_TURNS,
    N_KINDS,
    ST_END_REASON,
    ST_FIRST,
    ST_MARGIN,
    ST_N_PLAYERS,
    ST_SHOW_CARDS,
    ST_START_HAND,
    ST_TRIGGER,
    ST_TURNS,
    ST_USE,
    ST_WINNER,
    START_STRIDE,
    TRIGGER_NONE,
    U_PLAYS,
    USE_SUMS,
    USE_WIDTH,
)


@njit
def seat_group(seat_pid, r, st, s):
    """Policy group of seat ``s``: the first slot whose policy is the seat's (slots of
    one policy share a group, so per-round clusters are per policy); ``seat_pid`` the
    policy id of each seat, ``r`` the rotation (slot ``j`` sits at seat ``(j + r) % n``)."""
    n = st[ST_N_PLAYERS]
    g = n
    for t in range(n):
        if seat_pid[t] == seat_pid[s]:
            g = min(g, (t - r) % n)
    return g


@njit
def tally(acc, st, seat_pid, r):
    """Add one finished round to ``acc`` (``ACC_LEN`` int64): ``seat_pid`` the policy id
    of each seat, ``r`` the rotation."""
    n = st[ST_N_PLAYERS]
    win = st[ST_WINNER]
    tie = st[ST_END_REASON] == END_SHEEP_SHOW or st[ST_END_REASON] == END_DRAW
    acc[A_GAMES] += 1
    acc[A_WINS + win] += 1
    acc[A_WINS_BY_SLOT + (win - r) % n] += 1
    acc[A_WINS_BY_ORDER + (win - st[ST_FIRST]) % n] += 1
    if tie:
        acc[A_TIE_WINS + win] += 1
        acc[A_TIE_WINS_BY_ORDER + (win - st[ST_FIRST]) % n] += 1
    acc[A_END + st[ST_END_REASON]] += 1
    acc[A_TRIGGER + st[ST_TRIGGER]] += 1
    if st[ST_TRIGGER] != TRIGGER_NONE:
        acc[A_MARGIN + min(st[ST_MARGIN], MAX_MARGIN)] += 1
    t = st[ST_TURNS]
    acc[A_TURNS] += t
    acc[A_TURNS_SQ] += t * t
    acc[A_TURN_HIST + min(t, MAX_TURNS)] += 1
    acc[A_SHOW_CARDS] += st[ST_SHOW_CARDS]
    out = 0
    for s in range(n):
        if hand_size(st, s) == 0:
            acc[A_OUT + s] += 1
            out += 1
    acc[A_OUT_HIST + out] += 1
    # per policy group (seats of one policy): starting hands, one cluster per count of
    # a kind, and card use (the group's round totals), so the round is the unit
    for s in range(n):
        g = seat_group(seat_pid, r, st, s)
        if g != (s - r) % n:
            continue  # each group once, at the seat of its first slot
        pid = seat_pid[s]
        for k in range(N_KINDS):
            for t in range(n):
                if seat_pid[t] != pid:
                    continue
                c = st[ST_START_HAND + t * N_KINDS + k]
                h = 0
                won = 0
                seen = False
                for u in range(n):
                    if seat_pid[u] == pid and st[ST_START_HAND + u * N_KINDS + k] == c:
                        if u < t:
                            seen = True  # this count's cluster was counted at seat u
                        h += 1
                        if u == win:
                            won = 1
                if seen:
                    continue
                i = (g * N_KINDS + k) * START_STRIDE + c
                acc[A_START_N + i] += h
                acc[A_START_WINS + i] += won
                acc[A_START_SQ + i] += h * h
                acc[A_START_WH + i] += won * h
            plays = 0
            for t in range(n):
                if seat_pid[t] == pid:
                    plays += st[ST_USE + (t * N_KINDS + k) * USE_WIDTH + U_PLAYS]
            for q in range(USE_WIDTH):
                x = 0
                for t in range(n):
                    if seat_pid[t] == pid:
                        x += st[ST_USE + (t * N_KINDS + k) * USE_WIDTH + q]
                j = A_USE + ((g * N_KINDS + k) * USE_WIDTH + q) * USE_SUMS
                acc[j] += x
                acc[j + 1] += x * x
                acc[j + 2] += x * plays
