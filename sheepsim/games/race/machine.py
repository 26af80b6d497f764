"""PROTOTYPE (branch racemove3, not for main): The Sheep Race's whole game as a harness
machine, to measure its speed against the engine (``benchmarks/race_machine.py``).

The bets of both semifinals and the final are asked by the harness; the built-in bet
policies read the race's tables read-only from ``R`` (slot ``decide_rules``, no view).
Each race, all-``greedy`` pace, is one stretch the machine plays itself (slot ``own``:
``to_move`` names the race's first player with no options). No plug-ins, no ``ev``/
``win`` bets, no ``lookahead`` or other pace policies, no trace; the race is reported to
the harness as one stretch of its first player (its turns as that many pace decisions),
not turn by turn.

Where numba counts references (atomic operations, far dearer than their instructions):
``R`` is a tuple of every array the machine uses, made once per chunk (``make_R``), so
no view is made per race. numba counts each array of ``R`` wherever ``R`` lives across a
call in a function that received it as an argument or, inlined, as an alias: so the
slots the harness inlines at every decision (``to_move``, ``apply``, ``decide_rules``)
read the arrays they need from ``R`` in their first lines and pass only those on
(``apply`` calls nothing), and the race, which needs most of ``R``, is played by ``own``,
a call of the harness's loop with its own ``R`` (no alias), three times a game.
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.race.engine import (
    assign_final_lanes,
    leader,
    placed_lanes,
    race_odds,
    run_race,
    score_race,
    setup_race,
    stage_dice,
)
from sheepsim.games.race.layout import (
    BET_OPEN,
    FINAL,
    N_BOARD,
    N_DEC,
    N_FAIL,
    N_LANES,
    N_RACE,
    N_VIEW,
    PACE,
    SEMIFINAL,
    Asks,
    Seats,
    Table,
)
from sheepsim.games.race.moves import N_LOG
from sheepsim.games.race.policies import bet_row, bet_rows, choose_bets
from sheepsim.harness.layout import P_KINDS
from sheepsim.jit import njit

RULES = {}
KINDS = ("bet_open", "bet_hidden", "bet_final", "pace")
KIND_PHASES = (1, 1, 1, 0)
CHANCE_STREAMS = 3
MAX_OPTIONS, OPTION_WIDTH = 15, 2
VIEW_LEN = 1
OWN_STRETCHES = 1  # a race
# the state
N, PHASE, RIDX, I, START, FIRST, COUNTER, WIN, SC = range(9)
P_OPEN, P_HIDDEN, P_FINAL, P_RACE, P_DONE = range(5)
# R: its entries, each an array (KernelRules a record of arrays) made once per chunk
(X_W, X_ODDS, X_PAY, X_BON, X_TAKEN, X_PICK, X_BOARD, X_RACE, X_SEEN, X_LEGAL, X_BETS,
 X_RIVAL, X_ASKS, X_RLOG, X_CO_SEMI, X_CO_FINAL, X_LANES, X_PLACES, X_FINALC, X_STAMP, X_DECK,
 X_OPEN, X_RULES) = range(23)
W_CUR = 0  # w: the seat to bet (to_move), for decide_rules


def state_size(players):
    return SC + players


@njit
def deal(streams, deck, stamp, n_players):
    """:func:`sheepsim.games.race.engine.deal` on plain arrays."""
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n_players)
    for i in range(n_players):
        stamp[(first + i) % n_players] = n_players - i
    return first


@njit
def begin_race(st, lane_cards, deck, finalc, co_semi, co_final, odds, bets, rival, taken,
               open_lane):
    """The next race's lanes and public odds; its bets cleared."""
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    for lane in range(N_LANES):
        lane_cards[lane] = finalc[lane] if stage == FINAL else deck[N_LANES * r + lane]
    race_odds(co_final if stage == FINAL else co_semi, lane_cards, stage, odds)
    for p in range(bets.shape[0]):
        for lane in range(N_LANES):
            bets[p, lane] = 0
            rival[p, lane] = 0
    for lane in range(N_LANES):
        taken[lane] = 0
        open_lane[lane] = -1
    st[PHASE] = P_FINAL if stage == FINAL else P_OPEN
    st[I] = 0


@njit
def start(st, R, players, chance):
    st[N] = players
    first = deal(chance, R[X_DECK], R[X_STAMP], players)
    st[FIRST] = first
    st[START] = first
    st[COUNTER] = players
    st[RIDX] = 0
    begin_race(st, R[X_LANES], R[X_DECK], R[X_FINALC], R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS],
               R[X_BETS], R[X_RIVAL], R[X_TAKEN], R[X_OPEN])


@njit(inline="always")
def to_move(st, R, opts):
    w, taken, open_lane = R[X_W], R[X_TAKEN], R[X_OPEN]
    ph = st[PHASE]
    p = (st[START] + st[I]) % st[N]
    w[W_CUR] = p
    if ph >= P_RACE:  # the race (own), or the end
        return -1 if ph == P_DONE else p, PACE, 0
    return p, ph, bet_rows(ph, taken, open_lane[p], opts)


@njit(inline="always")
def apply(st, R, seat, kind, opts, choice, chance):
    bets, rival, taken, open_lane = R[X_BETS], R[X_RIVAL], R[X_TAKEN], R[X_OPEN]
    n = st[N]
    a = opts[choice, 0]
    if kind == BET_OPEN:
        taken[a] = 1
        open_lane[seat] = a
        bets[seat, a] = 1
        for q in range(n):
            if q != seat:
                rival[q, a] += 1
    else:
        bets[seat, a] = 1
        bets[seat, opts[choice, 1]] = 1
    st[I] += 1
    if st[I] == n:
        st[I] = 0
        st[PHASE] = P_HIDDEN if kind == BET_OPEN else P_RACE


@njit
def own(st, R, seat, streams, scratch, report, played):
    """The race, all-``greedy``: one stretch of ``seat`` (its first player)."""
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    n = st[N]
    kr, board, bets, stamp = R[X_RULES], R[X_BOARD], R[X_BETS], R[X_STAMP]
    lane_cards, places = R[X_LANES], R[X_PLACES]
    table = Table(board, R[X_RACE], R[X_SEEN], R[X_LEGAL])
    setup_race(table, kr, lane_cards, stage)
    turns = run_race(table, stage_dice(kr, stage), streams, R[X_ASKS], None,
                     Seats(bets, R[X_RIVAL]), st[START], R[X_RLOG])
    placed_lanes(board, places)
    if stage != FINAL:
        assign_final_lanes(r, lane_cards, places, R[X_FINALC])
    scores = st[SC:SC + n]
    st[COUNTER] = score_race(board, bets, kr.payoffs, kr.bonus, stage == FINAL, st[START],
                             scores, stamp, st[COUNTER])
    st[START] = leader(scores, stamp)
    st[RIDX] = r + 1
    if r == 2:
        st[WIN] = st[START]
        st[PHASE] = P_DONE
    else:
        begin_race(st, lane_cards, R[X_DECK], R[X_FINALC], R[X_CO_SEMI], R[X_CO_FINAL],
                   R[X_ODDS], bets, R[X_RIVAL], R[X_TAKEN], R[X_OPEN])
    report[P_KINDS + PACE] += turns
    played[0, 0] = seat
    played[0, 1] = turns
    for s in range(n):
        played[0, 2 + s] = st[SC + s]
    return 1


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
    taken, my_open = R[X_TAKEN], R[X_OPEN][w[W_CUR]]
    choose_bets(pid, kind, odds, pay, bon, taken, my_open, pick, rand)
    return bet_row(kind, opts, n, pick)


def make_R(rules, players):
    from sheepsim.games.race.simulate import odds_tables

    semi, final = odds_tables(rules)
    kr = rules.kernel_rules()
    i64 = np.int64
    asks = Asks(np.zeros((2 * players, 2), np.uint64), np.zeros(N_VIEW), np.zeros((15, 1), i64),
                np.zeros((15, 2), i64), np.zeros(N_FAIL, i64), np.zeros((0, N_DEC), i64))
    return (np.zeros(1, i64), np.zeros((N_LANES, 3)), kr.payoffs, kr.bonus, np.zeros(6, i64),
            np.zeros(2, i64), np.zeros((N_LANES, N_BOARD), i64), np.zeros(N_RACE, i64),
            np.zeros((2, N_LANES), i64), np.zeros(9, i64), np.zeros((players, N_LANES), i64),
            np.zeros((players, N_LANES), i64), asks, np.zeros((0, N_LOG), i64), semi, final,
            np.zeros(6, i64), np.zeros(3, i64), np.zeros(6, i64), np.zeros(players, i64),
            np.zeros(len(rules.cards), i64), np.zeros(6, i64), kr)
