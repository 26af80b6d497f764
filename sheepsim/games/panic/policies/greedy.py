"""The ``greedy`` policy's menu choice (kernels) and :func:`decide_action`, the engine's
entry point for every menu choice (see :mod:`sheepsim.games.panic.policies` for what
greedy values; its sub-decisions and positional score are in :mod:`.decide`, its
look-ahead regrouping in :mod:`.lookahead` and :mod:`.optionmemo`)."""

from __future__ import annotations

import numpy as np

from sheepsim.games.panic.geometry.flockops import alive_mask, apply_action
from sheepsim.games.panic.geometry.groups import connected_with, side_contacts
from sheepsim.games.panic.layout import (
    CTX_MEMO_GEN,
    FACE_DIAG,
    FACE_ORTHO,
    K_ACTION,
    LOOKAHEAD_LEN,
    N_SHEEP,
    R_N_REGROUP_FACES,
    R_REGROUP_FACES,
    R_TILE_KIND,
    R_TILE_TIME,
    ST_COUNTER,
    ST_ROW,
    ST_SCORE,
)
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
    load_positions,
    option_slot,
    policy_state,
    store_positions,
)
from sheepsim.games.panic.scratch import ZERO, copy_state
from sheepsim.games.panic.track import advance_and_score
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


@kernel
def decide_action(pid, st, R, seat, opts, n, w):
    """Index of the chosen menu option among ``opts[:n]`` (``[tile, a, b, 0]`` rows),
    checked (:func:`~.decide.checked`: -1 if it is not a legal index).

    ``random`` never reaches here (:func:`..turns.play_turn` draws its option with
    :func:`.menucount.random_option`, without listing them), nor does ``rollout`` (the
    game loop runs its playouts; see engine); the rest go to the one dispatch
    (:func:`~.decide.ask_policy`), where an id that is neither built-in nor a user
    policy compiled into the kernels raises."""
    kind = np.int64(K_ACTION)
    if pid == SCRIPTED:
        i = next_scripted(w.ctx, n)
    elif pid == GREEDY or pid == GREEDY_V1:
        i = greedy_action(st, R, seat, opts, n, w)
    else:
        i = ask_policy(pid, kind, st, R, seat, opts, n, w)
    return checked(i, n, seat, kind, w)
