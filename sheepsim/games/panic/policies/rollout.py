"""The ``rollout`` and ``rollout-v1`` policies' turn (kernels): random playouts of every
menu choice (``rollout``: one round, then greedy's valuation; ``rollout-v1``: to the end).

Compiled only into kernels of line-ups with a rollout seat (the machine's ``own``
prunes it by the type of ``playouts``; see :func:`..machine.stretch`).
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.panic.geometry.flockops import legal_actions
from sheepsim.games.panic.layout import (
    CTX_COUNT_ON,
    CTX_DICE_PURPOSE,
    CTX_LOG_ON,
    CTX_ROLLOUT_PLAYOUTS,
    K_ACTION,
    R_N_PLAYERS,
    ST_COUNTER,
    ST_ENDED,
    ST_LEN,
    ST_SCORE,
)
from sheepsim.games.panic.policies.decide import (
    GREEDY,
    POSITION_WEIGHT,
    RANDOM,
    ROLLOUT_V1,
    argmax_random_ties,
    checked,
    count_decision,
    positional,
)
from sheepsim.games.panic.scratch import copy_state
from sheepsim.games.panic.track import own_sheep
from sheepsim.games.panic.turns import after_turn, execute_turn, log_refusals, play_turn
from sheepsim.jit import kernel


@kernel
def margin(st, R, seat):
    """Own points minus the best opponent's."""
    best = -(1 << 40)
    for s in range(R[R_N_PLAYERS]):
        if s != seat:
            best = max(best, st[ST_SCORE + s])
    return st[ST_SCORE + seat] - best




@kernel
def value_margin(st, R, seat, w):
    """Own points plus ``POSITION_WEIGHT`` times the positional score for the counter's
    field (greedy's valuation, :func:`.decide.positional`), minus the best opponent's."""
    space = st[ST_COUNTER]
    best = -1e300
    own = 0.0
    for s in range(R[R_N_PLAYERS]):
        v = st[ST_SCORE + s] + POSITION_WEIGHT * positional(st, R, s, space, w.shear)
        if s == seat:
            own = v
        elif v > best:
            best = v
    return own - best


@kernel
def rollout_choose(st, R, seat, pid, opts, n, w):
    """The menu choice among ``opts[:n]`` of a rollout seat whose policy is ``pid``
    (``ROLLOUT`` or ``ROLLOUT_V1``; see :mod:`.policies`): for each option,
    ``ctx[CTX_ROLLOUT_PLAYOUTS]`` playouts (the option with greedy sub-decisions, then
    every seat random, every die and choice from the POLICY row: the rollout seat's own
    stream during its turn). ``rollout``'s stop when the seat is next to move and score
    :func:`value_margin`, ``rollout-v1``'s run to the end; a playout that ends the game
    scores :func:`margin`. The best mean wins (``w.values[:n]``: the means)."""
    ctx = w.ctx
    playouts = ctx[CTX_ROLLOUT_PLAYOUTS]
    purpose_was = ctx[CTX_DICE_PURPOSE]
    log_was = ctx[CTX_LOG_ON]
    count_was = ctx[CTX_COUNT_ON]
    ctx[CTX_DICE_PURPOSE] = rng.POLICY  # imagined dice: never the real future
    ctx[CTX_LOG_ON] = 0
    ctx[CTX_COUNT_ON] = 0  # the playouts' decisions are not the game's
    vals = w.values
    sim = w.play
    greedy = np.int64(GREEDY)
    random = np.int64(RANDOM)
    # rollout: a playout stops when the seat is next to move (every other seat has played
    # its turn), valued by value_margin unless the game ended; rollout-v1: at the end
    to_end = pid == ROLLOUT_V1
    for i in range(n):
        total = 0.0
        for _ in range(playouts):
            copy_state(sim, st, ST_LEN)
            execute_turn(sim, R, seat, greedy, opts[i, 0], opts[i, 1], opts[i, 2], w)
            s = after_turn(sim, R, seat, np.bool_(True), w)
            while sim[ST_ENDED] == 0 and (to_end or s != seat):
                acted = play_turn(sim, R, s, random, w.play_opts, w)
                s = after_turn(sim, R, s, acted, w)
            if sim[ST_ENDED] != 0:
                total += margin(sim, R, seat)
            else:
                total += value_margin(sim, R, seat, w)
        vals[i] = total / max(playouts, 1)
    ctx[CTX_DICE_PURPOSE] = purpose_was
    ctx[CTX_LOG_ON] = log_was
    ctx[CTX_COUNT_ON] = count_was
    return argmax_random_ties(vals, n, w.streams)


@kernel
def rollout_turn(st, R, seat, pid, w):
    """The turn of a rollout seat (``pid`` ``ROLLOUT`` or ``ROLLOUT_V1``; sub-decisions
    are greedy's); False if it skips (no sheep) or passes."""
    if own_sheep(st, R, seat) == 0:
        return False
    log_refusals(st, R, seat, w)
    opts = w.opts
    n = legal_actions(st, R, seat, opts)
    if n == 0:
        return False
    count_decision(w.ctx, np.int64(K_ACTION), n)
    i = np.int64(0)  # a lone option: taken without playouts, as without asking
    if n > 1:
        i = checked(rollout_choose(st, R, seat, pid, opts, n, w), n, seat, np.int64(K_ACTION), w)
        if i < 0:
            return False
    execute_turn(st, R, seat, pid, opts[i, 0], opts[i, 1], opts[i, 2], w)
    return True
