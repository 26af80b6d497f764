"""The ``lookahead`` pace policy (since 0.4.0): ``lookahead-exact``'s question, asked of
imagined races instead of one exact backward sweep per decision.

``lookahead-exact`` (:func:`sheepsim.games.race.exact.game.lookahead`) values each legal
option by the player's expected points this race if every later turn is played by
``greedy``, solved exactly: early in a race that sweep covers about a million joint
states, about 0.2 CPU s a game. This policy values each option by :data:`ROLLOUTS`
imagined races: after the option the race is played to its end on dice drawn from the
seat's own pace stream (one draw per decision keys them; never the game's dice), every
turn by ``greedy`` except the player's own turns (every ``n_players``-th), where a sheep
it did not bet on is held back (:func:`~sheepsim.games.race.policies.stall`: exhausted
if it can be, else moved as little as possible; :data:`OWN_TURNS`); the player's points
for its own bets are summed (:func:`bet_points`). Every option is played out on the
*same* imagined dice (common random numbers: the imagined play is deterministic, so two
options' races differ only where the option made them differ), and the option with the
highest sum wins (ties to the lowest option number, as ``lookahead-exact``). A lone
legal option is taken without sampling.

What it reads is what its player sees at the table: the board and race counters, its
own bets (``seen[MY_BETS]``), the payoffs and bonus, the stage's dice (the faces, not
the rolls to come) and how many players take turns; not rivals' bets, hidden or open.
:func:`lookahead_pace` is a plain numba function of those arrays, so any engine can
call it.
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.race.layout import (
    EZ_FIRST,
    FINAL,
    MAX_CUBES,
    MY_BETS,
    N_LANES,
    N_OPTIONS,
    N_PLACED,
    N_RUNNING,
    PLACE,
    RUNNING,
    STAGE,
    STATUS,
    SUPPLY_BLUE,
    TRACK,
)
from sheepsim.games.race.moves import (
    MAX_TURNS,
    _greedy_move,
    apply_option,
    count_moved,
    dice_lane,
    lazy_sheep,
    legal_options,
    place_remaining,
    roll_dice,
    sheep_moved,
    sheep_values,
    stalemate,
    write_sheep,
)
from sheepsim.games.race.policies import stall
from sheepsim.jit import njit

#: imagined races per legal option and decision (each option on the same dice)
ROLLOUTS = 384
#: the player's own turns in the imagined races hold back the sheep it did not bet on
OWN_TURNS = True
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit
def bet_points(board, mine, payoffs, bonus, final):
    """The points of a player holding bets ``mine`` ``(6,)`` (1 = bet) on a race whose
    places are on ``board``: 1st-3rd payoffs and the bonus for two or three placed
    (semifinal), the winner's final payoff (final)."""
    points = 0.0
    hits = 0
    for lane in range(N_LANES):
        p = board[lane, PLACE]
        if mine[lane] == 0 or p == 0:
            continue
        if final:
            if p == 1:
                points += payoffs[3, lane]
        elif p <= 3:
            points += payoffs[p - 1, lane]
            hits += 1
    if hits == 2:
        points += bonus[0]
    elif hits == 3:
        points += bonus[1]
    return points


@njit
def greedy_finish(board, race, faces, nfaces, state, gamma, mine, n_players, legal):
    """Play the race on ``board``/``race`` (modified) to its end, dice from the stream
    ``(state, gamma)``, and place the sheep as the engine does. Every turn is ``greedy``'s
    but the player's own (every ``n_players``-th, the first ``n_players - 1`` turns from
    now, if :data:`OWN_TURNS`): there a sheep without the player's bet (``mine``) is held
    back (:func:`~sheepsim.games.race.policies.stall`). ``legal`` ``(9,)`` scratch."""
    need = 1 if race[STAGE] == FINAL else 3
    track, ez_first, max_cubes = race[TRACK], race[EZ_FIRST], race[MAX_CUBES]
    supply, n_placed, n_running = race[SUPPLY_BLUE], race[N_PLACED], race[N_RUNNING]
    turns = 0
    while n_placed < need and n_running > 0 and not (supply == 0 and stalemate(board)):
        turns += 1
        if turns > MAX_TURNS:
            raise ValueError("race did not end within MAX_TURNS turns")
        total, state = roll_dice(faces, nfaces, state, gamma)
        lane = dice_lane(total)
        if lane < 0 or board[lane, STATUS] != RUNNING:
            lane = lazy_sheep(board)
        if OWN_TURNS and turns % n_players == 0 and mine[lane] == 0:
            race[SUPPLY_BLUE] = supply
            legal_options(board, race, lane, legal)
            option = stall(lane, board, race, legal)
            sheep = sheep_values(board, lane)
        else:
            option, sheep = _greedy_move(board, lane, supply, track, ez_first, max_cubes)
        row, supply = sheep_moved(option, sheep, supply, track, ez_first, n_placed)
        write_sheep(board, lane, row)
        n_placed, n_running = count_moved(row, n_placed, n_running)
    race[SUPPLY_BLUE], race[N_PLACED], race[N_RUNNING] = supply, n_placed, n_running
    place_remaining(board, race)


@njit
def option_sums(lane, board, race, mine, payoffs, bonus, faces, nfaces, legal, key, rollouts,
                n_players):
    """``(N_OPTIONS,)`` the player's points summed over ``rollouts`` imagined races after
    each legal option (0 where illegal); race ``j`` of every option plays on the dice
    stream keyed by ``key`` and ``j``."""
    final = race[STAGE] == FINAL
    sums = np.zeros(N_OPTIONS)
    after_b = np.empty((N_OPTIONS, board.shape[0], board.shape[1]), board.dtype)
    after_r = np.empty((N_OPTIONS, race.shape[0]), race.dtype)
    over = np.zeros(N_OPTIONS, np.bool_)
    for o in range(N_OPTIONS):
        if not legal[o]:
            continue
        after_b[o] = board
        after_r[o] = race
        apply_option(after_b[o], after_r[o], lane, o)
        need = 1 if final else 3
        if after_r[o, N_PLACED] >= need or after_r[o, N_RUNNING] == 0 or \
                (after_r[o, SUPPLY_BLUE] == 0 and stalemate(after_b[o])):
            over[o] = True  # the option ends the race: its points are certain
            b, r = after_b[o].copy(), after_r[o].copy()
            place_remaining(b, r)
            sums[o] = rollouts * bet_points(b, mine, payoffs, bonus, final)
    gamma = rng.mix64(key ^ _GOLDEN) | np.uint64(1)
    b = np.empty_like(board)
    r = np.empty_like(race)
    scratch = np.zeros(N_OPTIONS, np.bool_)
    for j in range(rollouts):
        start = rng.mix64(key + np.uint64(j + 1) * _GOLDEN)
        for o in range(N_OPTIONS):
            if not legal[o] or over[o]:
                continue
            b[:] = after_b[o]
            r[:] = after_r[o]
            greedy_finish(b, r, faces, nfaces, start, gamma, mine, n_players, scratch)
            sums[o] += bet_points(b, mine, payoffs, bonus, final)
    return sums


@njit
def lookahead_pace(lane, board, race, seen, legal, payoffs, bonus, faces, nfaces, n_players,
                   rand):
    """The ``lookahead`` pace policy (module docstring): the legal option for ``lane``
    with the most points for the player's own bets ``seen[MY_BETS]`` over
    :data:`ROLLOUTS` imagined ``greedy`` races per option on common dice; ``payoffs``
    ``(4, 6)`` and ``bonus`` ``(2,)`` the rules', ``faces``/``nfaces`` the stage's dice,
    ``rand`` the seat's pace stream (one draw per decision with two or more options)."""
    only = -1
    n = 0
    for o in range(N_OPTIONS):
        if legal[o]:
            only = o
            n += 1
    if n <= 1:
        return only
    key = rng.next_u64(rand, 0)
    sums = option_sums(lane, board, race, seen[MY_BETS], payoffs, bonus, faces, nfaces, legal,
                       key, ROLLOUTS, n_players)
    best = -1
    for o in range(N_OPTIONS):
        if legal[o] and (best < 0 or sums[o] > sums[best]):
            best = o
    return best

