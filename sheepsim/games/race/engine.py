"""Sheep Race kernels (numba, no validation: the wrappers validate).

One race: :func:`run_race`. One whole game (deal, two semifinals, the final, betting,
scoring with the bonus and the stack tie-breaks): :func:`run_game`. The rules decisions
they implement are cited from shared/rulebooks/README.md in the tests. State travels as
the records of :mod:`~sheepsim.games.race.layout` (``KernelRules``, ``Table``,
``Seats``, ``BetRound``, ``GameScratch``).

The turn loop keeps the race counters (blue supply, sheep placed and running, turn) and
the dice stream in local variables and writes the counters to the ``race`` array only for
a policy to read; the board stays in its small array, which is the view policies read.
When every seat plays ``greedy`` the loop plays it from the selected sheep's values in
locals (:func:`~sheepsim.games.race.policies.greedy_option`) and fills no ``legal``
array. Functions inlined into the turn loop that take ``board`` either only load or
only store (:func:`sheep_values`, :func:`write_sheep`): numba then prunes the reference
counting of the copies inlining makes, which otherwise costs atomic calls every turn.

Pace and bet decisions go through the global names ``choose_pace`` and ``choose_bets``;
:mod:`~sheepsim.games.race.kernels` recompiles the kernels with those names bound to a
user's policy (so a user policy runs the very same engine code).
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.race.layout import (
    BET_FINAL,
    BET_HIDDEN,
    BET_OPEN,
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
    SEMIFINAL,
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
    BetRound,
    GameScratch,
    Seats,
    Table,
)
from sheepsim.games.race.policies import (
    EV,
    LOOKAHEAD,
    choose_bets,
    choose_pace,
    greedy_option,
    move_distance,
)
from sheepsim.jit import njit

#: Safety net for variant files: a race still running after this many turns is an error.
MAX_TURNS = 100_000
#: Columns of the per-turn trace log.
LOG_TURN, LOG_PLAYER, LOG_TOTAL, LOG_LANE, LOG_REASON, LOG_OPTION, LOG_POS, LOG_RED, \
    LOG_BLUE, LOG_WHITE, LOG_STATUS, LOG_SUPPLY = range(12)
N_LOG = 12


# ------------------------------------------------------------------ records
def new_table():
    """An empty :class:`~sheepsim.games.race.layout.Table` (board, race, seen, legal):
    numpy arrays, allocated in Python (kernels allocate nothing; see ``kernels``)."""
    return Table(np.zeros((N_LANES, N_BOARD), dtype=np.int64), np.zeros(N_RACE, dtype=np.int64),
                 np.zeros((2, N_LANES), dtype=np.int64), np.zeros(N_OPTIONS, dtype=np.bool_))


def new_game_scratch(n_cards, n_players):
    """A :class:`~sheepsim.games.race.layout.GameScratch` for games of ``n_players``
    (numpy arrays, allocated in Python)."""
    bet_round = BetRound(np.full(n_players, -1, dtype=np.int64),
                         np.zeros(N_LANES, dtype=np.bool_), np.zeros(2, dtype=np.int64))
    return GameScratch(new_table(), np.arange(n_cards, dtype=np.int64), np.zeros(n_players, dtype=np.int64),
                       np.zeros(N_LANES, dtype=np.int64), np.zeros(N_LANES, dtype=np.int64),
                       np.zeros((N_LANES, 3), dtype=np.float64),
                       np.zeros((n_players, N_LANES), dtype=np.int64),
                       np.zeros((n_players, N_LANES), dtype=np.int64), bet_round,
                       np.zeros(3, dtype=np.int64), np.zeros((0, N_LOG), dtype=np.int64))


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
def move_sheep(board, lane, option, supply, track, ez_first, n_placed, n_running):
    """Move the sheep in ``lane`` with ``option`` (assumed legal) on ``board``; returns
    ``(blue supply, sheep placed, sheep running)`` after the move."""
    row, supply = sheep_moved(option, sheep_values(board, lane), supply, track, ez_first,
                              n_placed)
    write_sheep(board, lane, row)
    n_placed, n_running = count_moved(row, n_placed, n_running)
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
def log_turn(row, turn, player, total, lane, reason, option, board, supply):
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


@njit
def run_race(table, dice, streams, rand, pace_ids, seats, first_player, log, rules=None):
    """Play a set-up race to its end; return the number of turns.

    ``dice`` ``(faces, nfaces)``; dice come from the DICE row of ``streams``; ``rand``
    the policy stream, all a pace policy gets; ``pace_ids`` ``(n_players,)`` per seat,
    or None when every seat plays ``greedy``: numba then prunes the policy dispatch by
    type and plays :func:`~sheepsim.games.race.policies.greedy_option` (filling neither
    ``legal`` nor the race counters: no policy reads them). ``seats``
    (:class:`~sheepsim.games.race.layout.Seats`): turns go clockwise from
    ``first_player``. ``log`` ``(rows, N_LOG)``: one row per turn while rows last.
    ``rules`` (whole games only): for the ``lookahead`` pace policy.
    """
    board, race, seen, legal = table
    faces, nfaces = dice
    n_players = seats.bets.shape[0]
    need = places_needed(race)
    track, ez_first, max_cubes = race[TRACK], race[EZ_FIRST], race[MAX_CUBES]
    supply, n_placed, n_running = race[SUPPLY_BLUE], race[N_PLACED], race[N_RUNNING]
    turn = race[TURN]
    # the dice stream stays in locals for the race (no policy can see it)
    dice_state, dice_gamma = streams[rng.DICE, 0], streams[rng.DICE, 1]
    player = first_player
    if pace_ids is not None:
        show_bets(seats, player, seen)
    while n_placed < need and n_running > 0 and not (supply == 0 and stalemate(board)):
        if turn >= MAX_TURNS:
            raise ValueError("race did not end within MAX_TURNS turns")
        total, dice_state = roll_dice(faces, nfaces, dice_state, dice_gamma)
        lane = dice_lane(total)
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        if pace_ids is None:
            option, sheep = _greedy_move(board, lane, supply, track, ez_first, max_cubes)
        else:
            _store_counters(race, supply, n_placed, turn, n_running)  # as the policy sees them
            legal_options(board, race, lane, legal)
            if rules is not None and pace_ids[player] == LOOKAHEAD:
                option = exact_game.lookahead(lane, board, race, seen, legal, rules)
            else:
                option = choose_pace(pace_ids[player], lane, board, race, seen, legal, rand)
            if option < 0 or option >= N_OPTIONS or not legal[option]:
                raise ValueError("pace policy returned an illegal option")
            sheep = sheep_values(board, lane)
        row, supply = sheep_moved(option, sheep, supply, track, ez_first, n_placed)
        write_sheep(board, lane, row)
        n_placed, n_running = count_moved(row, n_placed, n_running)
        if turn < log.shape[0]:
            log_turn(log[turn], turn, player, total, lane, selection_reason(board, total, lane),
                     option, board, supply)
        turn += 1
        if n_players > 1:
            player = player + 1 if player + 1 < n_players else 0
            if pace_ids is not None:
                show_bets(seats, player, seen)
    streams[rng.DICE, 0] = dice_state
    _store_counters(race, supply, n_placed, turn, n_running)
    place_remaining(board, race)
    return turn


@njit(inline="always")
def placed_lanes(board, places):
    """``places[k]`` = lane that finished k+1-th (-1 if that place was not awarded)."""
    for k in range(places.shape[0]):
        places[k] = -1
    for lane in range(N_LANES):
        p = board[lane, PLACE]
        if 1 <= p <= places.shape[0]:
            places[p - 1] = lane


# ------------------------------------------------------------------ whole games
@njit
def assign_final_lanes(semifinal, lane_cards, places, final_cards):
    """Seat semifinal ``semifinal`` (0 or 1)'s top three in the final: lanes 6, 4, 2
    take the 1st, 2nd, 3rd of semifinal 1; lanes 5, 3, 1 those of semifinal 2."""
    for k in range(3):
        final_cards[5 - 2 * k - semifinal] = lane_cards[places[k]]


@njit
def leader(scores, stamp):
    """Seat with the most points; ties to the token on top of the stack (latest stamp)."""
    best = 0
    for s in range(1, scores.shape[0]):
        if scores[s] > scores[best] or (scores[s] == scores[best] and stamp[s] > stamp[best]):
            best = s
    return best


@njit
def race_odds(card_odds, lane_cards, stage, odds):
    """Public odds for the dealt race: ``card_odds`` ``(n_cards, 6, 3)`` gives P(place)
    of a card in a lane averaged over deals; each place is renormalised over the lanes."""
    n_places = 1 if stage == FINAL else 3
    for k in range(3):
        tot = 0.0
        for lane in range(N_LANES):
            v = card_odds[lane_cards[lane], lane, k] if k < n_places else 0.0
            odds[lane, k] = v
            tot += v
        if tot > 0:
            for lane in range(N_LANES):
                odds[lane, k] /= tot


@njit
def score_race(board, bets, payoffs, bonus, final, start, scores, stamp, counter):
    """Pay every seat for this race in turn order from ``start``; return the stack counter.

    ``bets`` ``(n_players, 6)`` 1 where the seat bet. A token that moves goes on top of
    the stack (a new, higher stamp); a seat scoring 0 does not move.
    """
    n = scores.shape[0]
    for i in range(n):
        p = (start + i) % n
        points = 0
        placed = 0
        for lane in range(N_LANES):
            place = board[lane, PLACE]
            if bets[p, lane] == 0 or place == 0:
                continue
            if final:
                if place == 1:
                    points += payoffs[3, lane]
            elif place <= 3:
                points += payoffs[place - 1, lane]
                placed += 1
        if not final:
            if placed == 2:
                points += bonus[0]
            elif placed == 3:
                points += bonus[1]
        if points > 0:
            scores[p] += points
            counter += 1
            stamp[p] = counter
    return counter


@njit
def place_bets(bet_ids, kind, start, odds, rules, seats, bet_round, rand, joint):
    """One betting round of ``kind`` in turn order from ``start``: fills ``seats.bets``
    and ``seats.rival_open`` and ``bet_round`` (see the records in ``layout``).
    ``joint`` ``(216,)`` the deal's exact outcome distribution, read by ``ev`` seats."""
    bets, rival_open = seats.bets, seats.rival_open
    open_lane, taken, pick = bet_round
    n = bet_ids.shape[0]
    for i in range(n):
        p = (start + i) % n
        if bet_ids[p] == EV:
            exact_game.exact_ev_bets(kind, joint, rules.payoffs, rules.bonus, taken, open_lane[p],
                                     pick)
        else:
            choose_bets(bet_ids[p], kind, odds, rules.payoffs, rules.bonus, taken, open_lane[p],
                        pick, rand)
        if kind == BET_OPEN:
            lane = pick[0]
            if lane < 0 or lane > 5 or taken[lane]:
                raise ValueError("bet policy chose a taken or invalid open lane")
            taken[lane] = True
            open_lane[p] = lane
            bets[p, lane] = 1
            for q in range(n):
                if q != p:
                    rival_open[q, lane] += 1
        else:
            a = pick[0]
            b = pick[1]
            if a < 0 or a > 5 or b < 0 or b > 5 or a == b or bets[p, a] or bets[p, b]:
                raise ValueError("bet policy chose invalid lanes")
            bets[p, a] = 1
            bets[p, b] = 1


@njit
def bet_on_race(bet_ids, stage, start, rules, seats, scratch, rand, pace_ids, exact):
    """Clear last race's bets, then the open and hidden rounds (semifinal) or the final's.
    If a seat bets ``ev``, the dealt race is first solved exactly (once for every seat)
    under :func:`~sheepsim.games.race.exact_game.odds_pace` of ``pace_ids``. ``exact``
    None (no seat bets ``ev``): numba prunes the solver by type (see :func:`run_game`)."""
    joint = scratch.odds[0]  # a placeholder: only ev seats read the exact joint
    if exact is not None:
        if exact_game.wants_exact_odds(bet_ids):
            joint = exact_game.deal_joint(rules, scratch.lane_cards, stage,
                                          exact_game.odds_pace(pace_ids), scratch.table)
    seats.bets[:] = 0
    seats.rival_open[:] = 0
    scratch.bet_round.taken[:] = False
    scratch.bet_round.open_lane[:] = -1
    if stage == FINAL:
        place_bets(bet_ids, BET_FINAL, start, scratch.odds, rules, seats, scratch.bet_round, rand,
                   joint)
    else:
        place_bets(bet_ids, BET_OPEN, start, scratch.odds, rules, seats, scratch.bet_round, rand,
                   joint)
        place_bets(bet_ids, BET_HIDDEN, start, scratch.odds, rules, seats, scratch.bet_round,
                   rand, joint)


@njit
def deal(streams, scratch, n_players):
    """Shuffle the deck and draw the first player (DEAL stream); stack the score tokens
    with the first player's on top, then clockwise below it. Returns the first player."""
    deck, stamp = scratch.deck, scratch.stamp
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n_players)
    for i in range(n_players):
        stamp[(first + i) % n_players] = n_players - i
    return first


@njit
def run_game(rules, card_odds, bet_ids, pace_ids, streams, rand, scratch, out, exact):
    """Play one whole game; returns ``(winner seat, first player of semifinal 1)``.

    ``card_odds`` ``(semifinal, final)`` public odds tables ``(n_cards, 6, 3)``;
    ``bet_ids`` ``(n_players,)``; ``pace_ids`` ``(n_players,)`` or None (all ``greedy``,
    see :func:`run_race`); ``rand`` the policy stream. Fills ``out`` = ``(scores
    (n_players,), turns (3,) per race, race_cards (3, 3))``: card of 1st-3rd per race
    (final: 1st only, -1 elsewhere). ``exact``: ``rules`` when a seat bets ``ev`` or
    plays ``lookahead``, else None, so that numba compiles neither exact solver (about
    45 s of a cold compile) into games that cannot call them.
    """
    scores, turns, race_cards = out
    n = bet_ids.shape[0]
    first = deal(streams, scratch, n)
    counter = n
    scores[:] = 0
    seats = Seats(scratch.bets, scratch.rival_open)
    lane_cards, places = scratch.lane_cards, scratch.places
    start = first
    for r in range(3):
        stage = FINAL if r == 2 else SEMIFINAL
        # element loops, not ``a[:] = b``: numba compiles an array-to-slice copy with a
        # shape-mismatch message formatted from strings, about 3 s of every cold compile
        for lane in range(N_LANES):
            lane_cards[lane] = scratch.final_cards[lane] if stage == FINAL \
                else scratch.deck[N_LANES * r + lane]
        race_odds(card_odds[stage], lane_cards, stage, scratch.odds)
        bet_on_race(bet_ids, stage, start, rules, seats, scratch, rand, pace_ids, exact)
        setup_race(scratch.table, rules, lane_cards, stage)
        turns[r] = run_race(scratch.table, stage_dice(rules, stage), streams, rand, pace_ids,
                            seats, start, scratch.log, exact)
        placed_lanes(scratch.table.board, places)
        for k in range(3):
            race_cards[r, k] = lane_cards[places[k]] if places[k] >= 0 else -1
        if stage != FINAL:
            assign_final_lanes(r, lane_cards, places, scratch.final_cards)
        counter = score_race(scratch.table.board, seats.bets, rules.payoffs, rules.bonus,
                             stage == FINAL, start, scores, scratch.stamp, counter)
        start = leader(scores, scratch.stamp)
    return start, first


# The exact-solving policies (ev bets, lookahead pace) use this module's rule functions,
# so they are imported last and as a module (either module may be imported first).
from sheepsim.games.race import exact_game  # noqa: E402
