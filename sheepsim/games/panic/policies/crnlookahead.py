"""``greedy``'s look-ahead regrouping since issue 34 (kernels): :mod:`.lookahead` (kept
as it was for ``greedy-v1``) with two savings that change no result:

* a memo entry's route values are computed when first read (:func:`route_values`):
  a group with one route moves along it without them;
* the main flock's groups are found from the side contacts already at hand
  (:func:`routes_to_links`) instead of from the positions.

Same memo (``w.memo``, ``w.memo_values``), same keys, same routes in the same order and
the same float values as :mod:`.lookahead`; tie-breaks are drawn as there (POLICY
stream). What ``greedy`` changed in how it uses its stream is one level up
(:func:`.greedy.greedy_action_crn`): a flock's regrouping is computed once per decision.
"""

from sheepsim.games.panic.geometry.flockops import alive_mask, copy_flock
from sheepsim.games.panic.geometry.groups import (
    _routes_to_one,
    _without_repeats,
    grow,
    link_group,
    lowest_bit,
    main_of,
    move_group,
    slides_with,
    smallest_of,
)
from sheepsim.games.panic.geometry.regroup import MAX_REGROUP_ROUNDS
from sheepsim.games.panic.layout import (
    CTX_MEMO_GEN,
    OPT_WIDTH,
    R_PLUS_FALLBACK,
    R_SLIDE_WITHOUT_ROLL,
    ST_COUNTER,
)
from sheepsim.games.panic.policies.decide import argmax_random_ties, face_mean, first_face, positional
from sheepsim.games.panic.policies.lookahead import M_GEN, M_N, M_ROUTES, SLIDES, memo_find, memo_key
from sheepsim.games.panic.scratch import MEMO_ROUTES, MEMO_WIDTH, ZERO
from sheepsim.jit import kernel

#: Column of a memo row: 1 once its route values are in ``w.memo_values`` (``greedy``
#: only; ``greedy-v1`` computes them with the routes and never reads it).
M_VALUED = M_ROUTES + MEMO_ROUTES * OPT_WIDTH
assert MEMO_WIDTH == M_VALUED + 1


@kernel
def routes_to_links(st, lo, hi, target, mask, face, plus_fallback, opts):
    """:func:`..geometry.groups.routes_to` given the side contacts ``(lo, hi)`` of
    ``st``: the groups of ``target`` by :func:`~..geometry.groups.grow` over them (the
    same masks as ``_group_in`` from the positions)."""
    first = grow(lo, hi, lowest_bit(target), target)
    if first == target:  # one main flock (nearly always)
        return _routes_to_one(st, target, mask, face, plus_fallback, opts, ZERO)
    n = ZERO
    rest = target
    while rest:
        one = grow(lo, hi, lowest_bit(rest), rest)
        rest &= ~one
        n = _without_repeats(opts, n, _routes_to_one(st, one, mask, face, plus_fallback,
                                                     opts, n))
    return n


@kernel
def _memo_store(st, R, links, alive, mask, kind, w, slot):
    """The routes of ``kind`` for group ``mask`` (as :func:`..geometry.regroup.regroup`
    lists them) into memo row ``slot``; their values wait for :func:`route_values`."""
    routes = w.routes
    lo, hi = links
    if kind == SLIDES:
        n = slides_with(st, lo, hi, mask, routes)
    else:
        n = routes_to_links(st, lo, hi, main_of(lo, hi, alive, mask), mask, kind,
                            R[R_PLUS_FALLBACK], routes)
    if n > MEMO_ROUTES:
        raise ValueError("more regroup routes than the look-ahead memo holds")
    row = w.memo[slot]
    for i in range(n):
        for j in range(OPT_WIDTH):
            row[M_ROUTES + i * OPT_WIDTH + j] = routes[i, j]
    memo_key(row, st, alive, mask, kind)
    row[M_N] = n
    row[M_VALUED] = 0
    row[M_GEN] = w.ctx[CTX_MEMO_GEN]


@kernel
def route_values(st, R, seat, w, slot):
    """The greedy values of memo row ``slot``'s routes (``st`` its flock), computed on
    first use, as :mod:`.lookahead` computes them."""
    row = w.memo[slot]
    if row[M_VALUED]:
        return
    vals = w.memo_values[slot]
    ev = w.sub
    for i in range(row[M_N]):
        at = M_ROUTES + i * OPT_WIDTH
        copy_flock(ev, st)
        move_group(ev, row[at], row[at + 1], row[at + 2], row[at + 3])
        vals[i] = float(positional(ev, R, seat, st[ST_COUNTER], w.shear))
    row[M_VALUED] = 1


@kernel(inline="always")
def route_entry(st, R, links, alive, mask, kind, w):
    """Memo slot with the routes of ``kind`` for group ``mask`` of ``st``, listed on
    first use in this decision."""
    slot, found = memo_find(w.memo, st, alive, mask, kind, w.ctx[CTX_MEMO_GEN])
    if not found:
        _memo_store(st, R, links, alive, mask, kind, w, slot)
    return slot


@kernel(inline="always")
def _best(st, R, seat, w, slot):
    """The value of the best route of memo row ``slot`` (0.0 without a route)."""
    n = w.memo[slot, M_N]
    if n == 0:
        return 0.0
    route_values(st, R, seat, w, slot)
    best = -1e18
    for i in range(n):
        best = max(best, w.memo_values[slot, i])
    return best


@kernel(inline="always")
def group_value(st, R, seat, links, alive, mask, w):
    """:func:`.lookahead.group_value` with the values computed on first use."""
    if R[R_SLIDE_WITHOUT_ROLL]:
        slot = route_entry(st, R, links, alive, mask, ZERO + SLIDES, w)
        if w.memo[slot, M_N] > 0:
            v = _best(st, R, seat, w, slot)
            return face_mean(R, v, v)
    plus = cross = 0.0
    face = first_face(R, False)
    if face >= 0:
        plus = _best(st, R, seat, w, route_entry(st, R, links, alive, mask, face, w))
    face = first_face(R, True)
    if face >= 0:
        cross = _best(st, R, seat, w, route_entry(st, R, links, alive, mask, face, w))
    return face_mean(R, plus, cross)


@kernel
def lookahead_regroup(st, R, seat, w, face, links):
    """:func:`.lookahead.lookahead_regroup` (the same moves and the same draws), with the
    route values computed only where a choice needs them."""
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
                vals[i] = group_value(st, R, seat, (lo, hi), alive, opts[i, 0], w)
            g = argmax_random_ties(vals, n, w.streams)
        mask = opts[g, 0]
        slot = -1
        nr = ZERO
        if R[R_SLIDE_WITHOUT_ROLL]:
            slot = route_entry(st, R, (lo, hi), alive, mask, ZERO + SLIDES, w)
            nr = w.memo[slot, M_N]
        if nr == 0:
            slides_only = False
            slot = route_entry(st, R, (lo, hi), alive, mask, face, w)
            nr = w.memo[slot, M_N]
        if nr == 0:
            return False
        r = 0
        if nr > 1:
            route_values(st, R, seat, w, slot)
            r = argmax_random_ties(w.memo_values[slot], nr, w.streams)
        at = M_ROUTES + r * OPT_WIDTH
        row = w.memo[slot]
        move_group(st, row[at], row[at + 1], row[at + 2], row[at + 3])
        lo, hi = link_group(st, lo, hi, mask)
    return slides_only
