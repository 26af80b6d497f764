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

Built-in policies are called on the engine's arrays (``choose_pace``, ``choose_bets``);
plug-ins with the one signature ``(kind, view, opts, n, rand)``: in a race, as function
values handed down to :func:`run_race` (``users``: the single races and traces of
:mod:`~sheepsim.games.race.kernels`, compiled once whatever the plug-ins), else through
the global name ``decide``, which :mod:`~sheepsim.games.race.kernels` rebinds to the
plug-ins' chain (so a user policy runs the very same engine code either way). Every choice is checked
(:func:`~sheepsim.games.race.policies.record`): the first bad one is written to
``asks.fail`` and the race, the game and the chunk return early (a negative result).
A lone legal choice is taken without asking any policy.
"""


from sheepsim import rng
from sheepsim.games.race.exact import game as exact_game  # the ev bets and lookahead-exact pace
from sheepsim.games.race.exact.win_bets import win_bets  # the win bets
from sheepsim.games.race.layout import (
    BET_FINAL,
    BET_HIDDEN,
    BET_OPEN,
    BET_PHASE,
    EZ_FIRST,
    FINAL,
    MAX_CUBES,
    N_LANES,
    N_OPTIONS,
    N_PHASES,
    N_PLACED,
    N_RUNNING,
    PACE,
    PACE_PHASE,
    PLACE,
    RUNNING,
    SEMIFINAL,
    STATUS,
    SUPPLY_BLUE,
    TRACK,
    TURN,
    Seats,
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
    n_legal,
    new_game_scratch,
    new_table,
    pay_cubes,
    place_remaining,
    places_needed,
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
    EV,
    FIRST_USER_ID,
    LOOKAHEAD,
    LOOKAHEAD_EXACT,
    WIN,
    bet_row,
    bet_rows,
    choose_bets,
    choose_pace,
    decide,
    fill_bet_view,
    fill_pace_view,
    fill_table_view,
    option_row,
    pace_rows,
    record,
)
from sheepsim.jit import njit


@njit
def ask_user_pace(pid, player, n_players, lane, table, asks, n, rand, users=None):
    """A plug-in's option for ``lane`` (one of ``n >= 2`` legal ones), or -1 (a failure,
    in ``asks.fail``). The view is built here only: built-ins never need it. The plug-in
    is asked through the global ``decide`` (which :func:`sheepsim.jit.rebind` replaces
    with the plug-ins' chain, or with ``kernels.no_plugins``); ``users`` is omitted here
    (:func:`run_race` hands it on): the kernels that take the plug-ins as values are
    rebuilt with :func:`ask_user_value` in place of this function (``kernels.plugged``)."""
    board, race, seen, legal = table
    opts = asks.opts1
    pace_rows(legal, opts)
    fill_pace_view(asks.pview, lane, player, n_players, board, race, seen)
    i = decide(pid, PACE, asks.pview, opts[:n], n, rand)
    if not record(asks.fail, asks.log, player, PACE_PHASE, PACE, n, i):
        return -1
    return opts[i, 0]


@njit
def ask_user_value(pid, player, n_players, lane, table, asks, n, rand, users):
    """:func:`ask_user_pace` with the plug-ins as function values: ``users`` ``(first
    plug-in id, *plug-ins)`` (:func:`sheepsim.policy_values.policy_values`), id ``pid``
    asking ``users[1 + pid - users[0]]``, which is the guard the plug-ins' chain puts
    around a plug-in (the same copies and checks: the same choices)."""
    board, race, seen, legal = table
    opts = asks.opts1
    pace_rows(legal, opts)
    fill_pace_view(asks.pview, lane, player, n_players, board, race, seen)
    i = users[1:][pid - users[0]](PACE, asks.pview, opts[:n], n, rand)
    if not record(asks.fail, asks.log, player, PACE_PHASE, PACE, n, i):
        return -1
    return opts[i, 0]


@njit
def run_race(table, dice, streams, asks, pace_ids, seats, first_player, log, rules=None,
             options=None, users=None):
    """Play a set-up race to its end; return the number of turns, or -1 when a policy
    failed (the failure in ``asks.fail``).

    ``dice`` ``(faces, nfaces)``; dice come from the DICE row of ``streams``; ``asks``
    (:class:`~sheepsim.games.race.layout.Asks`) the seats' policy streams (all a policy
    gets), the plug-ins' inputs and the decisions log; ``pace_ids`` ``(n_players,)`` per
    seat, or None when every seat plays ``greedy``: numba then prunes the policy dispatch
    by type and plays :func:`~sheepsim.games.race.policies.greedy_option` (filling neither
    ``legal`` nor the race counters: no policy reads them). ``seats``
    (:class:`~sheepsim.games.race.layout.Seats`): turns go clockwise from
    ``first_player``. ``log`` ``(rows, N_LOG)``: one row per turn while rows last.
    ``rules`` (whole games only): for the ``lookahead`` and ``lookahead-exact`` pace
    policies (None: numba compiles neither). ``options`` ``(2,)`` int64, or None (numba
    then compiles none of it): the race's legal options summed over its turns and its
    turns with one legal option (a forced move) are added to it, on the all-``greedy``
    path too (counted from the sheep's values, :func:`~.moves.n_legal`; its log's
    ``LOG_OPTIONS`` then written as well). ``users``: handed to :func:`ask_user_pace`,
    omitted (the built-in kernels, the race machine: numba compiles it as an empty
    argument), or the plug-ins as function values in the kernels rebuilt with
    :func:`ask_user_value` in its place (``kernels.plugged``).
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
    summed = lone = 0  # (options: the legal options summed, the forced moves)
    if pace_ids is not None:
        show_bets(seats, player, seen)
    while n_placed < need and n_running > 0 and not (supply == 0 and stalemate(board)):
        if turn >= MAX_TURNS:
            raise ValueError("race did not end within MAX_TURNS turns")
        total, dice_state = roll_dice(faces, nfaces, dice_state, dice_gamma)
        lane = dice_lane(total)
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        n = 0  # the legal options (counted for the turn log unless every seat is greedy)
        if pace_ids is None:
            option, sheep = _greedy_move(board, lane, supply, track, ez_first, max_cubes)
            if options is not None:
                n = n_legal(sheep, supply, ez_first, max_cubes)
        else:
            _store_counters(race, supply, n_placed, turn, n_running)  # as the policy sees them
            legal_options(board, race, lane, legal)
            option = -1
            for o in range(N_OPTIONS):
                if legal[o]:
                    n += 1
                    option = o
            if n == 0:
                raise ValueError("the selected sheep has no legal option")
            if n > 1:  # a lone option is taken without asking
                pid = pace_ids[player]
                srow = N_PHASES * player + PACE_PHASE
                rand = asks.streams[srow:srow + 1]
                if pid >= FIRST_USER_ID:
                    option = ask_user_pace(pid, player, n_players, lane, table, asks, n, rand,
                                           users)
                else:
                    if rules is not None and pid == LOOKAHEAD_EXACT:
                        option = exact_game.lookahead(lane, board, race, seen, legal, rules)
                    elif rules is not None and pid == LOOKAHEAD:
                        option = lookahead_pace(lane, board, race, seen, legal, rules.payoffs,
                                                rules.bonus, faces, nfaces, n_players, rand)
                    else:
                        option = choose_pace(pid, lane, board, race, seen, legal, rand)
                    # record (a call) only to log (a trace) or on a failure: the check
                    # itself stays inline in the turn loop
                    if option < 0 or option >= N_OPTIONS or not legal[option] \
                            or asks.log.shape[0] > 0:
                        if not record(asks.fail, asks.log, player, PACE_PHASE, PACE, n,
                                      option_row(legal, option)):
                            option = -1
                if option < 0:
                    streams[rng.DICE, 0] = dice_state
                    return -1
            sheep = sheep_values(board, lane)
        if options is not None:
            summed += n
            lone += n == 1
        row, supply = sheep_moved(option, sheep, supply, track, ez_first, n_placed)
        write_sheep(board, lane, row)
        n_placed, n_running = count_moved(row, n_placed, n_running)
        if turn < log.shape[0]:
            log_turn(log[turn], turn, player, total, lane, selection_reason(board, total, lane),
                     option, board, supply, n)
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
def place_bets(bet_ids, kind, start, odds, rules, seats, bet_round, asks, joint, standings=None):
    """One betting round of ``kind`` in turn order from ``start``: fills ``seats.bets``
    and ``seats.rival_open`` and ``bet_round`` (see the records in ``layout``); False
    when a policy failed (in ``asks.fail``). ``joint`` ``(216,)`` the deal's exact
    outcome distribution, read by ``ev`` and ``win`` seats; ``standings`` ``(scores,
    stamp)`` before the race, read by ``win`` seats (whole games)."""
    bets, rival_open = seats.bets, seats.rival_open
    open_lane, taken, pick = bet_round
    opts = asks.opts1 if kind == BET_OPEN else asks.opts2
    n = bet_ids.shape[0]
    for i in range(n):
        p = (start + i) % n
        m = bet_rows(kind, taken, open_lane[p], opts)
        choice = 0
        if m > 1:  # a lone choice is taken without asking
            pid = bet_ids[p]
            row = N_PHASES * p + BET_PHASE
            rand = asks.streams[row:row + 1]
            if pid >= FIRST_USER_ID:
                fill_bet_view(asks.pview, p, n, open_lane[p], bets[p], rival_open[p], odds,
                              rules.payoffs, rules.bonus, taken)
                choice = decide(pid, kind, asks.pview, opts[:m], m, rand)
            else:
                if pid == EV:
                    exact_game.exact_ev_bets(kind, joint, rules.payoffs, rules.bonus, taken,
                                             open_lane[p], pick)
                elif pid == WIN and standings is not None:
                    win_bets(kind, joint, rules.payoffs, rules.bonus, taken, open_lane[p], p,
                             standings, start, pick)
                else:
                    choose_bets(pid, kind, odds, rules.payoffs, rules.bonus, taken,
                                open_lane[p], pick, rand)
                choice = bet_row(kind, opts, m, pick)
            if not record(asks.fail, asks.log, p, BET_PHASE, kind, m, choice):
                return False
        a = opts[choice, 0]
        if kind == BET_OPEN:
            taken[a] = True
            open_lane[p] = a
            bets[p, a] = 1
            for q in range(n):
                if q != p:
                    rival_open[q, a] += 1
        else:
            bets[p, a] = 1
            bets[p, opts[choice, 1]] = 1
    return True


@njit
def bet_on_race(bet_ids, stage, start, rules, seats, scratch, asks, pace_ids, exact,
                standings=None):
    """Clear last race's bets, then the open and hidden rounds (semifinal) or the final's;
    False when a policy failed; ``standings`` ``(scores, stamp)`` for ``win`` seats
    (:func:`place_bets`). If a seat bets ``ev`` or ``win``, the dealt race is first solved
    exactly (once for every seat) under
    :func:`~sheepsim.games.race.exact.game.odds_pace` of ``pace_ids``. ``exact`` None (no
    seat bets ``ev``): numba prunes the solver by type (see :func:`run_game`)."""
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
        return place_bets(bet_ids, BET_FINAL, start, scratch.odds, rules, seats,
                          scratch.bet_round, asks, joint, standings)
    if not place_bets(bet_ids, BET_OPEN, start, scratch.odds, rules, seats, scratch.bet_round,
                      asks, joint, standings):
        return False
    return place_bets(bet_ids, BET_HIDDEN, start, scratch.odds, rules, seats,
                      scratch.bet_round, asks, joint, standings)


@njit
def deal(streams, scratch, n_players):
    """Shuffle the deck and draw the first player (DEAL stream); stack the score tokens
    with the first player's on top, then clockwise below it. Returns the first player."""
    return deal_arrays(streams, scratch.deck, scratch.stamp, n_players)


@njit
def deal_arrays(streams, deck, stamp, n_players):
    """:func:`deal` on plain arrays (the race machine's, too)."""
    for i in range(deck.shape[0]):
        deck[i] = i
    rng.shuffle(streams, rng.DEAL, deck)
    first = rng.randbelow(streams, rng.DEAL, n_players)
    for i in range(n_players):
        stamp[(first + i) % n_players] = n_players - i
    return first


@njit
def run_game(rules, card_odds, bet_ids, pace_ids, streams, asks, scratch, out, exact):
    """Play one whole game; returns ``(winner seat, first player of semifinal 1)``, or
    ``(-1, -1)`` when a policy failed (in ``asks.fail``).

    ``card_odds`` ``(semifinal, final)`` public odds tables ``(n_cards, 6, 3)``;
    ``bet_ids`` ``(n_players,)``; ``pace_ids`` ``(n_players,)`` or None (all ``greedy``,
    see :func:`run_race`); ``asks`` the seats' policy streams, keyed for this game, and
    the plug-ins' inputs (:class:`~sheepsim.games.race.layout.Asks`). Fills ``out`` = ``(scores
    (n_players,), turns (3,) per race, race_cards (3, 3))``: card of 1st-3rd per race
    (final: 1st only, -1 elsewhere). ``exact``: ``rules`` when a seat bets ``ev`` or
    ``win`` or plays ``lookahead`` or ``lookahead-exact``, else None, so that numba
    compiles neither exact solver (about 45 s of a cold compile) nor ``lookahead`` into
    games that cannot call them.
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
        if not bet_on_race(bet_ids, stage, start, rules, seats, scratch, asks, pace_ids, exact,
                           (scores, scratch.stamp)):
            return -1, -1
        setup_race(scratch.table, rules, lane_cards, stage)
        fill_table_view(asks.pview, scratch.odds, rules.payoffs, rules.bonus,
                        scratch.bet_round.taken)
        turns[r] = run_race(scratch.table, stage_dice(rules, stage), streams, asks, pace_ids,
                            seats, start, scratch.log, exact)
        if turns[r] < 0:
            return -1, -1
        placed_lanes(scratch.table.board, places)
        for k in range(3):
            race_cards[r, k] = lane_cards[places[k]] if places[k] >= 0 else -1
        if stage != FINAL:
            assign_final_lanes(r, lane_cards, places, scratch.final_cards)
        counter = score_race(scratch.table.board, seats.bets, rules.payoffs, rules.bonus,
                             stage == FINAL, start, scores, scratch.stamp, counter)
        start = leader(scores, scratch.stamp)
    return start, first

