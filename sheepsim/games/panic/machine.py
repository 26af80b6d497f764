"""PROTOTYPE: Shear Panic on the harness, a built-in seat's whole turn played by the
machine with the direct-call code (slot ``own``)."""

import numpy as np

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.engine import accumulate, init_state
from sheepsim.games.panic.engine import winner as panic_winner
from sheepsim.games.panic.policies.decide import ROLLOUT, ROLLOUT_V1
from sheepsim.games.panic.policies.rollout import rollout_turn
from sheepsim.games.panic.scratch import new_scratch as panic_scratch
from sheepsim.games.panic.turns import after_turn, panic_push, play_turn
from sheepsim.jit import kernel

RULES = ()
KINDS = L.KIND_NAMES
MAX_OPTIONS = L.MAX_OPTS
OPTION_WIDTH = L.OPT_WIDTH
VIEW_LEN = L.VIEW_LEN
TALLY_LEN = L.ACC_LEN

B = L.ST_LEN
M_PHASE = B  # opening pushes made (players: the turns)
M_SEAT = B + 1  # the seat to move
M_WIN = B + 2
M_PID = B + 3  # MAX_PLAYERS: each seat's policy id
STATE_LEN = M_PID + L.MAX_PLAYERS
# scratch after the state (zeroed once a chunk): per (seat, tile) used this game the
# counter when it was chosen and the points it gained (read only where ST_USED is set)
T_COUNTER = STATE_LEN
T_GAIN = T_COUNTER + L.MAX_PLAYERS * L.MAX_TILES
SCRATCH_LEN = 2 * L.MAX_PLAYERS * L.MAX_TILES
OWN_STRETCHES = 16


def state_size(players):
    return STATE_LEN


def new_scratch(players, R):
    return panic_scratch(1, 4)


@kernel
def start(st, R, players, chance):
    init_state(st, R)


@kernel
def seated(st, R, seat_pid):
    for s in range(seat_pid.shape[0]):
        st[M_PID + s] = seat_pid[s]


@kernel
def to_move(st, R, opts):
    if st[L.ST_ENDED]:
        return np.int64(-1), np.int64(0), np.int64(0)
    return st[M_SEAT], np.int64(0), np.int64(0)


@kernel(inline="always")  # one call with the scratch a turn, not two
def stretch(st, R, seat, streams, w, report, pid, playouts):
    """``own`` with the seat's policy id ``pid`` (None: every seat plays random) and
    ``playouts`` (None: no seat plays rollout): numba prunes by type what they rule out."""
    ctx = w.ctx
    ws = w.streams
    ws[rng.DICE, 0] = streams[0, 0]
    ws[rng.DICE, 1] = streams[0, 1]
    ws[rng.POLICY, 0] = streams[1 + seat, 0]
    ws[rng.POLICY, 1] = streams[1 + seat, 1]
    ctx[L.CTX_COUNT_ON] = 1
    players = R[L.R_N_PLAYERS]
    phase = st[M_PHASE]
    if phase < players:  # the opening push
        panic_push(st, R, seat, pid, w)
        phase += 1
        st[M_PHASE] = phase
        if phase == players:
            st[L.ST_PREV_KIND] = -1
            st[L.ST_PREV_DIE] = 0
            st[M_SEAT] = 0
        else:
            st[M_SEAT] = phase
    else:
        ctx[L.CTX_LAST_TILE] = -1
        if playouts is not None:
            if pid == ROLLOUT or pid == ROLLOUT_V1:
                acted = rollout_turn(st, R, seat, pid, w)
            else:
                acted = play_turn(st, R, seat, pid, w.opts, w)
        else:
            acted = play_turn(st, R, seat, pid, w.opts, w)
        if acted:
            k = seat * L.MAX_TILES + ctx[L.CTX_LAST_TILE]
            st[T_COUNTER + k] = ctx[L.CTX_LAST_COUNTER]
            st[T_GAIN + k] = ctx[L.CTX_LAST_GAIN]
        st[M_SEAT] = after_turn(st, R, seat, acted, w)
    streams[0, 0] = ws[rng.DICE, 0]
    streams[0, 1] = ws[rng.DICE, 1]
    streams[1 + seat, 0] = ws[rng.POLICY, 0]
    streams[1 + seat, 1] = ws[rng.POLICY, 1]
    d = ctx[L.CTX_COUNTS]
    ctx[L.CTX_COUNTS] = 0
    if st[L.ST_ENDED]:  # the game's counts to the harness
        flush_counts(ctx, report)
    return d


@kernel(inline="always")
def stretches(st, R, seat, streams, w, report, played, playouts):
    rows = 0
    while rows < played.shape[0] and st[L.ST_ENDED] == 0:
        seat = st[M_SEAT]
        pid = st[M_PID + seat]
        played[rows, 0] = seat
        played[rows, 1] = stretch(st, R, seat, streams, w, report, pid, playouts)
        for s in range(R[L.R_N_PLAYERS]):
            played[rows, 2 + s] = st[L.ST_SCORE + s]
        rows += 1
    return rows


@kernel
def own(st, R, seat, streams, w, report, played):
    return stretches(st, R, seat, streams, w, report, played, np.int64(0))


@kernel
def own_no_rollout(st, R, seat, streams, w, report, played):
    return stretches(st, R, seat, streams, w, report, played, None)


@kernel
def own_random(st, R, seat, streams, w, report, played):
    rows = 0
    while rows < played.shape[0] and st[L.ST_ENDED] == 0:
        seat = st[M_SEAT]
        played[rows, 0] = seat
        played[rows, 1] = stretch(st, R, seat, streams, w, report, None, None)
        for s in range(R[L.R_N_PLAYERS]):
            played[rows, 2 + s] = st[L.ST_SCORE + s]
        rows += 1
    return rows


def own_variant(builtins):
    """The name of the ``own`` for a line-up seating the built-in ids ``builtins``."""
    if set(builtins) <= {0}:
        return "own_random"
    if not set(builtins) & {2, 5}:
        return "own_no_rollout"
    return "own"


@kernel
def flush_counts(ctx, report):
    asked = 0
    for k in range(L.K_KINDS):
        dec = ctx[L.CTX_COUNTS + 1 + k]
        forced = ctx[L.CTX_COUNTS + 1 + 2 * L.K_KINDS + k]
        asked += dec - forced
        report[1 + k] = dec
        report[1 + L.K_KINDS + k] = ctx[L.CTX_COUNTS + 1 + L.K_KINDS + k]
        report[1 + 2 * L.K_KINDS + k] = forced
    report[0] = asked
    for j in range(3 * L.K_KINDS):
        ctx[L.CTX_COUNTS + 1 + j] = 0


@kernel
def apply(st, R, seat, kind, opts, choice, chance):
    return


@kernel
def scores(st, R, out):
    for s in range(out.shape[0]):
        out[s] = st[L.ST_SCORE + s]


@kernel
def winner(st, R):
    win = panic_winner(st, R)
    st[M_WIN] = win
    return win


@kernel
def view(st, R, seat, out):
    out[L.V_SEAT] = seat
    for j in range(L.ST_LEN):
        out[L.V_STATE + j] = st[j]
    for j in range(L.R_LEN):
        out[L.V_RULES + j] = R[j]


@kernel
def decide(pid, kind, view, opts, n, rand):
    return rng.policy_randbelow(rand, n)


@kernel
def tally(st, R, acc, seat_pid, rotation):
    accumulate(acc, st, R, st[M_WIN])
    for k in range(R[L.R_N_PLAYERS] * L.MAX_TILES):
        if st[L.ST_USED + k]:
            acc[L.A_TILE_N + k] += 1
            acc[L.A_TILE_COUNTER + k] += st[T_COUNTER + k]
            acc[L.A_TILE_GAIN + k] += st[T_GAIN + k]
