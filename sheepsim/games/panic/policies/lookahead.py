"""Greedy's look-ahead regrouping, with a memo of routes and their values (kernels).

For every legal menu option the greedy policy regroups a copy of the flock once per
regroup-die face (:func:`.policies.greedy_action`). Most of these regroupings repeat
work already done in the same decision: the two faces' regroupings are the same
whenever the group slides to a corner contact (no die is needed), and options of two
tiles with the same action (Lamb Push of time 1 and of time 3, ...) leave the same
flock. Measured on greedy games: 69% of the slide searches and 42% of the route
searches repeat a (flock, group) pair already seen in the same decision.

So within one greedy decision (the deciding seat and the counter are fixed) the routes
of a group in a flock, for one kind of move (corner slides or one die face), and the
greedy value of each route are computed once and kept in a memo (``w.memo``,
``w.memo_values``), keyed by the flock (positions, facing, the mask of live sheep; the
colours of the sheep slots never change in a game), the group and the kind;
:func:`lookahead_regroup` and the group valuation read them from there. Results are
exactly those of :func:`..geometry.regroup.regroup` with the greedy policy: the same
routes in the same order, the same float values, and every tie is still broken by a
POLICY-stream draw at the same moment (the memo saves computations, never draws).

One level up, :mod:`.optionmemo` keeps what a whole option's look-ahead gives (is the
flock connected; its cells after each face's regrouping when no tie was broken), and
:func:`lookahead_regroup` says when it only slid, so that the "X" regrouping of the
same flock is known from the "+" one.
"""

from sheepsim.games.panic.geometry.flockops import alive_mask, copy_flock
from sheepsim.games.panic.geometry.groups import (
    link_group,
    main_of,
    move_group,
    routes_to,
    slides_with,
    smallest_of,
)
from sheepsim.games.panic.geometry.regroup import MAX_REGROUP_ROUNDS
from sheepsim.games.panic.layout import (
    CTX_MEMO_GEN,
    N_SHEEP,
    OPT_WIDTH,
    R_PLUS_FALLBACK,
    R_SLIDE_WITHOUT_ROLL,
    ST_COL,
    ST_COUNTER,
    ST_FACING,
    ST_ROW,
)
from sheepsim.games.panic.policies.decide import argmax_random_ties, face_mean, first_face, positional
from sheepsim.games.panic.scratch import MEMO_ROUTES, MEMO_SLOTS, MEMO_WIDTH, ZERO
from sheepsim.jit import kernel

#: Memo slots (a power of two; :mod:`..scratch` allocates them) and how many slots a
#: key may probe; a greedy decision meets a few dozen distinct (flock, group, kind) keys.
#: ``MEMO_ROUTES``: most routes one (flock, group, kind) can have: a slide or a straight
#: route per direction, two slides per diagonal direction, or one step per orthogonal
#: direction.
MEMO_PROBES = 8
#: The kind of move of a memo entry that is not a die face (faces are 0 "+", 1 "X").
SLIDES = 2
# A memo row: [generation, number of routes, key, routes, (``greedy`` only: values known,
# .crnlookahead)]; the key is the sheep's rows and columns, [facing, live mask, group
# mask, kind].
M_GEN, M_N, M_KEY = 0, 1, 2
POS_LEN = 2 * N_SHEEP
KEY_LEN = POS_LEN + 4
M_ROUTES = M_KEY + KEY_LEN
assert MEMO_WIDTH == M_ROUTES + MEMO_ROUTES * OPT_WIDTH + 1  # + .crnlookahead.M_VALUED
assert ST_ROW == 0 and ST_COL == N_SHEEP  # st[:POS_LEN] are the rows, then the columns
_ODD = 0x9E3779B97F4A7C15 - (1 << 64)  # an odd 64-bit constant, as a signed int64


@kernel
def memo_hash(st, alive, mask, kind):
    """Start slot of the key (positions and facing of ``st``, ``alive``, ``mask``,
    ``kind``): each position times its own odd factor (independent products, no
    dependency chain), folded."""
    h = ((st[ST_FACING] * 31 + alive) * 31 + mask) * 31 + kind
    for i in range(POS_LEN):
        h += st[i] * (2 * i + 3) * 0x100000001B3
    h *= _ODD
    return (h ^ (h >> 29)) & (MEMO_SLOTS - 1)


@kernel
def memo_has(row, st, alive, mask, kind):
    """Does the memo row hold that key?"""
    k = M_KEY + POS_LEN
    if (row[k + 2] != mask or row[k + 3] != kind or row[k + 1] != alive
            or row[k] != st[ST_FACING]):
        return False
    for i in range(POS_LEN):
        if row[M_KEY + i] != st[i]:
            return False
    return True


@kernel
def memo_key(row, st, alive, mask, kind):
    """Write the key (positions and facing of ``st``, ``alive``, ``mask``, ``kind``) into
    the memo row ``row`` (this memo's or :mod:`.optionmemo`'s: the same key layout)."""
    for i in range(POS_LEN):
        row[M_KEY + i] = st[i]
    k = M_KEY + POS_LEN
    row[k] = st[ST_FACING]
    row[k + 1] = alive
    row[k + 2] = mask
    row[k + 3] = kind


@kernel
def memo_find(memo, st, alive, mask, kind, gen):
    """``(row, found)``: the row of ``memo`` holding the key (see :func:`memo_key`) in
    the decision ``gen``, or the row to fill: the first probed row of another decision,
    else the first probed row (reused when all are taken). ``memo`` has ``MEMO_SLOTS``
    rows with the generation in column ``M_GEN`` and the key at ``M_KEY`` (this memo's
    and :mod:`.optionmemo`'s)."""
    start = memo_hash(st, alive, mask, kind)
    for p in range(MEMO_PROBES):
        slot = (start + p) & (MEMO_SLOTS - 1)
        if memo[slot, M_GEN] != gen:
            return slot, False
        if memo_has(memo[slot], st, alive, mask, kind):
            return slot, True
    return start, False


@kernel
def _memo_store(st, R, seat, links, mask, kind, w, slot):
    """Compute the routes of ``kind`` for group ``mask`` (as
    :func:`..geometry.regroup.regroup` lists them) and their greedy values into memo row
    ``slot``."""
    routes = w.routes
    lo, hi = links
    if kind == SLIDES:
        n = slides_with(st, lo, hi, mask, routes)
    else:
        n = routes_to(st, main_of(lo, hi, alive_mask(st), mask), mask, kind,
                      R[R_PLUS_FALLBACK], routes)
    if n > MEMO_ROUTES:
        raise ValueError("more regroup routes than the look-ahead memo holds")
    row = w.memo[slot]
    vals = w.memo_values[slot]
    ev = w.sub
    for i in range(n):
        for j in range(OPT_WIDTH):
            row[M_ROUTES + i * OPT_WIDTH + j] = routes[i, j]
        copy_flock(ev, st)
        move_group(ev, routes[i, 0], routes[i, 1], routes[i, 2], routes[i, 3])
        vals[i] = float(positional(ev, R, seat, st[ST_COUNTER], w.shear))
    memo_key(row, st, alive_mask(st), mask, kind)
    row[M_N] = n
    row[M_GEN] = w.ctx[CTX_MEMO_GEN]


@kernel(inline="always")
def route_entry(st, R, seat, links, mask, kind, w):
    """Memo slot with the routes of ``kind`` (:data:`SLIDES` or a die face) for group
    ``mask`` of ``st`` (side contacts ``links``) and their values, computed on first use
    in this decision (the first probed slot is reused when all are taken)."""
    slot, found = memo_find(w.memo, st, alive_mask(st), mask, kind, w.ctx[CTX_MEMO_GEN])
    if not found:
        _memo_store(st, R, seat, links, mask, kind, w, slot)
    return slot


@kernel(inline="always")
def _best(w, slot):
    """The value of the best route of memo row ``slot`` (0.0 without a route), as
    :func:`.decide.best_of_routes`."""
    n = w.memo[slot, M_N]
    best = -1e18
    for i in range(n):
        best = max(best, w.memo_values[slot, i])
    return best if n > 0 else 0.0


@kernel(inline="always")
def group_value(st, R, seat, links, mask, w):
    """:func:`.decide.group_value` from the memo: the mean over the die's faces, summed
    face by face in die order, of the best route's value (a corner slide for every face
    when there is one)."""
    if R[R_SLIDE_WITHOUT_ROLL]:
        slot = route_entry(st, R, seat, links, mask, ZERO + SLIDES, w)
        if w.memo[slot, M_N] > 0:
            v = _best(w, slot)
            return face_mean(R, v, v)
    plus = cross = 0.0
    face = first_face(R, False)
    if face >= 0:
        plus = _best(w, route_entry(st, R, seat, links, mask, face, w))
    face = first_face(R, True)
    if face >= 0:
        cross = _best(w, route_entry(st, R, seat, links, mask, face, w))
    return face_mean(R, plus, cross)


@kernel
def lookahead_regroup(st, R, seat, w, face, links):
    """:func:`..geometry.regroup.regroup` of the look-ahead copy ``st`` for the greedy policy of
    ``seat`` with every die showing ``face`` (no trace, no dice), through the memo;
    ``links`` the side contacts of ``st``. Returns True when every move was a corner
    slide (the die was never read: any face gives the same flock, and the same draws)."""
    opts = w.groups
    lo, hi = links
    alive = alive_mask(st)  # no sheep leaves the flock while it regroups
    slides_only = True
    for _ in range(MAX_REGROUP_ROUNDS):
        n = smallest_of(lo, hi, alive, opts)
        if n == 0:
            return slides_only
        g = 0
        if n > 1:  # the groups' values do not depend on the die (see group_value)
            vals = w.sub_values
            for i in range(n):
                vals[i] = group_value(st, R, seat, (lo, hi), opts[i, 0], w)
            g = argmax_random_ties(vals, n, w.streams)
        mask = opts[g, 0]
        slot = -1
        nr = ZERO
        if R[R_SLIDE_WITHOUT_ROLL]:
            slot = route_entry(st, R, seat, (lo, hi), mask, ZERO + SLIDES, w)
            nr = w.memo[slot, M_N]
        if nr == 0:
            slides_only = False
            slot = route_entry(st, R, seat, (lo, hi), mask, face, w)
            nr = w.memo[slot, M_N]
        if nr == 0:
            return False
        r = 0
        if nr > 1:
            r = argmax_random_ties(w.memo_values[slot], nr, w.streams)
        at = M_ROUTES + r * OPT_WIDTH
        row = w.memo[slot]
        move_group(st, row[at], row[at + 1], row[at + 2], row[at + 3])
        lo, hi = link_group(st, lo, hi, mask)
    return slides_only
