"""The Sheep Race's rules as kernels (numba, no validation): the board records, the dice,
the legal pace options and their moves, the end of a race. :mod:`.engine` plays races and
games with them, and the exact solvers (:mod:`.exact.game`, :mod:`.exact.graphs`) follow
the same rules through them; keeping them here lets the engine import the exact solvers
(its ``ev`` bets and ``lookahead`` pace) without a cycle."""

import numpy as np

from sheepsim import rng
from sheepsim.games.race.layout import (
    BLUE,
    BY_DICE,
    EXHAUSTED,
    EZ_FIRST,
    FINAL,
    FINISHED,
    GALLOP,
    GALLOP_BLUE2,
    GALLOP_RED,
    GALLOP_WHITE,
    LAZY_EXHAUSTED,
    LAZY_FINISHED,
    LAZY_NINE,
    MAX_CUBES,
    MY_BETS,
    N_BOARD,
    N_LANES,
    N_OPTIONS,
    N_PLACED,
    N_RACE,
    N_RUNNING,
    PLACE,
    POS,
    RED,
    REST,
    RIVAL_OPEN,
    RUNNING,
    STAGE,
    STATUS,
    SUPPLY_BLUE,
    TRACK,
    TROT,
    TROT_BLUE,
    TROT_WHITE,
    TURN,
    WALK_FREE,
    WALK_RECOVER,
    WALK_WHITE,
    WHITE,
    Table,
)
from sheepsim.games.race.policies import (
    greedy_option,
    move_distance,
)
from sheepsim.jit import njit

#: Safety net for variant files: a race still running after this many turns is an error.
MAX_TURNS = 100_000
#: Columns of the per-turn trace log (``LOG_OPTIONS``: the selected sheep's legal
#: options; on the all-``greedy`` path counted only when the race counts its options,
#: ``engine.run_race``'s ``options``, and 0 otherwise).
LOG_TURN, LOG_PLAYER, LOG_TOTAL, LOG_LANE, LOG_REASON, LOG_OPTION, LOG_POS, LOG_RED, \
    LOG_BLUE, LOG_WHITE, LOG_STATUS, LOG_SUPPLY, LOG_OPTIONS = range(13)
N_LOG = 13


# ------------------------------------------------------------------ records
def new_table():
    """An empty :class:`~sheepsim.games.race.layout.Table` (board, race, seen, legal):
    numpy arrays, allocated in Python (kernels allocate nothing; see ``kernels``)."""
    return Table(np.zeros((N_LANES, N_BOARD), dtype=np.int64), np.zeros(N_RACE, dtype=np.int64),
                 np.zeros((2, N_LANES), dtype=np.int64), np.zeros(N_OPTIONS, dtype=np.bool_))


@njit(inline="always")
def stage_dice(rules, stage):
    """``(faces, nfaces)`` of the stage's dice."""
    if stage == FINAL:
        return rules.faces_final, rules.nfaces_final
    return rules.faces_semi, rules.nfaces_semi


# ------------------------------------------------------------------ one race
@njit
def setup_race(table, rules, lane_cards, stage):
    """Put the six sheep on the starting line with the cubes of ``lane_cards`` ``(6,)``
    (card index per lane); the supply holds the blue cubes the cards do not."""
    board, race = table.board, table.race
    blue_on_cards = 0
    for lane in range(N_LANES):
        c = lane_cards[lane]
        board[lane, POS] = 0
        board[lane, RED] = rules.cards[c, 0]
        board[lane, BLUE] = rules.cards[c, 1]
        board[lane, WHITE] = rules.cards[c, 2]
        board[lane, TROT] = rules.cards[c, 3]
        board[lane, GALLOP] = rules.cards[c, 4]
        board[lane, STATUS] = RUNNING
        board[lane, PLACE] = 0
        blue_on_cards += rules.cards[c, 1]
    race[TRACK] = rules.track
    race[EZ_FIRST] = rules.ez_first
    race[MAX_CUBES] = rules.max_cubes
    race[STAGE] = stage
    race[SUPPLY_BLUE] = rules.blue_total - blue_on_cards
    race[N_PLACED] = 0
    race[TURN] = 0
    race[N_RUNNING] = 6


@njit(inline="always")
def legal_options(board, race, lane, legal):
    """Fill ``legal`` ``(9,)`` with the options the rules allow for ``lane``."""
    red = board[lane, RED]
    blue = board[lane, BLUE]
    white = board[lane, WHITE]
    cubes = red + blue + white
    supply = race[SUPPLY_BLUE]
    in_end_zone = board[lane, POS] >= race[EZ_FIRST]
    legal[GALLOP_RED] = red >= 1
    legal[GALLOP_BLUE2] = blue >= 2
    legal[GALLOP_WHITE] = white >= 1
    legal[TROT_BLUE] = blue >= 1
    legal[TROT_WHITE] = white >= 1
    legal[WALK_WHITE] = white >= 1
    if in_end_zone:
        legal[WALK_FREE] = cubes >= 1
        legal[WALK_RECOVER] = False
        legal[REST] = False
    else:
        legal[WALK_FREE] = False
        # recovery is limited by the supply; the 3-cube limit applies to what is held after
        legal[WALK_RECOVER] = cubes >= 1 and cubes + min(1, supply) <= race[MAX_CUBES]
        legal[REST] = cubes + min(2, supply) <= race[MAX_CUBES]


@njit(inline="always")
def n_legal(sheep, supply, ez_first, max_cubes):
    """How many options :func:`legal_options` allows for a sheep given by its values
    (:func:`sheep_values`) with ``supply`` blue cubes in the supply, counted in registers
    (the all-``greedy`` turn loop fills no ``legal`` array)."""
    pos, red, blue, white = sheep[0], sheep[1], sheep[2], sheep[3]
    cubes = red + blue + white
    # GALLOP_RED, TROT_BLUE and GALLOP_BLUE2, the three white options
    n = min(red, 1) + min(blue, 2) + 3 * min(white, 1)
    if pos >= ez_first:  # WALK_FREE
        return n + min(cubes, 1)
    room = max_cubes - cubes  # WALK_RECOVER, REST
    return n + min(cubes, 1) * (min(1, supply) <= room) + (min(2, supply) <= room)


@njit(inline="always")
def pay_cubes(option, red, blue, white, supply):
    """The cubes on the card and the blue supply after paying for (or recovering with)
    ``option``: ``(red, blue, white, supply)``."""
    if option == REST:
        rec = min(2, supply)
        blue += rec
        supply -= rec
    elif option == WALK_RECOVER:
        rec = min(1, supply)
        blue += rec
        supply -= rec
    elif option == WALK_WHITE or option == TROT_WHITE or option == GALLOP_WHITE:
        white -= 1
    elif option == TROT_BLUE:
        blue -= 1
        supply += 1
    elif option == GALLOP_BLUE2:
        blue -= 2
        supply += 2
    elif option == GALLOP_RED:
        red -= 1
    return red, blue, white, supply


@njit(inline="always")
def sheep_values(board, lane):
    """``(square, red, blue, white, trot squares, gallop squares)`` of the sheep in ``lane``."""
    return board[lane, POS], board[lane, RED], board[lane, BLUE], board[lane, WHITE], \
        board[lane, TROT], board[lane, GALLOP]


@njit(inline="always")
def sheep_after(pos, red, blue, white, track, ez_first, n_placed):
    """``(square, status, place)`` of a sheep that moved to ``pos`` and holds these cubes:
    past the Finish Line it stands on ``track + 1`` (extra movement is lost, cubes do not
    matter) and takes the next place; with no cube in the End Zone it is exhausted."""
    if pos > track:
        return track + 1, FINISHED, n_placed + 1
    if red + blue + white == 0 and pos >= ez_first:
        return pos, EXHAUSTED, 0
    return pos, RUNNING, 0


@njit(inline="always")
def sheep_moved(option, sheep, supply, track, ez_first, n_placed):
    """Pay for (or recover with) ``option``, assumed legal, and move the sheep whose
    :func:`sheep_values` are ``sheep``: ``(row, blue supply after)``, ``row`` =
    ``(square, red, blue, white, status, place)`` as :func:`write_sheep` takes it."""
    pos, red, blue, white, trot, gallop = sheep
    red, blue, white, supply = pay_cubes(option, red, blue, white, supply)
    pos, status, place = sheep_after(pos + move_distance(option, trot, gallop), red, blue,
                                     white, track, ez_first, n_placed)
    return (pos, red, blue, white, status, place), supply


@njit(inline="always")
def write_sheep(board, lane, row):
    """Store a :func:`sheep_moved` ``row`` in ``board``.

    Only straight-line stores here: numba's reference-count pruning then removes the
    copy of ``board`` that inlining makes (the same stores behind branches kept an
    atomic incref/decref pair, two calls, in every turn)."""
    board[lane, POS], board[lane, RED], board[lane, BLUE], board[lane, WHITE], \
        board[lane, STATUS], board[lane, PLACE] = row


@njit(inline="always")
def count_moved(row, n_placed, n_running):
    """``(sheep placed, sheep running)`` after a move that left the sheep as ``row``."""
    status = row[4]
    return n_placed + (status == FINISHED), n_running - (status != RUNNING)


@njit(inline="always")
def moved_counts(option, sheep, supply, track, ez_first, n_placed, n_running):
    """:func:`sheep_moved` and the race's counters after the move: ``(row, blue supply,
    sheep placed, sheep running)``. It takes no ``board`` (the turn loops write ``row``
    with :func:`write_sheep`): see :func:`write_sheep` on the copies inlining makes."""
    row, supply = sheep_moved(option, sheep, supply, track, ez_first, n_placed)
    n_placed, n_running = count_moved(row, n_placed, n_running)
    return row, supply, n_placed, n_running


@njit(inline="always")
def move_sheep(board, lane, option, supply, track, ez_first, n_placed, n_running):
    """Move the sheep in ``lane`` with ``option`` (assumed legal) on ``board``; returns
    ``(blue supply, sheep placed, sheep running)`` after the move."""
    row, supply, n_placed, n_running = moved_counts(option, sheep_values(board, lane), supply,
                                                    track, ez_first, n_placed, n_running)
    write_sheep(board, lane, row)
    return supply, n_placed, n_running


@njit(inline="always")
def apply_option(board, race, lane, option):
    """Move the sheep in ``lane`` with ``option`` (assumed legal); update ``race``."""
    race[SUPPLY_BLUE], race[N_PLACED], race[N_RUNNING] = move_sheep(
        board, lane, option, race[SUPPLY_BLUE], race[TRACK], race[EZ_FIRST], race[N_PLACED],
        race[N_RUNNING])


@njit(inline="always")
def lazy_sheep(board):
    """Running sheep furthest from the Finish Line; ties to the highest lane; -1 if none."""
    best = -1
    for lane in range(N_LANES):
        if board[lane, STATUS] == RUNNING and (best < 0 or board[lane, POS] <= board[best, POS]):
            best = lane
    return best


@njit(inline="always")
def dice_lane(total):
    """Lane (0-5) a dice total selects: 1-6 that lane, 7 lane 6, 8 lane 5; -1 for 9 or
    more (the Lazy Sheep)."""
    if total >= 9:
        return -1
    return total - 1 if total <= 6 else 12 - total


@njit(inline="always")
def select_sheep(board, total):
    """Lane (0-5) and reason for a dice total (:func:`dice_lane`); an exhausted or
    finished sheep is replaced by the Lazy Sheep."""
    lane = dice_lane(total)
    if lane < 0:
        return lazy_sheep(board), LAZY_NINE
    status = board[lane, STATUS]
    if status == RUNNING:
        return lane, BY_DICE
    return lazy_sheep(board), LAZY_EXHAUSTED if status == EXHAUSTED else LAZY_FINISHED


@njit(inline="always")
def selection_reason(board, total, lane):
    """Why the sheep in ``lane`` was selected for the dice ``total`` (BY_DICE or a
    LAZY_* reason); valid after its move (the dice's lane, if another, did not move)."""
    dice = dice_lane(total)
    if dice < 0:
        return LAZY_NINE
    if dice == lane:
        return BY_DICE
    return LAZY_EXHAUSTED if board[dice, STATUS] == EXHAUSTED else LAZY_FINISHED


@njit(inline="always")
def roll_dice(dice_faces, dice_nfaces, state, gamma):
    """Total of one roll of the dice ``(n_dice, max_faces)`` drawn from the DICE stream
    held in locals (``state``, ``gamma``); returns ``(total, state after)``."""
    total = 0
    for d in range(dice_faces.shape[0]):
        face, state = rng.draw_below(state, gamma, dice_nfaces[d])
        total += dice_faces[d, face]
    return total, state


@njit(inline="always")
def roll(dice_faces, dice_nfaces, streams):
    """Total of one roll of the dice drawn from the DICE row of ``streams``."""
    total, streams[rng.DICE, 0] = roll_dice(dice_faces, dice_nfaces, streams[rng.DICE, 0],
                                            streams[rng.DICE, 1])
    return total


@njit(inline="always")
def is_over(board, need, n_placed, n_running, supply):
    """``need`` sheep crossed (3 in a semifinal, 1 in the final) or none can run on."""
    if n_placed >= need or n_running == 0:
        return True
    return supply == 0 and stalemate(board)


@njit
def stalemate(board):
    """With no blue cube in the supply (possible only in variants), a running sheep that
    is empty outside the End Zone can only rest and recovers nothing: True if every
    running sheep is like that (nothing can move again)."""
    for lane in range(N_LANES):
        if board[lane, STATUS] == RUNNING and \
                board[lane, RED] + board[lane, BLUE] + board[lane, WHITE] > 0:
            return False
    return True


@njit(inline="always")
def places_needed(race):
    return 1 if race[STAGE] == FINAL else 3


@njit(inline="always")
def race_over(board, race):
    """Semifinal: 3 crossed; final: 1 crossed; either: no sheep can still run."""
    return is_over(board, places_needed(race), race[N_PLACED], race[N_RUNNING],
                   race[SUPPLY_BLUE])


@njit
def place_remaining(board, race):
    """Give the places not won by crossing to the other sheep closest to the Finish
    Line, ties to the lowest lane (exhausted sheep; running ones only in a stalemate)."""
    while race[N_PLACED] < places_needed(race):
        best = -1
        for lane in range(N_LANES):
            if board[lane, PLACE] == 0 and (best < 0 or board[lane, POS] > board[best, POS]):
                best = lane
        race[N_PLACED] += 1
        board[best, PLACE] = race[N_PLACED]


@njit(inline="always")
def show_bets(seats, player, seen):
    """The active seat's own bets and its rivals' open bets, for its pace policy."""
    for lane in range(N_LANES):
        seen[MY_BETS, lane] = seats.bets[player, lane]
        seen[RIVAL_OPEN, lane] = seats.rival_open[player, lane]


@njit(inline="always")
def log_turn(row, turn, player, total, lane, reason, option, board, supply, n):
    row[LOG_TURN] = turn + 1
    row[LOG_PLAYER] = player
    row[LOG_TOTAL] = total
    row[LOG_LANE] = lane
    row[LOG_REASON] = reason
    row[LOG_OPTION] = option
    row[LOG_POS] = board[lane, POS]
    row[LOG_RED] = board[lane, RED]
    row[LOG_BLUE] = board[lane, BLUE]
    row[LOG_WHITE] = board[lane, WHITE]
    row[LOG_STATUS] = board[lane, STATUS]
    row[LOG_SUPPLY] = supply
    row[LOG_OPTIONS] = n


@njit(inline="always")
def race_counters(race):
    """``(blue supply, sheep placed, turn, sheep running)`` of ``race``: the counters the
    turn loop keeps in locals (:func:`_store_counters` writes them back)."""
    return race[SUPPLY_BLUE], race[N_PLACED], race[TURN], race[N_RUNNING]


@njit(inline="always")
def _store_counters(race, supply, n_placed, turn, n_running):
    """Write the race counters the turn loop keeps in locals back into ``race``."""
    race[SUPPLY_BLUE] = supply
    race[N_PLACED] = n_placed
    race[TURN] = turn
    race[N_RUNNING] = n_running


@njit(inline="always")
def _greedy_move(board, lane, supply, track, ez_first, max_cubes):
    """``(option, sheep values)`` of ``greedy`` for ``lane``, read from locals."""
    sheep = sheep_values(board, lane)
    pos, red, blue, white, trot, gallop = sheep
    option = greedy_option(pos, red, blue, white, trot, gallop, supply, track, ez_first,
                           max_cubes)
    if option < 0:
        raise ValueError("pace policy returned an illegal option")
    return option, sheep
