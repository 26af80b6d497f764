"""Whole Shear Panic games as numba kernels: the game loop, the winner, entry kernels.

A game is keyed by ``(seed, game index)``: dice come from the DICE stream, every policy
choice from the deciding seat's own policy stream (common random numbers across
policies; replacing one seat's policy leaves the other seats' draws unchanged: see
:mod:`.policies.decide`). A choice that breaks the policy contract stops the game and the chunk
(:func:`.policies.decide.checked`); :meth:`Kernels.games_chunk` reports it. The kernels are
serial and release the GIL: the driver runs chunks on a thread pool.
:meth:`Kernels.games_chunk` allocates a scratch once per chunk and :func:`fill_games`
fills one integer accumulator vector per block of games (layout ``A_*``); summing the
blocks gives the same totals for any thread count or chunk size. The turns are in
:mod:`.turns`, the rollout policy in :mod:`.policies.rollout`.

**What gets compiled.** ``pids`` is None when every seat plays ``random`` and
``playouts`` is None when no seat plays ``rollout`` (:func:`kernel_policies`); numba
prunes the branches these select by type, so a random-only run compiles neither the
greedy machinery nor the rollout playouts, and a greedy run no rollout.

**Fewer levels, less compilation.** numba compiles every kernel into a library of its
own and links the libraries of the kernels it calls into it, so each kernel on the way
from :func:`fill_games` down re-optimizes and re-generates the machine code of
everything below it (LLVM's time per kernel is about that of its whole call tree). The
kernels with one caller on that way, :func:`play_game`, :func:`.turns.opening` and
:func:`.turns.execute_turn`, are therefore ``inline="always"``: numba copies them into
their caller before typing and compiles no library for them. Measured on a cold
``panic play --players 4 --games 200``: 39-45 s of compile CPU instead of 50-55 s, and
games run as fast as before. ``play_turn`` stays a kernel: numba prunes its branches on
``pid is None`` only where ``pid`` is the kernel's own argument.
"""

import functools
import types

import numpy as np

from sheepsim.games.panic.layout import (
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
    CTX_FAIL_CHOICE,
    CTX_FAIL_CODE,
    CTX_FAIL_GAME,
    CTX_FAIL_N,
    CTX_FAIL_SEAT,
    CTX_GAME,
    CTX_LAST_COUNTER,
    CTX_LAST_GAIN,
    CTX_LAST_TILE,
    MAX_FIELDS,
    MAX_TILES,
    MAX_TURN_HIST,
    N_COLOURS,
    N_SHEEP,
    R_N_PLAYERS,
    R_START_COL,
    R_START_COLOUR,
    R_START_FACING,
    R_START_ROW,
    ST_ALIVE,
    ST_COL,
    ST_COLOUR,
    ST_END_REASON,
    ST_ENDED,
    ST_FACING,
    ST_FIELD_PTS,
    ST_LAST_ACTOR,
    ST_LEN,
    ST_PANICS,
    ST_PREV_KIND,
    ST_REGROUP_ROLLS,
    ST_ROW,
    ST_SCORE,
    ST_SHORN,
    ST_TIE_BREAK,
    ST_TURNS,
)
from sheepsim.games.panic.policies import decide as _decide
from sheepsim.games.panic.policies.decide import (
    RANDOM,
    ROLLOUT,
    ROLLOUT_V1,
    park_seat_stream,
    seed_game_streams,
    take_seat_stream,
)
from sheepsim.games.panic.policies.rollout import rollout_turn
from sheepsim.games.panic.scratch import ZERO, new_scratch
from sheepsim.games.panic.track import own_sheep
from sheepsim.games.panic.turns import after_turn, opening, play_turn, policy_of
from sheepsim.jit import kernel, rebind, user_policy_chain, variant_key


# ------------------------------------------------------------------------- setup
@kernel
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


# ------------------------------------------------------------------------- games
@kernel(inline="always")
def play_game(st, R, pids, playouts, w, acc):
    """Play one game (streams already keyed); per-turn tile statistics go to ``acc``.
    ``pids`` ``(players,)`` policy ids or None (every seat random); ``playouts`` None
    when no seat plays rollout (then the rollout turn is not compiled). Returns the
    winning seat. Inlined into its caller (see the module docstring); the choice of turn
    kernel is written out here for the same reason."""
    ctx = w.ctx
    init_state(st, R)
    opening(st, R, pids, w)
    seat = ZERO
    while st[ST_ENDED] == 0 and ctx[CTX_FAIL_CODE] == 0:
        ctx[CTX_LAST_TILE] = -1
        acted = False
        take_seat_stream(w.streams, seat)
        if playouts is not None:
            if pids[seat] == ROLLOUT or pids[seat] == ROLLOUT_V1:
                acted = rollout_turn(st, R, seat, pids[seat], w)
            else:
                acted = play_turn(st, R, seat, pids[seat], w.opts, w)
        else:
            acted = play_turn(st, R, seat, policy_of(pids, seat), w.opts, w)
        park_seat_stream(w.streams, seat)
        if acted:
            k = seat * MAX_TILES + ctx[CTX_LAST_TILE]
            acc[A_TILE_N + k] += 1
            acc[A_TILE_COUNTER + k] += ctx[CTX_LAST_COUNTER]
            acc[A_TILE_GAIN + k] += ctx[CTX_LAST_GAIN]
        seat = after_turn(st, R, seat, acted, w)
    return winner(st, R)


@kernel
def winner(st, R):
    """Most points; tie: most own sheep left; tie: who would play earliest next (the
    seat after the last one to act, clockwise). Records which rule decided."""
    n_players = R[R_N_PLAYERS]
    first = st[ST_LAST_ACTOR] + 1
    best = np.int64(-1)
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


@kernel
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
@kernel
def fill_games(R, pids, seed, start, count, playouts, w, st, acc):
    """Games ``start .. start+count-1``, serially, added to ``acc`` ``(n_blocks,
    ACC_LEN)`` int64 (zeroed): the sums over consecutive blocks of games (``n_blocks =
    count``: one row per game). ``pids`` and ``playouts`` as :func:`play_game` (see
    :func:`kernel_policies`); ``w`` a :func:`.scratch.new_scratch` record and ``st`` a
    state vector for the chunk (a game starts from init_state and fresh streams).
    Returns early, the game unfinished, at a choice that broke the policy contract
    (recorded in ``w.ctx``: :func:`failure`)."""
    n_blocks = acc.shape[0]
    per = (count + n_blocks - 1) // n_blocks
    for b in range(n_blocks):
        row = acc[b]
        for i in range(b * per, min(count, (b + 1) * per)):
            w.ctx[CTX_GAME] = start + i
            seed_game_streams(w.streams, seed, start + i)
            win = play_game(st, R, pids, playouts, w, row)
            if w.ctx[CTX_FAIL_CODE] != 0:
                return
            accumulate(row, st, R, win)


def failure(ctx) -> tuple | None:
    """``(code, game, seat, choice, n)`` of the first choice that broke the policy
    contract in the kernels whose context vector is ``ctx`` (``sheepsim.plugins``
    codes), or None."""
    if ctx[CTX_FAIL_CODE] == 0:
        return None
    return tuple(int(ctx[k]) for k in (CTX_FAIL_CODE, CTX_FAIL_GAME, CTX_FAIL_SEAT,
                                       CTX_FAIL_CHOICE, CTX_FAIL_N))


def kernel_policies(pids, playouts):
    """The ``pids`` and ``playouts`` arguments of the entry kernels for a line-up: None
    for ``pids`` when every seat plays random and for ``playouts`` when no seat plays
    rollout, so that only the kernels the line-up needs are compiled."""
    pids = np.asarray(pids, dtype=np.int64)
    has_rollout = bool(((pids == ROLLOUT) | (pids == ROLLOUT_V1)).any())
    return (None if (pids == RANDOM).all() else pids), (int(playouts) if has_rollout else None)


# ---------------------------------------------------------- user-policy variants
class Kernels(types.SimpleNamespace):
    """The entry kernel for one set of policies (``fill_games``) and the Python call
    that allocates its arrays: the kernels allocate nothing, so numba
    compiles none of numpy's allocation routines for them (about 2 s of every cold
    compile, measured with the compile listener of ``benchmarks/bench_compile.py``)."""

    def games_chunk(self, R, pids, seed, start, count, n_blocks, playouts):
        """Games ``start .. start+count-1``; returns ``(acc, failure)``: the
        ``(n_blocks, ACC_LEN)`` int64 sums over consecutive blocks of games
        (:func:`fill_games`) and None, or the first choice that broke the policy
        contract (:func:`failure`; the sums are then incomplete)."""
        acc = np.zeros((n_blocks, ACC_LEN), dtype=np.int64)
        w = new_scratch(1, playouts)  # one scratch for the chunk
        self.fill_games(R, pids, seed, start, count, playouts, w,
                        np.zeros(ST_LEN, dtype=np.int64), acc)
        return acc, failure(w.ctx)

BUILTIN = Kernels(fill_games=fill_games)


@functools.lru_cache(maxsize=16)
def kernels_for(user_fns: tuple = ()) -> Kernels:
    """Kernels where policy id ``FIRST_USER_ID + k`` calls ``user_fns[k]``; any other
    unknown id raises. With no user policy: the cached built-in kernels. One variant per
    tuple of functions per process, cached on disk by :func:`sheepsim.jit.variant_key`.

    The one policy dispatch :func:`.policies.decide.decide` is extended to them by
    :func:`sheepsim.jit.user_policy_chain` (copies of the view and options, writes
    reported); which functions are recompiled is derived (:func:`sheepsim.jit.rebind`):
    every kernel function that reaches ``decide``, nothing listed here.
    """
    if not user_fns:
        return BUILTIN
    swap = {_decide.decide: user_policy_chain(_decide.decide, user_fns, _decide.FIRST_USER_ID)}
    key = variant_key(user_fns)
    return Kernels(**{name: rebind(kernel, swap, key) for name, kernel in vars(BUILTIN).items()})
