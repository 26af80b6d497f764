"""The race machine's plug-in seats: a race cut before each plug-in seat's pace decision.

The harness binds these slots in place of the race machine's
(:mod:`sheepsim.games.race.machine`, which names this module in ``PLUGGED_SLOTS``) for a
line-up with a plug-in pace or bet policy; built-in line-ups never compile them. The
bets are asked by the harness as in every line-up; a plug-in bet policy is shown the
engine's bet view (:func:`~sheepsim.games.race.policies.fill_bet_view`). Each race is
played by :func:`own` with the engine's turn loop (:func:`race_turns`, the loop of
:func:`sheepsim.games.race.engine.run_race` that stops before a plug-in's pace
decision), so a race is one or more stretches: ``own`` plays the turns up to a plug-in
seat's turn whose selected sheep has two or more legal options (a lone option is taken
without asking, as in the engine), with the dice of that turn rolled and its sheep
selected; ``to_move`` then offers that seat the legal paces (rows ``[option]``), the
harness asks the plug-in with the engine's pace view
(:func:`~sheepsim.games.race.policies.fill_pace_view`: float64, the ``V_*`` layout of
:mod:`sheepsim.games.race.layout`), ``apply`` moves the sheep, and ``own`` goes on with
the next player. So the plug-in sees what the engine shows it and draws from its own
pace stream, and every die, move and payout is the engine's (``tests/race/
test_race_plugins.py``: the engine's games, game for game).

The state: two entries after the machine's (:func:`cut_at`, from ``state_size``): whether the
race is set up (``C_RUN``) and the selected sheep's lane + 1 while a plug-in's pace
decision waits (``C_LANE``, 0 otherwise); during a race ``st[I]`` counts the race's
turns (mod the players), so ``(st[START] + st[I]) % players`` is the seat to play.
"""

from sheepsim import rng
from sheepsim.games.race import machine as M
from sheepsim.games.race.engine import (
    _store_counters,
    assign_final_lanes,
    builtin_pace,
    count_legal,
    lazy_sheep,
    leader,
    legal_options,
    move_sheep,
    moved_counts,
    pace_stream,
    place_remaining,
    placed_lanes,
    places_needed,
    race_counters,
    roll_lane,
    score_race,
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
    FINAL,
    N_LANES,
    N_OPTIONS,
    N_PHASES,
    PACE,
    PACE_PHASE,
    RUNNING,
    SEMIFINAL,
    STATUS,
    TRACK,
    TURN,
    Seats,
    Table,
)
from sheepsim.games.race.policies import (
    FIRST_USER_ID,
    fill_bet_view,
    fill_pace_view,
    fill_table_view,
    pace_rows,
)
from sheepsim.harness.layout import P_ASKED, P_KINDS
from sheepsim.jit import njit

#: the cut's entries in the state, after the machine's (``machine.state_size``)
C_RUN, C_LANE = range(2)


@njit(inline="always")
def cut_at(st):
    """Where the cut's entries start in ``st`` (after the machine's result rows)."""
    return M.result_at(st) + M.RESULT_LEN - 1


@njit
def race_turns(table, dice, streams, asks, pace_ids, seats, first_player, rules, options):
    """The engine's turn loop (:func:`sheepsim.games.race.engine.run_race` with every
    seat's pace id in ``pace_ids``, ``rules`` for the ``lookahead`` pace policies or
    None) from the race's state in ``table`` (its counters in ``race``, the dice in the
    DICE row of ``streams``), ``first_player`` to play, until the race ends or a plug-in
    seat (an id from ``FIRST_USER_ID``) is to choose among two or more legal options:
    then that turn's dice are rolled, its sheep selected and its legal options in
    ``legal``, and the turn is left to the harness. Returns ``(turns played, the
    selected lane of the cut turn or -1 at the race's end)``; ``options`` ``(2,)`` gets
    the played turns' legal options summed and their forced moves. A turn is played with
    the engine's steps, as ``run_race`` plays it (:func:`~.engine.roll_lane`,
    :func:`~.engine.count_legal`, :func:`~.engine.builtin_pace`, :func:`~.moves.moved_counts`)."""
    board, race, seen, legal = table
    n_players = seats.bets.shape[0]
    need = places_needed(race)
    track, ez_first = race[TRACK], race[EZ_FIRST]
    supply, n_placed, turn, n_running = race_counters(race)
    first_turn = turn
    dice_state, dice_gamma = streams[rng.DICE, 0], streams[rng.DICE, 1]
    player = first_player
    summed = lone = 0
    show_bets(seats, player, seen)
    cut = -1
    while n_placed < need and n_running > 0 and not (supply == 0 and stalemate(board)):
        turn_allowed(turn)
        total, lane, dice_state = roll_lane(dice[0], dice[1], dice_state, dice_gamma)
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        _store_counters(race, supply, n_placed, turn, n_running)  # as the policy sees them
        legal_options(board, race, lane, legal)
        n, option = count_legal(legal)
        if n > 1:  # a lone option is taken without asking
            pid = pace_ids[player]
            if pid >= FIRST_USER_ID:  # a plug-in's: the harness asks it
                cut = lane
                break
            option = builtin_pace(pid, lane, table, rules, dice, n_players,
                                  pace_stream(asks, player))
            if option < 0 or option >= N_OPTIONS or not legal[option]:
                raise ValueError("a built-in pace policy chose an illegal option")
        summed += n
        lone += n == 1
        row, supply, n_placed, n_running = moved_counts(option, sheep_values(board, lane),
                                                        supply, track, ez_first, n_placed,
                                                        n_running)
        write_sheep(board, lane, row)
        turn += 1
        player = player + 1 if player + 1 < n_players else 0
        show_bets(seats, player, seen)
    streams[rng.DICE, 0] = dice_state
    options[0] += summed
    options[1] += lone
    _store_counters(race, supply, n_placed, turn, n_running)
    if cut < 0:
        place_remaining(board, race)
    return turn - first_turn, cut


@njit
def own(st, R, seat, streams, scratch, report, played):
    """The race of ``st`` (set up at its first call) played from the seat to play
    (``(st[START] + st[I]) % players``) to its end, scored and the next race begun, or
    to the turn of a plug-in seat's pace decision (the race then waits in ``C_LANE``):
    one stretch, reported as the machine's ``own`` reports a race (its turns and last
    player in ``scratch``, :func:`sheepsim.games.race.machine.own_turns`)."""
    kr, board, race, seen, legal = R[M.X_RULES], R[M.X_BOARD], R[M.X_RACE], R[M.X_SEEN], \
        R[M.X_LEGAL]
    bets, rival, asks, stamp = R[M.X_BETS], R[M.X_RIVAL], R[M.X_ASKS], R[M.X_STAMP]
    lane_cards, places, deck, finalc = R[M.X_LANES], R[M.X_PLACES], R[M.X_DECK], R[M.X_FINALC]
    co_semi, co_final, odds, w = R[M.X_CO_SEMI], R[M.X_CO_FINAL], R[M.X_ODDS], R[M.X_W]
    exact = M.rules_of(R[M.X_EXACT])
    n = st[M.N]
    at = cut_at(st)
    r = st[M.RIDX]
    stage = FINAL if r == 2 else SEMIFINAL
    table = Table(board, race, seen, legal)
    if st[at + C_RUN] == 0:
        setup_race(table, kr, lane_cards, stage)
        st[at + C_RUN] = 1
        st[M.I] = 0
    first = (st[M.START] + st[M.I]) % n
    for s in range(n):  # the built-in seats' pace streams, as the machine's play_race
        asks.streams[N_PHASES * s + PACE_PHASE, 0] = streams[M.CHANCE_STREAMS + s, 0]
        asks.streams[N_PHASES * s + PACE_PHASE, 1] = streams[M.CHANCE_STREAMS + s, 1]
    scratch[M.S_OPTIONS] = 0
    scratch[M.S_FORCED] = 0
    turns, lane = race_turns(table, stage_dice(kr, stage), streams, asks,
                             st[M.SC + n:M.SC + 2 * n], Seats(bets, rival), first, exact,
                             scratch[M.S_OPTIONS:M.S_FORCED + 1])
    for s in range(n):
        streams[M.CHANCE_STREAMS + s, 0] = asks.streams[N_PHASES * s + PACE_PHASE, 0]
    forced = scratch[M.S_FORCED]
    report[P_KINDS + PACE] += turns
    report[P_KINDS + M.N_KINDS + PACE] += scratch[M.S_OPTIONS]
    report[P_KINDS + 2 * M.N_KINDS + PACE] += forced
    report[P_ASKED] += turns - forced
    scratch[M.S_TURNS] = turns
    scratch[M.S_LAST] = (first + turns - 1) % n
    played[0, 0] = first
    played[0, 1] = turns
    if lane >= 0:  # a plug-in's pace decision is next (to_move)
        st[M.I] = (st[M.I] + turns) % n
        st[at + C_LANE] = lane + 1
    else:  # the race is over: scored as the machine's play_race scores it
        st[at + C_RUN] = 0
        placed_lanes(board, places)
        M.keep_result(st, r, race[TURN], lane_cards, places)  # (race[TURN]: all its turns)
        if stage != FINAL:
            assign_final_lanes(r, lane_cards, places, finalc)
        scores = st[M.SC:M.SC + n]
        st[M.COUNTER] = score_race(board, bets, kr.payoffs, kr.bonus, stage == FINAL,
                                   st[M.START], scores, stamp, st[M.COUNTER])
        st[M.START] = leader(scores, stamp)
        st[M.RIDX] = r + 1
        if r == 2:
            st[M.WIN] = st[M.START]
            st[M.PHASE] = M.P_DONE
        else:
            M.begin_race(st, lane_cards, deck, finalc, co_semi, co_final, odds, w)
    for s in range(n):  # every seat's score after the stretch
        played[0, 2 + s] = st[M.SC + s]
    return 1


@njit(inline="always")
def to_move(st, R, opts):
    """The machine's ``to_move``, and a waiting plug-in's pace decision: its seat, kind
    ``PACE`` and the legal paces as rows ``[option]`` (increasing)."""
    if st[M.PHASE] == M.P_RACE and st[cut_at(st) + C_LANE] > 0:
        return (st[M.START] + st[M.I]) % st[M.N], PACE, pace_rows(R[M.X_LEGAL], opts)
    return M.to_move(st, R, opts)


@njit
def pace_move(st, board, race, seen, bets, rival, option):
    """The waiting turn's sheep moved with ``option`` (legal: the harness checked the
    choice), the race's counters advanced and the next player's bets shown."""
    n = st[M.N]
    at = cut_at(st)
    lane = st[at + C_LANE] - 1
    supply, n_placed, turn, n_running = race_counters(race)
    supply, n_placed, n_running = move_sheep(board, lane, option, supply, race[TRACK],
                                             race[EZ_FIRST], n_placed, n_running)
    _store_counters(race, supply, n_placed, turn + 1, n_running)
    st[at + C_LANE] = 0
    st[M.I] = (st[M.I] + 1) % n
    show_bets(Seats(bets, rival), (st[M.START] + st[M.I]) % n, seen)


@njit(inline="always")
def apply(st, R, seat, kind, opts, choice, chance):
    # (R's arrays taken here, the calls get arrays: a call given R, or R held across a
    # call, counts a reference to each of its arrays, ``machine``'s notes)
    if kind == PACE:
        board, race, seen, bets, rival = R[M.X_BOARD], R[M.X_RACE], R[M.X_SEEN], \
            R[M.X_BETS], R[M.X_RIVAL]
        pace_move(st, board, race, seen, bets, rival, opts[choice, 0])
    else:
        M.apply(st, R, seat, kind, opts, choice, chance)


@njit
def plugin_view(st, w, odds, pay, bon, board, race, seen, bets, rival, seat, out):
    """What the engine shows a plug-in (``out`` ``(N_VIEW,)`` float64): in a race the
    pace view of the waiting turn (``fill_pace_view`` over the race's odds, payoffs,
    bonus and open bets, ``fill_table_view``), else the bet view of ``seat``; the
    arrays are ``R``'s (``machine.make_R``)."""
    n = st[M.N]
    taken = w[M.W_TAKEN:M.W_TAKEN + N_LANES]
    if st[M.PHASE] == M.P_RACE:
        fill_table_view(out, odds, pay, bon, taken)
        fill_pace_view(out, st[cut_at(st) + C_LANE] - 1, seat, n, board, race, seen)
    else:
        fill_bet_view(out, seat, n, w[M.W_OPEN + seat], bets[seat], rival[seat], odds, pay,
                      bon, taken)


@njit(inline="always")
def view(st, R, seat, out):
    w, odds, pay, bon = R[M.X_W], R[M.X_ODDS], R[M.X_PAY], R[M.X_BON]
    board, race, seen, bets, rival = R[M.X_BOARD], R[M.X_RACE], R[M.X_SEEN], R[M.X_BETS], \
        R[M.X_RIVAL]
    plugin_view(st, w, odds, pay, bon, board, race, seen, bets, rival, seat, out)


@njit(inline="always")
def needs_view(pid, kind):
    return pid >= FIRST_USER_ID  # (the built-in bets read R's tables: decide_rules)


#: the slots of a line-up with plug-ins
SLOTS = {"to_move": to_move, "apply": apply, "own": own, "view": view,
         "needs_view": needs_view}


def plugged_slots(builtins):
    """The slots that replace the machine's in a line-up with plug-ins (the harness
    finds this function through :data:`.machine.PLUGGED_SLOTS`), whatever built-ins it
    seats: the race cut before each plug-in seat's pace decision, the plug-ins shown
    the engine's views. (Every seat's pace goes through the pace dispatch, ``greedy``
    too, as in the engine's games with a plug-in.)"""
    return dict(SLOTS)
