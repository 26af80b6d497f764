"""Time-track kernels: moving the counter and the scoring it triggers.

Scores are whole points credited to seats in ``st[ST_SCORE + seat]`` and, per field, in
``st[ST_FIELD_PTS + seat * MAX_FIELDS + field]``. Sheep of the neutral colour (3
players) and the black sheep score for nobody.
"""

from sheepsim.games.panic.geometry.scoring import (
    black_points,
    ram_points,
    shear_front_row,
    shear_points,
    together_points,
)
from sheepsim.games.panic.layout import (
    BLACK_SHEEP,
    MAX_FIELDS,
    N_SHEEP,
    R_FIELD_FIRST,
    R_FIELD_GATE,
    R_FIELD_KIND,
    R_FIELD_LAST,
    R_N_FIELDS,
    R_N_PLAYERS,
    R_SEAT_COLOUR,
    R_TRACK_LEN,
    RAM,
    SHEARING,
    ST_ALIVE,
    ST_COLOUR,
    ST_COUNTER,
    ST_FIELD_PTS,
    ST_SCORE,
    ST_SHORN,
    TEAMMATES,
)
from sheepsim.jit import kernel


@kernel
def field_of(R, space):
    """Index of the field holding ``space`` (-1 for the start pen, space 0)."""
    for f in range(R[R_N_FIELDS]):
        if R[R_FIELD_FIRST + f] <= space <= R[R_FIELD_LAST + f]:
            return f
    return -1


@kernel
def credit(st, seat, field, pts):
    st[ST_SCORE + seat] += pts
    st[ST_FIELD_PTS + seat * MAX_FIELDS + field] += pts


@kernel
def field_event(st, R, field):
    """A gate passed or a pen reached: Ram scoring, or shearing then scoring from the
    back. Returns the mask of the sheep shorn (0 for the Ram)."""
    removed = 0
    kind = R[R_FIELD_KIND + field]
    if kind == SHEARING:
        removed = shear_front_row(st)
        for s in range(N_SHEEP):
            if (removed >> s) & 1:
                st[ST_SHORN + st[ST_COLOUR + s]] += 1
    for seat in range(R[R_N_PLAYERS]):
        colour = R[R_SEAT_COLOUR + seat]
        if kind == RAM:
            credit(st, seat, field, ram_points(st, R, colour))
        elif kind == SHEARING:
            credit(st, seat, field, shear_points(st, R, colour))
    return removed


@kernel
def advance_and_score(st, R, seat, time):
    """Move the counter ``time`` spaces (stopping at the final pen), run the gate/pen
    events it passes, then score the active ``seat`` if the counter is in a field that
    scores on every space. Returns the mask of shorn sheep (the caller regroups)."""
    old = st[ST_COUNTER]
    new = min(old + time, R[R_TRACK_LEN])
    st[ST_COUNTER] = new
    removed = 0
    for f in range(R[R_N_FIELDS]):
        kind = R[R_FIELD_KIND + f]
        if kind != RAM and kind != SHEARING:
            continue
        gate = R[R_FIELD_GATE + f]
        if gate >= 0 and old <= gate < new:
            removed |= field_event(st, R, f)
        last = R[R_FIELD_LAST + f]
        if old < last <= new:
            removed |= field_event(st, R, f)
    f = field_of(R, new)
    if f >= 0:
        colour = R[R_SEAT_COLOUR + seat]
        kind = R[R_FIELD_KIND + f]
        if kind == TEAMMATES:
            credit(st, seat, f, together_points(st, colour))
        elif kind == BLACK_SHEEP:
            credit(st, seat, f, black_points(st, colour))
    return removed


@kernel
def final_event(st, R):
    """Menus ran out before the final pen: the last field's pen event happens now."""
    return field_event(st, R, R[R_N_FIELDS] - 1)


@kernel
def own_sheep(st, R, seat):
    colour = R[R_SEAT_COLOUR + seat]
    n = 0
    for s in range(N_SHEEP):
        if st[ST_ALIVE + s] and st[ST_COLOUR + s] == colour:
            n += 1
    return n

