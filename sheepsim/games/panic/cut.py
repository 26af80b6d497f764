"""Shear Panic's plug-in seats on the harness: a plug-in's turn cut at every decision.

The machine (:mod:`.machine`) plays a built-in seat's whole turn with the direct-call
code (slot ``own``); a plug-in cannot be called from there (the harness asks it, through
its guard), so a plug-in seat's turn is a state machine instead: it stops before each of
its decisions with the decision's kind and legal options (``to_move``), and ``apply``
plays the plug-in's choice and the chance that follows, up to the next decision or the
turn's end. It plays the turn exactly as :mod:`.turns` does (the same geometry, track
and scoring kernels in the same order, the dice from the DICE stream): the same games as
the engine with the same plug-ins, the same decisions with the same options and view.

Where a plug-in seat's turn stops (the decisions :func:`.policies.decide.decide_sub`
and the menu count, so the harness counts them as the machine counts a built-in
seat's): the menu action (a lone one too), a panic push or Ewe Turn, each regroup
round's smallest group when there are several (a lone one is moved without a decision,
as in the engine) and its route (a lone one too). The harness takes a lone option
without asking, as the engine does.

These functions replace the machine's ``to_move``, ``apply`` and ``own`` in a line-up
with plug-ins (:func:`plugged_slots`); a built-in line-up's kernel never
compiles them. The turn's registers are the block ``c = st[CUT:CUT + CUT_LEN]`` of the
machine's state (``C_*`` below), zeroed with the state before every game.
"""

import numpy as np

from sheepsim import rng
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.geometry.flockops import (
    alive_mask,
    apply_action,
    count_colour,
    legal_actions,
    push_from,
)
from sheepsim.games.panic.geometry.groups import (
    link_group,
    main_of,
    move_group,
    routes_to,
    side_contacts,
    slides_with,
    smallest_of,
)
from sheepsim.games.panic.geometry.regroup import MAX_REGROUP_ROUNDS
from sheepsim.games.panic.machine import (
    CUT,
    CUT_LEN,
    M_PHASE,
    M_PID,
    M_SEAT,
    T_COUNTER,
    T_GAIN,
    X_ON,
    flush_counts,
    note,
    note_refusals,
    note_to_log,
    pushed,
    stretch,
)
from sheepsim.games.panic.policies.decide import FIRST_USER_ID
from sheepsim.games.panic.scratch import ZERO
from sheepsim.games.panic.track import advance_and_score, final_event, own_sheep
from sheepsim.games.panic.turns import MAX_PANIC_ROLLS
from sheepsim.jit import kernel

# the registers: the pending decision's kind + 1 (0: none), the seat, an opening push or
# a turn, where the regrouping returns, its side contacts, live sheep, group, rounds and
# dice, the face its routes were listed for (-1: slides), the panic die's colour, and
# the turn's tile, counter when chosen and points before it (the tile statistics)
C_PENDING, C_SEAT, C_OPENING, C_RET, C_LO, C_HI, C_ALIVE, C_MASK, C_ROUNDS, C_ROLLS, \
    C_FACE, C_PANIC_FACE, C_TILE, C_COUNTER, C_BEFORE, C_N = range(16)
assert C_N < CUT_LEN  # C_N: the pending decision's options (a trace's decision log)
# where a regrouping returns: after the menu action (step B), after shearing, after a
# panic (or opening) push
RET_ACTION, RET_SHEAR, RET_PANIC = 0, 1, 2
# what the turn's functions return: stopped before a decision, or the turn is over
DONE, PAUSED = 0, 1


@kernel(inline="always")
def regs(st):
    """The cut turn's registers in the state ``st``."""
    return st[CUT:CUT + CUT_LEN]


@kernel
def roll(R, n_at, faces_at, dice):
    """A die whose faces are ``R[faces_at : faces_at + R[n_at]]``, from the DICE stream
    (``dice``: its one row), as :func:`..scratch.roll_die` rolls in a real game."""
    return R[faces_at + rng.randbelow(dice, ZERO, R[n_at])]


@kernel(inline="always")
def pause(c, kind):
    c[C_PENDING] = 1 + kind
    return PAUSED


@kernel
def finish(st, c, R, acted):
    """The turn is over: an opening push hands on to the next seat's (the turns start
    after the last); a turn counts (:func:`.turns.execute_turn`'s end, the tile's
    statistics as the machine keeps them) and the next seat is up
    (:func:`.turns.after_turn`, without its trace events). Returns DONE."""
    seat = c[C_SEAT]
    players = R[L.R_N_PLAYERS]
    c[C_PENDING] = 0
    if c[C_OPENING]:
        pushed(st, players)
        return DONE
    if acted:
        st[L.ST_TURNS] += 1
        st[L.ST_LAST_ACTOR] = seat
        k = seat * L.MAX_TILES + c[C_TILE]
        st[T_COUNTER + k] = c[C_COUNTER]
        st[T_GAIN + k] = st[L.ST_SCORE + seat] - c[C_BEFORE]
        st[L.ST_PASSES] = 0
    else:
        st[L.ST_PASSES] += 1
        note(st, np.int64(L.EV_PASS), seat, ZERO, ZERO, ZERO)
    if st[L.ST_ENDED] == 0 and st[L.ST_PASSES] >= players:
        final_event(st, R)
        st[L.ST_ENDED] = 1
        st[L.ST_END_REASON] = L.END_MENUS
        note(st, np.int64(L.EV_END), np.int64(L.END_MENUS), ZERO, ZERO, ZERO)
    st[M_SEAT] = (seat + 1) % players
    return DONE


@kernel
def panic_roll(st, c, R, dice):
    """:func:`.turns.panic_push` up to its decision: the panic die rolled (colours with
    no sheep left rolled again). PAUSED at the push or the Ewe Turn, else DONE (the
    turn is over)."""
    st[L.ST_PREV_DIE] = 1
    for _ in range(MAX_PANIC_ROLLS):
        face = roll(R, np.int64(L.R_N_PANIC_FACES), np.int64(L.R_PANIC_FACES), dice)
        note(st, np.int64(L.EV_PANIC_DIE), face, c[C_SEAT], ZERO, ZERO)
        if face == L.WHITE_FACE:
            return pause(c, L.K_PANIC_TURN)
        if face < L.N_COLOURS and count_colour(st, face) > 0:
            c[C_PANIC_FACE] = face
            return pause(c, L.K_PANIC_PUSH)
    return finish(st, c, R, True)


@kernel
def begin(st, c, R, seat, opts, dice):
    """Start ``seat``'s opening push, or its turn when it has no menu action to choose
    (no sheep left, no legal option: it passes): PAUSED before the push's decision, or
    DONE (the turn is over). ``opts``: room to list options in. (A turn with a menu
    action starts at :func:`to_move`, which lists them.)"""
    c[C_SEAT] = seat
    if st[M_PHASE] < R[L.R_N_PLAYERS]:
        c[C_OPENING] = 1
        note(st, np.int64(L.EV_OPENING), seat, ZERO, ZERO, ZERO)
        return panic_roll(st, c, R, dice)
    c[C_OPENING] = 0
    if own_sheep(st, R, seat) == 0:
        return finish(st, c, R, False)
    note_refusals(st, R, seat)
    if legal_actions(st, R, seat, opts) == 0:
        return finish(st, c, R, False)
    return pause(c, L.K_ACTION)


@kernel
def regroup_begin(st, c, ret):
    lo, hi = side_contacts(st)
    c[C_LO] = lo
    c[C_HI] = hi
    c[C_ALIVE] = alive_mask(st)  # no sheep leaves the flock while it regroups
    c[C_ROUNDS] = 0
    c[C_ROLLS] = 0
    c[C_RET] = ret


@kernel
def list_routes(st, c, R, opts):
    """The routes of the group ``c[C_MASK]`` into ``opts`` for the regroup die's face
    ``c[C_FACE]`` (-1: the group's slides without a roll); how many."""
    mask = c[C_MASK]
    if c[C_FACE] < 0:
        return slides_with(st, c[C_LO], c[C_HI], mask, opts)
    return routes_to(st, main_of(c[C_LO], c[C_HI], c[C_ALIVE], mask), mask, c[C_FACE],
                     R[L.R_PLUS_FALLBACK], opts)


@kernel
def routes(st, c, R, opts, dice):
    """The group ``c[C_MASK]`` was chosen: its slides, else a roll of the regroup die and
    the routes for it (:func:`..geometry.regroup.regroup`); how many."""
    nr = ZERO
    c[C_FACE] = -1
    if R[L.R_SLIDE_WITHOUT_ROLL]:
        nr = slides_with(st, c[C_LO], c[C_HI], c[C_MASK], opts)
    if nr == 0:
        c[C_FACE] = roll(R, np.int64(L.R_N_REGROUP_FACES), np.int64(L.R_REGROUP_FACES), dice)
        note(st, np.int64(L.EV_REGROUP_DIE), c[C_FACE], ZERO, ZERO, ZERO)
        c[C_ROLLS] += 1
        nr = list_routes(st, c, R, opts)
    return nr


@kernel
def regroup(st, c, R, opts, dice):
    """Regroup rounds (:func:`..geometry.regroup.regroup`) until a decision (PAUSED), then
    the rest of the turn after the regrouping: scoring and shearing after the menu
    action, the panic after that, or the turn's end after a panic push. ``opts``: room
    to list options in."""
    while True:
        if c[C_ROUNDS] < MAX_REGROUP_ROUNDS:
            n = smallest_of(c[C_LO], c[C_HI], c[C_ALIVE], opts)
            if n > 1:
                return pause(c, L.K_GROUP)
            if n == 1:  # a lone smallest group: moved without a decision
                c[C_MASK] = opts[0, 0]
                note(st, np.int64(L.EV_GROUP), c[C_MASK], n, ZERO, ZERO)
                if routes(st, c, R, opts, dice) > 0:
                    return pause(c, L.K_ROUTE)
        # the flock is together (or the group has no route): the regrouping is over
        rolls = c[C_ROLLS]
        if rolls > 0:  # (.turns.add_rolls)
            st[L.ST_REGROUP_ROLLS] += rolls
            st[L.ST_PREV_DIE] = 1
        ret = c[C_RET]
        if ret == RET_PANIC:
            return finish(st, c, R, True)
        if ret == RET_ACTION:  # steps C and D; shearing regroups the flock again
            seat = c[C_SEAT]
            removed = advance_and_score(st, R, seat, R[L.R_TILE_TIME + c[C_TILE]])
            note(st, np.int64(L.EV_SCORE), seat, st[L.ST_SCORE + seat] - c[C_BEFORE], ZERO,
                 ZERO)
            if removed:
                note(st, np.int64(L.EV_SHEAR), removed, ZERO, ZERO, ZERO)
                regroup_begin(st, c, RET_SHEAR)
                continue
        # step E
        if st[L.ST_COUNTER] >= R[L.R_TRACK_LEN]:
            st[L.ST_ENDED] = 1
            st[L.ST_END_REASON] = L.END_PEN
            note(st, np.int64(L.EV_END), np.int64(L.END_PEN), ZERO, ZERO, ZERO)
        elif R[L.R_PANIC + st[L.ST_COUNTER]]:
            st[L.ST_PANICS] += 1
            return panic_roll(st, c, R, dice)
        return finish(st, c, R, True)


@kernel
def move_route(st, c, opts, choice):
    """Move the group along route ``opts[choice]``: one regroup round played."""
    move_group(st, opts[choice, 0], opts[choice, 1], opts[choice, 2], opts[choice, 3])
    note(st, np.int64(L.EV_ROUTE), opts[choice, 0], opts[choice, 1], opts[choice, 2],
         opts[choice, 3])
    lo, hi = link_group(st, c[C_LO], c[C_HI], c[C_MASK])
    c[C_LO] = lo
    c[C_HI] = hi
    c[C_ROUNDS] += 1


@kernel
def resume(st, c, R, seat, kind, opts, choice, dice):
    """Play choice ``opts[choice]`` of ``seat``'s decision of ``kind`` (the menu action
    :func:`to_move` listed, or the pending decision) and what follows it, up to the next
    decision (PAUSED) or the turn's end (DONE). ``opts`` is reused."""
    c[C_PENDING] = 0
    if kind == L.K_ACTION:  # (.turns.execute_turn)
        c[C_SEAT] = seat
        c[C_OPENING] = 0
        tile = opts[choice, 0]
        a = opts[choice, 1]
        b = opts[choice, 2]
        action = R[L.R_TILE_KIND + tile]
        c[C_TILE] = tile
        c[C_COUNTER] = st[L.ST_COUNTER]
        c[C_BEFORE] = st[L.ST_SCORE + seat]
        st[L.ST_USED + seat * L.MAX_TILES + tile] = 1
        st[L.ST_PREV_KIND] = action
        st[L.ST_PREV_TARGET] = a
        st[L.ST_PREV_DIR] = b
        st[L.ST_PREV_DIE] = 0
        apply_action(st, action, a, b)
        note(st, np.int64(L.EV_ACTION), tile, a, b, seat)
        regroup_begin(st, c, RET_ACTION)
    elif kind == L.K_GROUP:
        c[C_MASK] = opts[choice, 0]
        note(st, np.int64(L.EV_GROUP), c[C_MASK], c[C_N], ZERO, ZERO)
        if routes(st, c, R, opts, dice) > 0:
            return pause(c, L.K_ROUTE)
        c[C_ROUNDS] = MAX_REGROUP_ROUNDS  # no route: the regrouping is over
    elif kind == L.K_ROUTE:
        move_route(st, c, opts, choice)
    elif kind == L.K_PANIC_PUSH:
        push_from(st, opts[choice, 0], opts[choice, 1])
        note(st, np.int64(L.EV_PANIC_PUSH), opts[choice, 0], opts[choice, 1], c[C_SEAT], ZERO)
        regroup_begin(st, c, RET_PANIC)
    else:  # K_PANIC_TURN: the turn is over
        apply_action(st, np.int64(L.EWE_TURN), ZERO, opts[choice, 0])
        note(st, np.int64(L.EV_PANIC_TURN), opts[choice, 0], c[C_SEAT], ZERO, ZERO)
        return finish(st, c, R, True)
    return regroup(st, c, R, opts, dice)


@kernel
def options(st, c, R, opts):
    """The pending decision's legal options into ``opts`` (``layout``'s encoding of its
    kind, unused columns 0); how many."""
    kind = c[C_PENDING] - 1
    if kind == L.K_ACTION:
        return legal_actions(st, R, c[C_SEAT], opts)
    if kind == L.K_GROUP:
        return smallest_of(c[C_LO], c[C_HI], c[C_ALIVE], opts)
    if kind == L.K_ROUTE:
        return list_routes(st, c, R, opts)
    if kind == L.K_PANIC_TURN:
        for i in range(2):
            for j in range(L.OPT_WIDTH):
                opts[i, j] = 0
        opts[0, 0] = L.TURN_RIGHT
        opts[1, 0] = L.TURN_LEFT
        return np.int64(2)
    face = c[C_PANIC_FACE]  # K_PANIC_PUSH: every live sheep of the colour, every way
    n = ZERO
    for s in range(L.N_SHEEP):
        if st[L.ST_ALIVE + s] and st[L.ST_COLOUR + s] == face:
            for d in range(8):
                opts[n, 0] = s
                opts[n, 1] = d
                opts[n, 2] = 0
                opts[n, 3] = 0
                n += 1
    return n


# ------------------------------------------------ the slots for a line-up with plug-ins
@kernel
def to_move(st, R, opts):
    """The plug-in seat's pending decision, or the menu action of a plug-in seat whose
    turn starts (listed here, once); else the seat to move with no options: the
    machine's ``own`` plays on (a built-in seat's turn, a plug-in seat's opening push or
    a turn it passes)."""
    if st[L.ST_ENDED]:
        return np.int64(-1), ZERO, ZERO
    c = regs(st)
    if c[C_PENDING]:
        n = options(st, c, R, opts)
        c[C_N] = n
        return c[C_SEAT], c[C_PENDING] - 1, n
    seat = st[M_SEAT]
    if (st[M_PID + seat] >= FIRST_USER_ID and st[M_PHASE] >= R[L.R_N_PLAYERS]
            and own_sheep(st, R, seat) > 0):
        n = legal_actions(st, R, seat, opts)
        if n > 0:
            c[C_N] = n
            return seat, np.int64(L.K_ACTION), n
    return seat, ZERO, ZERO


@kernel
def apply(st, R, seat, kind, opts, choice, chance):
    c = regs(st)
    if st[X_ON]:  # a trace: the refusals before a menu action; the decision, if asked
        if kind == L.K_ACTION:
            note_refusals(st, R, seat)
        if c[C_N] > 1:
            note(st, np.int64(L.EV_DECISION), seat, kind, c[C_N], choice)
    resume(st, c, R, seat, kind, opts, choice, chance)


@kernel
def builtin(pids, pid):
    """``pid``, or None when ``pids`` is None (every built-in seat plays random)."""
    if pids is None:
        return None
    return pid


@kernel(inline="always")
def stretches(st, R, streams, w, report, played, pids, playouts):
    """The machine's stretches (:func:`.machine.stretches`) up to a plug-in seat's first
    decision: a plug-in seat's turn is started here (it may have none). ``pids`` None:
    every built-in seat plays random; ``playouts`` as there. The counts of the built-in
    seats' decisions go to ``report`` before it returns (the game may end in a plug-in's
    turn, where nothing else would)."""
    rows = 0
    c = regs(st)
    first = True
    while rows < played.shape[0] and st[L.ST_ENDED] == 0:
        seat = st[M_SEAT]
        pid = st[M_PID + seat]
        if pid >= FIRST_USER_ID:
            # a turn to_move lists (the first seat here had nothing to list)
            if not first and st[M_PHASE] >= R[L.R_N_PLAYERS]:
                break
            first = False
            paused = begin(st, c, R, seat, w.opts, streams[0:1]) == PAUSED
            if st[X_ON]:  # its events so far after the stretches' before it
                note_to_log(st, w)
            if paused:
                break
            continue
        first = False
        played[rows, 0] = seat
        played[rows, 1] = stretch(st, R, seat, streams, w, report, builtin(pids, pid),
                                  playouts)
        for s in range(R[L.R_N_PLAYERS]):
            played[rows, 2 + s] = st[L.ST_SCORE + s]
        rows += 1
    flush_counts(w.ctx, report)
    return rows


@kernel
def own(st, R, seat, streams, w, report, played):
    return stretches(st, R, streams, w, report, played, ZERO, ZERO)


#: the slots :func:`plugged_slots` binds for a line-up with plug-ins
SLOTS = {"to_move": to_move, "apply": apply, "own": own}


def plugged_slots(builtins):
    """The slots that replace the machine's in a line-up with plug-ins (the harness finds
    this function through :data:`.machine.PLUGGED_SLOTS`), whatever built-in ids
    ``builtins`` it seats: a plug-in seat's turn cut at every decision, every built-in
    id dispatched (:func:`.machine.own_variant`: one entry per game for every line-up
    with plug-ins, the one ``sheepsim cache warm`` compiles)."""
    return dict(SLOTS)
