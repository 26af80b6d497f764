"""Sentinel user policies: the choices they make are the ones the game plays, they draw
only from their own POLICY stream, and an unknown policy id raises."""

import numba
import numpy as np
import pytest

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.decide import FIRST_USER_ID, RANDOM
from sheepsim.games.panic.policies import randbelow

SEED, GAME, PLAYOUTS = 5, 2, 4


@numba.njit
def last_option(kind, st, R, seat, opts, n, rand):
    """Sentinel: always the last legal menu option; sub-decisions from its own stream."""
    if kind == L.K_ACTION:
        return n - 1
    return randbelow(rand, n)


@numba.njit
def stream_pick(kind, st, R, seat, opts, n, rand):
    """Sentinel: every choice uniform from the stream it is given, exactly as built-in
    random (which draws nothing for a sub-decision with one option)."""
    if kind != L.K_ACTION and n == 1:
        return 0
    return randbelow(rand, n)


LAST, PICK = FIRST_USER_ID, FIRST_USER_ID + 1


@pytest.fixture(scope="module")
def user_kernels():
    """One compiled variant for both sentinels (user ids FIRST_USER_ID, +1)."""
    from sheepsim.games.panic.engine import kernels_for

    return kernels_for((last_option, stream_pick))


def _trace(kernels, R, pids):
    from sheepsim.games.panic.engine import new_log

    st = np.zeros(L.ST_LEN, dtype=np.int64)
    log = new_log()
    acc = np.zeros(L.ACC_LEN, dtype=np.int64)
    n, _ = kernels.trace_game(R, np.array(pids, dtype=np.int64), SEED, GAME, PLAYOUTS, st,
                              log, acc)
    return log[:n], st


def test_user_policy_drawing_from_its_stream_plays_as_builtin_random(user_kernels, rules):
    """``stream_pick`` is the built-in random policy written as a user policy: if it
    receives the game's POLICY stream (not the dice, not a copy) and its answers are the
    ones played, every event of the trace is the same as with ``random``."""
    from sheepsim.games.panic.engine import BUILTIN

    R = rules.kernel_array(3)
    user_log, _ = _trace(user_kernels, R, [PICK, PICK, PICK])
    ref_log, _ = _trace(BUILTIN, R, [RANDOM, RANDOM, RANDOM])
    assert (user_log[:, 0] == L.EV_ACTION).sum() > 5
    assert np.array_equal(user_log, ref_log)


def _state_before(row, colours, used, prev):
    """The kernel state a decision saw, rebuilt from the log row before it: the flock,
    facing and counter from the row; menus used and the previous action from the log."""
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    flock = row[L.LOG_HEAD:L.LOG_HEAD + 3 * L.N_SHEEP]
    st[L.ST_ROW:L.ST_ROW + L.N_SHEEP] = flock[:L.N_SHEEP]
    st[L.ST_COL:L.ST_COL + L.N_SHEEP] = flock[L.N_SHEEP:2 * L.N_SHEEP]
    st[L.ST_ALIVE:L.ST_ALIVE + L.N_SHEEP] = flock[2 * L.N_SHEEP:]
    st[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP] = colours
    st[L.ST_FACING] = row[L.LOG_HEAD + 3 * L.N_SHEEP]
    st[L.ST_COUNTER] = row[L.LOG_HEAD + 3 * L.N_SHEEP + 1]
    st[L.ST_USED:L.ST_USED + used.size] = used
    st[L.ST_PREV_KIND], st[L.ST_PREV_TARGET], st[L.ST_PREV_DIR], st[L.ST_PREV_DIE] = prev
    return st


def test_sentinel_menu_choices_are_the_last_legal_option(user_kernels, rules):
    """Replay the trace: before each of seat 0's menu actions, rebuild the state from the
    log, list the legal options as the kernel does, and check the action played is the
    last one (what ``last_option`` answers)."""
    from sheepsim.games.panic.flockops import legal_actions

    R = rules.kernel_array(3)
    log, final = _trace(user_kernels, R, [LAST, RANDOM, RANDOM])
    colours = final[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP]
    used = np.zeros(L.MAX_PLAYERS * L.MAX_TILES, dtype=np.int64)
    prev = [-1, 0, 0, 0]
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    checked = 0
    in_opening = False
    for i, row in enumerate(log):
        ev = row[0]
        if ev == L.EV_OPENING:
            in_opening = True
        elif ev in (L.EV_REGROUP_DIE, L.EV_PANIC_DIE):
            prev[3] = 1
        elif ev == L.EV_ACTION:
            if in_opening:  # the opening pushes are not menu actions (engine.opening)
                in_opening, prev = False, [-1, 0, 0, 0]
            tile, a, b, seat = (int(x) for x in row[1:5])
            if seat == 0:
                st = _state_before(log[i - 1], colours, used, prev)
                n = legal_actions(st, R, seat, opts)
                assert tuple(opts[n - 1, :3]) == (tile, a, b), (i, n)
                checked += 1
            used[seat * L.MAX_TILES + tile] = 1
            prev = [int(R[L.R_TILE_KIND + tile]), a, b, 0]
    assert checked >= 3


def test_unknown_policy_id_raises(rules):
    from sheepsim.games.panic.engine import BUILTIN

    with pytest.raises(ValueError, match="unknown Shear Panic policy id"):
        _trace(BUILTIN, rules.kernel_array(3), [RANDOM, FIRST_USER_ID, RANDOM])
