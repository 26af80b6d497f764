"""Asking a policy and logging events: the two things every rules step does.

The per-block scratch ``w`` is a tuple ``(opts, view, ctx, log, streams, seat_pid,
hands)`` (:func:`~.kernels.new_scratch`):
option rows ``(MAX_OPTS, 2)``, the view vector, the context vector (``CTX_*``), the trace
log ``(rows, LOG_WIDTH)``, the game's random streams ``(N_STREAMS, 2)`` and the policy id
of each seat for the current game.
"""

from sheepsim import rng
from sheepsim.jit import njit

from .cards import hand_size, hix
from .knowledge import build_view
from .layout import (
    CTX_BAD,
    CTX_LOG_N,
    CTX_LOG_ON,
    CTX_PURPOSE,
    K_GUESS,
    LOG_HEAD,
    MAX_PLAYERS,
    N_KINDS,
    RANDOM,
    ST_N_PLAYERS,
    ST_PILE_LEN,
    ST_RUN,
)
from .policies import decide


@njit
def ask(st, R, w, seat, kind, other, n, show_pos):
    """Index of the option ``seat``'s policy picks among ``w[0][:n]`` (``n >= 1``).

    The policy gets the seat's view, exactly the ``n`` option rows of this decision
    (``opts.shape[0] == n``) and the seat's own stream of the phase only
    (``ctx[CTX_PURPOSE] + seat``); a lone option
    is taken without asking. An answer out of range counts in ``ctx[CTX_BAD]`` (the
    Python layer reports it) and plays option 0."""
    if n == 1:
        return 0
    opts, view, ctx, streams, seat_pid = w[0], w[1], w[2], w[4], w[5]
    pid = seat_pid[seat]
    row = ctx[CTX_PURPOSE] + seat  # the seat's own stream of this phase
    pstream = streams[row:row + 1]
    if pid == RANDOM and kind != K_GUESS:
        return rng.randbelow(pstream, 0, n)  # the random policy reads nothing
    build_view(st, R, seat, other, show_pos, view)
    # only this decision's rows: the scratch rows past n hold an earlier decision's
    # options, often a rival's hidden cards
    i = decide(pid, kind, view, opts[:n], n, pstream)
    if i < 0 or i >= n:
        ctx[CTX_BAD] += 1
        return 0
    return i


@njit
def log_event(st, w, ev, seat, kind, target, a, b):
    """Append a trace row ``[ev, seat, kind, target, a, b, run, pile_len, sizes, hands]``
    when tracing (``ctx[CTX_LOG_ON]``) and the log has room."""
    ctx, log = w[2], w[3]
    if ctx[CTX_LOG_ON] == 0 or ctx[CTX_LOG_N] >= log.shape[0]:
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
