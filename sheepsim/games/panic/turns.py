"""One Shear Panic turn as kernels: the panic die, the opening, steps A-E, passing.

Turn (rulebook steps A-E): choose a menu tile, apply it, regroup, move the counter,
score (gates, pens, every-space fields), panic. Players without sheep skip; a player
with sheep but no legal choice passes; when every player passes in a row the menus have
run out and the final shearing happens.

Every kernel takes the state ``st``, the rules ``R`` and the scratch record ``w``
(:mod:`.scratch`); ``pid`` is the deciding seat's policy id, or None when every seat
plays random (see :func:`.policies.decide.decide_sub`).
"""

import numpy as np

from sheepsim.games.panic.geometry.flockops import (
    apply_action,
    count_colour,
    legal_actions,
    push_from,
    refused_tiles,
    reverse_dir,
)
from sheepsim.games.panic.geometry.groups import side_contacts
from sheepsim.games.panic.geometry.regroup import ROLL, regroup
from sheepsim.games.panic.layout import (
    CTX_LAST_COUNTER,
    CTX_LAST_GAIN,
    CTX_LAST_TILE,
    CTX_LOG_ON,
    END_MENUS,
    END_PEN,
    EV_ACTION,
    EV_END,
    EV_NO_REVERSE,
    EV_PANIC_DIE,
    EV_PANIC_PUSH,
    EV_PANIC_TURN,
    EV_PASS,
    EV_SCORE,
    EV_SHEAR,
    EWE_TURN,
    K_ACTION,
    K_PANIC_PUSH,
    K_PANIC_TURN,
    MAX_TILES,
    N_COLOURS,
    N_SHEEP,
    R_N_PANIC_FACES,
    R_N_PLAYERS,
    R_PANIC,
    R_PANIC_FACES,
    R_TILE_KIND,
    R_TILE_TIME,
    R_TRACK_LEN,
    ST_ALIVE,
    ST_COLOUR,
    ST_COUNTER,
    ST_END_REASON,
    ST_ENDED,
    ST_LAST_ACTOR,
    ST_PANICS,
    ST_PASSES,
    ST_PREV_DIE,
    ST_PREV_DIR,
    ST_PREV_KIND,
    ST_PREV_TARGET,
    ST_REGROUP_ROLLS,
    ST_SCORE,
    ST_TURNS,
    ST_USED,
    TURN_LEFT,
    TURN_RIGHT,
    WHITE_FACE,
)
from sheepsim.games.panic.policies.decide import (
    RANDOM,
    checked,
    count_decision,
    decide_sub,
)
from sheepsim.games.panic.policies.greedy import decide_action
from sheepsim.games.panic.policies.menucount import random_option
from sheepsim.games.panic.scratch import ZERO, log_event, roll_die
from sheepsim.games.panic.track import advance_and_score, final_event, own_sheep
from sheepsim.jit import kernel

# Rerolls of the panic die for colours with no sheep left; only a variant die without a
# white face and with every colour gone could exhaust this (the panic is then skipped).
MAX_PANIC_ROLLS = 64


@kernel
def add_rolls(st, rolls):
    if rolls > 0:
        st[ST_REGROUP_ROLLS] += rolls
        st[ST_PREV_DIE] = 1


@kernel
def panic_push(st, R, seat, pid, w):
    """Roll the panic die (reroll colours with no sheep left): a Lamb Push by a sheep of
    that colour (the active player picks sheep and direction, then regroups) or, on
    white, an Ewe Turn left or right."""
    st[ST_PREV_DIE] = 1
    opts = w.groups
    for _ in range(MAX_PANIC_ROLLS):
        face = roll_die(R, np.int64(R_N_PANIC_FACES), np.int64(R_PANIC_FACES), w)
        log_event(st, w, np.int64(EV_PANIC_DIE), face, np.int64(seat), ZERO, ZERO)
        if face == WHITE_FACE:
            opts[0, 0] = TURN_RIGHT
            opts[1, 0] = TURN_LEFT
            i = decide_sub(pid, np.int64(K_PANIC_TURN), st, R, seat, opts, np.int64(2), w)
            if i < 0:  # a choice that broke the contract: the game stops (decide.checked)
                return
            apply_action(st, np.int64(EWE_TURN), ZERO, opts[i, 0])
            log_event(st, w, np.int64(EV_PANIC_TURN), opts[i, 0], np.int64(seat), ZERO, ZERO)
            return
        if face < N_COLOURS and count_colour(st, face) > 0:
            n = ZERO
            for s in range(N_SHEEP):
                if st[ST_ALIVE + s] and st[ST_COLOUR + s] == face:
                    for d in range(8):
                        opts[n, 0] = s
                        opts[n, 1] = d
                        opts[n, 2] = 0
                        opts[n, 3] = 0
                        n += 1
            i = decide_sub(pid, np.int64(K_PANIC_PUSH), st, R, seat, opts, n, w)
            if i < 0:
                return
            s = opts[i, 0]
            d = opts[i, 1]
            push_from(st, s, d)
            log_event(st, w, np.int64(EV_PANIC_PUSH), s, d, np.int64(seat), ZERO)
            add_rolls(st, regroup(st, R, seat, pid, w, ROLL, side_contacts(st)))
            return


@kernel(inline="always")  # callers: play_turn, rollout (no library of its own to compile)
def execute_turn(st, R, seat, pid, tile, a, b, w):
    """Steps A-E of a turn for the chosen ``tile`` with parameters ``a``, ``b``."""
    ctx = w.ctx
    kind = R[R_TILE_KIND + tile]
    before = st[ST_SCORE + seat]
    ctx[CTX_LAST_TILE] = tile
    ctx[CTX_LAST_COUNTER] = st[ST_COUNTER]
    st[ST_USED + seat * MAX_TILES + tile] = 1
    st[ST_PREV_KIND] = kind
    st[ST_PREV_TARGET] = a
    st[ST_PREV_DIR] = b
    st[ST_PREV_DIE] = 0
    apply_action(st, kind, a, b)  # A
    log_event(st, w, np.int64(EV_ACTION), tile, a, b, np.int64(seat))
    add_rolls(st, regroup(st, R, seat, pid, w, ROLL, side_contacts(st)))  # B
    removed = advance_and_score(st, R, seat, R[R_TILE_TIME + tile])  # C, D
    log_event(st, w, np.int64(EV_SCORE), np.int64(seat), st[ST_SCORE + seat] - before, ZERO,
              ZERO)
    if removed:
        # Shearing scores first; the flock is regrouped afterwards.
        log_event(st, w, np.int64(EV_SHEAR), removed, ZERO, ZERO, ZERO)
        add_rolls(st, regroup(st, R, seat, pid, w, ROLL, side_contacts(st)))
    if st[ST_COUNTER] >= R[R_TRACK_LEN]:
        st[ST_ENDED] = 1
        st[ST_END_REASON] = END_PEN
        log_event(st, w, np.int64(EV_END), np.int64(END_PEN), ZERO, ZERO, ZERO)
    elif R[R_PANIC + st[ST_COUNTER]]:  # E
        st[ST_PANICS] += 1
        panic_push(st, R, seat, pid, w)
    st[ST_TURNS] += 1
    st[ST_LAST_ACTOR] = seat
    ctx[CTX_LAST_GAIN] = st[ST_SCORE + seat] - before


@kernel
def log_refusals(st, R, seat, w):
    """Trace only: which of ``seat``'s tiles refuse the reverse of the previous action."""
    if w.ctx[CTX_LOG_ON] == 0:
        return
    tiles = refused_tiles(st, R, seat)
    if tiles:
        log_event(st, w, np.int64(EV_NO_REVERSE), tiles, st[ST_PREV_KIND], st[ST_PREV_TARGET],
                  reverse_dir(st))


@kernel
def play_turn(st, R, seat, pid, opts, w):
    """One turn for a non-rollout policy, listing the options in ``opts``; False if the
    seat skips (no sheep) or passes (no legal choice)."""
    if own_sheep(st, R, seat) == 0:
        return False
    log_refusals(st, R, seat, w)
    # A random seat draws among the options without listing them all (menucount); a
    # random-only line-up (pid None) compiles nothing else. Its draw is a legal index by
    # construction: checked only to log it in a trace. A lone option is taken without
    # asking any policy (nothing drawn, nothing logged), as in every sub-decision.
    if pid is None:
        i, k, n = random_option(st, R, seat, opts, w.streams)
        if n == 0:
            return False
        count_decision(w.ctx, np.int64(K_ACTION), n)
        if n > 1:
            checked(k, n, seat, np.int64(K_ACTION), w)
    elif pid == RANDOM:
        i, k, n = random_option(st, R, seat, opts, w.streams)
        if n == 0:
            return False
        count_decision(w.ctx, np.int64(K_ACTION), n)
        if n > 1:
            checked(k, n, seat, np.int64(K_ACTION), w)
    else:
        n = legal_actions(st, R, seat, opts)
        if n == 0:
            return False
        count_decision(w.ctx, np.int64(K_ACTION), n)
        i = ZERO
        if n > 1:
            i = decide_action(pid, st, R, seat, opts, n, w)  # checked: -1 stops the game
    if i < 0:
        return False
    execute_turn(st, R, seat, pid, opts[i, 0], opts[i, 1], opts[i, 2], w)
    return True


@kernel
def after_turn(st, R, seat, acted, w):
    """Count passes (menus run out when every seat passes in a row); next seat."""
    n_players = R[R_N_PLAYERS]
    if acted:
        st[ST_PASSES] = 0
    else:
        st[ST_PASSES] += 1
        log_event(st, w, np.int64(EV_PASS), np.int64(seat), ZERO, ZERO, ZERO)
    if st[ST_ENDED] == 0 and st[ST_PASSES] >= n_players:
        final_event(st, R)
        st[ST_ENDED] = 1
        st[ST_END_REASON] = END_MENUS
        log_event(st, w, np.int64(EV_END), np.int64(END_MENUS), ZERO, ZERO, ZERO)
    return (seat + 1) % n_players
