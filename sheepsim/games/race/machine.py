"""The Sheep Race's whole game as a harness machine: the engine of the race's whole
games for every line-up (``jobs.GamesJob``: ``race play``, ``compare``, ``balance``'s
games, the race's own metrics, studies; its per-game rows from slot ``result``) and of
the race's harness metrics (:mod:`sheepsim.games.race.metrics`, job ``harness``); single
races play the engine's turn loop alone (:mod:`sheepsim.games.race.kernels`), and ``race
trace``'s one race is a machine of its own (:mod:`sheepsim.games.race.single`). It plays
the engine's games, game for game (the rows of the engine's former game kernel, pinned:
``tests/race/test_race_machine.py``, ``tests/race/test_race_plugins.py``), for every
built-in pace and bet policy, mixed per seat, and plug-in pace and bet policies (a
line-up with one binds the slots of :mod:`sheepsim.games.race.cut`: each race cut before
a plug-in's pace decision, which the harness asks).

The bets of both semifinals and the final are asked by the harness; the built-in bet
policies read the race's tables read-only from ``R`` (slot ``decide_rules``, no view).
The ``ev`` and ``win`` bets read the dealt race's exact outcome distribution, solved once
a race for every seat, under ``exact.game.odds_pace`` of the seats' pace policies (which
``seated`` keeps), at the race's first such bet
(:func:`exact_bets`); ``win`` also reads the standings before the race, which
``begin_race`` keeps. They and the ``lookahead`` pace policies (``run_race``'s
``rules``) need the rules in ``R`` (``X_EXACT``: the rules, the solved distribution and
the arrays the bets read): :func:`make_R` puts them there only for a line-up that holds
one (:func:`needs_exact`), and None otherwise, so that numba compiles neither solver nor
``lookahead`` into the other line-ups' kernel (about 53 CPU s of a cold compile: 87
against 34): numba prunes them by type (:func:`machine_bets`).
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
passes the policy only the tables it reads (the ``ev``/``win`` bets' call in a branch of
``decide_rules`` cost the default line-up 15% of its games per second when it read
entries of ``R`` in the branch, 5% when they were read in the first line; pruned by type,
nothing measurable); the race, which needs most of
``R``, is played by ``own``, which the harness's loop calls with its own ``R`` three times
a game.
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
from sheepsim.games.race.exact.game import deal_joint, exact_ev_bets, odds_pace
from sheepsim.games.race.exact.win_bets import win_bets
from sheepsim.games.race.layout import (
    BET_FINAL,
    BET_HIDDEN,
    BET_OPEN,
    FINAL,
    N_BOARD,
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
from sheepsim.games.race.moves import MAX_TURNS
from sheepsim.games.race.policies import (
    EV,
    GREEDY,
    LOOKAHEAD,
    LOOKAHEAD_EXACT,
    N_BET_POLICIES,
    bet_row,
    builtin_bets,
)
from sheepsim.games.race.policies import WIN as WIN_BET  # (WIN: the state's winner)
from sheepsim.harness.layout import FAIL_WIDTH, P_ASKED, P_KINDS
from sheepsim.jit import njit

RULES = {}
KINDS = ("bet_open", "bet_hidden", "bet_final", "pace")
KIND_PHASES = (1, 1, 1, 0)
CHANCE_STREAMS = 3
MAX_OPTIONS, OPTION_WIDTH = 15, 2
# a plug-in's view and option rows, as the engine shows them (cut.plugin_view): float64,
# the V_* layout; rows [lane] and [option] for an open bet and a pace, [a, b] otherwise
VIEW_LEN, VIEW_DTYPE = N_VIEW, "float64"
OPTION_WIDTHS = (1, 2, 2, 1)
#: the slots of a line-up with plug-ins: each race cut before a plug-in's pace decision
PLUGGED_SLOTS = "sheepsim.games.race.cut"
N_KINDS = len(KINDS)
MAX_DECISIONS = 3 * MAX_TURNS + 5 * 6  # three races and their bets
# the state: then every seat's score (SC + seat), then its pace policy (SC + players + seat),
# then the game's result rows (result_at: turns per race, race cards), then cut.py's two
# (cut.cut_at: a line-up with plug-ins)
N, PHASE, RIDX, I, START, FIRST, COUNTER, WIN, SC = range(9)
#: a game's own result (slot ``result``): its first player, the turns of each race (3),
#: the card finishing 1st-3rd in each race (3 x 3, -1 where no place; the final: 1st)
RESULT_LEN = 1 + 3 + 9
P_OPEN, P_HIDDEN, P_FINAL, P_RACE, P_DONE = range(5)
# R: its entries, each an array (KernelRules a record of arrays) made once per chunk, but
# X_EXACT: None, or for a line-up with ev/win bets or lookahead pace a tuple (exact_bets)
(X_W, X_ODDS, X_PAY, X_BON, X_TAKEN, X_PICK, X_BOARD, X_RACE, X_SEEN, X_LEGAL, X_BETS,
 X_RIVAL, X_ASKS, X_CO_SEMI, X_CO_FINAL, X_LANES, X_PLACES, X_FINALC, X_STAMP, X_DECK,
 X_RULES, X_EXACT) = range(22)
# w: a bet round's scratch, which to_move and apply read and write at every decision
# through this one array (no call, no other array: no counts); X_TAKEN, X_PICK, X_BETS
# and X_RIVAL are views of it made once per chunk, for the calls that take arrays
W_CUR = 0  # the seat to bet (to_move), for decide_rules
W_PACE = 1  # the pace policy the exact odds assume (seated: exact.game.odds_pace)
W_TAKEN = 2  # 6: 1 where a lane is bet openly (from here on cleared every race)
W_OPEN = W_TAKEN + N_LANES  # 6: each seat's open bet, -1 before
W_PICK = W_OPEN + N_LANES  # 2: a bet policy's answer
W_SOLVED = W_PICK + 2  # 1 once the race's exact odds are in R[X_EXACT] (ev, win bets)
W_START = W_SOLVED + 1  # the race's first player (win bets)
W_BETS = W_START + 1  # players x 6: 1 where the seat bet this race
# then players x 6 each seat's rivals' open bets, then players: the scores before the race
# own's scratch (new_scratch): the race's legal options summed and its forced moves
# (run_race's options), then its turns and its last turn's player (own_turns)
S_OPTIONS, S_FORCED, S_TURNS, S_LAST = range(4)


def state_size(players):
    # the result rows (the first player is FIRST), then the plug-ins' cut race (cut.cut_at)
    return SC + 2 * players + RESULT_LEN - 1 + 2


@njit(inline="always")
def result_at(st):
    """Where a game's result rows start in ``st`` (after the pace policies)."""
    return SC + 2 * st[N]


@njit(inline="always")
def keep_result(st, r, turns, lane_cards, places):
    """Race ``r``'s turns and its cards placed 1st-3rd (``places``: ``placed_lanes``),
    for :func:`result`."""
    at = result_at(st)
    st[at + r] = turns
    for k in range(3):
        st[at + 3 + 3 * r + k] = lane_cards[places[k]] if places[k] >= 0 else -1


@njit
def begin_race(st, lane_cards, deck, finalc, co_semi, co_final, odds, w):
    """The next race's lanes and public odds; its bets cleared."""
    r = st[RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    # element loops, not ``a[:] = b``: numba compiles an array-to-slice copy with a
    # shape-mismatch message formatted from strings, about 3 s of every cold compile
    for lane in range(N_LANES):
        lane_cards[lane] = finalc[lane] if stage == FINAL else deck[N_LANES * r + lane]
    race_odds(co_final if stage == FINAL else co_semi, lane_cards, stage, odds)
    for i in range(W_TAKEN, w.shape[0]):  # taken, open, pick, solved, bets, rival
        w[i] = 0
    for lane in range(N_LANES):
        w[W_OPEN + lane] = -1
    n = st[N]
    w[W_START] = st[START]
    for s in range(n):  # the standings the win bets read
        w[W_BETS + 2 * N_LANES * n + s] = st[SC + s]
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
    w = R[X_W]
    n = st[N]
    for s in range(n):
        st[SC + n + s] = seat_pid[n + s]  # the seat's pace policy (role 1)
    w[W_PACE] = odds_pace(st[SC + n:SC + 2 * n])


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
    bets, rival, asks, stamp = R[X_BETS], R[X_RIVAL], R[X_ASKS], R[X_STAMP]
    lane_cards, places, deck, finalc = R[X_LANES], R[X_PLACES], R[X_DECK], R[X_FINALC]
    co_semi, co_final, odds, w = R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS], R[X_W]
    return play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets,
                     rival, asks, stamp, lane_cards, places, deck, finalc, co_semi,
                     co_final, odds, w, None, None)


@njit
def own_paced(st, R, seat, streams, scratch, report, played):
    """The race, each seat playing its built-in pace policy (``seated``; the ``lookahead``
    ones with the rules of ``R[X_EXACT]``): one stretch (:func:`play_race`)."""
    kr, board, race, seen, legal = R[X_RULES], R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_LEGAL]
    bets, rival, asks, stamp = R[X_BETS], R[X_RIVAL], R[X_ASKS], R[X_STAMP]
    lane_cards, places, deck, finalc = R[X_LANES], R[X_PLACES], R[X_DECK], R[X_FINALC]
    co_semi, co_final, odds, w = R[X_CO_SEMI], R[X_CO_FINAL], R[X_ODDS], R[X_W]
    exact = rules_of(R[X_EXACT])
    n = st[N]
    return play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets,
                     rival, asks, stamp, lane_cards, places, deck, finalc, co_semi,
                     co_final, odds, w, st[SC + n:SC + 2 * n], exact)


@njit(inline="always")
def play_race(st, streams, scratch, report, played, kr, board, race, seen, legal, bets, rival,
              asks, stamp, lane_cards, places, deck, finalc, co_semi, co_final, odds, w,
              pace_ids, exact):
    """The race of ``st`` played to its end with the engine's turn loop (``run_race``,
    each seat's built-in pace id in ``pace_ids``, or None: every seat ``greedy``; ``exact``
    the rules for the ``lookahead`` pace policies, None: compiled without them), scored,
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
                     first, exact, scratch)
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
    keep_result(st, r, turns, lane_cards, places)
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


@njit(inline="always")  # (not a call taking R: that would count R's arrays every game)
def result(st, R, out):
    """The game's own rows (``RESULT_LEN``): its first player, the turns of each race,
    then per race the cards placed 1st-3rd (``first``, ``turns`` and ``race_cards`` of
    the race's whole-game job: ``jobs.GamesJob.rows``)."""
    out[0] = st[FIRST]
    at = result_at(st)
    for j in range(RESULT_LEN - 1):
        out[1 + j] = st[at + j]


@njit(inline="always")
def view(st, R, seat, out):
    out[0] = 0


@njit(inline="always")
def needs_view(pid, kind):
    return False


@njit(inline="always")
def decide_rules(pid, kind, view, opts, n, rand, R):
    w, pick, odds, pay, bon = R[X_W], R[X_PICK], R[X_ODDS], R[X_PAY], R[X_BON]
    taken, exact, my_open = R[X_TAKEN], R[X_EXACT], w[W_OPEN + w[W_CUR]]
    machine_bets(pid, kind, odds, pay, bon, taken, my_open, pick, rand, exact)
    return bet_row(kind, opts, n, pick)


@njit
def machine_bets(pid, kind, odds, payoffs, bonus, taken, my_open, pick, rand, exact):
    """``policies.choose_bets`` and the ``ev``/``win`` bets (:func:`exact_bets`), which
    a line-up without them (``exact`` None) does not compile (numba prunes the branch by
    the argument's type: the bets of the other line-ups run ``choose_bets``'s code)."""
    if exact is not None:
        if pid == EV or pid == WIN_BET:
            exact_bets(pid, kind, exact)
            return
    if pid < 0 or pid >= N_BET_POLICIES or pid == EV or pid == WIN_BET:
        raise ValueError("unknown bet policy id (ev and win: the race machine's R made "
                         "without the exact solver, make_R without the line-up's ids)")
    builtin_bets(pid, kind, odds, payoffs, bonus, taken, my_open, pick, rand)


@njit
def rules_of(exact):
    """The rules of ``R[X_EXACT]``, or None (numba prunes by the argument's type: not
    inlined)."""
    if exact is None:
        return None
    else:
        return exact[0]


@njit
def exact_bets(pid, kind, exact):
    """The ``ev`` or ``win`` bets of seat ``w[W_CUR]`` into ``w``'s pick: from the dealt
    race's exact outcome distribution under the pace policy ``w[W_PACE]``
    (``exact.game.odds_pace`` of the seats' pace policies), solved at the race's first
    such bet (one solve serves every seat) into ``exact``'s distribution; ``win`` reads
    the standings before the race and its first player, which ``begin_race`` keeps in
    ``w``. ``exact`` ``(rules, (216,) distribution, lane cards, board, race, seen, legal,
    stamp, w)``: ``R``'s arrays (``make_R`` of a line-up with these bets)."""
    rules, joint, lane_cards, board, race, seen, legal, stamp, w = exact
    stage = FINAL if kind == BET_FINAL else SEMIFINAL
    if w[W_SOLVED] == 0:
        out = deal_joint(rules, lane_cards, stage, w[W_PACE], Table(board, race, seen, legal))
        for i in range(joint.shape[0]):
            joint[i] = out[i]
        w[W_SOLVED] = 1
    seat = w[W_CUR]
    n = stamp.shape[0]
    taken, pick = w[W_TAKEN:W_TAKEN + N_LANES], w[W_PICK:W_PICK + 2]
    if pid == EV:
        exact_ev_bets(kind, joint, rules.payoffs, rules.bonus, taken, w[W_OPEN + seat], pick)
    else:
        scores = w[W_BETS + 2 * N_LANES * n:W_BETS + 2 * N_LANES * n + n]
        win_bets(kind, joint, rules.payoffs, rules.bonus, taken, w[W_OPEN + seat], seat,
                 (scores, stamp), w[W_START], pick)


def needs_exact(pids) -> bool:
    """Whether a line-up (the kernel's role-major ``pids``: bet ids, then pace ids) holds
    an ``ev`` or ``win`` bet or a ``lookahead`` pace policy: its ``R`` then carries the
    rules for the exact solver and the lookahead (:func:`make_R`)."""
    ids = [int(p) for p in pids]
    bets, pace = ids[:len(ids) // 2], ids[len(ids) // 2:]
    return any(b in (EV, WIN_BET) for b in bets) or any(p in (LOOKAHEAD, LOOKAHEAD_EXACT)
                                                   for p in pace)


def make_R(rules, players, odds, pids=()):
    """The machine's tables for ``players`` seats under ``rules``; ``odds`` the public
    odds tables ``(semifinal, final)`` (``simulate.odds_tables``: passed in, so that this
    module imports nothing beyond its kernels' modules and its cache key stays theirs);
    ``pids`` the line-up's role-major policy ids: the ``ev``/``win`` bets and the
    ``lookahead`` pace policies need the rules in ``R`` (:func:`needs_exact`), and only
    such a line-up's kernel compiles them (an ``R`` without them holds None there)."""
    semi, final = odds
    kr = rules.kernel_rules()
    i64 = np.int64
    asks = Asks(np.zeros((2 * players, 2), np.uint64), np.zeros(N_VIEW), np.zeros((15, 1), i64),
                np.zeros((15, 2), i64), np.zeros(FAIL_WIDTH, i64))
    w = np.zeros(W_BETS + 2 * N_LANES * players + players, i64)
    bets = w[W_BETS:W_BETS + N_LANES * players].reshape(players, N_LANES)
    rival = w[W_BETS + N_LANES * players:W_BETS + 2 * N_LANES * players].reshape(players,
                                                                                N_LANES)
    board, race, seen, legal = (np.zeros((N_LANES, N_BOARD), i64), np.zeros(N_RACE, i64),
                                np.zeros((2, N_LANES), i64), np.zeros(9, i64))
    lanes, stamp = np.zeros(6, i64), np.zeros(players, i64)
    exact = (kr, np.zeros(216), lanes, board, race, seen, legal, stamp, w) \
        if needs_exact(pids) else None
    return (w, np.zeros((N_LANES, 3)), kr.payoffs, kr.bonus, w[W_TAKEN:W_TAKEN + N_LANES],
            w[W_PICK:W_PICK + 2], board, race, seen, legal, bets, rival, asks, semi, final,
            lanes, np.zeros(3, i64), np.zeros(6, i64), stamp, np.zeros(len(rules.cards), i64),
            kr, exact)
