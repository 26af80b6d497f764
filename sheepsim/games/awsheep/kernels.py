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
from sheepsim.games.awsheep.layout import FIRST_USER_ID
from sheepsim.jit import njit, rebind, user_policy_chain, variant_key

from .cards import sheep_value
from .engine import play_round, play_round_replaced
from .layout import (
    A_FAILURE,
    CTX_FAILURE,
    CTX_GAME,
    CTX_LEN,
    CTX_LOG_ON,
    CTX_PHASE,
    CTX_ROTATION,
    CV_D,
    CV_D_SQ,
    CV_DH,
    CV_HOLDERS,
    CV_HOLDERS_SQ,
    CV_ONLY_REPLACED,
    CV_ONLY_WITH,
    CV_WINS,
    CV_WINS_REPLACED,
    F_CODE,
    FAIL_WIDTH,
    LOG_WIDTH,
    MAX_LOG,
    MAX_OPTS,
    MAX_PLAYERS,
    N_GAME_STREAMS,
    N_KINDS,
    N_STREAMS,
    OPT_WIDTH,
    PHASE_DRAFT,
    PHASE_PLAY,
    R_DRAFT,
    R_GOLDEN_WORTH,
    R_N_PLAYERS,
    S_DRAFT,
    S_POLICY,
    SHEEP,
    ST_LEN,
    ST_N_PLAYERS,
    ST_START_HAND,
    ST_WINNER,
    V_LEN,
    Scratch,
)
from .policies import decide
from .tally import seat_group as _seat_group
from .tally import tally


def new_scratch(log_rows) -> Scratch:
    """The :class:`~.layout.Scratch` record of one block of games: numpy arrays, allocated
    in Python (see :class:`Kernels`); ``log`` has ``log_rows`` rows (filled only when
    tracing: events from the top, decisions from the bottom)."""
    return Scratch(opts=np.zeros((MAX_OPTS, OPT_WIDTH), dtype=np.int64),
                   player_view=np.zeros(V_LEN, dtype=np.int64),
                   ctx=np.zeros(CTX_LEN, dtype=np.int64),
                   log=np.zeros((log_rows, LOG_WIDTH), dtype=np.int64),
                   streams=np.zeros((N_STREAMS, 2), dtype=np.uint64),
                   seat_pid=np.zeros(MAX_PLAYERS, dtype=np.int64),
                   hands=np.zeros(MAX_PLAYERS * N_KINDS, dtype=np.int64))


@njit
def start_game(w, pids, R, seed, game, rotate):
    """Key the streams for ``game`` and seat the policies (rotated if ``rotate``): the
    game's own rows by ``(seed, game, row)``, each seat's play (and, with the draft,
    draft) stream by ``(seed, game, seat, phase)``."""
    ctx, streams, seat_pid = w.ctx, w.streams, w.seat_pid
    n = R[R_N_PLAYERS]
    for p in range(N_GAME_STREAMS):
        rng.seed_stream(streams, p, seed, game)
    for s in range(n):
        rng.seed_policy_stream(streams, S_POLICY + s, seed, game, s, PHASE_PLAY)
        if R[R_DRAFT]:
            rng.seed_policy_stream(streams, S_DRAFT + s, seed, game, s, PHASE_DRAFT)
    r = game % n if rotate else 0
    ctx[CTX_ROTATION] = r
    ctx[CTX_PHASE] = PHASE_PLAY
    ctx[CTX_GAME] = game
    for s in range(n):
        seat_pid[s] = pids[(s - r) % n]


@njit
def failed(w, acc):
    """Whether a policy failed in this chunk; if so its record goes to ``acc``'s
    ``A_FAILURE`` fields (the caller stops: the Python layer raises)."""
    ctx = w.ctx
    if ctx[CTX_FAILURE + F_CODE] == 0:
        return False
    for j in range(FAIL_WIDTH):
        acc[A_FAILURE + j] = ctx[CTX_FAILURE + j]
    return True


@njit
def winner_slot(st, w):
    n = st[ST_N_PLAYERS]
    return (st[ST_WINNER] - w.ctx[CTX_ROTATION]) % n


@njit
def seat_group(w, st, s):
    return _seat_group(w.seat_pid, w.ctx[CTX_ROTATION], st, s)


@njit
def accumulate(acc, st, w):
    """Add one finished round to ``acc`` (``ACC_LEN`` int64, :func:`.tally.tally`)."""
    tally(acc, st, w.seat_pid, w.ctx[CTX_ROTATION])


@njit
def fill_rounds(R, pids, seed, first_game, n_games, rotate, acc, w, st):
    """Rounds ``first_game .. first_game + n_games - 1`` added to ``acc`` (``ACC_LEN``);
    ``w`` (:func:`new_scratch`) and the state ``st`` ``(ST_LEN,)`` the chunk's."""
    for g in range(first_game, first_game + n_games):
        start_game(w, pids, R, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc, st, w)
        if failed(w, acc):
            return


@njit
def fill_compare(R, pids_a, pids_b, seed, first_game, n_games, rotate, acc_a, acc_b, pairs,
                 w, st):
    """Every round played twice on the same streams, with slot policies ``pids_a`` and
    ``pids_b``; ``pairs[slot]`` counts ``[both won, only a won, only b won]`` for the
    policy in that slot (``(MAX_PLAYERS, 3)`` int64)."""
    for g in range(first_game, first_game + n_games):
        start_game(w, pids_a, R, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc_a, st, w)
        wa = winner_slot(st, w)
        start_game(w, pids_b, R, seed, g, rotate)
        play_round(st, R, w)
        accumulate(acc_b, st, w)
        wb = winner_slot(st, w)
        if wa == wb:
            pairs[wa, 0] += 1
        else:
            pairs[wa, 1] += 1
            pairs[wb, 2] += 1
        if failed(w, acc_a):
            return


@njit
def fill_outcomes(R, pids, seed, first_game, n_games, rotate, winners, scores, acc, w, st):
    """Rounds as in :func:`fill_rounds`, also per round the winning seat
    (``winners[i]``) and every seat's flock value at the end (``scores[i, seat]``)."""
    n = R[R_N_PLAYERS]
    worth = R[R_GOLDEN_WORTH]
    for i in range(n_games):
        start_game(w, pids, R, seed, first_game + i, rotate)
        winners[i] = play_round(st, R, w)
        for s in range(n):
            scores[i, s] = sheep_value(st, s, worth)
        accumulate(acc, st, w)
        if failed(w, acc):
            return


@njit
def fill_card_value(R, pids, seed, first_game, n_games, rotate, acc, cv, w, st):
    """Card value on common random numbers: every round is played as dealt (added to
    ``acc``) and then, for every seat and every non-sheep kind in its starting hand
    (after the draft), replayed with one card of that kind replaced by a plain sheep
    (:func:`~.engine.play_round_replaced`), the streams keyed as in the plain round and
    the public deck the replay's (one card of that kind fewer, one sheep more).
    ``cv`` ``(MAX_PLAYERS, N_KINDS, CV_WIDTH)`` gets, per policy group and kind, the
    round's holders H and the paired win difference D (layout ``CV_*``)."""
    n = R[R_N_PLAYERS]
    seat_pid = w.seat_pid
    R_replay = R.copy()  # the replay's rules: the deck with the replacement
    for g in range(first_game, first_game + n_games):
        start_game(w, pids, R, seed, g, rotate)
        win = play_round(st, R, w)
        accumulate(acc, st, w)
        for i in range(n * N_KINDS):
            w.hands[i] = st[ST_START_HAND + i]
        for k in range(N_KINDS):
            if k == SHEEP:
                continue
            for s in range(n):
                grp = seat_group(w, st, s)
                if grp != (s - w.ctx[CTX_ROTATION]) % n:
                    continue  # each policy group once, at the seat of its first slot
                pid = seat_pid[s]
                h = 0
                d = 0
                for t in range(n):
                    if seat_pid[t] != pid or w.hands[t * N_KINDS + k] == 0:
                        continue
                    start_game(w, pids, R, seed, g, rotate)
                    won_with = 1 if t == win else 0
                    won_replaced = 1 if play_round_replaced(st, R, w, t, k, R_replay) == t else 0
                    h += 1
                    d += won_with - won_replaced
                    cv[grp, k, CV_WINS] += won_with
                    cv[grp, k, CV_WINS_REPLACED] += won_replaced
                    if won_with > won_replaced:
                        cv[grp, k, CV_ONLY_WITH] += 1
                    elif won_replaced > won_with:
                        cv[grp, k, CV_ONLY_REPLACED] += 1
                cv[grp, k, CV_HOLDERS] += h
                cv[grp, k, CV_HOLDERS_SQ] += h * h
                cv[grp, k, CV_D] += d
                cv[grp, k, CV_D_SQ] += d * d
                cv[grp, k, CV_DH] += d * h
        if failed(w, acc):
            return


@njit
def fill_trace(R, pids, seed, game, rotate, st, w):
    """One round with its event log and decision log (``w``'s ``(MAX_LOG, ...)``); the
    final state is left in ``st``, the log lengths and any policy failure in ``w``'s
    context (``CTX_LOG_N``, ``CTX_DEC_N``, ``CTX_FAILURE``)."""
    start_game(w, pids, R, seed, game, rotate)
    w.ctx[CTX_LOG_ON] = 1
    play_round(st, R, w)


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

    def card_value_chunk(self, R, pids, seed, first_game, n_games, rotate, acc, cv):
        """:func:`fill_card_value` with the chunk's scratch."""
        self.fill_card_value(R, pids, seed, first_game, n_games, rotate, acc, cv,
                             new_scratch(1), _state())

    def trace_round(self, R, pids, seed, game, rotate, st):
        """One round traced (:func:`fill_trace`); the final state is left in ``st``.
        Returns the scratch: its event log ``w.log[:ctx[CTX_LOG_N]]``, its decision log
        (``w.log``'s last ``ctx[CTX_DEC_N]`` rows, last row first) and any policy failure
        ``ctx[CTX_FAILURE:]``."""
        w = new_scratch(MAX_LOG)
        self.fill_trace(R, pids, seed, game, rotate, st, w)
        return w


def _state():
    return np.zeros(ST_LEN, dtype=np.int64)


ENTRY_KERNELS = ("fill_rounds", "fill_compare", "fill_outcomes", "fill_card_value",
                 "fill_trace")
BUILTIN = Kernels(**{name: globals()[name] for name in ENTRY_KERNELS})


@functools.lru_cache(maxsize=16)
def kernels_for(user_fns: tuple = ()) -> Kernels:
    """Kernels where policy id ``FIRST_USER_ID + k`` calls ``user_fns[k]`` (one variant
    per tuple per process, cached on disk by :func:`sheepsim.jit.variant_key`); with no
    user policy, the cached built-in kernels."""
    if not user_fns:
        return BUILTIN
    repl = {decide: user_policy_chain(decide, user_fns, FIRST_USER_ID)}
    with warnings.catch_warnings():
        # rebind passes the kernels' own jit options on, numba's "nopython" among
        # them, which numba.njit reports as ignored: harmless
        warnings.filterwarnings("ignore", "nopython is set for njit", RuntimeWarning)
        key = variant_key(user_fns)
        return Kernels(**{name: rebind(globals()[name], repl, key) for name in ENTRY_KERNELS})
