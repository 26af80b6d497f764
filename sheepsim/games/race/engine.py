"""Sheep Race kernels on plain arrays (numba, no validation: the wrappers validate).

One race: :func:`run_race`. One whole game (deal, two semifinals, the final, betting,
scoring with the bonus and the stack tie-breaks): :func:`run_game`. The rules decisions
they implement are cited from shared/rulebooks/README.md in the tests.

Pace and bet decisions go through the global names ``choose_pace`` and ``choose_bets``;
:mod:`~sheepsim.games.race.kernels` re-jits these functions with those names bound to a
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
    N_OPTIONS,
    N_PLACED,
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
)
from sheepsim.games.race.policies import choose_bets, choose_pace, distance
from sheepsim.jit import njit

#: Safety net for variant files: a race still running after this many turns is an error.
MAX_TURNS = 100_000
#: Columns of the per-turn trace log.
LOG_TURN, LOG_PLAYER, LOG_TOTAL, LOG_LANE, LOG_REASON, LOG_OPTION, LOG_POS, LOG_RED, \
    LOG_BLUE, LOG_WHITE, LOG_STATUS, LOG_SUPPLY = range(12)
N_LOG = 12


@njit
def setup_race(board, race, cards, lane_cards, track, ez_first, max_cubes, stage, blue_total):
    """Put the six sheep on the starting line with their cards' cubes.

    ``cards`` ``(n_cards, 5)`` (red, blue, white, trot, gallop); ``lane_cards`` ``(6,)``
    card index per lane; ``blue_total`` blue cubes in the game (the supply holds the
    rest after the cards take theirs).
    """
    blue_on_cards = 0
    for lane in range(6):
        c = lane_cards[lane]
        board[lane, POS] = 0
        board[lane, RED] = cards[c, 0]
        board[lane, BLUE] = cards[c, 1]
        board[lane, WHITE] = cards[c, 2]
        board[lane, TROT] = cards[c, 3]
        board[lane, GALLOP] = cards[c, 4]
        board[lane, STATUS] = RUNNING
        board[lane, PLACE] = 0
        blue_on_cards += cards[c, 1]
    race[TRACK] = track
    race[EZ_FIRST] = ez_first
    race[MAX_CUBES] = max_cubes
    race[STAGE] = stage
    race[SUPPLY_BLUE] = blue_total - blue_on_cards
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
def apply_option(board, race, lane, option):
    """Move the sheep in ``lane`` with ``option`` (assumed legal); update status/place."""
    if option == REST:
        rec = min(2, race[SUPPLY_BLUE])
        board[lane, BLUE] += rec
        race[SUPPLY_BLUE] -= rec
    elif option == WALK_RECOVER:
        rec = min(1, race[SUPPLY_BLUE])
        board[lane, BLUE] += rec
        race[SUPPLY_BLUE] -= rec
    elif option == WALK_WHITE or option == TROT_WHITE or option == GALLOP_WHITE:
        board[lane, WHITE] -= 1
    elif option == TROT_BLUE:
        board[lane, BLUE] -= 1
        race[SUPPLY_BLUE] += 1
    elif option == GALLOP_BLUE2:
        board[lane, BLUE] -= 2
        race[SUPPLY_BLUE] += 2
    elif option == GALLOP_RED:
        board[lane, RED] -= 1
    pos = board[lane, POS] + distance(board, lane, option)
    if pos > race[TRACK]:
        # crossed the Finish Line: extra movement is lost, cubes do not matter
        board[lane, POS] = race[TRACK] + 1
        board[lane, STATUS] = FINISHED
        race[N_RUNNING] -= 1
        race[N_PLACED] += 1
        board[lane, PLACE] = race[N_PLACED]
        return
    board[lane, POS] = pos
    cubes = board[lane, RED] + board[lane, BLUE] + board[lane, WHITE]
    if cubes == 0 and pos >= race[EZ_FIRST]:
        board[lane, STATUS] = EXHAUSTED
        race[N_RUNNING] -= 1


@njit(inline="always")
def lazy_sheep(board):
    """Running sheep furthest from the Finish Line; ties to the highest lane; -1 if none."""
    best = -1
    for lane in range(6):
        if board[lane, STATUS] == RUNNING and (best < 0 or board[lane, POS] <= board[best, POS]):
            best = lane
    return best


@njit(inline="always")
def select_sheep(board, total):
    """Lane (0-5) and reason for a dice total: 1-6 that lane, 7 lane 6, 8 lane 5,
    9 the Lazy Sheep; an exhausted or finished sheep is replaced by the Lazy Sheep."""
    if total >= 9:
        return lazy_sheep(board), LAZY_NINE
    if total <= 6:
        lane = total - 1
    else:
        lane = 6 - (total - 6)
    status = board[lane, STATUS]
    if status == RUNNING:
        return lane, BY_DICE
    if status == EXHAUSTED:
        return lazy_sheep(board), LAZY_EXHAUSTED
    return lazy_sheep(board), LAZY_FINISHED


@njit(inline="always")
def roll(dice_faces, dice_nfaces, streams):
    total = 0
    for d in range(dice_faces.shape[0]):
        total += dice_faces[d, rng.randbelow(streams, rng.DICE, dice_nfaces[d])]
    return total


@njit(inline="always")
def race_over(board, race):
    """Semifinal: 3 crossed; final: 1 crossed; either: no sheep can still run."""
    need = 1 if race[STAGE] == FINAL else 3
    if race[N_PLACED] >= need or race[N_RUNNING] == 0:
        return True
    if race[SUPPLY_BLUE] > 0:
        return False
    # With no blue cube in the supply (possible only in variants), a running sheep that
    # is empty outside the End Zone can only rest and recovers nothing: if every running
    # sheep is like that, nothing can move again.
    for lane in range(6):
        if board[lane, STATUS] == RUNNING and \
                board[lane, RED] + board[lane, BLUE] + board[lane, WHITE] > 0:
            return False
    return True


@njit
def place_remaining(board, race):
    """Give the places not won by crossing to the other sheep closest to the Finish
    Line, ties to the lowest lane (exhausted sheep; running ones only in a stalemate)."""
    need = 1 if race[STAGE] == FINAL else 3
    while race[N_PLACED] < need:
        best = -1
        for lane in range(6):
            if board[lane, PLACE] == 0 and (best < 0 or board[lane, POS] > board[best, POS]):
                best = lane
        race[N_PLACED] += 1
        board[best, PLACE] = race[N_PLACED]


@njit
def run_race(board, race, dice_faces, dice_nfaces, streams, pace_ids, first_player,
             bets, rival_open, seen, legal, log, log_on):
    """Play a set-up race to its end; return the number of turns.

    ``pace_ids`` ``(n_players,)`` pace policy id per seat; turns go clockwise from
    ``first_player``. ``bets``/``rival_open`` ``(n_players, 6)``: each seat's own bets and
    the open bets of its rivals; ``seen`` ``(2, 6)`` scratch receives the active seat's
    rows (what its policy may look at). ``log`` ``(rows, N_LOG)`` receives one row per
    turn when ``log_on``.
    """
    n_players = pace_ids.shape[0]
    player = first_player
    for lane in range(6):
        seen[MY_BETS, lane] = bets[player, lane]
        seen[RIVAL_OPEN, lane] = rival_open[player, lane]
    while not race_over(board, race):
        if race[TURN] >= MAX_TURNS:
            raise ValueError("race did not end within MAX_TURNS turns")
        total = roll(dice_faces, dice_nfaces, streams)
        lane, reason = select_sheep(board, total)
        legal_options(board, race, lane, legal)
        option = choose_pace(pace_ids[player], lane, board, race, seen, legal, streams)
        if option < 0 or option >= N_OPTIONS or not legal[option]:
            raise ValueError("pace policy returned an illegal option")
        apply_option(board, race, lane, option)
        if log_on and race[TURN] < log.shape[0]:
            row = log[race[TURN]]
            row[LOG_TURN] = race[TURN] + 1
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
            row[LOG_SUPPLY] = race[SUPPLY_BLUE]
        race[TURN] += 1
        if n_players > 1:
            player += 1
            if player == n_players:
                player = 0
            for lane in range(6):
                seen[MY_BETS, lane] = bets[player, lane]
                seen[RIVAL_OPEN, lane] = rival_open[player, lane]
    place_remaining(board, race)
    return race[TURN]


@njit
def placed_lanes(board, places):
    """``places[k]`` = lane that finished k+1-th (-1 if that place was not awarded)."""
    for k in range(places.shape[0]):
        places[k] = -1
    for lane in range(6):
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
        for lane in range(6):
            v = card_odds[lane_cards[lane], lane, k] if k < n_places else 0.0
            odds[lane, k] = v
            tot += v
        if tot > 0:
            for lane in range(6):
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
        for lane in range(6):
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
def place_bets(bet_ids, kind, start, odds, payoffs, bonus, bets, rival_open, open_lane,
               taken, pick, streams):
    """One betting round; fills ``bets``/``open_lane``/``rival_open`` (see run_game)."""
    n = bet_ids.shape[0]
    for i in range(n):
        p = (start + i) % n
        choose_bets(bet_ids[p], kind, odds, payoffs, bonus, taken, open_lane[p], pick, streams)
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
def run_game(bet_ids, pace_ids, cards, deck, blue_total, track, ez_first, max_cubes,
             dice_semi, nfaces_semi, dice_final, nfaces_final, payoffs, bonus,
             card_odds_semi, card_odds_final, streams, board, race, seen, legal, log,
             scores, turns, race_cards):
    """Play one whole game; returns ``(winner seat, first player of semifinal 1)``.

    ``bet_ids``/``pace_ids`` ``(n_players,)``; ``deck`` ``(n_cards,)`` scratch;
    ``payoffs`` ``(4, 6)``; ``bonus`` ``(2,)``. Fills ``scores`` ``(n_players,)``,
    ``turns`` ``(3,)`` per race and ``race_cards`` ``(3, 3)``: card of 1st-3rd per race
    (final: 1st only, -1 elsewhere).
    """
    n = bet_ids.shape[0]
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n)
    stamp = np.zeros(n, dtype=np.int64)
    for i in range(n):
        # the first player's token is on top, then clockwise order below it
        stamp[(first + i) % n] = n - i
    counter = n
    scores[:] = 0
    lane_cards = np.empty(6, dtype=np.int64)
    final_cards = np.empty(6, dtype=np.int64)
    odds = np.zeros((6, 3), dtype=np.float64)
    bets = np.zeros((n, 6), dtype=np.int64)
    rival_open = np.zeros((n, 6), dtype=np.int64)
    open_lane = np.empty(n, dtype=np.int64)
    taken = np.zeros(6, dtype=np.bool_)
    pick = np.empty(2, dtype=np.int64)
    places = np.empty(3, dtype=np.int64)
    start = first
    for r in range(3):
        final = r == 2
        if final:
            lane_cards[:] = final_cards
        else:
            lane_cards[:] = deck[6 * r: 6 * r + 6]
        race_odds(card_odds_final if final else card_odds_semi, lane_cards,
                  FINAL if final else 0, odds)
        bets[:] = 0
        rival_open[:] = 0
        taken[:] = False
        open_lane[:] = -1
        if final:
            place_bets(bet_ids, BET_FINAL, start, odds, payoffs, bonus, bets, rival_open,
                       open_lane, taken, pick, streams)
        else:
            place_bets(bet_ids, BET_OPEN, start, odds, payoffs, bonus, bets, rival_open,
                       open_lane, taken, pick, streams)
            place_bets(bet_ids, BET_HIDDEN, start, odds, payoffs, bonus, bets, rival_open,
                       open_lane, taken, pick, streams)
        setup_race(board, race, cards, lane_cards, track, ez_first, max_cubes,
                   FINAL if final else 0, blue_total)
        turns[r] = run_race(board, race, dice_final if final else dice_semi,
                            nfaces_final if final else nfaces_semi, streams, pace_ids, start,
                            bets, rival_open, seen, legal, log, False)
        placed_lanes(board, places)
        for k in range(3):
            race_cards[r, k] = lane_cards[places[k]] if places[k] >= 0 else -1
        if not final:
            assign_final_lanes(r, lane_cards, places, final_cards)
        counter = score_race(board, bets, payoffs, bonus, final, start, scores, stamp, counter)
        start = leader(scores, stamp)
    return start, first
