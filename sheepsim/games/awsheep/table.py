"""Asking a policy and logging events: the two things every rules step does.

``w`` is the block's scratch record (:class:`~.layout.Scratch`, from
:func:`~.kernels.new_scratch`): option rows ``w.opts``, the view ``w.player_view``, the
context ``w.ctx`` (``CTX_*``), the trace log ``w.log``, the streams ``w.streams``, each
seat's policy id ``w.seat_pid``.
"""

from sheepsim import rng
from sheepsim.jit import WROTE_INPUTS_CHOICE, njit
from sheepsim.plugins import ILLEGAL_CHOICE, WROTE_INPUTS

from .cards import hand_size, hix
from .knowledge import build_view
from .layout import (
    CTX_DEC_N,
    CTX_FAILURE,
    CTX_GAME,
    CTX_LOG_N,
    CTX_LOG_ON,
    CTX_PHASE,
    D_CHOICE,
    D_KIND,
    D_N,
    D_PHASE,
    D_SEAT,
    F_CHOICE,
    F_CODE,
    F_GAME,
    F_N,
    F_PID,
    F_SEAT,
    K_GUESS,
    LOG_HEAD,
    MAX_PLAYERS,
    N_KINDS,
    RANDOM,
    S_POLICY,
    ST_N_PLAYERS,
    ST_PILE_LEN,
    ST_RUN,
)
from .policies import decide


@njit
def ask(st, R, w, seat, kind, other, n, show_pos):
    """Index of the option ``seat``'s policy picks among ``w.opts[:n]`` (``n >= 1``).

    The policy gets the seat's view, exactly the ``n`` option rows of this decision
    (``opts.shape[0] == n``) and the seat's own stream of the phase only (row
    ``S_POLICY + ctx[CTX_PHASE] * MAX_PLAYERS + seat``); a lone option is taken without
    asking. Every answer is checked: one outside ``0..n-1`` (or a plug-in's report that
    it wrote to its inputs) is recorded as the chunk's failure (``ctx[CTX_FAILURE:]``,
    the first one only) and option 0 is played; once a policy has failed none is asked
    again, and the chunk stops after the round (the Python layer raises)."""
    if n == 1:
        return 0
    opts, view, ctx, streams, seat_pid = w.opts, w.player_view, w.ctx, w.streams, w.seat_pid
    if ctx[CTX_FAILURE + F_CODE] != 0:
        return 0  # the run is failing: finish this round without asking anyone
    pid = seat_pid[seat]
    row = S_POLICY + ctx[CTX_PHASE] * MAX_PLAYERS + seat  # the seat's own stream
    rand = streams[row:row + 1]
    if pid == RANDOM and kind != K_GUESS:
        i = rng.policy_randbelow(rand, n)  # the random policy reads nothing: no view
    else:
        build_view(st, R, seat, other, show_pos, view)
        # only this decision's rows: the scratch rows past n hold an earlier decision's
        # options, often a rival's hidden cards
        i = decide(pid, kind, view, opts[:n], n, rand)
    if i < 0 or i >= n:
        f = CTX_FAILURE
        ctx[f + F_CODE] = WROTE_INPUTS if i == WROTE_INPUTS_CHOICE else ILLEGAL_CHOICE
        ctx[f + F_GAME] = ctx[CTX_GAME]
        ctx[f + F_SEAT] = seat
        ctx[f + F_PID] = pid
        ctx[f + F_CHOICE] = i
        ctx[f + F_N] = n
        return 0
    if ctx[CTX_LOG_ON] != 0 and ctx[CTX_LOG_N] + ctx[CTX_DEC_N] < w.log.shape[0]:
        d = w.log[w.log.shape[0] - 1 - ctx[CTX_DEC_N]]  # decisions fill the log from its end
        ctx[CTX_DEC_N] += 1
        d[D_SEAT] = seat
        d[D_PHASE] = ctx[CTX_PHASE]
        d[D_KIND] = kind
        d[D_N] = n
        d[D_CHOICE] = i
    return i


@njit
def log_event(st, w, ev, seat, kind, target, a, b):
    """Append a trace row ``[ev, seat, kind, target, a, b, run, pile_len, sizes, hands]``
    when tracing (``ctx[CTX_LOG_ON]``) and the log has room."""
    ctx, log = w.ctx, w.log
    if ctx[CTX_LOG_ON] == 0 or ctx[CTX_LOG_N] + ctx[CTX_DEC_N] >= log.shape[0]:
        return
    row = log[ctx[CTX_LOG_N]]
    ctx[CTX_LOG_N] += 1
    row[:] = 0
    row[0] = ev
    row[1] = seat
    row[2] = kind
    row[3] = target
    row[4] = a
    row[5] = b
    row[6] = st[ST_RUN]
    row[7] = st[ST_PILE_LEN]
    for s in range(st[ST_N_PLAYERS]):
        row[LOG_HEAD + s] = hand_size(st, s)
        for k in range(N_KINDS):
            row[LOG_HEAD + MAX_PLAYERS + s * N_KINDS + k] = st[hix(s, k)]
