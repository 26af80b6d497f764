"""PROTOTYPE: Shear Panic on the harness, a built-in seat's whole turn played by the
machine with the direct-call code (slot ``own``)."""

import functools
import hashlib

import numpy as np

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import refused_tiles, reverse_dir
from sheepsim.games.panic.policies import decide as policy_decide
from sheepsim.games.panic.policies import greedy as policy_greedy
from sheepsim.games.panic.policies.decide import (
    GREEDY,
    RANDOM,
    ROLLOUT,
    ROLLOUT_V1,
    checked,
    count_decision,
    greedy_sub,
    policy_stream,
    randbelow,
)
from sheepsim.games.panic.policies.rollout import rollout_turn
from sheepsim.games.panic.scratch import ZERO, event_row, log_event
from sheepsim.games.panic.scratch import new_scratch as panic_scratch
from sheepsim.games.panic.state import accumulate, init_state
from sheepsim.games.panic.state import winner as panic_winner
from sheepsim.games.panic.turns import (
    MAX_PANIC_ROLLS,
    after_turn,
    log_refusals,
    panic_push,
    play_turn,
)
from sheepsim.jit import kernel, rebind

RULES = ()
KINDS = L.KIND_NAMES
MAX_OPTIONS = L.MAX_OPTS
OPTION_WIDTH = L.OPT_WIDTH
VIEW_LEN = L.VIEW_LEN
TALLY_LEN = L.ACC_LEN
#: a trace's event rows (slot ``own_events``): the event log's rows (``layout.LOG_WIDTH``)
#: and the decision log's (``layout.EV_DECISION``)
EVENT_WIDTH = L.LOG_WIDTH

B = L.ST_LEN
M_PHASE = B  # opening pushes made (players: the turns)
M_SEAT = B + 1  # the seat to move
M_WIN = B + 2
M_PID = B + 3  # MAX_PLAYERS: each seat's policy id
CUT = M_PID + L.MAX_PLAYERS  # CUT_LEN: a plug-in seat's turn (cut.py's registers)
CUT_LEN = 16
STATE_LEN = CUT + CUT_LEN
# scratch after the state (zeroed once a chunk): per (seat, tile) used this game the
# counter when it was chosen and the points it gained (read only where ST_USED is set)
T_COUNTER = STATE_LEN
T_GAIN = T_COUNTER + L.MAX_PLAYERS * L.MAX_TILES
# then, in a trace of a line-up with plug-ins, the cut turn's events (:mod:`.cut`: its
# apply has no scratch record to log in): the switch (slot trace_on), the rows held and
# the rows, moved by the slot events (after every apply) or into the scratch's log
# (own, after a plug-in seat's turn started)
X_ON = T_GAIN + L.MAX_PLAYERS * L.MAX_TILES
X_N = X_ON + 1
X_ROWS = X_N + 1
#: rows held between two moves: a decision's consequences up to the next decision or
#: the turn's end, at most the panic die's rolls and a dozen events more
X_CAP = MAX_PANIC_ROLLS + 16
SCRATCH_LEN = 2 * L.MAX_PLAYERS * L.MAX_TILES + 2 + X_CAP * L.LOG_WIDTH
OWN_STRETCHES = 16
OWN_BUILTINS = True  # own plays every built-in seat: built-ins alone run play_own_games


def state_size(players):
    return STATE_LEN


def new_scratch(players, R):
    return panic_scratch(1, 4)


@kernel
def start(st, R, players, chance):
    init_state(st[:L.ST_LEN], R)  # (the machine's entries are zeroed, its scratch kept)


@kernel
def seated(st, R, seat_pid):
    for s in range(seat_pid.shape[0]):
        st[M_PID + s] = seat_pid[s]


@kernel
def to_move(st, R, opts):
    if st[L.ST_ENDED]:
        return np.int64(-1), np.int64(0), np.int64(0)
    return st[M_SEAT], np.int64(0), np.int64(0)


@kernel(inline="always")
def pushed(st, players):
    """An opening push was made (by the machine or a plug-in seat's cut turn): the next
    seat pushes, or after the last the turns start at seat 0 with no previous action."""
    phase = st[M_PHASE] + 1
    st[M_PHASE] = phase
    if phase == players:
        st[L.ST_PREV_KIND] = -1
        st[L.ST_PREV_DIE] = 0
        st[M_SEAT] = 0
    else:
        st[M_SEAT] = phase


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
        log_event(st, w, np.int64(L.EV_OPENING), seat, ZERO, ZERO, ZERO)
        panic_push(st, R, seat, pid, w)
        pushed(st, players)
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


@kernel(inline="always")
def own(st, R, seat, streams, w, report, played):
    return stretches(st, R, seat, streams, w, report, played, np.int64(0))


@kernel(inline="always")
def own_no_rollout(st, R, seat, streams, w, report, played):
    return stretches(st, R, seat, streams, w, report, played, None)


@kernel(inline="always")
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
    """The name of the ``own`` bound in the entries that trace a line-up or seat a
    plug-in (:func:`.cut.plugged_slots`), whatever built-in ids ``builtins`` it seats:
    :func:`own`, every built-in id dispatched. So each of the two is one kernel per
    game, which ``sheepsim cache warm`` compiles (its trace and its plug-in line-up),
    not one per set of built-ins seated (10-35 CPU s each cold, 2026-12-07: a plug-in
    beside ``greedy`` compiled the plug-in entry anew after the warm-up). A trace is
    one game; a line-up with plug-ins beside ``random`` seats plays about as fast as
    with the pruned variant (0.90-1.01x games per CPU s with one trivial plug-in and
    two ``random`` seats, 0.94x with two of each, 2026-12-07); the line-ups of built-ins
    alone, whose speed counts most, play the own-only entry (:func:`own_only_variant`).
    The same games: a seat's id picks the same policy code in :func:`own` as in the
    variants that prune the others (``tests/panic/test_panic_pinned*.py``,
    ``tests/panic/test_panic_cut.py``)."""
    return "own"


def own_only_variant(builtins):
    """The name of the ``own`` the own-only entry binds (built-ins alone, never traced)
    for a line-up seating the built-in ids ``builtins``, so that what it rules out is not
    compiled: :func:`own_greedy` for ``greedy`` seats (with ``random`` ones),
    :func:`own_random` for ``random`` alone, :func:`own_no_rollout` without a
    ``rollout`` seat, else :func:`own`."""
    if set(builtins) in ({GREEDY}, {RANDOM, GREEDY}):
        return "own_greedy"
    if set(builtins) <= {RANDOM}:
        return "own_random"
    if not set(builtins) & {ROLLOUT, ROLLOUT_V1}:
        return "own_no_rollout"
    return "own"


# ------------------------------------------ the own of greedy seats (with random ones)
@kernel(inline="always")
def action_greedy(pid, st, R, seat, opts, n, w):
    """:func:`.policies.greedy.decide_action` where only ``greedy`` reaches it (random
    seats draw their menu option apart): its one branch, inlined into
    :func:`.turns.play_turn` (no level of its own to compile); another id raises as
    there."""
    if pid != GREEDY:
        raise ValueError("unknown Shear Panic policy id")
    return checked(policy_greedy.greedy_action_crn(st, R, seat, opts, n, w), n, seat,
                   np.int64(L.K_ACTION), w)


@kernel
def sub_greedy(pid, kind, st, R, seat, opts, n, w):
    """:func:`.policies.decide.decide_sub` for ``random`` and ``greedy`` seats alone:
    its two branches (no scripted choice; another id raises as there)."""
    count_decision(w.ctx, kind, n)
    if n == 1:
        return 0
    if pid == RANDOM:
        i = randbelow(policy_stream(w.streams), n)
    elif pid == GREEDY:
        i = greedy_sub(kind, st, R, seat, opts, n, w)
    else:
        raise ValueError("unknown Shear Panic policy id")
    return checked(i, n, seat, kind, w)


@kernel(inline="always")
def no_log(st, w, ev, a, b, c, d):
    """:func:`.scratch.log_event` where no trace is kept (the own-only entry)."""
    return


@kernel(inline="always")
def no_refusals(st, R, seat, w):
    """:func:`.turns.log_refusals` where no trace is kept."""
    return


#: what :func:`own_greedy` is, as ``sheepsim cache`` lists it (``"<what>: <which>"``)
GREEDY_LABEL = "Shear Panic's stretches in its own-only entry, untraced: greedy and random seats"


@functools.cache
def _own_greedy():
    """:func:`own_no_rollout` rebuilt (:func:`sheepsim.jit.rebind`, cached on disk) for
    the own-only entry of line-ups of ``greedy`` seats, with or without ``random`` ones:
    the menu choice and the sub-decisions reach no other policy (not ``greedy-v1``'s
    look-ahead, the scripted choices or the dispatch to ``decide``), ``greedy``'s menu
    choice is inlined into the turn, and the trace's logging is left out (that entry
    never traces). It plays the same games (``tests/panic/test_panic_pinned*.py``) and
    a cold ``panic play --policy greedy`` compiles about a fifth less
    (``benchmarks/README.md``, "Shear Panic on the harness"); a process that also
    traces ``greedy`` or seats it beside a plug-in compiles :func:`own_no_rollout`'s
    functions too."""
    swap = {policy_greedy.decide_action: action_greedy, policy_decide.decide_sub: sub_greedy,
            log_event: no_log, log_refusals: no_refusals}
    key = hashlib.sha256(b"sheepsim panic own_greedy").hexdigest()[:16]
    return rebind(own_no_rollout, swap, cache_key=key, builtin=GREEDY_LABEL)


def __getattr__(name):
    # own_greedy, which own_only_variant names: built on first use
    if name == "own_greedy":
        return _own_greedy()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the module whose ``plugged_slots(builtins)`` gives the slots that replace this
#: machine's in a line-up with plug-ins (:mod:`.cut`, which builds on this module: named,
#: not imported, so the two do not import each other)
PLUGGED_SLOTS = "sheepsim.games.panic.cut"


@kernel
def own_events(st, R, w, out):
    """Move the rows the stretches added to the trace's event log and decision log
    (``w.log``, ``w.decisions``: the turns fill them while ``ctx[CTX_LOG_ON]`` is set,
    a trace's scratch) since the last call to the first rows of ``out``: the events,
    then the decisions as ``[EV_DECISION, seat, kind, n, choice]``; returns the rows
    written (at most ``out.shape[0]``: the rest dropped). Each log keeps its own cap
    (``MAX_LOG`` rows a game, as the turns write them); a trace is one game."""
    ctx = w.ctx
    m = 0
    i = ctx[L.CTX_LOG_MOVED]
    while i < ctx[L.CTX_LOG_N] and m < out.shape[0]:
        for j in range(L.LOG_WIDTH):
            out[m, j] = w.log[i, j]
        i += 1
        m += 1
    ctx[L.CTX_LOG_MOVED] = i
    k = ctx[L.CTX_DECISIONS_MOVED]
    while k < ctx[L.CTX_DECISIONS_N] and m < out.shape[0]:
        for j in range(L.LOG_WIDTH):
            out[m, j] = 0
        out[m, 0] = L.EV_DECISION
        for j in range(L.DECISION_WIDTH):
            out[m, 1 + j] = w.decisions[k, j]
        k += 1
        m += 1
    ctx[L.CTX_DECISIONS_MOVED] = k
    return m


@kernel
def trace_on(st, R):
    st[X_ON] = 1


@kernel
def note(st, ev, a, b, c, d):
    """Record an event of the cut turn as :func:`.scratch.log_event` does (a trace
    only): after the state (``X_*``), moved by :func:`events` or :func:`note_to_log`."""
    if st[X_ON] == 0:
        return
    k = st[X_N]
    if k >= X_CAP:
        return
    st[X_N] = k + 1
    at = X_ROWS + k * L.LOG_WIDTH
    event_row(st[at:at + L.LOG_WIDTH], st, ev, a, b, c, d)


@kernel
def note_refusals(st, R, seat):
    """:func:`.turns.log_refusals` for the cut turn."""
    if st[X_ON] == 0:
        return
    tiles = refused_tiles(st, R, seat)
    if tiles:
        note(st, np.int64(L.EV_NO_REVERSE), tiles, st[L.ST_PREV_KIND], st[L.ST_PREV_TARGET],
             reverse_dir(st))


@kernel
def note_to_log(st, w):
    """The cut turn's events recorded so far appended to the scratch's event log (as
    :func:`.scratch.log_event` appends: while it has room), where the machine's own
    stretches log theirs, so that they keep their order within a call of ``own``."""
    ctx = w.ctx
    for k in range(st[X_N]):
        i = ctx[L.CTX_LOG_N]
        if i >= L.MAX_LOG:
            break
        at = X_ROWS + k * L.LOG_WIDTH
        for j in range(L.LOG_WIDTH):
            w.log[i, j] = st[at + j]
        ctx[L.CTX_LOG_N] = i + 1
    st[X_N] = 0


@kernel
def events(st, R, out):
    """The cut turn's events (and a plug-in's decision: ``layout.EV_DECISION``) since
    the last call, to ``out``."""
    m = min(st[X_N], out.shape[0])
    for k in range(m):
        at = X_ROWS + k * L.LOG_WIDTH
        for j in range(L.LOG_WIDTH):
            out[k, j] = st[at + j]
    st[X_N] = 0
    return m


@kernel(inline="always")
def flush_counts(ctx, report):
    """Add the decisions counted in ``ctx`` to ``report`` (zeroed before each game) and
    zero them: once at the game's end, or after every call of ``own`` (:mod:`.cut`)."""
    for k in range(L.K_KINDS):
        dec = ctx[L.CTX_COUNTS + 1 + k]
        forced = ctx[L.CTX_COUNTS + 1 + 2 * L.K_KINDS + k]
        report[0] += dec - forced
        report[1 + k] += dec
        report[1 + L.K_KINDS + k] += ctx[L.CTX_COUNTS + 1 + L.K_KINDS + k]
        report[1 + 2 * L.K_KINDS + k] += forced
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
