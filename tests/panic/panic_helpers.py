"""Helpers shared by the Shear Panic tests (imported as ``panic_helpers``; the folder
has no package so pytest puts it on ``sys.path``)."""

import numpy as np

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.flock import Flock


def flock(text, facing="up", free_form=False):
    return Flock.parse(text, facing=facing, free_form=free_form)


def picture(text):
    """Normalise a multi-line expected diagram (strip indentation and blank edges)."""
    return "\n".join(line.strip() for line in text.strip("\n").splitlines() if line.strip())


def state_from(text, facing="up", free_form=False):
    """A full game state vector whose flock is ``text`` (counter 0, nothing used)."""
    st = Flock.parse(text, facing=facing, free_form=free_form).st.copy()
    st[L.ST_LAST_ACTOR] = -1
    return st


def legal_set(st, R, seat):
    from sheepsim.games.panic.geometry.flockops import legal_actions

    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    n = legal_actions(st, R, seat, opts)
    return {tuple(int(x) for x in opts[i, :3]) for i in range(n)}


def early_positions(R, count, seed, moves):
    """``count`` positions ``(index, state)`` from the start: position ``k`` after
    ``k % moves`` random legal actions of seat 0 (a move that breaks the flock is not
    kept), drawn from ``numpy.random.default_rng(seed)``."""
    from sheepsim.games.panic.geometry.flockops import apply_action, legal_actions
    from sheepsim.games.panic.geometry.groups import is_connected
    from sheepsim.games.panic.state import init_state

    pick = np.random.default_rng(seed)
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    for position in range(count):
        st = np.zeros(L.ST_LEN, dtype=np.int64)
        init_state(st, R)
        for _ in range(position % moves):
            n = legal_actions(st, R, 0, opts)
            nxt = st.copy()
            i = pick.integers(n)
            apply_action(nxt, R[L.R_TILE_KIND + opts[i, 0]], opts[i, 1], opts[i, 2])
            if is_connected(nxt):
                st = nxt
        yield position, st


def opening(st, R, pids, w):
    """The game's opening as the machine plays it (:func:`sheepsim.games.panic.machine.stretch`,
    one seat at a time): each seat's panic-die Lamb Push (white: Ewe Turn), drawing from
    its own stream row of ``w.streams``; ``pids`` ``(players,)`` or None (every seat
    random). Not a menu action: the previous action and die are cleared after it."""
    from sheepsim import rng
    from sheepsim.games.panic.scratch import SEAT_STREAMS, ZERO, log_event
    from sheepsim.games.panic.turns import panic_push

    for seat in range(R[L.R_N_PLAYERS]):
        log_event(st, w, np.int64(L.EV_OPENING), np.int64(seat), ZERO, ZERO, ZERO)
        w.streams[rng.POLICY] = w.streams[SEAT_STREAMS + seat]
        panic_push(st, R, np.int64(seat), None if pids is None else np.int64(pids[seat]), w)
        w.streams[SEAT_STREAMS + seat] = w.streams[rng.POLICY]
    st[L.ST_PREV_KIND] = -1
    st[L.ST_PREV_DIE] = 0
