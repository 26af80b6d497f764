"""Scoring kernels on the flock: rows from the front (Ram), shearing and rows from the
back, teammates together, sheep next to the black sheep. Rows are counted along the
facing; row 1 is the frontmost occupied row.
"""

from sheepsim.games.panic.geometry.flockops import _BIG, projection
from sheepsim.games.panic.layout import (
    BLACK,
    MAX_ROW_POINTS,
    N_SHEEP,
    R_RAM_POINTS,
    R_SHEAR_POINTS,
    ST_ALIVE,
    ST_COL,
    ST_COLOUR,
    ST_FACING,
    ST_ROW,
)
from sheepsim.jit import kernel


# ----------------------------------------------------------------------- scoring
@kernel
def front_extent(st):
    """(front projection, back projection) along the facing; rows are counted from there."""
    d = 2 * st[ST_FACING]
    hi = -_BIG
    lo = _BIG
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s]:
            p = projection(st, s, d)
            hi = max(hi, p)
            lo = min(lo, p)
    return hi, lo


@kernel
def ram_points(st, R, colour):
    """Ram scoring for one colour: each sheep by its row from the front (row 1 first)."""
    d = 2 * st[ST_FACING]
    front, _ = front_extent(st)
    pts = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_COLOUR + s] == colour:
            rank = front - projection(st, s, d)
            if rank < MAX_ROW_POINTS:
                pts += R[R_RAM_POINTS + rank]
    return pts


@kernel
def shear_points(st, R, colour):
    """Points for one colour after shearing: each sheep by its row from the back."""
    d = 2 * st[ST_FACING]
    _, back = front_extent(st)
    pts = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_COLOUR + s] == colour:
            rank = projection(st, s, d) - back
            if rank < MAX_ROW_POINTS:
                pts += R[R_SHEAR_POINTS + rank]
    return pts


@kernel
def one_colour(st):
    """True if the live sheep other than the black one are all of one colour (or none)."""
    seen = -1
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_COLOUR + s] != BLACK:
            if seen >= 0 and st[ST_COLOUR + s] != seen:
                return False
            seen = st[ST_COLOUR + s]
    return True


@kernel
def shear_front_row(st):
    """Remove the front row unless the flock is of one colour; return the removed mask."""
    if one_colour(st):
        return 0
    d = 2 * st[ST_FACING]
    front, _ = front_extent(st)
    removed = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and projection(st, s, d) == front:
            st[ST_ALIVE + s] = 0
            removed |= 1 << s
    return removed


@kernel
def together_points(st, colour):
    """Teammates' field: 2 per pair of this colour touching on a side, 1 by a corner."""
    pts = 0
    for a in range(N_SHEEP):
        if not st[ST_ALIVE + a] or st[ST_COLOUR + a] != colour:
            continue
        for b in range(a + 1, N_SHEEP):
            if st[ST_ALIVE + b] and st[ST_COLOUR + b] == colour:
                dr = abs(st[ST_ROW + a] - st[ST_ROW + b])
                dc = abs(st[ST_COL + a] - st[ST_COL + b])
                if dr + dc == 1:
                    pts += 2
                elif dr == 1 and dc == 1:
                    pts += 1
    return pts


@kernel
def black_points(st, colour):
    """Black Sheep field: 2 per sheep of this colour touching the black sheep on a side,
    1 by a corner."""
    pts = 0
    for k in range(N_SHEEP):
        if not st[ST_ALIVE + k] or st[ST_COLOUR + k] != BLACK:
            continue
        for a in range(N_SHEEP):
            if st[ST_ALIVE + a] and st[ST_COLOUR + a] == colour:
                dr = abs(st[ST_ROW + a] - st[ST_ROW + k])
                dc = abs(st[ST_COL + a] - st[ST_COL + k])
                if dr + dc == 1:
                    pts += 2
                elif dr == 1 and dc == 1:
                    pts += 1
    return pts
