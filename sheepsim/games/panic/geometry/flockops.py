"""Flock kernels: sheep lookup, the seven actions and their legality.

Everything here works on the state vector ``st`` (see :mod:`..layout`) in place, with no
validation and no allocation (the game calls these millions of times). Sheep are
``N_SHEEP`` slots with an unbounded ``(row, col)`` position, an ``alive`` flag and a
colour; a group of sheep is a bitmask over the slots. These (with :mod:`.groups` for
regrouping and :mod:`.scoring`) are the only implementations of the rules' flock
operations: the :class:`~..flock.Flock` class, the policies and the game kernels all call
them.
"""

import numpy as np

from sheepsim.games.panic.layout import (
    ALIGNMENT,
    DIAG_PUSH,
    DIR_COL,
    DIR_ROW,
    EWE_TURN,
    FLOCK_LEN,
    LAMB_PUSH,
    LAMB_ROLL,
    LEAPFROG,
    LINE_PUSH,
    MAX_TILES,
    N_SHEEP,
    OPT_WIDTH,
    R_N_TILES,
    R_NO_REVERSE,
    R_NO_REVERSE_UNLESS_DIE,
    R_OWN,
    R_SEAT_COLOUR,
    R_TILE_KIND,
    R_TILE_RESTR,
    ST_ALIVE,
    ST_COL,
    ST_COLOUR,
    ST_FACING,
    ST_PREV_DIE,
    ST_PREV_DIR,
    ST_PREV_KIND,
    ST_PREV_TARGET,
    ST_ROW,
    ST_USED,
    TURN_LEFT,
    TURN_RIGHT,
)
from sheepsim.games.panic.scratch import ZERO
from sheepsim.jit import kernel

DR = np.array(DIR_ROW, dtype=np.int64)
DC = np.array(DIR_COL, dtype=np.int64)
_BIG = 1 << 40


# ----------------------------------------------------------------------- basics
@kernel
def sheep_at(st, r, c):
    """Slot of the live sheep on cell ``(r, c)``, or -1."""
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_ROW + s] == r and st[ST_COL + s] == c:
            return s
    return -1


@kernel
def alive_mask(st):
    m = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s]:
            m |= 1 << s
    return m


@kernel
def count_colour(st, colour):
    n = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_COLOUR + s] == colour:
            n += 1
    return n


@kernel
def projection(st, s, d):
    """Signed distance of sheep ``s`` along direction ``d`` (larger = further along)."""
    return st[ST_ROW + s] * DR[d] + st[ST_COL + s] * DC[d]


@kernel
def line_key(d, r, c):
    """Which line through ``(r, c)`` a push along ``d`` acts on (row, column or diagonal)."""
    if d == 2 or d == 6:
        return r
    if d == 0 or d == 4:
        return c
    if d == 3 or d == 7:
        return r - c
    return r + c


# ---------------------------------------------------------------------- actions
@kernel
def push_from(st, s, d):
    """Move sheep ``s`` one cell along ``d`` with the contiguous run of sheep ahead of it."""
    r = st[ST_ROW + s]
    c = st[ST_COL + s]
    run = 1 << s  # the run's slots, found once (each cell is looked up once)
    k = 1
    while True:
        t = sheep_at(st, r + k * DR[d], c + k * DC[d])
        if t < 0:
            break
        run |= 1 << t
        k += 1
    for t in range(N_SHEEP):  # the whole run moves one cell: no two sheep meet
        if (run >> t) & 1:
            st[ST_ROW + t] += DR[d]
            st[ST_COL + t] += DC[d]


@kernel
def first_on_line(st, key, d):
    """The sheep a pusher standing outside the flock meets first on line ``key`` going
    along ``d`` (-1 if the line is empty)."""
    best = -1
    best_p = _BIG
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and line_key(d, st[ST_ROW + s], st[ST_COL + s]) == key:
            p = projection(st, s, d)
            if p < best_p:
                best_p = p
                best = s
    return best


@kernel
def align(st, d):
    """Compact every line perpendicular to side ``d`` against the flock's outermost line
    on that side, keeping each line's order."""
    bar = -_BIG
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s]:
            bar = max(bar, projection(st, s, d))
    done = 0
    for _ in range(N_SHEEP):
        # Take the unprocessed sheep furthest along d; the processed sheep on its line
        # are exactly the ones ahead of it, already packed against the barrier.
        best = -1
        best_p = -_BIG
        for s in range(N_SHEEP):
            if st[ST_ALIVE + s] and not (done >> s) & 1:
                p = projection(st, s, d)
                if p > best_p:
                    best_p = p
                    best = s
        if best < 0:
            break
        key = line_key(d, st[ST_ROW + best], st[ST_COL + best])
        ahead = 0
        for s in range(N_SHEEP):
            if (done >> s) & 1 and line_key(d, st[ST_ROW + s], st[ST_COL + s]) == key:
                ahead += 1
        shift = bar - ahead - best_p
        st[ST_ROW + best] += shift * DR[d]
        st[ST_COL + best] += shift * DC[d]
        done |= 1 << best


@kernel
def leapfrog(st, s, d):
    """Sheep ``s`` jumps along ``d`` over the contiguous run next to it to the first empty
    cell."""
    r = st[ST_ROW + s]
    c = st[ST_COL + s]
    k = 1
    while sheep_at(st, r + k * DR[d], c + k * DC[d]) >= 0:
        k += 1
    st[ST_ROW + s] = r + k * DR[d]
    st[ST_COL + s] = c + k * DC[d]


@kernel
def apply_action(st, kind, a, b):
    """Apply one action: ``a`` = sheep slot or line key, ``b`` = direction, side or turn."""
    if kind == LAMB_PUSH:
        push_from(st, a, b)
    elif kind == LINE_PUSH or kind == DIAG_PUSH:
        s = first_on_line(st, a, b)
        if s >= 0:
            push_from(st, s, b)
    elif kind == ALIGNMENT:
        align(st, b)
    elif kind == LAMB_ROLL:
        st[ST_ROW + a] += DR[b]
        st[ST_COL + a] += DC[b]
    elif kind == LEAPFROG:
        leapfrog(st, a, b)
    elif kind == EWE_TURN:
        st[ST_FACING] = (st[ST_FACING] + b) % 4


# -------------------------------------------------------------------- legality
@kernel
def sheep_moves(st, s):
    """Bits 0-7: the directions ``d`` sheep ``s`` may Lamb Roll along (the cell is empty
    and touches another sheep on a side); bits 8-11: the orthogonal directions ``2 k``
    with a sheep next to ``s`` (a Leapfrog there has a sheep to jump). One pass marks
    the other sheep in the 5x5 window around ``s`` (bit ``(dr + 2) * 5 + dc + 2``)."""
    r = st[ST_ROW + s]
    c = st[ST_COL + s]
    near = 0
    for t in range(N_SHEEP):
        if t != s and st[ST_ALIVE + t]:
            dr = st[ST_ROW + t] - r
            dc = st[ST_COL + t] - c
            if -2 <= dr <= 2 and -2 <= dc <= 2:
                near |= 1 << ((dr + 2) * 5 + dc + 2)
    ok = 0
    for d in range(8):
        cell = (DR[d] + 2) * 5 + DC[d] + 2
        if (near >> cell) & 1:
            if d % 2 == 0:
                ok |= 1 << (8 + d // 2)
            continue
        # the target's side neighbours (-5 up, +5 down, -1 left, +1 right) stay inside
        # the window because the target is one cell from the centre
        if ((near >> (cell - 5)) & 1 or (near >> (cell + 5)) & 1
                or (near >> (cell - 1)) & 1 or (near >> (cell + 1)) & 1):
            ok |= 1 << d
    return ok


@kernel
def roll_dirs(st, s):
    """Bit ``d`` set if sheep ``s`` may Lamb Roll along ``d`` (see :func:`sheep_moves`)."""
    return sheep_moves(st, s) & 255


@kernel
def roll_ok(st, s, d):
    return (roll_dirs(st, s) >> d) & 1 == 1


@kernel
def refuses_reverse(st, R, tile):
    """Does ``tile`` refuse the reverse of the previous acting player's action now?

    Rules README ("Reverse move"): a reverse is the same action type as that action, on
    the same line (Line Push: row or column; Diagonal Push: diagonal) in the opposite
    direction, or for an Ewe Turn the opposite rotation, whatever the flock looks like
    afterwards. "no reverse" tiles always refuse it; "no reverse unless a die was
    rolled" tiles only if no panic or regroup die was rolled since that action was
    chosen. No previous menu action (start of the game): nothing is refused.
    """
    restr = R[R_TILE_RESTR + tile]
    if restr != R_NO_REVERSE and restr != R_NO_REVERSE_UNLESS_DIE:
        return False
    if st[ST_PREV_KIND] != R[R_TILE_KIND + tile]:
        return False
    return restr == R_NO_REVERSE or st[ST_PREV_DIE] == 0


@kernel
def reverse_dir(st):
    """The direction (Ewe Turn: the turn) that reverses the previous menu action."""
    if st[ST_PREV_KIND] == EWE_TURN:
        return 4 - st[ST_PREV_DIR]
    return (st[ST_PREV_DIR] + 4) % 8


@kernel
def refused_tiles(st, R, seat):
    """Bit mask of ``seat``'s unused tiles that refuse a reverse now (for the trace)."""
    m = 0
    for tile in range(R[R_N_TILES]):
        if not st[ST_USED + seat * MAX_TILES + tile] and refuses_reverse(st, R, tile):
            m |= 1 << tile
    return m


@kernel
def _add(opts, n, tile, a, b):
    opts[n, 0] = tile
    opts[n, 1] = a
    opts[n, 2] = b
    opts[n, 3] = 0
    return n + 1


@kernel
def _sheep_options(st, R, seat, tile, opts, n):
    """Append the options of a Lamb Push, Lamb Roll or Leapfrog ``tile`` (sheep by
    sheep, directions in order); returns the count."""
    kind = R[R_TILE_KIND + tile]
    own = R[R_TILE_RESTR + tile] == R_OWN
    colour = R[R_SEAT_COLOUR + seat]
    for s in range(N_SHEEP):
        if not st[ST_ALIVE + s] or (own and st[ST_COLOUR + s] != colour):
            continue
        if kind == LAMB_PUSH:
            for d in range(8):
                n = _add(opts, n, tile, s, d)
            continue
        m = sheep_moves(st, s)
        if kind == LAMB_ROLL:
            for d in range(8):
                if (m >> d) & 1:
                    n = _add(opts, n, tile, s, d)
        else:
            for k in range(4):
                if (m >> (8 + k)) & 1:
                    n = _add(opts, n, tile, s, 2 * k)
    return n


@kernel(inline="always")
def lines_along(d, box, lines):
    """``(lowest key, highest key, occupied-line mask)`` of the lines a push along ``d``
    moves (rows, columns, diagonals or anti-diagonals; bit ``key - lowest``); ``box``,
    ``lines`` from :func:`flock_lines`."""
    minr, maxr, minc, maxc = box
    small, row_m, col_m, diag_m, anti_m = lines
    if d == 2 or d == 6:
        return minr, maxr, row_m
    if d == 0 or d == 4:
        return minc, maxc, col_m
    if d == 3 or d == 7:
        return minr - maxc, maxr - minc, diag_m
    return minr + minc, maxr + maxc, anti_m


@kernel(inline="always")
def reverse_is_listed(st, box, lines):
    """Is the reverse of the previous Line or Diagonal Push among the options a push tile
    of its kind lists (its line, the opposite direction, holds a sheep)? For a flock whose
    lines fit the masks (``lines[0]``)."""
    lo, hi, m = lines_along(reverse_dir(st), box, lines)
    key = st[ST_PREV_TARGET]
    return lo <= key <= hi and (m >> (key - lo)) & 1 == 1


@kernel
def _line_options(st, tile, kind, box, lines, opts, n):
    """Append the options of a Line or Diagonal Push ``tile``: every direction, every
    occupied line in order. ``box`` = (min row, max row, min col, max col) of the flock;
    ``lines`` = (small, row, column, diagonal, anti-diagonal bit masks) from
    :func:`legal_actions` (``small`` False: test each line with :func:`first_on_line`)."""
    small = lines[0]
    d0 = 0 if kind == LINE_PUSH else 1
    for d in range(d0, 8, 2):
        lo, hi, m = lines_along(d, box, lines)
        for key in range(lo, hi + 1):
            if small:
                if (m >> (key - lo)) & 1:
                    n = _add(opts, n, tile, key, d)
            elif first_on_line(st, key, d) >= 0:
                n = _add(opts, n, tile, key, d)
    return n


@kernel
def _drop_reverse(st, kind, opts, start, n):
    """Remove from ``opts[start:n]`` the reverse of the previous action: the opposite
    direction (turn), on the same line for Line and Diagonal Pushes. Returns the count."""
    back = reverse_dir(st)
    on_line = kind == LINE_PUSH or kind == DIAG_PUSH  # the target is the line
    keep = start
    for i in range(start, n):
        if opts[i, 2] != back or (on_line and opts[i, 1] != st[ST_PREV_TARGET]):
            for j in range(OPT_WIDTH):
                opts[keep, j] = opts[i, j]
            keep += 1
    return keep


@kernel
def flock_lines(st):
    """The flock's bounding box ``(min row, max row, min col, max col)`` and its lines
    ``(small, row, column, diagonal, anti-diagonal bit masks)`` for :func:`_line_options`;
    the box's min row is ``_BIG`` when no sheep is left."""
    minr = _BIG
    maxr = -_BIG
    minc = _BIG
    maxc = -_BIG
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s]:
            minr = min(minr, st[ST_ROW + s])
            maxr = max(maxr, st[ST_ROW + s])
            minc = min(minc, st[ST_COL + s])
            maxc = max(maxc, st[ST_COL + s])
    # Which rows, columns and diagonals hold a sheep, as bit masks from each range's low
    # end (a connected flock of 9 spans far less than 63 cells; otherwise scan lines).
    small = minr != _BIG and (maxr - minr) + (maxc - minc) < 63
    row_m = col_m = diag_m = anti_m = ZERO
    if small:
        for s in range(N_SHEEP):
            if st[ST_ALIVE + s]:
                r = st[ST_ROW + s]
                c = st[ST_COL + s]
                row_m |= 1 << (r - minr)
                col_m |= 1 << (c - minc)
                diag_m |= 1 << (r - c - (minr - maxc))
                anti_m |= 1 << (r + c - (minr + minc))
    return (minr, maxr, minc, maxc), (small, row_m, col_m, diag_m, anti_m)


@kernel
def tile_options(st, R, seat, tile, box, lines, opts, n):
    """Append the legal options of ``seat``'s unused ``tile`` to ``opts`` from row ``n``
    (the reverse move it refuses left out); ``box``, ``lines`` from :func:`flock_lines`.
    Returns the new count."""
    kind = R[R_TILE_KIND + tile]
    start = n
    if kind == LAMB_PUSH or kind == LAMB_ROLL or kind == LEAPFROG:
        n = _sheep_options(st, R, seat, tile, opts, n)
    elif kind == LINE_PUSH or kind == DIAG_PUSH:
        n = _line_options(st, tile, kind, box, lines, opts, n)
    elif kind == ALIGNMENT:
        for d in range(0, 8, 2):
            n = _add(opts, n, tile, ZERO, d)
    elif kind == EWE_TURN:
        n = _add(opts, n, tile, ZERO, np.int64(TURN_RIGHT))
        n = _add(opts, n, tile, ZERO, np.int64(TURN_LEFT))
    if refuses_reverse(st, R, tile):
        n = _drop_reverse(st, kind, opts, start, n)
    return n


@kernel
def legal_actions(st, R, seat, opts):
    """Fill ``opts`` (``(MAX_OPTS, 4)``) with every legal ``[tile, a, b, 0]`` for ``seat``
    and return how many (reverse moves a tile refuses are left out), tile by tile."""
    box, lines = flock_lines(st)
    n = ZERO
    if box[0] == _BIG:
        return n
    for tile in range(R[R_N_TILES]):
        if not st[ST_USED + seat * MAX_TILES + tile]:
            n = tile_options(st, R, seat, tile, box, lines, opts, n)
    return n


@kernel
def copy_flock(dst, src):
    """Copy just the flock part (positions, alive, colours, facing)."""
    for i in range(FLOCK_LEN):
        dst[i] = src[i]
