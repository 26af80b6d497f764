"""Sheep Race kernels (numba, no validation: the wrappers validate).

One race: :func:`run_race`. The parts of a whole game the race machine
(:mod:`~sheepsim.games.race.machine`, which plays every whole game on the harness, its
bets included) takes from here: the deal (:func:`deal_arrays`), the public odds
(:func:`race_odds`), the places and the final's lanes (:func:`placed_lanes`,
:func:`assign_final_lanes`), scoring with the bonus and the stack tie-breaks
(:func:`score_race`, :func:`leader`). The rules decisions they implement are cited from
shared/rulebooks/README.md in the tests. State travels as the records of
:mod:`~sheepsim.games.race.layout` (``KernelRules``, ``Table``, ``Seats``).

The turn loop keeps the race counters (blue supply, sheep placed and running, turn) and
the dice stream in local variables and writes the counters to the ``race`` array only for
a policy to read; the board stays in its small array, which is the view policies read.
When every seat plays ``greedy`` the loop plays it from the selected sheep's values in
locals (:func:`~sheepsim.games.race.policies.greedy_option`) and fills no ``legal``
array. Functions inlined into the turn loop that take ``board`` either only load or
only store (:func:`sheep_values`, :func:`write_sheep`): numba then prunes the reference
counting of the copies inlining makes, which otherwise costs atomic calls every turn.

Built-in pace policies are called on the engine's arrays (``choose_pace``); plug-ins
with the one signature ``(kind, view, opts, n, rand)``, as function values handed down
to :func:`run_race` (``users``: the single races of
:mod:`~sheepsim.games.race.kernels`, compiled once whatever the plug-ins) and asked as
the harness asks them (:func:`sheepsim.harness.ask.ask_plugin`); a kernel without them
refuses any plug-in id (:func:`~sheepsim.harness.ask.no_plugins`). Every choice is
checked: the first bad one is written to ``asks.fail``, the harness's failure record
(:func:`sheepsim.harness.ask.bad_choice`), and the race and the chunk return early (a
negative result). A lone legal choice is taken without asking any policy.
"""


from sheepsim import rng
from sheepsim.games.race.exact import game as exact_game  # the lookahead-exact pace
from sheepsim.games.race.layout import (
    EZ_FIRST,
    FINAL,
    MAX_CUBES,
    N_LANES,
    N_OPTIONS,
    N_PHASES,
    PACE,
    PACE_PHASE,
    PLACE,
    RUNNING,
    STATUS,
    TRACK,
)
from sheepsim.games.race.lookahead import lookahead_pace
from sheepsim.games.race.moves import (  # noqa: F401 - engine.<name> is public
    LOG_BLUE,
    LOG_LANE,
    LOG_OPTION,
    LOG_OPTIONS,
    LOG_PLAYER,
    LOG_POS,
    LOG_REASON,
    LOG_RED,
    LOG_STATUS,
    LOG_SUPPLY,
    LOG_TOTAL,
    LOG_TURN,
    LOG_WHITE,
    MAX_TURNS,
    N_LOG,
    _greedy_move,
    _store_counters,
    apply_option,
    count_moved,
    dice_lane,
    is_over,
    lazy_sheep,
    legal_options,
    log_turn,
    move_sheep,
    moved_counts,
    n_legal,
    new_table,
    pay_cubes,
    place_remaining,
    places_needed,
    race_counters,
    race_over,
    roll,
    roll_dice,
    select_sheep,
    selection_reason,
    setup_race,
    sheep_after,
    sheep_moved,
    sheep_values,
    show_bets,
    stage_dice,
    stalemate,
    write_sheep,
)
from sheepsim.games.race.policies import (
    FIRST_USER_ID,
    LOOKAHEAD,
    LOOKAHEAD_EXACT,
    choose_pace,
    fill_pace_view,
    option_row,
    pace_rows,
)
from sheepsim.harness.ask import bad_choice

# the plug-in ask: the harness's refusal in the kernels compiled for built-in policies
# alone (the built-in single races, the race machine), the harness's ask_plugin in those
# rebuilt to take the plug-ins as function values (kernels._plugged_entries)
from sheepsim.harness.ask import no_plugins as ask_plugin
from sheepsim.jit import njit


@njit
def ask_user_pace(pid, player, n_players, lane, table, asks, n, rand, users=None):
    """A plug-in's option for ``lane`` (one of ``n >= 2`` legal ones), or -1 (a failure,
    in ``asks.fail``, the harness's record without the game: the caller writes it). The
    view is built here only: built-ins never need it. The plug-in is asked as the
    harness asks one (:func:`sheepsim.harness.ask.ask_plugin`, ``users`` its plug-ins
    as function values) in the kernels rebuilt to take them (``kernels.plugged``); the
    other kernels ask :func:`~sheepsim.harness.ask.no_plugins`, bound here."""
    board, race, seen, legal = table
    opts = asks.opts1
    pace_rows(legal, opts)
    fill_pace_view(asks.pview, lane, player, n_players, board, race, seen)
    i = ask_plugin(pid, PACE, asks.pview, opts[:n], n, rand, users)
    if i < 0 or i >= n:
        bad_choice(asks.fail, -1, player, pid, i, n, PACE)
        return -1
    return opts[i, 0]


# ------------------------------------------------------------------ the turn's steps
# Inlined into both turn loops, :func:`run_race` and the race machine's plug-in cut
# (:func:`sheepsim.games.race.cut.race_turns`), so that the two play every turn alike.
# An array handed to an inlined function is a copy numba counts references to; kept
# alive across a branch or a raise there, it costs an atomic incref/decref pair a turn
# (the all-greedy loop measured so with the sheep's selection in here). So the ones
# that take arrays branch only where their arrays are dead (a loop's end), and the
# selection by the board stays in the loops.
@njit(inline="always")
def turn_allowed(turn):
    """Raises once ``turn`` reaches ``MAX_TURNS`` (a variant whose race never ends)."""
    if turn >= MAX_TURNS:
        raise ValueError("race did not end within MAX_TURNS turns")


@njit(inline="always")
def roll_lane(faces, nfaces, dice_state, dice_gamma):
    """The turn's roll: ``(dice total, the lane it selects or -1, DICE stream state
    after)`` (:func:`dice_lane`), the stream held in locals (``dice_gamma`` its
    increment)."""
    total, dice_state = roll_dice(faces, nfaces, dice_state, dice_gamma)
    return total, dice_lane(total), dice_state


@njit(inline="always")
def count_legal(legal):
    """``(how many options of legal ``(9,)`` are legal, the last of them)``: the option
    played when it is the lone one. Raises when there is none."""
    n = 0
    option = -1
    for o in range(N_OPTIONS):
        if legal[o]:
            n += 1
            option = o
    if n == 0:
        raise ValueError("the selected sheep has no legal option")
    return n, option


@njit(inline="always")
def pace_stream(asks, player):
    """Seat ``player``'s pace stream: its row of ``asks.streams``, as a ``(1, 2)`` view."""
    srow = N_PHASES * player + PACE_PHASE
    return asks.streams[srow:srow + 1]


@njit(inline="always")
def builtin_pace(pid, lane, table, rules, dice, n_players, rand):
    """Built-in pace policy ``pid``'s option for the sheep in ``lane`` (its legal options
    in ``table.legal``), unchecked: ``lookahead-exact`` and ``lookahead`` when ``rules``
    is given (None: numba compiles neither), the others through :func:`choose_pace`.
    ``dice`` ``(faces, nfaces)``; ``rand`` the seat's :func:`pace_stream`."""
    board, race, seen, legal = table
    if rules is not None and pid == LOOKAHEAD_EXACT:
        return exact_game.lookahead(lane, board, race, seen, legal, rules)
    if rules is not None and pid == LOOKAHEAD:
        return lookahead_pace(lane, board, race, seen, legal, rules.payoffs, rules.bonus,
                              dice[0], dice[1], n_players, rand)
    return choose_pace(pid, lane, board, race, seen, legal, rand)


@njit
def run_race(table, dice, streams, asks, pace_ids, seats, first_player, rules=None,
             options=None, users=None):
    """Play a set-up race to its end; return the number of turns, or -1 when a policy
    failed (the failure in ``asks.fail``).

    ``dice`` ``(faces, nfaces)``; dice come from the DICE row of ``streams``; ``asks``
    (:class:`~sheepsim.games.race.layout.Asks`) the seats' policy streams (all a policy
    gets), the plug-ins' inputs and the failure record; ``pace_ids`` ``(n_players,)`` per
    seat, or None when every seat plays ``greedy``: numba then prunes the policy dispatch
    by type and plays :func:`~sheepsim.games.race.policies.greedy_option` (filling neither
    ``legal`` nor the race counters: no policy reads them). ``seats``
    (:class:`~sheepsim.games.race.layout.Seats`): turns go clockwise from
    ``first_player``. ``rules`` (whole games only): for the ``lookahead`` and ``lookahead-exact`` pace
    policies (None: numba compiles neither). ``options`` ``(2,)`` int64, or None (numba
    then compiles none of it): the race's legal options summed over its turns and its
    turns with one legal option (a forced move) are added to it, on the all-``greedy``
    path too (counted from the sheep's values, :func:`~.moves.n_legal`). ``users``: handed
    to :func:`ask_user_pace`: omitted (the built-in kernels, the race machine: numba
    compiles it as an empty argument), or the plug-ins as function values in the kernels
    rebuilt to ask them (``kernels.plugged``).
    """
    board, race, seen, legal = table
    faces, nfaces = dice
    n_players = seats.bets.shape[0]
    need = places_needed(race)
    track, ez_first, max_cubes = race[TRACK], race[EZ_FIRST], race[MAX_CUBES]
    supply, n_placed, turn, n_running = race_counters(race)
    # the dice stream stays in locals for the race (no policy can see it)
    dice_state, dice_gamma = streams[rng.DICE, 0], streams[rng.DICE, 1]
    player = first_player
    summed = lone = 0  # (options: the legal options summed, the forced moves)
    if pace_ids is not None:
        show_bets(seats, player, seen)
    while n_placed < need and n_running > 0 and not (supply == 0 and stalemate(board)):
        turn_allowed(turn)
        _, lane, dice_state = roll_lane(faces, nfaces, dice_state, dice_gamma)
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        n = 0  # the legal options (counted for options unless every seat is greedy)
        if pace_ids is None:
            option, sheep = _greedy_move(board, lane, supply, track, ez_first, max_cubes)
            if options is not None:
                n = n_legal(sheep, supply, ez_first, max_cubes)
        else:
            _store_counters(race, supply, n_placed, turn, n_running)  # as the policy sees them
            legal_options(board, race, lane, legal)
            n, option = count_legal(legal)
            if n > 1:  # a lone option is taken without asking
                pid = pace_ids[player]
                rand = pace_stream(asks, player)
                if pid >= FIRST_USER_ID:
                    option = ask_user_pace(pid, player, n_players, lane, table, asks, n, rand,
                                           users)
                else:
                    option = builtin_pace(pid, lane, table, rules, dice, n_players, rand)
                    # bad_choice (a call) only on a failure: the check itself stays
                    # inline in the turn loop
                    if option < 0 or option >= N_OPTIONS or not legal[option]:
                        bad_choice(asks.fail, -1, player, pid, option_row(legal, option), n,
                                   PACE)
                        option = -1
                if option < 0:
                    streams[rng.DICE, 0] = dice_state
                    return -1
            sheep = sheep_values(board, lane)
        if options is not None:
            summed += n
            lone += n == 1
        row, supply, n_placed, n_running = moved_counts(option, sheep, supply, track, ez_first,
                                                        n_placed, n_running)
        write_sheep(board, lane, row)
        turn += 1
        if n_players > 1:
            player = player + 1 if player + 1 < n_players else 0
            if pace_ids is not None:
                show_bets(seats, player, seen)
    streams[rng.DICE, 0] = dice_state
    if options is not None:
        options[0] += summed
        options[1] += lone
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
def deal_arrays(streams, deck, stamp, n_players):
    """Shuffle the deck ``(n_cards,)`` and draw the first player (DEAL stream); stack the
    score tokens (``stamp`` ``(n_players,)``, the higher stamp on top) with the first
    player's on top, then clockwise below it. Returns the first player (the race
    machine's deal: ``machine.start``)."""
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n_players)
    for i in range(n_players):
        stamp[(first + i) % n_players] = n_players - i
    return first
