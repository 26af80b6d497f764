"""Entry kernels: chunks of rounds filling integer counts, paired comparisons, a trace.

A round is keyed by ``(seed, game index)``: its streams (:mod:`.layout` ``S_*``) are
re-keyed for every game, so totals depend only on the seed and the game range, never on
how games are split into chunks or threads. Kernels are serial and release the GIL (the
driver runs chunks on threads).

``pids`` holds one policy id per *slot*; with ``rotate`` the slots move round the table
by one seat per game (game ``g`` puts slot ``j`` at seat ``(j + g) % n``), so every
policy plays every seat equally often and per-policy counts are seat-fair.
"""

import functools
import types
import warnings

import numpy as np

from sheepsim import rng
from sheepsim.jit import fresh_copies, njit, rebind, variant_key

from .cards import hand_size, hix, sheep_value
from .engine import play_round
from .layout import (
    A_BAD_CHOICES,
    A_END,
    A_GAMES,
    A_GOLDEN_END_HELD,
    A_GOLDEN_END_WINS,
    A_OUT,
    A_SHOW_CARDS,
    A_START_N,
    A_START_WINS,
    A_TURN_HIST,
    A_TURNS,
    A_TURNS_SQ,
    A_WINS,
    A_WINS_BY_ORDER,
    A_WINS_BY_SLOT,
    CTX_BAD,
    CTX_LEN,
    CTX_LOG_N,
    CTX_LOG_ON,
    CTX_PURPOSE,
    CTX_ROTATION,
    GOLDEN,
    LOG_WIDTH,
    MAX_LOG,
    MAX_OPTS,
    MAX_PLAYERS,
    MAX_TURNS,
    N_KINDS,
    N_STREAMS,
    OPT_WIDTH,
    R_GOLDEN_WORTH,
    R_N_PLAYERS,
    S_POLICY,
    ST_END_REASON,
    ST_FIRST,
    ST_LEN,
    ST_N_PLAYERS,
    ST_SHOW_CARDS,
    ST_START_HAND,
    ST_TURNS,
    ST_WINNER,
    START_STRIDE,
    V_LEN,
)
from .policies import decide


def new_scratch(log_rows):
    """``(opts, view, ctx, log, streams, seat_pid)`` for one block of games: numpy arrays,
    allocated in Python (see :class:`Kernels`)."""
    return (np.zeros((MAX_OPTS, OPT_WIDTH), dtype=np.int64), np.zeros(V_LEN, dtype=np.int64),
            np.zeros(CTX_LEN, dtype=np.int64), np.zeros((log_rows, LOG_WIDTH), dtype=np.int64),
            np.zeros((N_STREAMS, 2), dtype=np.uint64), np.zeros(MAX_PLAYERS, dtype=np.int64))


@njit
def start_game(w, pids, n, seed, game, rotate):
    """Key the streams for ``game`` and seat the policies (rotated if ``rotate``)."""
    ctx, streams, seat_pid = w[2], w[4], w[5]
    rng.seed_streams(streams, seed, game)
    r = game % n if rotate else 0
    ctx[CTX_ROTATION] = r
    ctx[CTX_PURPOSE] = S_POLICY
    for s in range(n):
        seat_pid[s] = pids[(s - r) % n]


@njit
def winner_slot(st, w):
    n = st[ST_N_PLAYERS]
    return (st[ST_WINNER] - w[2][CTX_ROTATION]) % n


@njit
def accumulate(acc, st, w):
    """Add one finished round to ``acc`` (``ACC_LEN`` int64)."""
    n = st[ST_N_PLAYERS]
    win = st[ST_WINNER]
    r = w[2][CTX_ROTATION]
    acc[A_GAMES] += 1
    acc[A_WINS + win] += 1
    acc[A_WINS_BY_SLOT + (win - r) % n] += 1
    acc[A_WINS_BY_ORDER + (win - st[ST_FIRST]) % n] += 1
    acc[A_END + st[ST_END_REASON]] += 1
    t = st[ST_TURNS]
    acc[A_TURNS] += t
    acc[A_TURNS_SQ] += t * t
    acc[A_TURN_HIST + min(t, MAX_TURNS)] += 1
    acc[A_SHOW_CARDS] += st[ST_SHOW_CARDS]
    for s in range(n):
        slot = (s - r) % n
        for k in range(N_KINDS):
            c = st[ST_START_HAND + s * N_KINDS + k]
            i = (slot * N_KINDS + k) * START_STRIDE + c
            acc[A_START_N + i] += 1
            if s == win:
                acc[A_START_WINS + i] += 1
        if hand_size(st, s) == 0:
            acc[A_OUT + s] += 1
        if st[hix(s, GOLDEN)] > 0:
            acc[A_GOLDEN_END_HELD] += 1
            if s == win:
                acc[A_GOLDEN_END_WINS] += 1


@njit
def fill_rounds(R, pids, seed, first_game, n_games, rotate, acc, w, st):
    """Rounds ``first_game .. first_game + n_games - 1`` added to ``acc`` (``ACC_LEN``);
    ``w`` (:func:`new_scratch`) and the state ``st`` ``(ST_LEN,)`` the chunk's."""
    n = R[R_N_PLAYERS]
    for g in range(first_game, first_game + n_games):
        start_game(w, pids, n, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc, st, w)
    acc[A_BAD_CHOICES] += w[2][CTX_BAD]


@njit
def fill_compare(R, pids_a, pids_b, seed, first_game, n_games, rotate, acc_a, acc_b, pairs,
                 w, st):
    """Every round played twice on the same streams, with slot policies ``pids_a`` and
    ``pids_b``; ``pairs[slot]`` counts ``[both won, only a won, only b won]`` for the
    policy in that slot (``(MAX_PLAYERS, 3)`` int64)."""
    n = R[R_N_PLAYERS]
    for g in range(first_game, first_game + n_games):
        start_game(w, pids_a, n, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc_a, st, w)
        wa = winner_slot(st, w)
        start_game(w, pids_b, n, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc_b, st, w)
        wb = winner_slot(st, w)
        if wa == wb:
            pairs[wa, 0] += 1
        else:
            pairs[wa, 1] += 1
            pairs[wb, 2] += 1
    acc_a[A_BAD_CHOICES] += w[2][CTX_BAD]


@njit
def fill_outcomes(R, pids, seed, first_game, n_games, rotate, winners, scores, acc, w, st):
    """Rounds as in :func:`fill_rounds`, also per round the winning seat
    (``winners[i]``) and every seat's flock value at the end (``scores[i, seat]``)."""
    n = R[R_N_PLAYERS]
    worth = R[R_GOLDEN_WORTH]
    for i in range(n_games):
        start_game(w, pids, n, seed, first_game + i, rotate)
        winners[i] = play_round(st, R, w)
        for s in range(n):
            scores[i, s] = sheep_value(st, s, worth)
        accumulate(acc, st, w)
    acc[A_BAD_CHOICES] += w[2][CTX_BAD]


@njit
def fill_trace(R, pids, seed, game, rotate, st, w):
    """One round with its event log (``w``'s log ``(MAX_LOG, LOG_WIDTH)``); the final
    state is left in ``st``. Returns the number of log rows and of refused choices."""
    start_game(w, pids, R[R_N_PLAYERS], seed, game, rotate)
    w[2][CTX_LOG_ON] = 1
    play_round(st, R, w)
    return w[2][CTX_LOG_N], w[2][CTX_BAD]


def new_log() -> np.ndarray:
    return np.zeros((MAX_LOG, LOG_WIDTH), dtype=np.int64)


# ---------------------------------------------------------- user-policy variants
class Kernels(types.SimpleNamespace):
    """The entry kernels for one set of policies (``fill_*``) and the Python calls that
    allocate their arrays: the kernels allocate nothing, so numba compiles none of
    numpy's allocation routines for them."""

    def rounds_chunk(self, R, pids, seed, first_game, n_games, rotate, acc):
        """:func:`fill_rounds` with the chunk's scratch."""
        self.fill_rounds(R, pids, seed, first_game, n_games, rotate, acc, new_scratch(1),
                         _state())

    def compare_chunk(self, R, pids_a, pids_b, seed, first_game, n_games, rotate, acc_a,
                      acc_b, pairs):
        """:func:`fill_compare` with the chunk's scratch."""
        self.fill_compare(R, pids_a, pids_b, seed, first_game, n_games, rotate, acc_a, acc_b,
                          pairs, new_scratch(1), _state())

    def outcomes_chunk(self, R, pids, seed, first_game, n_games, rotate, winners, scores,
                       acc):
        """:func:`fill_outcomes` with the chunk's scratch."""
        self.fill_outcomes(R, pids, seed, first_game, n_games, rotate, winners, scores, acc,
                           new_scratch(1), _state())

    def trace_round(self, R, pids, seed, game, rotate, st, log):
        """One round with its event log (``log`` ``(MAX_LOG, LOG_WIDTH)``, filled in
        place); the final state is left in ``st``. Returns ``(log rows, refused choices)``."""
        w = new_scratch(1)
        return self.fill_trace(R, pids, seed, game, rotate, st, (*w[:3], log, *w[4:]))


def _state():
    return np.zeros(ST_LEN, dtype=np.int64)


ENTRY_KERNELS = ("fill_rounds", "fill_compare", "fill_outcomes", "fill_trace")
BUILTIN = Kernels(**{name: globals()[name] for name in ENTRY_KERNELS})


def _chain(prev, fn, policy_id):
    """A ``decide`` that sends ``policy_id`` to the user's ``fn`` and the rest on."""
    from numba import njit as plain_njit

    @plain_njit
    def user_decide(pid, kind, view, opts, n, pstream):
        if pid == policy_id:
            return fn(kind, view, opts, n, pstream)
        return prev(pid, kind, view, opts, n, pstream)

    return user_decide


@functools.lru_cache(maxsize=16)
def kernels_for(user_fns: tuple = ()) -> Kernels:
    """Kernels where policy id ``FIRST_USER_ID + k`` calls ``user_fns[k]`` (one variant
    per tuple per process, cached on disk by :func:`sheepsim.jit.variant_key`); with no
    user policy, the cached built-in kernels."""
    from .layout import FIRST_USER_ID

    if not user_fns:
        return BUILTIN
    d = decide
    for k, fn in enumerate(fresh_copies(user_fns)):
        d = _chain(d, fn, FIRST_USER_ID + k)
    repl = {decide: d}
    with warnings.catch_warnings():
        # rebind passes the kernels' own jit options on, numba's "nopython" among
        # them, which numba.njit reports as ignored: harmless
        warnings.filterwarnings("ignore", "nopython is set for njit", RuntimeWarning)
        key = variant_key(user_fns)
        return Kernels(**{name: rebind(globals()[name], repl, key) for name in ENTRY_KERNELS})
