"""The Shear Panic kernels' scratch record, and the kernels that read and write it for
every other one: the die roll and the trace log.

Every kernel below the entry points receives the game state ``st``, the rules vector
``R`` and **one** scratch record ``w`` (:class:`Scratch`, a named tuple of arrays that
:func:`new_scratch` allocates once per chunk of games) instead of a dozen loose arrays:
the random streams, the context vector, option lists, value rows, look-ahead states and
the trace log. numba passes the record's arrays through calls as one argument and
reads its fields as plain values.

The kernels are :func:`sheepsim.jit.kernel` (cached, ``nogil``, numba's
reference-counting runtime (NRT) switched off): no kernel allocates, the record is
allocated in Python (:func:`new_scratch`, called by the job), so every array
a kernel touches is owned by the Python caller that allocated it. Only the calls into
user policies (which may allocate) keep the NRT.

:func:`roll_die` rolls a die from the record's scripted faces or random streams (the
panic die of a turn, the regroup die of the regrouping); :func:`log_event` appends a
row to its trace log.
"""

from collections import namedtuple

import numpy as np

from sheepsim import rng
from sheepsim.games.panic.layout import (
    CTX_DICE_PURPOSE,
    CTX_FACE_LEN,
    CTX_FACE_POS,
    CTX_FACES,
    CTX_LEN,
    CTX_LOG_N,
    CTX_LOG_ON,
    CTX_ROLLOUT_PLAYOUTS,
    CTX_SCRIPT,
    CTX_SCRIPT_LEN,
    DECISION_WIDTH,
    LOG_HEAD,
    LOG_WIDTH,
    MAX_LOG,
    MAX_OPTS,
    MAX_PLAYERS,
    MAX_SUB_OPTS,
    N_SHEEP,
    OPT_WIDTH,
    ST_COUNTER,
    ST_FACING,
    ST_LEN,
    ST_ROW,
    ST_SCORE,
    VIEW_LEN,
)
from sheepsim.jit import kernel

#: Row of ``streams`` holding seat 0's own policy stream (seat ``s``: ``SEAT_STREAMS + s``),
#: after the game's DICE, DEAL and POLICY rows; the POLICY row holds the stream of the
#: seat whose turn it is (see :func:`.machine.stretch`).
SEAT_STREAMS = rng.N_PURPOSES

# The look-ahead memo's shape (see .lookahead; not imported from there: it imports this).
MEMO_SLOTS = 256
MEMO_ROUTES = 8
MEMO_WIDTH = 2 + (2 * N_SHEEP + 4) + MEMO_ROUTES * OPT_WIDTH + 1
# greedy's memo of options that leave the same flock (see .optionmemo): key, positions
# after each face's regrouping, then OPT_MEMO_VALUES (time class, option) pairs
OPT_MEMO_SLOTS = MEMO_SLOTS
OPT_MEMO_VALUES = 4
OPT_MEMO_WIDTH = 2 + (2 * N_SHEEP + 4) + 2 * (2 * N_SHEEP) + 2 * OPT_MEMO_VALUES

#: Fields of the scratch record (shapes; ``ST_LEN`` rows are state vectors):
#:
#: * ``streams`` ``(N_PURPOSES + MAX_PLAYERS, 2)`` uint64: the game's random streams
#:   (DICE, DEAL, POLICY: the deciding seat's stream), then each seat's own policy
#:   stream (:data:`SEAT_STREAMS`);
#: * ``ctx`` ``(CTX_LEN,)``: dice purpose, trace switch, scripted choices, last turn;
#: * ``opts`` ``(MAX_OPTS, OPT_WIDTH)``: the legal menu options of the turn;
#: * ``play_opts``: the same for the turns inside rollout playouts;
#: * ``groups`` ``(MAX_SUB_OPTS, OPT_WIDTH)``: sub-decision options (groups, routes,
#:   panic pushes) of the regrouping and panic kernels;
#: * ``routes``: routes the greedy valuation of a group lists;
#: * ``values`` ``(MAX_OPTS,)`` float64: greedy's value of each menu option;
#: * ``sub_values``: greedy's value of each sub-decision option;
#: * ``cand``, ``reg``, ``reg2``: greedy's look-ahead states (action applied; then
#:   regrouped for one die face, for the other);
#: * ``sub``: a flock moved by one sub-decision option; ``shear``: the flock after the
#:   imagined shearing of the positional score;
#: * ``play``: a rollout playout's state;
#: * ``log`` ``(rows, LOG_WIDTH)``: the trace (one row when no trace is kept);
#: * ``memo`` ``(MEMO_SLOTS, MEMO_WIDTH)``, ``memo_values`` ``(MEMO_SLOTS, MEMO_ROUTES)``
#:   float64: greedy's look-ahead memo of routes and their values (:mod:`.policies.lookahead`);
#: * ``opt_memo`` ``(OPT_MEMO_SLOTS, OPT_MEMO_WIDTH)``: greedy's memo of the flocks its
#:   options leave (:mod:`.policies.optionmemo`);
#: * ``policy_view`` ``(VIEW_LEN,)``: what a user policy is shown (``layout.V_*``; not
#:   ``view``, which numba reads as the array method);
#: * ``decisions`` ``(rows, DECISION_WIDTH)``: the trace's decision log (``layout.D_*``;
#:   as many rows as ``log``).
Scratch = namedtuple("Scratch", ["streams", "ctx", "opts", "play_opts", "groups", "routes",
                                 "values", "sub_values", "cand", "reg", "reg2", "sub",
                                 "shear", "play", "log", "memo", "memo_values",
                                 "opt_memo", "policy_view", "decisions"])


#: Integer constants that kernels pass to other kernels are ``np.int64``: numba compiles
#: a callee once per *literal* argument value (a Python ``0`` or ``K_GROUP``), but once
#: for all ``int64`` values. For the same reason a counter that starts at zero and is
#: passed to a kernel in a loop starts at :data:`ZERO` (numba would otherwise also
#: compile the callee for the literal it sees before the loop's type is settled).
ZERO = np.int64(0)


def new_scratch(log_rows, playouts):
    """A zeroed :class:`Scratch` (numpy arrays, allocated in Python) whose trace log
    holds ``log_rows`` rows (dice drawn from the DICE stream; streams not yet keyed);
    ``playouts`` per rollout candidate (None: no rollout seat)."""
    ctx = np.zeros(CTX_LEN, dtype=np.int64)
    ctx[CTX_DICE_PURPOSE] = rng.DICE
    if playouts is not None:
        ctx[CTX_ROLLOUT_PLAYOUTS] = playouts
    return Scratch(
        np.zeros((SEAT_STREAMS + MAX_PLAYERS, 2), dtype=np.uint64), ctx,
        np.zeros((MAX_OPTS, OPT_WIDTH), dtype=np.int64),
        np.zeros((MAX_OPTS, OPT_WIDTH), dtype=np.int64),
        np.zeros((MAX_SUB_OPTS, OPT_WIDTH), dtype=np.int64),
        np.zeros((MAX_SUB_OPTS, OPT_WIDTH), dtype=np.int64),
        np.zeros(MAX_OPTS, dtype=np.float64), np.zeros(MAX_OPTS, dtype=np.float64),
        np.zeros(ST_LEN, dtype=np.int64), np.zeros(ST_LEN, dtype=np.int64),
        np.zeros(ST_LEN, dtype=np.int64), np.zeros(ST_LEN, dtype=np.int64),
        np.zeros(ST_LEN, dtype=np.int64), np.zeros(ST_LEN, dtype=np.int64),
        np.zeros((log_rows, LOG_WIDTH), dtype=np.int64),
        np.zeros((MEMO_SLOTS, MEMO_WIDTH), dtype=np.int64),
        np.zeros((MEMO_SLOTS, MEMO_ROUTES), dtype=np.float64),
        np.zeros((OPT_MEMO_SLOTS, OPT_MEMO_WIDTH), dtype=np.int64),
        np.zeros(VIEW_LEN, dtype=np.int64),
        np.zeros((log_rows, DECISION_WIDTH), dtype=np.int64))


@kernel
def copy_state(dst, src, length):
    """``dst[:length] = src[:length]`` for two state vectors (a loop: slice assignment
    needs the NRT); ``length`` is ``ST_LEN`` or ``LOOKAHEAD_LEN``."""
    for i in range(length):
        dst[i] = src[i]


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
def log_event(st, w, ev, a, b, c, d):
    """Append a trace row (event, 4 parameters, the flock, the counter) when logging.
    Callers pass ``np.int64`` event codes and zeros (see :data:`ZERO`)."""
    ctx = w.ctx
    if ctx[CTX_LOG_ON] == 0:
        return
    i = ctx[CTX_LOG_N]
    if i >= MAX_LOG:
        return
    event_row(w.log[i], st, ev, a, b, c, d)
    ctx[CTX_LOG_N] = i + 1


@kernel(inline="always")
def event_row(row, st, ev, a, b, c, d):
    """A trace row (``LOG_WIDTH`` entries): the event, its 4 parameters, the flock, the
    facing, the counter and the scores of ``st`` now."""
    row[0] = ev
    row[1] = a
    row[2] = b
    row[3] = c
    row[4] = d
    for k in range(3 * N_SHEEP):
        row[LOG_HEAD + k] = st[ST_ROW + k]
    row[LOG_HEAD + 3 * N_SHEEP] = st[ST_FACING]
    row[LOG_HEAD + 3 * N_SHEEP + 1] = st[ST_COUNTER]
    for k in range(MAX_PLAYERS):
        row[LOG_HEAD + 3 * N_SHEEP + 2 + k] = st[ST_SCORE + k]


def scripted_scratch(faces=(), choices=(), seed_game=(0, 0)):
    """A :class:`Scratch` for kernels driven by hand (the Flock class, tests): the die
    shows ``faces`` in order, the ``SCRIPTED`` policy answers ``choices`` in order,
    the trace log (``MAX_LOG`` rows) is on, and the streams are keyed with
    ``seed_game`` (only reached when the scripted faces run out)."""
    w = new_scratch(MAX_LOG, None)
    ctx = w.ctx
    ctx[CTX_LOG_ON] = 1
    ctx[CTX_SCRIPT_LEN] = len(choices)
    ctx[CTX_SCRIPT:CTX_SCRIPT + len(choices)] = choices
    ctx[CTX_FACE_LEN] = len(faces)
    ctx[CTX_FACES:CTX_FACES + len(faces)] = faces
    rng.seed_streams(w.streams, *seed_game)
    return w
