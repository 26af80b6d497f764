"""Regrouping the flock until it is orthogonally connected (kernel): the smallest group
moves along a route to the main flock (:mod:`.groups`), by a roll of the regroup die
(:func:`..scratch.roll_die`) unless it slides without one."""

import numpy as np

from sheepsim.games.panic.geometry.flockops import alive_mask
from sheepsim.games.panic.geometry.groups import (
    link_group,
    main_of,
    move_group,
    routes_to,
    slides_with,
    smallest_of,
)
from sheepsim.games.panic.layout import (
    EV_GROUP,
    EV_REGROUP_DIE,
    EV_ROUTE,
    K_GROUP,
    K_ROUTE,
    R_N_REGROUP_FACES,
    R_PLUS_FALLBACK,
    R_REGROUP_FACES,
    R_SLIDE_WITHOUT_ROLL,
)
from sheepsim.games.panic.policies.decide import decide_sub
from sheepsim.games.panic.scratch import ZERO, log_event, roll_die
from sheepsim.jit import kernel

# More rounds than sheep can ever need: each round merges the smallest group into
# another one or moves it strictly closer; the cap only guards against a bad variant.
MAX_REGROUP_ROUNDS = 64
#: ``forced_face`` of :func:`regroup` for a real regrouping (roll the die; an
#: ``np.int64``, see :data:`..scratch.ZERO`).
ROLL = np.int64(-1)


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
