"""User policies through the one policy signature ``policy(kind, view, opts, n, rand)``:
the choices they make are the ones the game plays, they draw only from their own seat's
stream, they see the documented view, every answer is checked (an illegal index or a
write to the inputs stops the run with one line naming the policy), and an unknown
policy id raises."""

from collections import namedtuple

import numba
import numpy as np
import pytest

from sheepsim.errors import SheepsimError
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies import randbelow, uniform
from sheepsim.games.panic.policies.decide import FIRST_USER_ID, GREEDY, RANDOM

SEED, GAME, PLAYOUTS = 5, 2, 4


@numba.njit
def last_option(kind, view, opts, n, rand):
    """Sentinel: always the last legal menu option; sub-decisions from its own stream."""
    if kind == L.K_ACTION:
        return n - 1
    return randbelow(rand, n)


@numba.njit
def stream_pick(kind, view, opts, n, rand):
    """Sentinel: every choice uniform from the stream it is given, exactly as built-in
    random (a sub-decision with one option is not asked)."""
    return randbelow(rand, n)


@numba.njit
def view_echo(kind, view, opts, n, rand):
    """Sentinel: a choice computed from the view (its seat, the turns played so far in
    the state part, the player count in the rules part), so that the test can tell it
    read the documented offsets."""
    seat = view[L.V_SEAT]
    turns = view[L.V_STATE + L.ST_TURNS]
    players = view[L.V_RULES + L.R_N_PLAYERS]
    return (seat + turns + players) % n


@numba.njit
def uniform_pick(kind, view, opts, n, rand):
    """Sentinel: ``floor(u * n)`` for the next uniform ``u`` of its own stream."""
    return min(np.int64(uniform(rand) * n), n - 1)


@numba.njit
def past_last(kind, view, opts, n, rand):
    """Vandal: the first sub-decision it is asked, it answers ``n`` (not an option)."""
    if kind == L.K_ACTION:
        return 0
    return n


@numba.njit
def writes_view(kind, view, opts, n, rand):
    """Vandal: changes the counter in its view of the state, then answers legally."""
    view[L.V_STATE + L.ST_COUNTER] += 1
    return 0


LAST, PICK, ECHO, UNI, PAST, WRITES = range(FIRST_USER_ID, FIRST_USER_ID + 6)
NAMES = {LAST: "last_option", PICK: "stream_pick", ECHO: "view_echo", UNI: "uniform_pick",
         PAST: "past_last", WRITES: "writes_view", RANDOM: "random", GREEDY: "greedy"}


USERS = (last_option, stream_pick, view_echo, uniform_pick, past_last, writes_view)
Run = namedtuple("Run", ["decisions", "winner", "failure"])


def _trace(R, pids, seed=SEED, game=GAME):
    """``(event log rows, final state, Run)`` of one traced game on the harness (the
    plug-ins as ids FIRST_USER_ID, +1, ...: :data:`USERS`); the decision log
    ``(rows, DECISION_WIDTH)`` (``layout.D_*``), the winner (-1 at a failure) and the
    failure ``(code, game, seat, choice, n, kind)`` or None."""
    from sheepsim.games.panic.simulate import _harness_trace

    log, decisions, st, win, failed = _harness_trace(
        R, int(R[L.R_N_PLAYERS]), pids, USERS, seed, game, PLAYOUTS,
        [NAMES[p] for p in pids])
    return log, st, Run(decisions, win, failed)


def test_user_policy_drawing_from_its_stream_plays_as_builtin_random(rules):
    """``stream_pick`` is the built-in random policy written as a user policy: if it
    receives its seat's own stream (not the dice, not another seat's) and its answers
    are the ones played, every event and every decision of the trace is the same as
    with ``random``, seat by seat: the built-in's turn and the plug-in seat's cut turn
    make the same choices and record the same events."""
    R = rules.kernel_array(3)
    ref_log, _, ref = _trace(R, [RANDOM, RANDOM, RANDOM])
    for pids in ([PICK, PICK, PICK], [RANDOM, PICK, RANDOM]):
        user_log, _, run = _trace(R, pids)
        assert (user_log[:, 0] == L.EV_ACTION).sum() > 5
        assert np.array_equal(user_log, ref_log)
        assert np.array_equal(run.decisions, ref.decisions)


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


def test_sentinel_menu_choices_are_the_last_legal_option(rules):
    """Replay the trace: before each of seat 0's menu actions, rebuild the state from the
    log, list the legal options as the kernel does, and check the action played is the
    last one (what ``last_option`` answers); the decision log agrees (n, n - 1)."""
    from sheepsim.games.panic.geometry.flockops import legal_actions

    R = rules.kernel_array(3)
    log, final, run = _trace(R, [LAST, RANDOM, RANDOM])
    colours = final[L.ST_COLOUR:L.ST_COLOUR + L.N_SHEEP]
    used = np.zeros(L.MAX_PLAYERS * L.MAX_TILES, dtype=np.int64)
    prev = [-1, 0, 0, 0]
    opts = np.zeros((L.MAX_OPTS, L.OPT_WIDTH), dtype=np.int64)
    listed = []
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
                listed.append(n)
            used[seat * L.MAX_TILES + tile] = 1
            prev = [int(R[L.R_TILE_KIND + tile]), a, b, 0]
    assert len(listed) >= 3
    d = run.decisions
    mine = d[(d[:, L.D_SEAT] == 0) & (d[:, L.D_KIND] == L.K_ACTION)]
    assert list(mine[:, L.D_N]) == listed
    assert (mine[:, L.D_CHOICE] == mine[:, L.D_N] - 1).all()


def test_the_view_holds_the_seat_the_state_and_the_rules(rules):
    """``view_echo`` answers ``(seat + turns played + players) % n`` from its view: each
    of its decisions in the log is that number. Turns are counted from the log: a menu
    choice sees the turns before it, a sub-decision those before its turn's menu choice
    (every turn asked its menu choice: no lone option in these games)."""
    for players in (3, 4):
        R = rules.kernel_array(players)
        pids = [RANDOM] * players
        pids[1] = ECHO
        pids[players - 1] = ECHO
        log, _, run = _trace(R, pids, seed=7, game=1)
        d = run.decisions
        action = d[:, L.D_KIND] == L.K_ACTION
        assert action.sum() == (log[:, 0] == L.EV_ACTION).sum()
        turns = np.maximum(np.cumsum(action) - 1, 0)
        echo = np.isin(d[:, L.D_SEAT], [1, players - 1])
        assert echo.sum() > 10 and (d[echo, L.D_SEAT] == players - 1).any()
        expected = (d[:, L.D_SEAT] + turns + players) % d[:, L.D_N]
        assert (d[echo, L.D_CHOICE] == expected[echo]).all()


def test_seat_streams_are_the_seats_own(rules):
    """Replacing seat 0's policy (random -> last_option) changes the game, but not the
    other seats' draws: ``uniform_pick`` at seats 1 and 2 answers ``floor(u * n)`` for
    its k-th draw ``u``, so its k-th answer in either game puts ``u`` in
    ``[choice / n, (choice + 1) / n)``; the two intervals must meet (a shared stream
    would give them another ``u`` after seat 0's first different draw: menu choices have
    ~100 options)."""
    R = rules.kernel_array(3)
    _, _, a = _trace(R, [RANDOM, UNI, UNI], seed=3, game=0)
    _, _, b = _trace(R, [LAST, UNI, UNI], seed=3, game=0)
    assert not np.array_equal(a.decisions, b.decisions)
    for seat in (1, 2):
        da = a.decisions[a.decisions[:, L.D_SEAT] == seat]
        db = b.decisions[b.decisions[:, L.D_SEAT] == seat]
        k = min(len(da), len(db))
        assert k > 10
        lo = np.maximum(da[:k, L.D_CHOICE] / da[:k, L.D_N], db[:k, L.D_CHOICE] / db[:k, L.D_N])
        hi = np.minimum((da[:k, L.D_CHOICE] + 1) / da[:k, L.D_N],
                        (db[:k, L.D_CHOICE] + 1) / db[:k, L.D_N])
        assert (lo < hi).all(), seat
        assert (da[:k, L.D_N] != db[:k, L.D_N]).any()  # the games did differ for them


@pytest.mark.parametrize("pids,seat,words", [
    ([RANDOM, PAST, RANDOM], 1, "returned option"),
    ([GREEDY, RANDOM, WRITES], 2, "wrote to its read-only inputs"),
])
def test_a_broken_choice_stops_the_game_with_one_line(rules, pids, seat, words):
    """An index outside ``0..n-1`` or a write to the view stops the game at that choice;
    the error names the policy, its seat (1-based), the game and what it did."""
    from sheepsim.games.panic.jobs import raise_failure
    from sheepsim.plugins import ILLEGAL_CHOICE, WROTE_INPUTS

    R = rules.kernel_array(3)
    _, _, run = _trace(R, pids)
    assert run.winner == -1
    code, game, fseat, choice, n, kind = run.failure
    assert (game, fseat) == (GAME, seat) and 0 <= kind < len(L.KIND_NAMES)
    if pids[seat] == PAST:
        assert code == ILLEGAL_CHOICE and choice == n and n > 1
    else:
        assert code == WROTE_INPUTS
    names = [NAMES[p] for p in pids]
    with pytest.raises(SheepsimError) as exc:
        raise_failure(run.failure, names)
    msg = str(exc.value)
    assert f"policy '{names[seat]}' (seat {seat + 1}) in game {GAME}" in msg
    assert words in msg and "\n" not in msg
    assert f"a '{L.KIND_NAMES[kind]}' decision" in msg  # what it was asked


def test_unknown_policy_id_raises(rules):
    """An id that is neither built-in nor a plug-in given to the kernel, seated beside a
    greedy seat (so the machine's own plays each seat's id), raises."""
    from sheepsim.games.panic.scratch import new_scratch
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import run_games

    m = M.load("sheepsim.games.panic.machine")
    pids = np.array([GREEDY, FIRST_USER_ID, RANDOM], dtype=np.int64)
    with pytest.raises(ValueError, match="unknown Shear Panic policy id"):
        run_games(m, m.kernel((), FIRST_USER_ID, pids), rules.kernel_array(3), 3, pids,
                  False, SEED, GAME, 1, scratch=new_scratch(1, PLAYOUTS))
