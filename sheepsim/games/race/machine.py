"""The Sheep Race's whole game as a harness machine: the engine of the race's harness
metrics (:mod:`sheepsim.games.race.metrics`, job ``harness``); every other race command
plays the engine (:mod:`sheepsim.games.race.engine`). It plays the engine's games, game
for game (``tests/race/test_race_machine.py``), for every built-in pace policy but the
``lookahead`` ones and every built-in bet policy but ``ev``/``win``, mixed per seat, no
plug-ins (:func:`sheepsim.games.race.jobs.unsupported` names what a line-up holds
beyond that).

The bets of both semifinals and the final are asked by the harness; the built-in bet
policies read the race's tables read-only from ``R`` (slot ``decide_rules``, no view).
Each seat holds two policies (slot ``role``: role 0 its bets, role 1 its pace; the
harness's ``pids`` are the bet ids, then the pace ids). Each race the machine plays
itself (slot ``own``: ``to_move`` names the race's first player with no options), with
the engine's own turn loop (``engine.run_race``: all-``greedy`` seats on its ``greedy``
path, slot ``own``; any other mix through its pace dispatch, ``own_paced``, each seat's
pace decisions drawing from its own pace stream as in the engine), and reports it as one
stretch spanning the race's turns (slot ``own_turns``: its turns and last player), its
pace decisions and their legal options counted by the turn loop (``run_race``'s
``options``; a lone option counted as forced, as the harness counts a decision it does
not ask).

For the harness's metrics a turn is one seat's decisions in a row: a bet, or a turn of a
race (its roll and the move of the selected sheep); a race's last turn and its player's
bet opening the next race, when that player leads, make one turn. A seat's score is its
money (points): it changes when a race is paid out, after the race's last turn.

Where numba counts references (atomic operations, far dearer than their instructions):
it counts each array of a tuple wherever the tuple lives across a call in a function
that received it, as an argument or, inlined, as an alias. So ``R``, every array the
machine uses made once per chunk (``make_R``: no view is made per race), is read only in
the first lines of each slot, before any call; the slots the harness inlines at every
decision touch one array of it, ``w`` (a bet round's scratch: ``to_move`` writes the
bet rows from it and ``apply`` writes it, neither calls anything), and ``decide_rules``
passes the policy only the tables it reads; the race, which needs most of ``R``, is
played by ``own``, which the harness's loop calls with its own ``R`` three times a game.
"""

import numpy as np

from sheepsim.games.race.engine import (
    assign_final_lanes,
    deal_arrays,
    leader,
    placed_lanes,
    race_odds,
    run_race,
    score_race,
    setup_race,
    stage_dice,
)
from sheepsim.games.race.layout import (
    BET_HIDDEN,
    BET_OPEN,
    FINAL,
    N_BOARD,
    N_DEC,
    N_FAIL,
    N_LANES,
    N_PHASES,
    N_RACE,
    N_VIEW,
    PACE,
    PACE_PHASE,
    SEMIFINAL,
    Asks,
    Seats,
    Table,
)
from sheepsim.games.race.moves import MAX_TURNS, N_LOG
from sheepsim.games.race.policies import GREEDY, bet_row, choose_bets
from sheepsim.harness.layout import P_ASKED, P_KINDS
from sheepsim.jit import njit

RULES = {}
KINDS = ("bet_open", "bet_hidden", "bet_final", "pace")
KIND_PHASES = (1, 1, 1, 0)
CHANCE_STREAMS = 3
MAX_OPTIONS, OPTION_WIDTH = 15, 2
VIEW_LEN = 1
N_KINDS = len(KINDS)
MAX_DECISIONS = 3 * MAX_TURNS + 5 * 6  # three races and their bets
# the state: then every seat's score (SC + seat), then its pace policy (SC + players + seat)
N, PHASE, RIDX, I, START, FIRST, COUNTER, WIN, SC = range(9)
P_OPEN, P_HIDDEN, P_FINAL, P_RACE, P_DONE = range(5)
# R: its entries, each an array (KernelRules a record of arrays) made once per chunk
(X_W, X_ODDS, X_PAY, X_BON, X_TAKEN, X_PICK, X_BOARD, X_RACE, X_SEEN, X_LEGAL, X_BETS,
 X_RIVAL, X_ASKS, X_RLOG, X_CO_SEMI, X_CO_FINAL, X_LANES, X_PLACES, X_FINALC, X_STAMP, X_DECK,
 X_RULES) = range(22)
# w: a bet round's scratch, which to_move and apply read and write at every decision
# through this one array (no call, no other array: no counts); X_TAKEN, X_PICK, X_BETS
# and X_RIVAL are views of it made once per chunk, for the calls that take arrays
W_CUR = 0  # the seat to bet (to_move), for decide_rules
W_TAKEN = 1  # 6: 1 where a lane is bet openly
W_OPEN = W_TAKEN + N_LANES  # 6: each seat's open bet, -1 before
W_PICK = W_OPEN + N_LANES  # 2: a bet policy's answer
W_BETS = W_PICK + 2  # players x 6: 1 where the seat bet this race
# own's scratch (new_scratch): the race's legal options summed and its forced moves
# (run_race's options), then its turns and its last turn's player (own_turns)
S_OPTIONS, S_FORCED, S_TURNS, S_LAST = range(4)


def state_size(players):
    return SC + 2 * players


@njit
def begin_race(st, lane_cards, deck, finalc, co_semi, co_final, odds, w):
    """The next race's lanes and public odds; its bets cleared."""
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    for lane in range(N_LANES):
        lane_cards[lane] = finalc[lane] if stage == FINAL else deck[N_LANES * r + lane]
    race_odds(co_final if stage == FINAL else co_semi, lane_cards, stage, odds)
    for i in range(W_TAKEN, w.shape[0]):  # taken, open, pick, bets, rival
        w[i] = 0
    for lane in range(N_LANES):
        w[W_OPEN + lane] = -1
    st[PHASE] = P_FINAL if stage == FINAL else P_OPEN
    st[I] = 0


@njit(inline="always")
def start(st, R, players, chance):
    deck, stamp, lanes, finalc = R[X_DECK], R[X_STAMP], R[X_LANES], R[X_FINALC]
    co_semi, co_final, odds, w = R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS], R[X_W]
    st[N] = players
    first = deal_arrays(chance, deck, stamp, players)
    st[FIRST] = first
    st[START] = first
    st[COUNTER] = players
    st[RIDX] = 0
    begin_race(st, lanes, deck, finalc, co_semi, co_final, odds, w)


@njit(inline="always")
def to_move(st, R, opts):
    w = R[X_W]
    ph = st[PHASE]
    p = (st[START] + st[I]) % st[N]
    w[W_CUR] = p
    if ph >= P_RACE:  # the race (own), or the end
        return -1 if ph == P_DONE else p, PACE, 0
    # policies.bet_rows on w, the same rows in the same order
    m = 0
    if ph == BET_OPEN:
        for lane in range(N_LANES):
            if w[W_TAKEN + lane] == 0:
                opts[m, 0] = lane
                m += 1
        return p, ph, m
    my_open = w[W_OPEN + p]
    for a in range(N_LANES):
        for b in range(a + 1, N_LANES):
            if ph == BET_HIDDEN and (a == my_open or b == my_open):
                continue
            opts[m, 0] = a
            opts[m, 1] = b
            m += 1
    return p, ph, m


@njit(inline="always")
def apply(st, R, seat, kind, opts, choice, chance):
    w = R[X_W]
    n = st[N]
    bets = W_BETS + N_LANES * seat
    a = opts[choice, 0]
    if kind == BET_OPEN:
        w[W_TAKEN + a] = 1
        w[W_OPEN + seat] = a
        w[bets + a] = 1
        rival = W_BETS + N_LANES * n
        for q in range(n):
            if q != seat:
                w[rival + N_LANES * q + a] += 1
    else:
        w[bets + a] = 1
        w[bets + opts[choice, 1]] = 1
    st[I] += 1
    if st[I] == n:
        st[I] = 0
        st[PHASE] = P_HIDDEN if kind == BET_OPEN else P_RACE


@njit(inline="always")
def role(kind):
    return 1 if kind == PACE else 0  # a seat's pace policy, else its bet policy


@njit(inline="always")
def seated(st, R, seat_pid):
    n = st[N]
    for s in range(n):
        st[SC + n + s] = seat_pid[n + s]  # the seat's pace policy (role 1)


def new_scratch(players, R):
    return np.zeros(4, dtype=np.int64)  # S_OPTIONS, S_FORCED, S_TURNS, S_LAST


def own_variant(ids):
    """``own`` when every seat plays ``greedy`` pace (``ids``: the bet ids seated, the pace
    ids seated), else ``own_paced``."""
    return "own" if tuple(ids[1]) == (GREEDY,) else "own_paced"


@njit
def own(st, R, seat, streams, scratch, report, played):
    """The race, every seat playing ``greedy`` pace (the engine's ``greedy`` path, no
    policy dispatch): one stretch (:func:`play_race`)."""
    # every array first: R's own counts then cancel out before the first call
    kr, board, race, seen, legal = R[X_RULES], R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_LEGAL]
    bets, rival, asks, rlog, stamp = R[X_BETS], R[X_RIVAL], R[X_ASKS], R[X_RLOG], R[X_STAMP]
    lane_cards, places, deck, finalc = R[X_LANES], R[X_PLACES], R[X_DECK], R[X_FINALC]
    co_semi, co_final, odds, w = R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS], R[X_W]
    return play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets,
                     rival, asks, rlog, stamp, lane_cards, places, deck, finalc, co_semi,
                     co_final, odds, w, None)


@njit
def own_paced(st, R, seat, streams, scratch, report, played):
    """The race, each seat playing its built-in pace policy (``seated``): one stretch
    (:func:`play_race`)."""
    kr, board, race, seen, legal = R[X_RULES], R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_LEGAL]
    bets, rival, asks, rlog, stamp = R[X_BETS], R[X_RIVAL], R[X_ASKS], R[X_RLOG], R[X_STAMP]
    lane_cards, places, deck, finalc = R[X_LANES], R[X_PLACES], R[X_DECK], R[X_FINALC]
    co_semi, co_final, odds, w = R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS], R[X_W]
    n = st[N]
    return play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets,
                     rival, asks, rlog, stamp, lane_cards, places, deck, finalc, co_semi,
                     co_final, odds, w, st[SC + n:SC + 2 * n])


@njit(inline="always")
def play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets, rival,
              asks, rlog, stamp, lane_cards, places, deck, finalc, co_semi, co_final, odds, w,
              pace_ids):
    """The race of ``st`` played to its end with the engine's turn loop (``run_race``,
    each seat's built-in pace id in ``pace_ids``, or None: every seat ``greedy``), scored,
    and the next one begun; a seat's pace decisions draw from its pace stream
    (``streams`` row ``CHANCE_STREAMS + seat``: phase 0), which the engine's turn loop
    reads at row ``N_PHASES * seat + PACE_PHASE`` of ``asks.streams``. Reported to the
    harness as one stretch (``played`` row 0: its first player, its pace decisions, every
    seat's score after its payout) spanning the race's turns, clockwise from its first
    player (``scratch``'s ``S_TURNS`` and ``S_LAST``, read by :func:`own_turns`), and in
    ``report`` its pace decisions with their legal options (``run_race``'s ``options``:
    one option is a forced move, taken without asking). Returns the stretches (1)."""
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    n = st[N]
    first = st[START]
    if pace_ids is not None:  # (greedy draws nothing)
        for s in range(n):
            asks.streams[N_PHASES * s + PACE_PHASE, 0] = streams[CHANCE_STREAMS + s, 0]
            asks.streams[N_PHASES * s + PACE_PHASE, 1] = streams[CHANCE_STREAMS + s, 1]
    table = Table(board, race, seen, legal)
    setup_race(table, kr, lane_cards, stage)
    scratch[S_OPTIONS] = 0
    scratch[S_FORCED] = 0
    turns = run_race(table, stage_dice(kr, stage), streams, asks, pace_ids, Seats(bets, rival),
                     first, rlog, None, scratch)
    if pace_ids is not None:  # the state moved on (the second word is the stream's key)
        for s in range(n):
            streams[CHANCE_STREAMS + s, 0] = asks.streams[N_PHASES * s + PACE_PHASE, 0]
    forced = scratch[S_FORCED]
    report[P_KINDS + PACE] += turns
    report[P_KINDS + N_KINDS + PACE] += scratch[S_OPTIONS]
    report[P_KINDS + 2 * N_KINDS + PACE] += forced
    report[P_ASKED] += turns - forced
    scratch[S_TURNS] = turns
    scratch[S_LAST] = (first + turns - 1) % n
    placed_lanes(board, places)
    if stage != FINAL:
        assign_final_lanes(r, lane_cards, places, finalc)
    scores = st[SC:SC + n]
    st[COUNTER] = score_race(board, bets, kr.payoffs, kr.bonus, stage == FINAL, first,
                             scores, stamp, st[COUNTER])
    st[START] = leader(scores, stamp)
    st[RIDX] = r + 1
    if r == 2:
        st[WIN] = st[START]
        st[PHASE] = P_DONE
    else:
        begin_race(st, lane_cards, deck, finalc, co_semi, co_final, odds, w)
    played[0, 0] = first
    played[0, 1] = turns  # (a race of no turns: a stretch of no decision)
    for s in range(n):  # the payout: every seat's score after the race's last turn
        played[0, 2 + s] = st[SC + s]
    return 1


@njit(inline="always")
def own_turns(st, scratch, played, j):
    return scratch[S_TURNS], scratch[S_LAST]  # the race's turns, clockwise from its first


@njit(inline="always")
def scores(st, R, out):
    for s in range(st[N]):
        out[s] = st[SC + s]


@njit(inline="always")
def winner(st, R):
    return st[WIN]


@njit(inline="always")
def view(st, R, seat, out):
    out[0] = 0


@njit(inline="always")
def needs_view(pid, kind):
    return False


@njit(inline="always")
def decide_rules(pid, kind, view, opts, n, rand, R):
    w, pick, odds, pay, bon = R[X_W], R[X_PICK], R[X_ODDS], R[X_PAY], R[X_BON]
    taken, my_open = R[X_TAKEN], w[W_OPEN + w[W_CUR]]
    choose_bets(pid, kind, odds, pay, bon, taken, my_open, pick, rand)
    return bet_row(kind, opts, n, pick)


def make_R(rules, players, odds):
    """The machine's tables for ``players`` seats under ``rules``; ``odds`` the public
    odds tables ``(semifinal, final)`` (``simulate.odds_tables``: passed in, so that this
    module imports nothing beyond its kernels' modules and its cache key stays theirs)."""
    semi, final = odds
    kr = rules.kernel_rules()
    i64 = np.int64
    asks = Asks(np.zeros((2 * players, 2), np.uint64), np.zeros(N_VIEW), np.zeros((15, 1), i64),
                np.zeros((15, 2), i64), np.zeros(N_FAIL, i64), np.zeros((0, N_DEC), i64))
    w = np.zeros(W_BETS + 2 * N_LANES * players, i64)
    bets = w[W_BETS:W_BETS + N_LANES * players].reshape(players, N_LANES)
    rival = w[W_BETS + N_LANES * players:].reshape(players, N_LANES)
    return (w, np.zeros((N_LANES, 3)), kr.payoffs, kr.bonus, w[W_TAKEN:W_TAKEN + N_LANES],
            w[W_PICK:W_PICK + 2], np.zeros((N_LANES, N_BOARD), i64), np.zeros(N_RACE, i64),
            np.zeros((2, N_LANES), i64), np.zeros(9, i64), bets, rival, asks,
            np.zeros((0, N_LOG), i64), semi, final, np.zeros(6, i64), np.zeros(3, i64),
            np.zeros(6, i64), np.zeros(players, i64), np.zeros(len(rules.cards), i64), kr)
