"""Whole Shear Panic games as numba kernels: turns, panic, end, winner, rollouts.

A game is keyed by ``(seed, game index)``: dice come from the DICE stream, every policy
choice from the POLICY stream (common random numbers across policies). The parallel
kernel :func:`games_chunk` splits a chunk into blocks (``prange``), each with its own
preallocated scratch, and returns one integer accumulator vector per block (layout
``A_*``); summing the blocks gives the same totals for any thread count or chunk size.

Turn (rulebook steps A-E): choose a menu tile, apply it, regroup, move the counter,
score (gates, pens, every-space fields), panic. Players without sheep skip; a player
with sheep but no legal choice passes; when every player passes in a row the menus have
run out and the final shearing happens.
"""

import types

import numba as nb
import numpy as np

from sheepsim import rng
from sheepsim.games.panic import decide as _decide
from sheepsim.games.panic import policies as _policies
from sheepsim.games.panic import regroup as _regroup
from sheepsim.games.panic.decide import GREEDY, RANDOM, ROLLOUT, argmax_random_ties, decide_sub
from sheepsim.games.panic.flockops import (
    apply_action,
    count_colour,
    legal_actions,
    push_from,
    refused_tiles,
    reverse_dir,
)
from sheepsim.games.panic.layout import (
    A_BAD_CHOICES,
    A_END,
    A_FIELD_PTS,
    A_GAMES,
    A_PANICS,
    A_POINTS,
    A_POINTS_SQ,
    A_REGROUP_ROLLS,
    A_SHEEP_LEFT,
    A_SHORN,
    A_TIE_BREAK,
    A_TILE_COUNTER,
    A_TILE_GAIN,
    A_TILE_N,
    A_TURN_HIST,
    A_TURNS,
    A_TURNS_SQ,
    A_WINS,
    ACC_LEN,
    CTX_BAD_CHOICES,
    CTX_DICE_PURPOSE,
    CTX_LAST_COUNTER,
    CTX_LAST_GAIN,
    CTX_LAST_TILE,
    CTX_LEN,
    CTX_LOG_N,
    CTX_LOG_ON,
    CTX_ROLLOUT_PLAYOUTS,
    END_MENUS,
    END_PEN,
    EV_ACTION,
    EV_END,
    EV_NO_REVERSE,
    EV_OPENING,
    EV_PANIC_DIE,
    EV_PANIC_PUSH,
    EV_PANIC_TURN,
    EV_PASS,
    EV_SCORE,
    EV_SHEAR,
    EWE_TURN,
    K_PANIC_PUSH,
    K_PANIC_TURN,
    LOG_WIDTH,
    MAX_FIELDS,
    MAX_LOG,
    MAX_OPTS,
    MAX_SUB_OPTS,
    MAX_TILES,
    MAX_TURN_HIST,
    N_COLOURS,
    N_SHEEP,
    N_WORK,
    OPT_WIDTH,
    R_N_PANIC_FACES,
    R_N_PLAYERS,
    R_PANIC,
    R_PANIC_FACES,
    R_START_COL,
    R_START_COLOUR,
    R_START_FACING,
    R_START_ROW,
    R_TILE_KIND,
    R_TILE_TIME,
    R_TRACK_LEN,
    ST_ALIVE,
    ST_COL,
    ST_COLOUR,
    ST_COUNTER,
    ST_END_REASON,
    ST_ENDED,
    ST_FACING,
    ST_FIELD_PTS,
    ST_LAST_ACTOR,
    ST_LEN,
    ST_PANICS,
    ST_PASSES,
    ST_PREV_DIE,
    ST_PREV_DIR,
    ST_PREV_KIND,
    ST_PREV_TARGET,
    ST_REGROUP_ROLLS,
    ST_ROW,
    ST_SCORE,
    ST_SHORN,
    ST_TIE_BREAK,
    ST_TURNS,
    ST_USED,
    TURN_LEFT,
    TURN_RIGHT,
    W_PLAY,
    WHITE_FACE,
)
from sheepsim.games.panic.policies import decide_action
from sheepsim.games.panic.regroup import log_event, regroup, roll_die
from sheepsim.games.panic.track import advance_and_score, final_event, own_sheep
from sheepsim.jit import njit, rejit

# Rerolls of the panic die for colours with no sheep left; only a variant die without a
# white face and with every colour gone could exhaust this (the panic is then skipped).
MAX_PANIC_ROLLS = 64


# ------------------------------------------------------------------------- setup
@njit
def init_state(st, R):
    """The starting flock from the rules, counter 0, no menu used, no score."""
    st[:] = 0
    for s in range(N_SHEEP):
        st[ST_ROW + s] = R[R_START_ROW + s]
        st[ST_COL + s] = R[R_START_COL + s]
        st[ST_COLOUR + s] = R[R_START_COLOUR + s]
        st[ST_ALIVE + s] = 1
    st[ST_FACING] = R[R_START_FACING]
    st[ST_PREV_KIND] = -1
    st[ST_LAST_ACTOR] = -1


@njit
def add_rolls(st, rolls):
    if rolls > 0:
        st[ST_REGROUP_ROLLS] += rolls
        st[ST_PREV_DIE] = 1


@njit
def panic_push(st, R, seat, pid, streams, ctx, subs, work, values, log):
    """Roll the panic die (reroll colours with no sheep left): a Lamb Push by a sheep of
    that colour (the active player picks sheep and direction, then regroups) or, on
    white, an Ewe Turn left or right."""
    st[ST_PREV_DIE] = 1
    opts = subs[0]
    for _ in range(MAX_PANIC_ROLLS):
        face = roll_die(R, R_N_PANIC_FACES, R_PANIC_FACES, streams, ctx)
        log_event(st, ctx, log, EV_PANIC_DIE, face, seat, 0, 0)
        if face == WHITE_FACE:
            opts[0, 0] = TURN_RIGHT
            opts[1, 0] = TURN_LEFT
            i = decide_sub(pid, K_PANIC_TURN, st, R, seat, opts, 2, streams, ctx, subs, work,
                           values)
            apply_action(st, EWE_TURN, 0, opts[i, 0])
            log_event(st, ctx, log, EV_PANIC_TURN, opts[i, 0], seat, 0, 0)
            return
        if face < N_COLOURS and count_colour(st, face) > 0:
            n = 0
            for s in range(N_SHEEP):
                if st[ST_ALIVE + s] and st[ST_COLOUR + s] == face:
                    for d in range(8):
                        opts[n, 0] = s
                        opts[n, 1] = d
                        opts[n, 2] = 0
                        opts[n, 3] = 0
                        n += 1
            i = decide_sub(pid, K_PANIC_PUSH, st, R, seat, opts, n, streams, ctx, subs, work,
                           values)
            s = opts[i, 0]
            d = opts[i, 1]
            push_from(st, s, d)
            log_event(st, ctx, log, EV_PANIC_PUSH, s, d, seat, 0)
            add_rolls(st, regroup(st, R, seat, pid, streams, ctx, subs, work, values, log, -1))
            return


@njit
def opening(st, R, pids, streams, ctx, subs, work, values, log):
    """The sheep jump from the truck: each seat rolls the panic die and makes that Lamb
    Push (white: Ewe Turn), regrouping as needed; no scoring, the counter stays at 0."""
    for seat in range(R[R_N_PLAYERS]):
        log_event(st, ctx, log, EV_OPENING, seat, 0, 0, 0)
        panic_push(st, R, seat, pids[seat], streams, ctx, subs, work, values, log)
    st[ST_PREV_KIND] = -1  # the opening pushes are not menu actions
    st[ST_PREV_DIE] = 0


# ------------------------------------------------------------------------- turns
@njit
def execute_turn(st, R, seat, pid, tile, a, b, streams, ctx, subs, work, values, log):
    """Steps A-E of a turn for the chosen ``tile`` with parameters ``a``, ``b``."""
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
    log_event(st, ctx, log, EV_ACTION, tile, a, b, seat)
    add_rolls(st, regroup(st, R, seat, pid, streams, ctx, subs, work, values, log, -1))  # B
    removed = advance_and_score(st, R, seat, R[R_TILE_TIME + tile])  # C, D
    log_event(st, ctx, log, EV_SCORE, seat, st[ST_SCORE + seat] - before, 0, 0)
    if removed:
        # Shearing scores first; the flock is regrouped afterwards.
        log_event(st, ctx, log, EV_SHEAR, removed, 0, 0, 0)
        add_rolls(st, regroup(st, R, seat, pid, streams, ctx, subs, work, values, log, -1))
    if st[ST_COUNTER] >= R[R_TRACK_LEN]:
        st[ST_ENDED] = 1
        st[ST_END_REASON] = END_PEN
        log_event(st, ctx, log, EV_END, END_PEN, 0, 0, 0)
    elif R[R_PANIC + st[ST_COUNTER]]:  # E
        st[ST_PANICS] += 1
        panic_push(st, R, seat, pid, streams, ctx, subs, work, values, log)
    st[ST_TURNS] += 1
    st[ST_LAST_ACTOR] = seat
    ctx[CTX_LAST_GAIN] = st[ST_SCORE + seat] - before


@njit
def log_refusals(st, R, seat, ctx, log):
    """Trace only: which of ``seat``'s tiles refuse the reverse of the previous action."""
    if ctx[CTX_LOG_ON] == 0:
        return
    tiles = refused_tiles(st, R, seat)
    if tiles:
        log_event(st, ctx, log, EV_NO_REVERSE, tiles, st[ST_PREV_KIND], st[ST_PREV_TARGET],
                  reverse_dir(st))


@njit
def play_turn(st, R, seat, pid, opts, streams, ctx, subs, work, values, log):
    """One turn for a non-rollout policy; False if the seat skips (no sheep) or passes
    (no legal choice)."""
    if own_sheep(st, R, seat) == 0:
        return False
    log_refusals(st, R, seat, ctx, log)
    n = legal_actions(st, R, seat, opts)
    if n == 0:
        return False
    i = decide_action(pid, st, R, seat, opts, n, streams, ctx, subs, work, values, log)
    if i < 0 or i >= n:
        ctx[CTX_BAD_CHOICES] += 1  # a user policy answered out of range
        i = 0
    execute_turn(st, R, seat, pid, opts[i, 0], opts[i, 1], opts[i, 2], streams, ctx, subs,
                 work, values, log)
    return True


@njit
def after_turn(st, R, seat, acted, ctx, log):
    """Count passes (menus run out when every seat passes in a row); next seat."""
    n_players = R[R_N_PLAYERS]
    if acted:
        st[ST_PASSES] = 0
    else:
        st[ST_PASSES] += 1
        log_event(st, ctx, log, EV_PASS, seat, 0, 0, 0)
    if st[ST_ENDED] == 0 and st[ST_PASSES] >= n_players:
        final_event(st, R)
        st[ST_ENDED] = 1
        st[ST_END_REASON] = END_MENUS
        log_event(st, ctx, log, EV_END, END_MENUS, 0, 0, 0)
    return (seat + 1) % n_players


@njit
def margin(st, R, seat):
    """Own points minus the best opponent's."""
    best = -(1 << 40)
    for s in range(R[R_N_PLAYERS]):
        if s != seat:
            best = max(best, st[ST_SCORE + s])
    return st[ST_SCORE + seat] - best


@njit
def rollout_choose(st, R, seat, opts, n, streams, ctx, play_opts, subs, work, values, log):
    """The rollout policy's menu choice among ``opts[:n]`` (see :mod:`.policies`)."""
    playouts = ctx[CTX_ROLLOUT_PLAYOUTS]
    purpose_was = ctx[CTX_DICE_PURPOSE]
    log_was = ctx[CTX_LOG_ON]
    ctx[CTX_DICE_PURPOSE] = rng.POLICY  # imagined dice: never the real future
    ctx[CTX_LOG_ON] = 0
    vals = values[0]
    sim = work[W_PLAY]
    for i in range(n):
        total = 0
        for _ in range(playouts):
            sim[:] = st
            execute_turn(sim, R, seat, GREEDY, opts[i, 0], opts[i, 1], opts[i, 2], streams,
                         ctx, subs, work, values, log)
            s = after_turn(sim, R, seat, True, ctx, log)
            while sim[ST_ENDED] == 0:
                acted = play_turn(sim, R, s, RANDOM, play_opts, streams, ctx, subs, work,
                                  values, log)
                s = after_turn(sim, R, s, acted, ctx, log)
            total += margin(sim, R, seat)
        vals[i] = total / max(playouts, 1)
    ctx[CTX_DICE_PURPOSE] = purpose_was
    ctx[CTX_LOG_ON] = log_was
    return argmax_random_ties(vals, n, streams)


@njit
def winner(st, R):
    """Most points; tie: most own sheep left; tie: who would play earliest next (the
    seat after the last one to act, clockwise). Records which rule decided."""
    n_players = R[R_N_PLAYERS]
    first = st[ST_LAST_ACTOR] + 1
    best = -1
    n_top_points = 0
    n_top_sheep = 0
    for k in range(n_players):
        seat = (first + k) % n_players
        if best < 0:
            best = seat
            continue
        ps = st[ST_SCORE + seat]
        pb = st[ST_SCORE + best]
        if ps > pb or (ps == pb and own_sheep(st, R, seat) > own_sheep(st, R, best)):
            best = seat
    top = st[ST_SCORE + best]
    sheep = own_sheep(st, R, best)
    for seat in range(n_players):
        if st[ST_SCORE + seat] == top:
            n_top_points += 1
            if own_sheep(st, R, seat) == sheep:
                n_top_sheep += 1
    if n_top_points == 1:
        st[ST_TIE_BREAK] = 0
    elif n_top_sheep == 1:
        st[ST_TIE_BREAK] = 1
    else:
        st[ST_TIE_BREAK] = 2
    return best


@njit
def play_game(st, R, pids, streams, ctx, opts, subs, work, values, log, acc):
    """Play one game (streams already keyed); per-turn tile statistics go to ``acc``.
    Returns the winning seat."""
    init_state(st, R)
    opening(st, R, pids, streams, ctx, subs, work, values, log)
    seat = 0
    while st[ST_ENDED] == 0:
        pid = pids[seat]
        acted = False
        ctx[CTX_LAST_TILE] = -1
        if pid == ROLLOUT:
            if own_sheep(st, R, seat) > 0:
                log_refusals(st, R, seat, ctx, log)
                n = legal_actions(st, R, seat, opts[0])
                if n > 0:
                    i = rollout_choose(st, R, seat, opts[0], n, streams, ctx, opts[1], subs,
                                       work, values, log)
                    execute_turn(st, R, seat, pid, opts[0, i, 0], opts[0, i, 1],
                                 opts[0, i, 2], streams, ctx, subs, work, values, log)
                    acted = True
        else:
            acted = play_turn(st, R, seat, pid, opts[0], streams, ctx, subs, work, values, log)
        if acted:
            k = seat * MAX_TILES + ctx[CTX_LAST_TILE]
            acc[A_TILE_N + k] += 1
            acc[A_TILE_COUNTER + k] += ctx[CTX_LAST_COUNTER]
            acc[A_TILE_GAIN + k] += ctx[CTX_LAST_GAIN]
        acc[A_BAD_CHOICES] += ctx[CTX_BAD_CHOICES]
        ctx[CTX_BAD_CHOICES] = 0
        seat = after_turn(st, R, seat, acted, ctx, log)
    return winner(st, R)


@njit
def accumulate(acc, st, R, win):
    """Add one finished game to the accumulator vector."""
    acc[A_GAMES] += 1
    acc[A_WINS + win] += 1
    for seat in range(R[R_N_PLAYERS]):
        pts = st[ST_SCORE + seat]
        acc[A_POINTS + seat] += pts
        acc[A_POINTS_SQ + seat] += pts * pts
        acc[A_SHEEP_LEFT + seat] += own_sheep(st, R, seat)
        for f in range(MAX_FIELDS):
            acc[A_FIELD_PTS + seat * MAX_FIELDS + f] += st[ST_FIELD_PTS + seat * MAX_FIELDS + f]
    for c in range(N_COLOURS):
        acc[A_SHORN + c] += st[ST_SHORN + c]
    turns = st[ST_TURNS]
    acc[A_TURNS] += turns
    acc[A_TURNS_SQ] += turns * turns
    acc[A_TURN_HIST + min(turns, MAX_TURN_HIST - 1)] += 1
    acc[A_END + st[ST_END_REASON]] += 1
    acc[A_TIE_BREAK + st[ST_TIE_BREAK]] += 1
    acc[A_PANICS] += st[ST_PANICS]
    acc[A_REGROUP_ROLLS] += st[ST_REGROUP_ROLLS]


# ---------------------------------------------------------------- entry kernels
@njit
def new_scratch(playouts):
    """Per-block scratch: state, context, streams, options, work rows, values, log."""
    st = np.zeros(ST_LEN, dtype=np.int64)
    ctx = np.zeros(CTX_LEN, dtype=np.int64)
    ctx[CTX_DICE_PURPOSE] = rng.DICE
    ctx[CTX_ROLLOUT_PLAYOUTS] = playouts
    streams = np.zeros((rng.N_PURPOSES, 2), dtype=np.uint64)
    opts = np.zeros((2, MAX_OPTS, OPT_WIDTH), dtype=np.int64)
    subs = np.zeros((2, MAX_SUB_OPTS, OPT_WIDTH), dtype=np.int64)
    work = np.zeros((N_WORK, ST_LEN), dtype=np.int64)
    values = np.zeros((2, MAX_OPTS), dtype=np.float64)
    return st, ctx, streams, opts, subs, work, values


@njit(parallel=True)
def games_chunk(R, pids, seed, start, count, n_blocks, playouts):
    """Games ``start .. start+count-1``; returns ``(n_blocks, ACC_LEN)`` int64 sums."""
    acc = np.zeros((n_blocks, ACC_LEN), dtype=np.int64)
    per = (count + n_blocks - 1) // n_blocks
    for b in nb.prange(n_blocks):
        st, ctx, streams, opts, subs, work, values = new_scratch(playouts)
        log = np.zeros((1, LOG_WIDTH), dtype=np.int64)
        row = acc[b]
        for i in range(b * per, min(count, (b + 1) * per)):
            rng.seed_streams(streams, seed, start + i)
            win = play_game(st, R, pids, streams, ctx, opts, subs, work, values, log, row)
            accumulate(row, st, R, win)
    return acc


@njit
def trace_game(R, pids, seed, game, playouts, st, log, acc):
    """One game with its event log (``log`` ``(MAX_LOG, LOG_WIDTH)``); the final state
    is left in ``st`` and the game added to ``acc``. Returns ``(log rows, winner)``."""
    _, ctx, streams, opts, subs, work, values = new_scratch(playouts)
    ctx[CTX_LOG_ON] = 1
    rng.seed_streams(streams, seed, game)
    win = play_game(st, R, pids, streams, ctx, opts, subs, work, values, log, acc)
    accumulate(acc, st, R, win)
    return ctx[CTX_LOG_N], win


def new_log() -> np.ndarray:
    return np.zeros((MAX_LOG, LOG_WIDTH), dtype=np.int64)


# ---------------------------------------------------------- user-policy variants
class Kernels(types.SimpleNamespace):
    """The entry kernels for one set of policies: ``games_chunk`` and ``trace_game``."""


BUILTIN = Kernels(games_chunk=games_chunk, trace_game=trace_game)


def _chain(prev_action, prev_sub, fn, policy_id):
    """Dispatchers that send ``policy_id`` to the user's ``fn`` and the rest onwards."""

    @nb.njit
    def action(pid, st, R, seat, opts, n, streams, ctx, subs, work, values, log):
        if pid == policy_id:
            return fn(0, st, R, seat, opts, n, streams)
        return prev_action(pid, st, R, seat, opts, n, streams, ctx, subs, work, values, log)

    @nb.njit
    def sub(pid, kind, st, R, seat, opts, n, streams, ctx, subs, work, values):
        if pid == policy_id:
            i = fn(kind, st, R, seat, opts, n, streams)
            if 0 <= i < n:
                return i
            ctx[CTX_BAD_CHOICES] += 1
            return 0
        return prev_sub(pid, kind, st, R, seat, opts, n, streams, ctx, subs, work, values)

    return action, sub


_VARIANTS: dict[tuple, Kernels] = {}


def kernels_for(user_fns: tuple = ()) -> Kernels:
    """Kernels where policy id ``FIRST_USER_ID + k`` calls ``user_fns[k]``; with no
    user policy, the cached built-in kernels."""
    if not user_fns:
        return BUILTIN
    if user_fns in _VARIANTS:
        return _VARIANTS[user_fns]
    action, sub = _policies.decide_action, _decide.decide_sub
    for k, fn in enumerate(user_fns):
        action, sub = _chain(action, sub, fn, _decide.FIRST_USER_ID + k)
    u_regroup = rejit(_regroup.regroup, decide_sub=sub)
    u_panic = rejit(panic_push, decide_sub=sub, regroup=u_regroup)
    u_opening = rejit(opening, panic_push=u_panic)
    u_execute = rejit(execute_turn, regroup=u_regroup, panic_push=u_panic)
    u_play_turn = rejit(play_turn, decide_action=action, execute_turn=u_execute)
    u_rollout = rejit(rollout_choose, execute_turn=u_execute, play_turn=u_play_turn)
    u_game = rejit(play_game, opening=u_opening, execute_turn=u_execute,
                    play_turn=u_play_turn, rollout_choose=u_rollout)
    kernels = Kernels(games_chunk=rejit(games_chunk, parallel=True, play_game=u_game),
                      trace_game=rejit(trace_game, play_game=u_game))
    _VARIANTS[user_fns] = kernels
    return kernels
