"""Regrouping geometry kernels: orthogonally connected groups (bit masks over sheep
slots), the smallest groups, the main flock, and the straight routes that bring a group
back to the main flock.

Routes are rows ``[direction, steps, slide direction or NO_SLIDE, group mask]``; see
:func:`regroup_routes` for the rulebook's orthogonal/diagonal choice and fallbacks.
The **main flock** is the largest group other than the one being moved (rules README:
"the active player chooses among equal largest"; with equal largest groups the target
is their union, so a straight route stops at the first of them it reaches).
"""

import numpy as np

from sheepsim.games.panic.geometry.flockops import _BIG, DC, DR, alive_mask
from sheepsim.games.panic.layout import (
    FACE_DIAG,
    MAX_ROUTE_STEPS,
    N_SHEEP,
    NO_SLIDE,
    PLUS_FALLBACK_DIAGONAL,
    ST_ALIVE,
    ST_COL,
    ST_ROW,
)
from sheepsim.games.panic.scratch import ZERO
from sheepsim.jit import kernel

# ----------------------------------------------------------------------- groups
# Side contacts are packed 9 bits per sheep into two int64 words (sheep 0-6, then 7-8)
# so that the groups of a state are found from one pass over the 36 pairs of sheep,
# without allocating (the greedy look-ahead asks for groups millions of times).
PER_WORD = 63 // N_SHEEP
assert N_SHEEP <= 2 * PER_WORD


@kernel
def side_contacts(st):
    """``(lo, hi)``: for every live sheep, the mask of live sheep touching it on a side
    (see :func:`contacts_of`). Written without branches over all 81 ordered pairs (the
    ``alive`` entries are 0 or 1): about twice as fast as testing the 36 pairs."""
    lo = ZERO
    hi = ZERO
    for a in range(N_SHEEP):
        ra = st[ST_ROW + a]
        ca = st[ST_COL + a]
        m = ZERO
        for b in range(N_SHEEP):
            d = abs(st[ST_ROW + b] - ra) + abs(st[ST_COL + b] - ca)
            m |= (d == 1) * st[ST_ALIVE + b] << b
        m *= st[ST_ALIVE + a]
        if a < PER_WORD:
            lo |= m << (N_SHEEP * a)
        else:
            hi |= m << (N_SHEEP * (a - PER_WORD))
    return lo, hi


@kernel
def link_group(st, lo, hi, mask):
    """The side contacts ``(lo, hi)`` after the group ``mask`` (a whole group: no side
    contact with the other sheep) moved: only pairs of one of its sheep and another sheep
    can have changed, so these are added; equal to :func:`side_contacts` of the new
    state, for a fraction of the work."""
    others = live_others(st, mask)
    for a in range(N_SHEEP):
        if not (mask >> a) & 1:
            continue
        lo, hi = add_contacts(st, lo, hi, a, others)
    return lo, hi


@kernel(inline="always")
def add_contacts(st, lo, hi, a, among):
    """``(lo, hi)`` with sheep ``a`` linked both ways to every sheep of the mask
    ``among`` touching it on a side (branch-free: the unrolled loops know which word
    each sheep's bits are in)."""
    ra = st[ST_ROW + a]
    ca = st[ST_COL + a]
    m = ZERO
    for b in range(N_SHEEP):
        dist = abs(st[ST_ROW + b] - ra) + abs(st[ST_COL + b] - ca)
        m |= (ZERO + (dist == 1)) << b
    m &= among
    if a < PER_WORD:
        lo |= m << (N_SHEEP * a)
    else:
        hi |= m << (N_SHEEP * (a - PER_WORD))
    for b in range(PER_WORD):
        lo |= ((m >> b) & 1) << (N_SHEEP * b + a)
    for b in range(PER_WORD, N_SHEEP):
        hi |= ((m >> b) & 1) << (N_SHEEP * (b - PER_WORD) + a)
    return lo, hi


@kernel(inline="always")
def live_others(st, mask):
    """Mask of the live sheep outside ``mask`` (branch-free: ``alive`` entries are 0 or 1)."""
    live = ZERO
    for b in range(N_SHEEP):
        live |= st[ST_ALIVE + b] << b
    return live & ~mask


@kernel
def contacts_of(lo, hi, a):
    """Mask of the sheep touching sheep ``a`` on a side."""
    if a < PER_WORD:
        return (lo >> (N_SHEEP * a)) & ((1 << N_SHEEP) - 1)
    return (hi >> (N_SHEEP * (a - PER_WORD))) & ((1 << N_SHEEP) - 1)


@kernel
def grow(lo, hi, s, within):
    """Bitmask of the sheep orthogonally connected to ``s`` among the mask ``within``,
    given the side contacts ``(lo, hi)``."""
    comp = ZERO | (1 << s)
    frontier = comp
    while frontier:
        new = ZERO
        f = frontier
        while f:  # the frontier's sheep only, lowest first
            new |= contacts_of(lo, hi, popcount((f & -f) - 1))
            f &= f - 1
        new &= within & ~comp
        comp |= new
        frontier = new
    return comp


@kernel
def component(st, s, within):
    """Bitmask of the sheep orthogonally connected to ``s`` among the mask ``within``
    (live sheep)."""
    lo, hi = side_contacts(st)
    return grow(lo, hi, s, within)


@kernel
def lowest_bit(m):
    """Index of the lowest set bit of the mask ``m`` (-1 for 0)."""
    if m == 0:
        return -1
    return popcount((m & -m) - 1)


@kernel
def popcount(m):
    """Number of set bits of ``m`` (0 <= ``m`` < 2**63), branch-free (LLVM turns this
    into one ``popcnt`` instruction where the CPU has it)."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((m * 0x0101010101010101) >> 56) & 0xFF


@kernel
def is_connected(st):
    """Are all live sheep orthogonally connected (an empty flock counts as connected)?"""
    lo, hi = side_contacts(st)
    return connected_with(lo, hi, alive_mask(st))


@kernel
def connected_with(lo, hi, alive):
    """:func:`is_connected` from the side contacts ``(lo, hi)`` of the live sheep
    ``alive``."""
    if alive == 0:
        return True
    return grow(lo, hi, lowest_bit(alive), alive) == alive


@kernel
def smallest_groups(st, opts):
    """Write the smallest groups as ``[mask, size, 0, 0]`` rows; return their number
    (0 if the flock is connected)."""
    lo, hi = side_contacts(st)
    return smallest_of(lo, hi, alive_mask(st), opts)


@kernel
def smallest_of(lo, hi, alive, opts):
    """:func:`smallest_groups` from the side contacts ``(lo, hi)`` of the live sheep
    ``alive``."""
    rest = alive
    smallest = N_SHEEP + 1
    n = 0
    while rest:  # every group once, then keep the smallest ones in place
        m = grow(lo, hi, lowest_bit(rest), alive)
        size = popcount(m)
        opts[n, 0] = m
        opts[n, 1] = size
        opts[n, 2] = 0
        opts[n, 3] = 0
        n += 1
        smallest = min(smallest, size)
        rest &= ~m
    if n <= 1:
        return 0
    keep = 0
    for i in range(n):
        if opts[i, 1] == smallest:
            opts[keep, 0] = opts[i, 0]
            opts[keep, 1] = smallest
            keep += 1
    return keep


@kernel
def main_flock(st, mask):
    """Bit mask of the main flock for the group ``mask``: the largest of the other groups
    (the union of the equal largest ones: the player chooses among them, see
    :func:`routes_to`)."""
    lo, hi = side_contacts(st)
    return main_of(lo, hi, alive_mask(st), mask)


@kernel
def main_of(lo, hi, alive, mask):
    """:func:`main_flock` from the side contacts ``(lo, hi)`` of the live sheep ``alive``."""
    rest = alive & ~mask
    best = 0
    main = 0
    while rest:
        m = grow(lo, hi, lowest_bit(rest), alive)
        size = popcount(m)
        if size > best:
            best = size
            main = m
        elif size == best:
            main |= m
        rest &= ~m
    return main


@kernel
def group_overlaps(st, mask, tr, tc):
    """Would the group ``mask`` shifted by ``(tr, tc)`` land on another sheep?"""
    for a in range(N_SHEEP):
        if (mask >> a) & 1:
            r = st[ST_ROW + a] + tr
            c = st[ST_COL + a] + tc
            for b in range(N_SHEEP):
                if st[ST_ALIVE + b] and not (mask >> b) & 1:
                    if st[ST_ROW + b] == r and st[ST_COL + b] == c:
                        return True
    return False


@kernel
def probe(st, mask, tr, tc, target):
    """The group ``mask`` shifted by ``(tr, tc)``: 2 if it would land on another sheep,
    else 1 if it would touch a sheep of ``target`` on a side, else 0 (one pass)."""
    touch = 0
    others = live_others(st, mask)
    for a in range(N_SHEEP):
        if (mask >> a) & 1:
            r = st[ST_ROW + a] + tr
            c = st[ST_COL + a] + tc
            for b in range(N_SHEEP):
                if (others >> b) & 1:
                    dist = abs(st[ST_ROW + b] - r) + abs(st[ST_COL + b] - c)
                    if dist == 0:
                        return 2
                    if dist == 1 and (target >> b) & 1:
                        touch = 1
    return touch


@kernel(inline="always")
def _steps_between(g_min, rest_max, per_step):
    """Most steps after which a group whose nearest projection is ``g_min`` could still
    touch a target whose furthest is ``rest_max`` (``per_step``: 1 orthogonal, 2
    diagonal); beyond them the group is past the target. At most ``MAX_ROUTE_STEPS``."""
    k = (rest_max + 1 - g_min) // per_step + 1
    return max(0, min(k, MAX_ROUTE_STEPS))


@kernel
def route_steps4(st, mask, target, d0):
    """For the directions ``d0``, ``d0 + 2``, ``d0 + 4``, ``d0 + 6`` (the four orthogonal
    ones for ``d0 = 0``, the diagonals for 1): the most steps along each after which the
    group ``mask`` could still touch ``target`` (beyond them its nearest cell is past the
    target's furthest cell along that direction; 0 when the target lies wholly behind
    it). One pass: the projections along ``d0 + 4`` and ``d0 + 6`` are those along
    ``d0`` and ``d0 + 2`` negated, so the extremes along two axes give all four."""
    ru = DR[d0]
    cu = DC[d0]
    rv = DR[d0 + 2]
    cv = DC[d0 + 2]
    gu_min = gv_min = tu_min = tv_min = _BIG
    gu_max = gv_max = tu_max = tv_max = -_BIG
    for s in range(N_SHEEP):
        if not st[ST_ALIVE + s]:
            continue
        u = st[ST_ROW + s] * ru + st[ST_COL + s] * cu
        v = st[ST_ROW + s] * rv + st[ST_COL + s] * cv
        if (mask >> s) & 1:
            gu_min = min(gu_min, u)
            gu_max = max(gu_max, u)
            gv_min = min(gv_min, v)
            gv_max = max(gv_max, v)
        elif (target >> s) & 1:
            tu_min = min(tu_min, u)
            tu_max = max(tu_max, u)
            tv_min = min(tv_min, v)
            tv_max = max(tv_max, v)
    per_step = 2 if d0 % 2 else 1
    return (_steps_between(gu_min, tu_max, per_step), _steps_between(gv_min, tv_max, per_step),
            _steps_between(-gu_max, -tu_min, per_step),
            _steps_between(-gv_max, -tv_min, per_step))


@kernel
def _route(opts, n, d, steps, slide, mask):
    opts[n, 0] = d
    opts[n, 1] = steps
    opts[n, 2] = slide
    opts[n, 3] = mask
    return n + 1


@kernel
def first_contact(st, mask, d, target):
    """``(k_hit, k_touch)``: the fewest steps ``k >= 1`` along ``d`` after which the group
    ``mask`` would land on another live sheep, and after which it would touch a sheep of
    ``target`` on a side (``_BIG`` for never): :func:`probe` of every shift ``k * d``
    answers 2 first at ``k_hit`` and 1 first at ``k_touch`` (when that is before
    ``k_hit``), found in one pass over the pairs of a group sheep and another sheep
    instead of one pass per step. Per pair, with ``(u, v)`` the other sheep's offset
    measured along the direction's row and column components (orthogonal ``d``: ``q``
    along it, ``p`` across): overlap at ``k = q`` when ``p = 0``, ``k = u = v``
    (diagonal); side contact where ``|q - k| + |p| = 1``, or ``|u - k| + |v - k| = 1``."""
    dr = DR[d]
    dc = DC[d]
    k_hit = _BIG
    k_touch = _BIG
    others = live_others(st, mask)
    # The kind of direction is decided once, outside the loops over pairs.
    if dr == 0 or dc == 0:  # orthogonal: q along d, p across (one of dr, dc is 0)
        adr = abs(dr)
        adc = abs(dc)
        for a in range(N_SHEEP):
            if not (mask >> a) & 1:
                continue
            ra = st[ST_ROW + a]
            ca = st[ST_COL + a]
            for b in range(N_SHEEP):
                if not (others >> b) & 1:
                    continue
                offr = st[ST_ROW + b] - ra
                offc = st[ST_COL + b] - ca
                aim = (target >> b) & 1
                q = offr * dr + offc * dc
                p = offc * adr + offr * adc
                if p == 0:
                    if q >= 1:
                        k_hit = min(k_hit, q)
                    if aim:  # just before it, or just past it
                        k_touch = min(k_touch, q - 1 if q >= 2 else q + 1 if q >= 0 else _BIG)
                elif aim and (p == 1 or p == -1) and q >= 1:
                    k_touch = min(k_touch, q)
    else:
        for a in range(N_SHEEP):
            if not (mask >> a) & 1:
                continue
            ra = st[ST_ROW + a]
            ca = st[ST_COL + a]
            for b in range(N_SHEEP):
                if not (others >> b) & 1:
                    continue
                u = (st[ST_ROW + b] - ra) * dr
                v = (st[ST_COL + b] - ca) * dc
                if u == v and u >= 1:
                    k_hit = min(k_hit, u)
                if (target >> b) & 1 and (u - v == 1 or v - u == 1):
                    low = min(u, v)
                    k_touch = min(k_touch, low if low >= 1 else low + 1 if low >= 0 else _BIG)
    return k_hit, k_touch


@kernel
def _ortho_routes(st, mask, target, opts, n):
    # A route needs 1 <= k_touch <= its direction's route_steps4 limit: where the limit
    # is 0 (the target lies wholly behind the group) the contacts are not searched.
    lims = route_steps4(st, mask, target, ZERO)
    for i in range(4):
        d = 2 * i
        if lims[i] < 1:
            continue
        k_hit, k_touch = first_contact(st, mask, d, target)
        if k_touch < k_hit and k_touch <= lims[i]:
            n = _route(opts, n, d, k_touch, np.int64(NO_SLIDE), mask)
    return n


@kernel
def _diag_routes(st, mask, target, opts, n):
    lims = route_steps4(st, mask, target, ZERO + 1)  # see _ortho_routes
    for i in range(4):
        d = 2 * i + 1
        if lims[i] < 1:
            continue
        k_hit, k_touch = first_contact(st, mask, d, target)
        k = min(k_hit, k_touch)
        if k > lims[i]:
            continue
        if k_hit == k:
            # The groups meet at a corner: slide one cell sideways from the last free
            # position (either component of the diagonal; the player chooses).
            br = (k - 1) * DR[d]
            bc = (k - 1) * DC[d]
            for o in range(0, 8, 2):
                if (DR[o] != 0 and DR[o] == DR[d]) or (DC[o] != 0 and DC[o] == DC[d]):
                    if probe(st, mask, br + DR[o], bc + DC[o], target) == 1:
                        n = _route(opts, n, d, k - 1, o, mask)
        else:
            n = _route(opts, n, d, k, np.int64(NO_SLIDE), mask)
    return n


@kernel
def contact_slides(st, mask, opts):
    """One-cell orthogonal slides (no die roll) that attach a group touching the main
    flock by a corner to it; a group touching only another detached group gets none."""
    lo, hi = side_contacts(st)
    return slides_with(st, lo, hi, mask, opts)


@kernel
def slides_with(st, lo, hi, mask, opts):
    """:func:`contact_slides` given the side contacts ``(lo, hi)`` of ``st``."""
    n = ZERO
    alive = alive_mask(st)
    target = main_of(lo, hi, alive, mask)
    while target:  # each of the equal largest groups in turn (the player picks one)
        main = grow(lo, hi, lowest_bit(target), alive)
        target &= ~main
        found = one_step_slides(st, mask, alive & ~mask, main)
        if not (found >> 4) & 1:  # no corner contact with this main flock
            continue
        for i in range(4):
            o = 2 * i
            if (found >> i) & 1 and not _has_route(opts, n, o):
                n = _route(opts, n, o, np.int64(1), np.int64(NO_SLIDE), mask)
    return n


@kernel
def one_step_slides(st, mask, others, main):
    """One pass over the pairs of a sheep of the group ``mask`` and one of ``others``
    (the other live sheep) for :func:`slides_with`: bit ``i`` (0-3) set when
    :func:`probe` of the one-cell shift along the orthogonal direction ``2 * i`` is 1
    (lands on no sheep, touches ``main`` on a side), bit 4 when the group touches
    ``main`` only by a corner of a cell where it stands (a sheep of ``main`` one row
    and one column away)."""
    hit = ZERO
    touch = ZERO
    for a in range(N_SHEEP):
        if not (mask >> a) & 1:
            continue
        ra = st[ST_ROW + a]
        ca = st[ST_COL + a]
        for b in range(N_SHEEP):
            if not (others >> b) & 1:
                continue
            dr = st[ST_ROW + b] - ra
            dc = st[ST_COL + b] - ca
            aim = (main >> b) & 1
            for i in range(4):  # unrolled: DR, DC of 0, 2, 4, 6 are constants
                er = dr - DR[2 * i]
                ec = dc - DC[2 * i]
                hit |= (ZERO + (er == 0 and ec == 0)) << i
                touch |= (aim * (abs(er) + abs(ec) == 1)) << i
            touch |= (aim * (abs(dr) == 1 and abs(dc) == 1)) << 4
    return touch & ~hit


@kernel
def _has_route(opts, n, d):
    for i in range(n):
        if opts[i, 0] == d:
            return True
    return False


@kernel
def _distance(st, mask, tr, tc, target):
    best = _BIG
    for a in range(N_SHEEP):
        if (mask >> a) & 1:
            for b in range(N_SHEEP):
                if (target >> b) & 1:
                    dist = (abs(st[ST_ROW + a] + tr - st[ST_ROW + b])
                            + abs(st[ST_COL + a] + tc - st[ST_COL + b]))
                    best = min(best, dist)
    return best


@kernel
def regroup_routes(st, mask, face, plus_fallback, opts):
    """Routes ``[direction, steps, slide, mask]`` that bring the group ``mask`` to the
    main flock for a regroup die ``face``. "X" falls back to "+" when no diagonal route
    exists (rulebook); "+" without an orthogonal route falls back to "X" when
    ``plus_fallback`` is ``PLUS_FALLBACK_DIAGONAL`` (sheepsim's mirror of the rulebook);
    if there is still no route, the options are single orthogonal steps towards the
    main flock (sheepsim's decision; the regrouping then rolls again)."""
    return routes_to(st, main_flock(st, mask), mask, face, plus_fallback, opts)


@kernel
def routes_to(st, target, mask, face, plus_fallback, opts):
    """:func:`regroup_routes` towards the main flock ``target`` (a mask). With several
    equally large groups (``target`` their union) the active player chooses which one is
    the main flock (rules README): the options are the routes to each of them in turn
    (each with its own fallbacks), without repeats; touching another of them on the way
    does not stop a route."""
    first = _group_in(st, target, lowest_bit(target))
    if first == target:  # one main flock (nearly always)
        return _routes_to_one(st, target, mask, face, plus_fallback, opts, ZERO)
    n = ZERO
    rest = target
    while rest:
        one = _group_in(st, rest, lowest_bit(rest))
        rest &= ~one
        n = _without_repeats(opts, n, _routes_to_one(st, one, mask, face, plus_fallback,
                                                     opts, n))
    return n


@kernel
def _routes_to_one(st, target, mask, face, plus_fallback, opts, start):
    """The routes to the one group ``target``, written from row ``start``; returns the
    new row count."""
    n = start
    if face == FACE_DIAG:
        n = _diag_routes(st, mask, target, opts, start)
        if n == start:
            n = _ortho_routes(st, mask, target, opts, start)
    else:
        n = _ortho_routes(st, mask, target, opts, start)
        if n == start and plus_fallback == PLUS_FALLBACK_DIAGONAL:
            n = _diag_routes(st, mask, target, opts, start)
    if n == start:
        now = _distance(st, mask, ZERO, ZERO, target)
        for o in range(0, 8, 2):
            if (not group_overlaps(st, mask, DR[o], DC[o])
                    and _distance(st, mask, DR[o], DC[o], target) < now):
                n = _route(opts, n, o, np.int64(1), np.int64(NO_SLIDE), mask)
    return n


@kernel
def _group_in(st, within, s):
    """The sheep of the mask ``within`` orthogonally connected to sheep ``s`` through
    sheep of ``within``."""
    comp = ZERO | (1 << s)
    frontier = comp
    while frontier:
        new = ZERO
        for a in range(N_SHEEP):
            if (frontier >> a) & 1:
                for b in range(N_SHEEP):
                    if (within >> b) & 1 and not (comp >> b) & 1:
                        if abs(st[ST_ROW + a] - st[ST_ROW + b]) + \
                                abs(st[ST_COL + a] - st[ST_COL + b]) == 1:
                            new |= ZERO | (1 << b)
        comp |= new
        frontier = new
    return comp


@kernel
def _without_repeats(opts, start, n):
    """Drop the rows ``start..n-1`` of ``opts`` that repeat a row before ``start``."""
    keep = start
    for i in range(start, n):
        seen = False
        for j in range(start):
            if (opts[j, 0] == opts[i, 0] and opts[j, 1] == opts[i, 1]
                    and opts[j, 2] == opts[i, 2] and opts[j, 3] == opts[i, 3]):
                seen = True
                break
        if not seen:
            for c in range(4):
                opts[keep, c] = opts[i, c]
            keep += 1
    return keep


@kernel
def move_group(st, d, steps, slide, mask):
    """Apply a route row: shift the group ``steps`` cells along ``d`` then slide."""
    tr = steps * DR[d]
    tc = steps * DC[d]
    if slide >= 0:
        tr += DR[slide]
        tc += DC[slide]
    for a in range(N_SHEEP):
        if (mask >> a) & 1:
            st[ST_ROW + a] += tr
            st[ST_COL + a] += tc
