"""Regrouping the flock, dice rolls and the trace log (kernels)."""

import numpy as np

from sheepsim import rng
from sheepsim.games.panic.flockops import alive_mask
from sheepsim.games.panic.groups import (
    link_group,
    main_of,
    move_group,
    routes_to,
    slides_with,
    smallest_of,
)
from sheepsim.games.panic.layout import (
    CTX_DICE_PURPOSE,
    CTX_FACE_LEN,
    CTX_FACE_POS,
    CTX_FACES,
    CTX_LOG_N,
    CTX_LOG_ON,
    EV_GROUP,
    EV_REGROUP_DIE,
    EV_ROUTE,
    K_GROUP,
    K_ROUTE,
    LOG_HEAD,
    MAX_LOG,
    MAX_PLAYERS,
    N_SHEEP,
    R_N_REGROUP_FACES,
    R_PLUS_FALLBACK,
    R_REGROUP_FACES,
    R_SLIDE_WITHOUT_ROLL,
    ST_COUNTER,
    ST_FACING,
    ST_ROW,
    ST_SCORE,
)
from sheepsim.games.panic.policies.decide import decide_sub
from sheepsim.games.panic.scratch import ZERO, kernel

# More rounds than sheep can ever need: each round merges the smallest group into
# another one or moves it strictly closer; the cap only guards against a bad variant.
MAX_REGROUP_ROUNDS = 64
#: ``forced_face`` of :func:`regroup` for a real regrouping (roll the die; an
#: ``np.int64``, see :data:`.scratch.ZERO`).
ROLL = np.int64(-1)


@kernel
def log_event(st, w, ev, a, b, c, d):
    """Append a trace row (event, 4 parameters, the flock, the counter) when logging.
    Callers pass ``np.int64`` event codes and zeros (see :data:`ROLL`)."""
    ctx = w.ctx
    if ctx[CTX_LOG_ON] == 0:
        return
    i = ctx[CTX_LOG_N]
    if i >= MAX_LOG:
        return
    log = w.log
    log[i, 0] = ev
    log[i, 1] = a
    log[i, 2] = b
    log[i, 3] = c
    log[i, 4] = d
    for k in range(3 * N_SHEEP):
        log[i, LOG_HEAD + k] = st[ST_ROW + k]
    log[i, LOG_HEAD + 3 * N_SHEEP] = st[ST_FACING]
    log[i, LOG_HEAD + 3 * N_SHEEP + 1] = st[ST_COUNTER]
    for k in range(MAX_PLAYERS):
        log[i, LOG_HEAD + 3 * N_SHEEP + 2 + k] = st[ST_SCORE + k]
    ctx[CTX_LOG_N] = i + 1


@kernel
def roll_die(R, n_at, faces_at, w):
    """Roll a die whose faces are ``R[faces_at : faces_at + R[n_at]]``: the next scripted
    face if any (Flock, tests), else from the stream ``ctx[CTX_DICE_PURPOSE]`` (DICE in
    real games, POLICY inside rollout playouts)."""
    ctx = w.ctx
    pos = ctx[CTX_FACE_POS]
    if pos < ctx[CTX_FACE_LEN]:
        ctx[CTX_FACE_POS] = pos + 1
        return ctx[CTX_FACES + pos]
    return R[faces_at + rng.randbelow(w.streams, ctx[CTX_DICE_PURPOSE], R[n_at])]


@kernel
def regroup(st, R, seat, pid, w, forced_face, links):
    """Regroup until the flock is orthogonally connected; the active ``seat`` (policy
    ``pid``, None when every seat plays random) makes every choice. ``forced_face >= 0``
    replaces every die roll (greedy look-ahead; :data:`ROLL` for a real regrouping).
    ``links`` are the side contacts of ``st`` (:func:`.groups.side_contacts`; kept up to
    date as groups move). Returns the number of dice rolled, or -1 for an invalid
    scripted choice.
    """
    rolls = 0
    opts = w.groups
    lo, hi = links
    alive = alive_mask(st)  # no sheep leaves the flock while it regroups
    for _ in range(MAX_REGROUP_ROUNDS):
        n = smallest_of(lo, hi, alive, opts)
        if n == 0:
            return rolls
        g = 0
        if n > 1:
            g = decide_sub(pid, np.int64(K_GROUP), st, R, seat, opts, n, w)
            if g < 0:
                return -1
        mask = opts[g, 0]
        log_event(st, w, np.int64(EV_GROUP), mask, n, ZERO, ZERO)
        nr = ZERO
        if R[R_SLIDE_WITHOUT_ROLL]:
            nr = slides_with(st, lo, hi, mask, opts)
        if nr == 0:
            if forced_face >= 0:
                face = forced_face
            else:
                face = roll_die(R, np.int64(R_N_REGROUP_FACES), np.int64(R_REGROUP_FACES), w)
                rolls += 1
            log_event(st, w, np.int64(EV_REGROUP_DIE), face, ZERO, ZERO, ZERO)
            nr = routes_to(st, main_of(lo, hi, alive, mask), mask, face, R[R_PLUS_FALLBACK],
                           opts)
        if nr == 0:
            return rolls
        r = decide_sub(pid, np.int64(K_ROUTE), st, R, seat, opts, nr, w)
        if r < 0:
            return -1
        move_group(st, opts[r, 0], opts[r, 1], opts[r, 2], opts[r, 3])
        log_event(st, w, np.int64(EV_ROUTE), opts[r, 0], opts[r, 1], opts[r, 2], opts[r, 3])
        lo, hi = link_group(st, lo, hi, mask)
    return rolls
