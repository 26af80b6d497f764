"""The ``greedy`` policy's menu choice (kernels) and :func:`decide_action`, the engine's
entry point for every menu choice (see :mod:`sheepsim.games.panic.policies` for what
greedy values; its sub-decisions and positional score are in :mod:`.decide`, its
look-ahead regrouping in :mod:`.lookahead` and :mod:`.optionmemo`).

Two menu choices live here: :func:`greedy_action_crn` (``greedy`` since issue 34) and
:func:`greedy_action` (``greedy-v1``, greedy as it was, byte for byte). They value
every option alike; ``greedy`` uses common random numbers within a decision (a flock's
look-ahead regrouping is computed and its ties drawn once per decision, not once per
option that leaves it), which lets it skip work ``greedy-v1`` must repeat:

* every regrouping is kept in the option memo, tie or not (``greedy-v1`` keeps only
  those that drew nothing: their repeats had to draw again at the same moment);
* an option takes the value of an earlier option that left the same flock with a tile
  of the same :func:`time_class` (the twin tile of the same action: Lamb Push of time 1
  and of time 3, ...; found without applying the action when the parameters match);
* its look-ahead (:mod:`.crnlookahead`) computes route values only where a choice
  needs them, and each option's side contacts come from the position's
  (:func:`relinked`).

The "X" regrouping is still taken from the "+" one only when that one was made of
corner slides alone *and broke no tie*: a first version that let one tie-break serve
both faces played measurably weaker (docs/performance-archive.md, issue 34).

On greedy games (4 players, one greedy seat, seed 1, 300 games; 2,841 decisions, 78
options each) ``greedy-v1`` ran 161,588 look-ahead regroupings, 57,931 of them only
because the same flock's earlier regrouping had broken a tie (counted with temporary
counters, not kept)."""

from __future__ import annotations

import numpy as np

from sheepsim.games.panic.geometry.flockops import alive_mask, apply_action
from sheepsim.games.panic.geometry.groups import (
    PER_WORD,
    add_contacts,
    connected_with,
    side_contacts,
)
from sheepsim.games.panic.layout import (
    CTX_MEMO_GEN,
    FACE_DIAG,
    FACE_ORTHO,
    K_ACTION,
    LOOKAHEAD_LEN,
    N_SHEEP,
    R_FIELD_GATE,
    R_FIELD_KIND,
    R_FIELD_LAST,
    R_N_FIELDS,
    R_N_REGROUP_FACES,
    R_REGROUP_FACES,
    R_TILE_KIND,
    R_TILE_TIME,
    R_TRACK_LEN,
    RAM,
    SHEARING,
    ST_COL,
    ST_COUNTER,
    ST_ROW,
    ST_SCORE,
)
from sheepsim.games.panic.policies.crnlookahead import lookahead_regroup as lookahead_regroup_crn
from sheepsim.games.panic.policies.decide import (
    GREEDY,
    GREEDY_V1,
    POSITION_WEIGHT,
    SCRIPTED,
    argmax_random_ties,
    ask_policy,
    checked,
    next_scripted,
    positional,
)
from sheepsim.games.panic.policies.lookahead import lookahead_regroup
from sheepsim.games.panic.policies.optionmemo import (
    BOTH_KNOWN,
    CONNECTED,
    CROSS_KNOWN,
    O_CROSS,
    O_PLUS,
    O_STATUS,
    PLUS_KNOWN,
    known_value,
    load_positions,
    option_slot,
    option_slot_crn,
    policy_state,
    remember_value,
    store_positions,
)
from sheepsim.games.panic.scratch import ZERO, copy_state
from sheepsim.games.panic.track import advance_and_score, field_of
from sheepsim.jit import kernel


@kernel(inline="always")
def _value_after(x, st, R, seat, time, w):
    """Move the counter and score on the look-ahead copy ``x``; value for ``seat``."""
    advance_and_score(x, R, seat, time)
    gained = x[ST_SCORE + seat] - st[ST_SCORE + seat]
    return gained + POSITION_WEIGHT * positional(x, R, seat, x[ST_COUNTER], w.shear)


@kernel
def _same_positions(x, y):
    """Do the look-ahead states ``x`` and ``y`` have every sheep in the same cell?"""
    for i in range(2 * N_SHEEP):
        if x[ST_ROW + i] != y[ST_ROW + i]:
            return False
    return True


#: What :func:`_regroup_face` did: the regrouping drew a number (nothing stored); its
#: positions are stored; they are stored and every move was a slide (any face: the same).
DREW, STORED, SLIDES_ONLY = 0, 1, 2


@kernel(inline="always")
def _regroup_face(cand, R, seat, w, reg, face, links, row, known, at):
    """``reg`` = ``cand`` regrouped with every die showing ``face``: the positions stored
    at ``row[at:]`` when ``known``, else the look-ahead regrouping, whose positions are
    stored when it drew nothing (see :mod:`.optionmemo`). Returns DREW, STORED or
    SLIDES_ONLY."""
    copy_state(reg, cand, LOOKAHEAD_LEN)
    if known:
        load_positions(reg, row, at)
        return STORED
    drawn = policy_state(w.streams)
    slides_only = lookahead_regroup(reg, R, seat, w, face, links)
    if policy_state(w.streams) != drawn:
        return DREW
    store_positions(row, at, reg)
    return SLIDES_ONLY if slides_only else STORED


@kernel(inline="always")
def _option_value(st, R, seat, tile, a, b, n_plus, n_cross, w):
    """Greedy's value of the menu option ``[tile, a, b]``: apply it to a copy, regroup for
    each regroup-die face (weighted by its share of the die, "+" first), score. What
    depends only on the flock the option leaves comes from ``w.opt_memo`` when an earlier
    option of this decision left the same flock (:mod:`.optionmemo`), and a "+"
    regrouping made of slides alone, without a tie, is the "X" one too."""
    time = R[R_TILE_TIME + tile]
    cand = w.cand
    copy_state(cand, st, LOOKAHEAD_LEN)
    apply_action(cand, R[R_TILE_KIND + tile], a, b)
    alive = alive_mask(cand)
    row = w.opt_memo[option_slot(w.opt_memo, cand, alive, w.ctx[CTX_MEMO_GEN])]
    status = row[O_STATUS]
    if status & CONNECTED:
        return _value_after(cand, st, R, seat, time, w)
    links = (ZERO, ZERO)
    if (status & BOTH_KNOWN) != BOTH_KNOWN:
        links = side_contacts(cand)  # shared by the connection test and the regroupings
        if status == 0 and connected_with(links[0], links[1], alive):
            row[O_STATUS] = CONNECTED
            return _value_after(cand, st, R, seat, time, w)
    total = 0.0
    reg = w.reg
    v = 0.0
    if n_plus > 0:
        done = _regroup_face(cand, R, seat, w, reg, np.int64(FACE_ORTHO), links, row,
                             (status & PLUS_KNOWN) != 0, O_PLUS)
        if done != DREW:
            status |= PLUS_KNOWN
        if done == SLIDES_ONLY:  # the "X" regrouping would be the same, drawing nothing
            store_positions(row, O_CROSS, reg)
            status |= CROSS_KNOWN
        v = _value_after(reg, st, R, seat, time, w)  # scoring moves no sheep
        total += n_plus * v
    if n_cross > 0:
        reg2 = w.reg2
        if _regroup_face(cand, R, seat, w, reg2, np.int64(FACE_DIAG), links, row,
                         (status & CROSS_KNOWN) != 0, O_CROSS) != DREW:
            status |= CROSS_KNOWN
        if n_plus == 0 or not _same_positions(reg, reg2):
            v = _value_after(reg2, st, R, seat, time, w)
        total += n_cross * v  # the same flock as for "+" (often: a slide): the same value
    row[O_STATUS] = status
    return total / (n_plus + n_cross)


@kernel
def greedy_action(st, R, seat, opts, n, w):
    """The greedy menu choice (see the module docstring)."""
    n_plus = ZERO
    n_cross = ZERO
    for i in range(R[R_N_REGROUP_FACES]):
        if R[R_REGROUP_FACES + i] == FACE_DIAG:
            n_cross += 1
        else:
            n_plus += 1
    w.ctx[CTX_MEMO_GEN] += 1  # a new decision: the look-ahead memo starts empty
    vals = w.values
    for i in range(n):
        vals[i] = _option_value(st, R, seat, opts[i, 0], opts[i, 1], opts[i, 2], n_plus,
                                n_cross, w)
    return argmax_random_ties(vals, n, w.streams)


# ------------------------------------------------- greedy (issue 34): common random numbers
@kernel(inline="always")
def time_class(R, old, time):
    """The class of a tile's ``time`` for the counter at ``old``: two times of one class
    move the counter into the same field past the same gates and pens, so
    :func:`_value_after` gives the same value for the same flock (it reads the counter
    only through its field and the events it passes)."""
    new = min(old + time, R[R_TRACK_LEN])
    events = 0
    for f in range(R[R_N_FIELDS]):
        kind = R[R_FIELD_KIND + f]
        if kind != RAM and kind != SHEARING:
            continue
        gate = R[R_FIELD_GATE + f]
        if gate >= 0 and old <= gate < new:
            events += 1
        last = R[R_FIELD_LAST + f]
        if old < last <= new:
            events += 1
    return (field_of(R, new) + 1) * 64 + events


@kernel(inline="always")
def _regroup_face_crn(cand, R, seat, w, reg, face, links, row, known, at):
    """``reg`` = ``cand`` regrouped with every die showing ``face``: the positions stored
    at ``row[at:]`` when ``known``, else the look-ahead regrouping, whose positions are
    then stored whether or not it broke a tie (common random numbers: within one
    decision a flock is regrouped once per kind of face, its tie-breaks drawn once).
    Returns SLIDES_ONLY when it was made of corner slides alone and broke no tie (the
    other face's regrouping is then the same), else STORED."""
    copy_state(reg, cand, LOOKAHEAD_LEN)
    if known:
        load_positions(reg, row, at)
        return STORED
    drawn = policy_state(w.streams)
    slides_only = lookahead_regroup_crn(reg, R, seat, w, face, links)
    store_positions(row, at, reg)
    if slides_only and policy_state(w.streams) == drawn:
        return SLIDES_ONLY
    return STORED


#: A sheep's own bits in its word of the side contacts, and bit 0 of every sheep's bits
#: in the low word (sheep 0..PER_WORD-1) and in the high word (see ..geometry.groups).
_OWN = (1 << N_SHEEP) - 1
_EVERY_LO = sum(1 << (N_SHEEP * s) for s in range(PER_WORD))
_EVERY_HI = sum(1 << (N_SHEEP * s) for s in range(N_SHEEP - PER_WORD))


@kernel(inline="always")
def relinked(cand, st, lo, hi, alive):
    """:func:`..geometry.groups.side_contacts` of ``cand`` from those of ``st``,
    ``(lo, hi)`` (the same live sheep ``alive``; a menu action moves sheep, it removes
    none): the pairs with a sheep that moved are cleared and tested again."""
    moved = ZERO
    for s in range(N_SHEEP):
        if cand[ST_ROW + s] != st[ST_ROW + s] or cand[ST_COL + s] != st[ST_COL + s]:
            moved |= 1 << s
    moved &= alive
    if moved == 0:
        return lo, hi
    for a in range(N_SHEEP):
        if (moved >> a) & 1:
            if a < PER_WORD:
                lo &= ~(_OWN << (N_SHEEP * a))
            else:
                hi &= ~(_OWN << (N_SHEEP * (a - PER_WORD)))
            lo &= ~(_EVERY_LO << a)
            hi &= ~(_EVERY_HI << a)
    for a in range(N_SHEEP):
        if not (moved >> a) & 1:
            continue
        lo, hi = add_contacts(cand, lo, hi, a, alive)  # a itself is at distance 0
    return lo, hi


@kernel(inline="always")
def _option_value_crn(st, R, seat, tile, cls, a, b, n_plus, n_cross, w, i, base):
    """``greedy``'s value of the menu option ``i`` (``[tile, a, b]``): as
    :func:`_option_value` (``greedy-v1``), except that every look-ahead regrouping is
    kept for the decision, tie or not (a repeat of the flock reuses it instead of drawing
    again), and an option that leaves the flock of an earlier option with a tile of the
    same :func:`time_class` takes that option's value. As in ``greedy-v1``, the "X"
    regrouping is taken from the "+" one only when that was made of slides alone and
    broke no tie: a tie broken for "+" is broken again, independently, for "X" (one
    draw for both faces played weaker, see docs/performance-archive.md)."""
    time = R[R_TILE_TIME + tile]
    cand = w.cand
    copy_state(cand, st, LOOKAHEAD_LEN)
    apply_action(cand, R[R_TILE_KIND + tile], a, b)
    alive = alive_mask(cand)
    row = w.opt_memo[option_slot_crn(w.opt_memo, cand, alive, w.ctx[CTX_MEMO_GEN])]
    j = known_value(row, cls)
    if j >= 0:
        return w.values[j]
    remember_value(row, cls, i)
    status = row[O_STATUS]
    if status & CONNECTED:
        return _value_after(cand, st, R, seat, time, w)
    links = (ZERO, ZERO)
    if (status & BOTH_KNOWN) != BOTH_KNOWN:
        links = relinked(cand, st, base[0], base[1], alive)  # side contacts
        if status == 0 and connected_with(links[0], links[1], alive):
            row[O_STATUS] = CONNECTED
            return _value_after(cand, st, R, seat, time, w)
    total = 0.0
    reg = w.reg
    v = 0.0
    if n_plus > 0:
        done = _regroup_face_crn(cand, R, seat, w, reg, np.int64(FACE_ORTHO), links, row,
                                 (status & PLUS_KNOWN) != 0, O_PLUS)
        status |= PLUS_KNOWN
        if done == SLIDES_ONLY:  # the "X" regrouping would be the same, drawing nothing
            store_positions(row, O_CROSS, reg)
            status |= CROSS_KNOWN
        v = _value_after(reg, st, R, seat, time, w)  # scoring moves no sheep
        total += n_plus * v
    if n_cross > 0:
        reg2 = w.reg2
        _regroup_face_crn(cand, R, seat, w, reg2, np.int64(FACE_DIAG), links, row,
                          (status & CROSS_KNOWN) != 0, O_CROSS)
        status |= CROSS_KNOWN
        if n_plus == 0 or not _same_positions(reg, reg2):
            v = _value_after(reg2, st, R, seat, time, w)
        total += n_cross * v  # the same flock as for "+" (often: a slide): the same value
    row[O_STATUS] = status
    return total / (n_plus + n_cross)


@kernel(inline="always")
def _twin_tile(R, opts, i, counter):
    """First option row before ``i`` whose tile has the action of ``opts[i]``'s tile,
    if the two tiles' times are of one :func:`time_class`, else -1. Both tiles list their
    options in the same order (:func:`..geometry.flockops.tile_options`; one may refuse
    a reverse the other allows)."""
    tile = opts[i, 0]
    kind = R[R_TILE_KIND + tile]
    for j in range(i):
        other = opts[j, 0]
        if R[R_TILE_KIND + other] == kind:
            if (time_class(R, counter, R[R_TILE_TIME + tile])
                    == time_class(R, counter, R[R_TILE_TIME + other])):
                return ZERO + j
            return ZERO - 1
    return ZERO - 1


@kernel(inline="always")
def _same_option(opts, i, p, end):
    """Row in ``p..end-1`` with the parameters of ``opts[i]``, else -1."""
    for q in range(p, end):
        if opts[q, 1] == opts[i, 1] and opts[q, 2] == opts[i, 2]:
            return q
    return ZERO - 1


@kernel
def greedy_action_crn(st, R, seat, opts, n, w):
    """The ``greedy`` menu choice: :func:`greedy_action` (``greedy-v1``) with common
    random numbers within the decision (:func:`_option_value_crn`)."""
    n_plus = ZERO
    n_cross = ZERO
    for i in range(R[R_N_REGROUP_FACES]):
        if R[R_REGROUP_FACES + i] == FACE_DIAG:
            n_cross += 1
        else:
            n_plus += 1
    w.ctx[CTX_MEMO_GEN] += 1  # a new decision: the look-ahead memos start empty
    vals = w.values
    counter = st[ST_COUNTER]
    base = side_contacts(st)  # each option's from these (relinked)
    tile = cls = ZERO - 1
    twin = end = p = ZERO - 1  # the first earlier tile of the same action and time class
    for i in range(n):
        if opts[i, 0] != tile:  # the options come tile by tile
            tile = opts[i, 0]
            cls = time_class(R, counter, R[R_TILE_TIME + tile])  # once per tile
            twin = _twin_tile(R, opts, i, counter)
            end = p = twin
            while twin >= 0 and end < i and opts[end, 0] == opts[twin, 0]:
                end += 1
        if twin >= 0:
            q = _same_option(opts, i, p, end)
            if q >= 0:  # the same action with the same parameters: the same flock
                vals[i] = vals[q]
                p = q + 1
                continue
        vals[i] = _option_value_crn(st, R, seat, tile, cls, opts[i, 1], opts[i, 2],
                                    n_plus, n_cross, w, i, base)
    return argmax_random_ties(vals, n, w.streams)


@kernel
def decide_action(pid, st, R, seat, opts, n, w):
    """Index of the chosen menu option among ``opts[:n]`` (``[tile, a, b, 0]`` rows),
    checked (:func:`~.decide.checked`: -1 if it is not a legal index).

    ``random`` never reaches here (:func:`..turns.play_turn` draws its option with
    :func:`.menucount.random_option`, without listing them), nor does ``rollout`` (the
    machine runs its playouts: :func:`..machine.stretch`); the rest go to the one
    dispatch (:func:`~.decide.ask_policy`), where an id that is not built-in raises (a
    plug-in seat's turn is cut and asked by the harness, :mod:`..cut`)."""
    kind = np.int64(K_ACTION)
    if pid == SCRIPTED:
        i = next_scripted(w.ctx, n)
    elif pid == GREEDY:
        i = greedy_action_crn(st, R, seat, opts, n, w)
    elif pid == GREEDY_V1:
        i = greedy_action(st, R, seat, opts, n, w)
    else:
        i = ask_policy(pid, kind, st, R, seat, opts, n, w)
    return checked(i, n, seat, kind, w)
