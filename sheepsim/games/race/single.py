"""One race of The Sheep Race as a harness machine: ``sheepsim race trace``'s race, played
and traced by the harness (:func:`sheepsim.games.race.trace.traced_race`:
:func:`sheepsim.harness.jobs.run_games` with a decision log and this machine's events).

The race of ``--seed``/``--game`` on the lanes it is given (:func:`make_R`), seats
``0 .. players-1`` taking turns clockwise from seat 0, each seat's pace policy choosing
the option of the sheep its turn's dice select; nobody bets. It is played turn for turn
as :func:`sheepsim.games.race.engine.run_race` plays it, with the same steps
(``turn_allowed``, ``roll_lane``, ``count_legal``, ``builtin_pace``, ``moved_counts``:
the turn loop of the race machine's plug-in cut, :mod:`~sheepsim.games.race.cut`, too),
so every die, choice and move is the engine's (``tests/race/test_race_pinned.py``, the
trace cases). A decision is one turn's pace (kind ``pace``, the race machine's kinds:
a plug-in is asked with kind ``PACE`` as in whole games), its options the legal ones as
rows ``[option]`` (increasing); a lone legal option is taken without asking. The dice
are the chance stream (row 0: ``rng.DICE``), each seat's pace draws its own stream of
phase ``PACE_PHASE``, keyed as the engine keys them. A plug-in sees the engine's pace
view (:func:`~sheepsim.games.race.policies.fill_pace_view`, float64, the ``V_*`` layout,
the rules' payoffs and bonus, no odds, no bets).

The race's board and counters live in ``R``'s arrays (the engine's ``Table``); ``st``
holds whose turn it is, the turn's dice and selected sheep, the placed lanes at the end
and, in a trace (slot ``trace_on``), the turn's log row (``engine.N_LOG`` columns, the
engine's ``log_turn``), which slot ``events`` hands to the harness after each move.
A single race has no score and no winner (``scores`` 0, ``winner`` -1).
"""

import numpy as np

from sheepsim.games.race.engine import (
    _store_counters,
    builtin_pace,
    count_legal,
    lazy_sheep,
    legal_options,
    log_turn,
    moved_counts,
    place_remaining,
    placed_lanes,
    places_needed,
    race_counters,
    roll_lane,
    selection_reason,
    setup_race,
    sheep_values,
    show_bets,
    stage_dice,
    stalemate,
    turn_allowed,
    write_sheep,
)
from sheepsim.games.race.layout import (
    EZ_FIRST,
    KIND_NAMES,
    N_BOARD,
    N_LANES,
    N_OPTIONS,
    N_RACE,
    N_VIEW,
    PACE,
    RUNNING,
    STATUS,
    TRACK,
    V_BONUS,
    V_PAYOFFS,
    Seats,
    Table,
)
from sheepsim.games.race.moves import MAX_TURNS, N_LOG
from sheepsim.games.race.policies import FIRST_USER_ID, fill_pace_view, option_row, pace_rows
from sheepsim.jit import njit

RULES = {}
#: the race machine's kinds (only ``pace`` is asked here): a plug-in gets kind ``PACE``
KINDS = tuple(k.lower() for k in KIND_NAMES)
MAX_OPTIONS, OPTION_WIDTH = N_OPTIONS, 1
VIEW_LEN, VIEW_DTYPE = N_VIEW, "float64"
#: a race that never ends raises at ``MAX_TURNS`` turns (``engine.turn_allowed``) first
MAX_DECISIONS = MAX_TURNS + 1
EVENT_WIDTH = N_LOG
# the state: players, stage, the seat to play, the turn's dice total and selected lane,
# its legal options, whether the game is traced, whether a turn's log row waits, whether
# the race is over, the lanes placed 1st-3rd (-1: not awarded), the turn's log row
N, STAGE, PLAYER, TOTAL, LANE, N_LEGAL, LOGGING, PENDING, DONE, PLACES = range(10)
EV = PLACES + 3
# R: the rules (KernelRules), the lane cards (6,), the stage (1,), the engine's Table
# arrays, the seats' bets (players x 6, zeros: nobody bets), a plug-in's view before the
# turn's part is written (the payoffs and bonus), the turn's selected lane (1,) for
# decide_rules (which is not given the state)
X_RULES, X_LANES, X_STAGE, X_BOARD, X_RACE, X_SEEN, X_LEGAL, X_BETS, X_VIEW, X_LANE = range(10)


def state_size(players):
    return EV + N_LOG


def make_R(rules, lane_cards, stage, players):
    """The machine's tables for one race of ``players`` seats: ``rules`` (``RaceRules``)
    with the cards ``lane_cards`` ``(6,)`` in lanes 1-6, ``stage`` (``SEMIFINAL`` or
    ``FINAL``)."""
    kr = rules.kernel_rules()
    i64 = np.int64
    view = np.zeros(N_VIEW, dtype=np.float64)  # (as the engine's single races fill it)
    view[V_PAYOFFS:V_PAYOFFS + 4 * N_LANES] = kr.payoffs.ravel()
    view[V_BONUS:V_BONUS + 2] = kr.bonus
    return (kr, np.asarray(lane_cards, dtype=i64).copy(), np.array([stage], dtype=i64),
            np.zeros((N_LANES, N_BOARD), i64), np.zeros(N_RACE, i64),
            np.zeros((2, N_LANES), i64), np.zeros(N_OPTIONS, i64),
            np.zeros((players, N_LANES), i64), view, np.zeros(1, i64))


@njit
def next_turn(st, kr, board, race, legal, at, chance):
    """The loop head of ``engine.run_race``: the race over (its remaining places given,
    ``st[DONE]``), or the next turn's dice rolled (the chance stream's row 0), its sheep
    selected and its legal options in ``legal``; ``at`` ``(1,)`` gets the lane."""
    supply, n_placed, turn, n_running = race_counters(race)
    if n_placed < places_needed(race) and n_running > 0 \
            and not (supply == 0 and stalemate(board)):
        turn_allowed(turn)
        faces, nfaces = stage_dice(kr, st[STAGE])
        total, lane, state = roll_lane(faces, nfaces, chance[0, 0], chance[0, 1])
        chance[0, 0] = state
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        legal_options(board, race, lane, legal)
        n, _ = count_legal(legal)
        st[TOTAL] = total
        st[LANE] = lane
        st[N_LEGAL] = n
        at[0] = lane
    else:
        place_remaining(board, race)
        placed_lanes(board, st[PLACES:PLACES + 3])
        st[DONE] = 1


@njit
def start(st, R, players, chance):
    kr, lanes, stage, board, race = R[X_RULES], R[X_LANES], R[X_STAGE], R[X_BOARD], R[X_RACE]
    seen, legal, bets, at = R[X_SEEN], R[X_LEGAL], R[X_BETS], R[X_LANE]
    st[N] = players
    st[STAGE] = stage[0]
    setup_race(Table(board, race, seen, legal), kr, lanes, stage[0])
    st[PLAYER] = 0
    show_bets(Seats(bets, bets), 0, seen)
    next_turn(st, kr, board, race, legal, at, chance)


@njit
def to_move(st, R, opts):
    if st[DONE]:
        return -1, 0, 0
    return st[PLAYER], PACE, pace_rows(R[X_LEGAL], opts)


@njit
def apply(st, R, seat, kind, opts, choice, chance):
    """Move the selected sheep with option ``opts[choice, 0]`` (``engine.run_race``'s
    move, its log row kept in a trace), pass the turn clockwise and begin the next."""
    kr, board, race, seen, legal = R[X_RULES], R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_LEGAL]
    bets, at = R[X_BETS], R[X_LANE]
    option = opts[choice, 0]
    lane = st[LANE]
    supply, n_placed, turn, n_running = race_counters(race)
    row, supply, n_placed, n_running = moved_counts(option, sheep_values(board, lane), supply,
                                                    race[TRACK], race[EZ_FIRST], n_placed,
                                                    n_running)
    write_sheep(board, lane, row)
    if st[LOGGING]:
        log_turn(st[EV:EV + N_LOG], turn, st[PLAYER], st[TOTAL], lane,
                 selection_reason(board, st[TOTAL], lane), option, board, supply, st[N_LEGAL])
        st[PENDING] = 1
    _store_counters(race, supply, n_placed, turn + 1, n_running)
    n_players = st[N]
    if n_players > 1:
        st[PLAYER] = st[PLAYER] + 1 if st[PLAYER] + 1 < n_players else 0
        show_bets(Seats(bets, bets), st[PLAYER], seen)
    next_turn(st, kr, board, race, legal, at, chance)


@njit
def decide_rules(pid, kind, view, opts, n, rand, R):
    """The seat's built-in pace policy (``engine.builtin_pace``, without the rules: no
    ``lookahead`` in a single race) as the row of its option among ``opts`` (-1 if it is
    not legal: the harness's failure line)."""
    kr, board, race, seen, legal = R[X_RULES], R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_LEGAL]
    bets, at = R[X_BETS], R[X_LANE]
    option = builtin_pace(pid, at[0], Table(board, race, seen, legal), None,
                          (kr.faces_semi, kr.nfaces_semi), bets.shape[0], rand)
    return option_row(legal, option)


@njit
def needs_view(pid, kind):
    return pid >= FIRST_USER_ID  # (the built-ins read R's Table)


@njit
def view(st, R, seat, out):
    board, race, seen, base = R[X_BOARD], R[X_RACE], R[X_SEEN], R[X_VIEW]
    for i in range(out.shape[0]):
        out[i] = base[i]
    fill_pace_view(out, st[LANE], seat, st[N], board, race, seen)


@njit
def scores(st, R, out):
    for s in range(st[N]):
        out[s] = 0


@njit
def winner(st, R):
    return -1


@njit
def trace_on(st, R):
    st[LOGGING] = 1


@njit
def events(st, R, out):
    """The last move's log row, if one waits (``engine.log_turn``'s columns)."""
    if st[PENDING] == 0 or out.shape[0] == 0:
        st[PENDING] = 0
        return 0
    for c in range(N_LOG):
        out[0, c] = st[EV + c]
    st[PENDING] = 0
    return 1
