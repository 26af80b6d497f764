"""PROTOTYPE (branch racemove3, not for main): The Sheep Race's whole game as a harness
machine, to measure its speed against the engine (``benchmarks/race_machine.py``).

The bets of both semifinals and the final are asked by the harness; the built-in bet
policies read the race's tables read-only from ``R`` (slot ``decide_rules``, no view);
the races, all-``greedy`` pace, are played inside ``apply`` of each race's last bet. No
plug-ins, no ``ev``/``win`` bets, no ``lookahead`` or other pace policies, no trace.
Its tables and scratch are flat arrays: ``w`` (int64 rules and scratch, at the ``W_*``
and upper-case offsets below) and ``fw`` (float64 odds); ``R`` is ``make_R``'s tuple."""
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
    SEMIFINAL,
    Asks,
    KernelRules,
    Seats,
    Table,
)
from sheepsim.games.race.moves import N_LOG
from sheepsim.games.race.policies import bet_row, bet_rows, choose_bets
from sheepsim.jit import njit

RULES = {}
KINDS = ("bet_open", "bet_hidden", "bet_final", "pace")
KIND_PHASES = (1, 1, 1, 0)
CHANCE_STREAMS = 3
MAX_OPTIONS, OPTION_WIDTH = 15, 2
VIEW_LEN = 1
N, PHASE, RIDX, I, START, FIRST, COUNTER, WIN, SC = range(9)
P_OPEN, P_HIDDEN, P_FINAL, P_RACE, P_DONE = range(5)
# w: int64 scratch and rules
W_NC, W_CUR, W_TRACK, W_EZ, W_MAXC, W_BLUE = range(6)
PAY = 8
BON = PAY + 24
TAKEN = BON + 2
OPEN = TAKEN + 6
PICK = OPEN + 6
BETS = PICK + 2
RIVAL = BETS + 36
STAMP = RIVAL + 36
LANES = STAMP + 6
FINALC = LANES + 6
PLACES = FINALC + 6
BOARD = PLACES + 3
RACE = BOARD + 6 * N_BOARD
SEEN = RACE + N_RACE
LEGAL = SEEN + 12
FAIL = LEGAL + 9
OPTS1 = FAIL + N_FAIL
OPTS2 = OPTS1 + 15
STREAMS = OPTS2 + 30
DECK = STREAMS + 2 * 2 * 6
# fw: float64: odds (6, 3), the view, then the card odds (2, NC, 6, 3)
F_ODDS = 0
F_VIEW = 18
F_CARD = F_VIEW + N_VIEW


@njit
def deal_deck(streams, deck, stamp, n_players):
    """engine.deal on plain arrays."""
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n_players)
    for i in range(n_players):
        stamp[(first + i) % n_players] = n_players - i
    return first


def state_size(players):
    return SC + players


@njit(inline="always")
def _kr(R):
    w = R[0]
    return KernelRules(w[W_TRACK], w[W_EZ], w[W_MAXC], w[W_BLUE], R[2], R[3], R[4], R[5], R[6],
                       w[PAY:PAY + 24].reshape((4, N_LANES)), w[BON:BON + 2])


@njit
def begin_race(st, R):
    w, fw = R[0], R[1]
    r = st[RIDX]
    nc = w[W_NC]
    stage = FINAL if r == 2 else SEMIFINAL
    lane_cards = w[LANES:LANES + 6]
    for lane in range(N_LANES):
        lane_cards[lane] = w[FINALC + lane] if stage == FINAL else w[DECK + N_LANES * r + lane]
    co = fw[F_CARD + stage * nc * 18:F_CARD + (stage + 1) * nc * 18].reshape((nc, N_LANES, 3))
    race_odds(co, lane_cards, stage, fw[F_ODDS:F_ODDS + 18].reshape((N_LANES, 3)))
    for i in range(BETS, STAMP):  # bets, rival_open
        w[i] = 0
    for lane in range(N_LANES):
        w[TAKEN + lane] = 0
        w[OPEN + lane] = -1
    st[PHASE] = P_FINAL if stage == FINAL else P_OPEN
    st[I] = 0


@njit
def start(st, R, players, chance):
    w = R[0]
    st[N] = players
    nc = w[W_NC]
    first = deal_deck(chance, w[DECK:DECK + nc], w[STAMP:STAMP + players], players)
    st[FIRST] = first
    st[START] = first
    st[COUNTER] = players
    st[RIDX] = 0
    begin_race(st, R)


@njit(inline="always")
def to_move(st, R, opts):
    ph = st[PHASE]
    if ph == P_DONE:
        return -1, 0, 0
    w = R[0]
    p = (st[START] + st[I]) % st[N]
    w[W_CUR] = p
    m = bet_rows(ph, R[10], w[OPEN + p], opts)
    return p, ph, m


@njit
def play_race(st, R, chance):
    w = R[0]
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    n = st[N]
    kr = _kr(R)
    table = Table(w[BOARD:BOARD + 6 * N_BOARD].reshape((N_LANES, N_BOARD)), w[RACE:RACE + N_RACE],
                  w[SEEN:SEEN + 12].reshape((2, N_LANES)), w[LEGAL:LEGAL + 9])
    lane_cards = w[LANES:LANES + 6]
    places = w[PLACES:PLACES + 3]
    bets = w[BETS:BETS + 6 * n].reshape((n, N_LANES))
    stamp = w[STAMP:STAMP + n]
    setup_race(table, kr, lane_cards, stage)
    seats = Seats(bets, w[RIVAL:RIVAL + 6 * n].reshape((n, N_LANES)))
    asks = Asks(w[STREAMS:STREAMS + 4 * n].view(np.uint64).reshape((2 * n, 2)),
                R[1][F_VIEW:F_VIEW + N_VIEW], w[OPTS1:OPTS1 + 15].reshape((15, 1)),
                w[OPTS2:OPTS2 + 30].reshape((15, 2)), w[FAIL:FAIL + N_FAIL],
                w[0:0].reshape((0, N_DEC)))
    run_race(table, stage_dice(kr, stage), chance, asks, None, seats, st[START],
             w[0:0].reshape((0, N_LOG)))
    placed_lanes(table.board, places)
    if stage != FINAL:
        assign_final_lanes(r, lane_cards, places, w[FINALC:FINALC + 6])
    st[COUNTER] = score_race(table.board, bets, kr.payoffs, kr.bonus, stage == FINAL,
                             st[START], st[SC:SC + n], stamp, st[COUNTER])
    st[START] = leader(st[SC:SC + n], stamp)
    st[RIDX] = r + 1
    if r == 2:
        st[WIN] = st[START]
        st[PHASE] = P_DONE
    else:
        begin_race(st, R)


@njit(inline="always")
def apply(st, R, seat, kind, opts, choice, chance):
    w = R[0]
    n = st[N]
    a = opts[choice, 0]
    if kind == BET_OPEN:
        w[TAKEN + a] = 1
        w[OPEN + seat] = a
        w[BETS + 6 * seat + a] = 1
        for q in range(n):
            if q != seat:
                w[RIVAL + 6 * q + a] += 1
    else:
        w[BETS + 6 * seat + a] = 1
        w[BETS + 6 * seat + opts[choice, 1]] = 1
    st[I] += 1
    if st[I] == n:
        st[I] = 0
        if kind == BET_OPEN:
            st[PHASE] = P_HIDDEN
        else:
            play_race(st, R, chance)


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
    w = R[0]
    pick = R[11]
    choose_bets(pid, kind, R[7], R[8], R[9], R[10], w[OPEN + w[W_CUR]], pick, rand)
    return bet_row(kind, opts, n, pick)


def make_R(rules, players):
    from sheepsim.games.race.simulate import odds_tables

    semi, final = odds_tables(rules)
    kr = rules.kernel_rules()
    nc = len(rules.cards)
    w = np.zeros(DECK + nc, dtype=np.int64)
    w[W_NC], w[W_TRACK], w[W_EZ], w[W_MAXC], w[W_BLUE] = nc, kr.track, kr.ez_first, \
        kr.max_cubes, kr.blue_total
    w[PAY:PAY + 24] = kr.payoffs.ravel()
    w[BON:BON + 2] = kr.bonus
    fw = np.zeros(F_CARD + 2 * nc * 18)
    fw[F_CARD:] = np.concatenate([semi.ravel(), final.ravel()])
    return (w, fw, kr.cards, kr.faces_semi, kr.nfaces_semi, kr.faces_final, kr.nfaces_final,
            fw[F_ODDS:F_ODDS + 18].reshape((N_LANES, 3)), w[PAY:PAY + 24].reshape((4, N_LANES)),
            w[BON:BON + 2], w[TAKEN:TAKEN + 6], w[PICK:PICK + 2])
