"""Counting a seat's legal menu options, and listing only the one the random policy drew.

The ``random`` policy draws an index below the number of legal options and plays that
option. Listing every option first (:func:`..geometry.flockops.legal_actions`, about
60-100 rows of four numbers) was about a third of a random turn, and random turns are
most of a ``rollout`` playout. Here the sheep tiles (Lamb Push, Lamb Roll, Leapfrog) are
counted from the sheep's move masks and the Line and Diagonal Pushes from the flock's
line masks (a push tile that refuses the reverse of the previous push loses that one
line when the masks hold it: :func:`..geometry.flockops.reverse_is_listed`, next to the
``_drop_reverse`` that removes the same row from a list); the other tiles are counted
by listing their options with :func:`..geometry.flockops.tile_options`: Alignment and
Ewe Turn (a few fixed options, less a refused reverse), and every push of a flock too
spread for the line masks. Only the drawn tile's options are listed, with
:func:`..geometry.flockops.tile_options` in the same order: the count and the option are
exactly those of ``legal_actions`` (``tests/panic/test_panic_menucount.py`` checks
both, at every index, for every seat in every position of 12 random games, hundreds of
positions and more than 20,000 options for each of the standard menu at 3 and 4 players
and a menu whose sheep tiles move any sheep, and for flocks on one line after every
reverse a tile may refuse), so the draws and the games are unchanged.
The flock's box and line masks are computed once per choice, for both steps.
"""

from sheepsim.games.panic.geometry.flockops import (
    _BIG,
    flock_lines,
    refuses_reverse,
    reverse_is_listed,
    sheep_moves,
    tile_options,
)
from sheepsim.games.panic.geometry.groups import popcount
from sheepsim.games.panic.layout import (
    DIAG_PUSH,
    LAMB_PUSH,
    LAMB_ROLL,
    LEAPFROG,
    LINE_PUSH,
    MAX_TILES,
    N_SHEEP,
    R_N_TILES,
    R_OWN,
    R_SEAT_COLOUR,
    R_TILE_KIND,
    R_TILE_RESTR,
    ST_ALIVE,
    ST_COLOUR,
    ST_USED,
)
from sheepsim.games.panic.scratch import ZERO
from sheepsim.jit import kernel
from sheepsim.rng import policy_randbelow as randbelow
from sheepsim.rng import policy_stream


@kernel(inline="always")
def movable_sheep(st, R, seat, own):
    """``(sheep, Lamb Roll options, Leapfrog options)`` of the live sheep a tile may move
    (``own``: only ``seat``'s colour): each sheep's roll directions and leapfrog sides
    from one :func:`..geometry.flockops.sheep_moves`, for every roll and leapfrog tile at once."""
    colour = R[R_SEAT_COLOUR + seat]
    sheep = ZERO
    rolls = ZERO
    leaps = ZERO
    for s in range(N_SHEEP):
        if not st[ST_ALIVE + s] or (own and st[ST_COLOUR + s] != colour):
            continue
        m = sheep_moves(st, s)
        sheep += 1
        rolls += popcount(m & 255)
        leaps += popcount((m >> 8) & 15)
    return sheep, rolls, leaps


@kernel(inline="always")
def line_count(kind, lines):
    """Options of a Line (``kind`` LINE_PUSH) or Diagonal Push tile: every occupied line
    in each of its four directions; ``lines`` from :func:`..geometry.flockops.flock_lines`."""
    small, row_m, col_m, diag_m, anti_m = lines
    if kind == LINE_PUSH:  # columns pushed up and down, rows left and right
        return 2 * (popcount(col_m) + popcount(row_m))
    return 2 * (popcount(diag_m) + popcount(anti_m))


#: The tiles' counts live in ``opts[tile, 3]`` between :func:`count_actions` and
#: :func:`nth_action`; options are listed from row ``FIRST_ROW`` on, clear of them.
FIRST_ROW = MAX_TILES


@kernel
def count_actions(st, R, seat, opts, box, lines):
    """Number of legal menu options of ``seat`` (that of :func:`..geometry.flockops.legal_actions`);
    ``box``, ``lines`` from :func:`..geometry.flockops.flock_lines` of ``st``. ``opts``
    ``(MAX_OPTS, OPT_WIDTH)`` is scratch; it keeps each tile's count for
    :func:`nth_action`. Sheep tiles are counted from the sheep's move masks, line
    pushes from the flock's line masks (less the reverse a tile refuses, when it is
    there); the rest is counted by listing it."""
    own_moves = (ZERO - 1, ZERO, ZERO)
    any_moves = (ZERO - 1, ZERO, ZERO)
    total = ZERO
    for tile in range(R[R_N_TILES]):
        opts[tile, 3] = 0
        if st[ST_USED + seat * MAX_TILES + tile] or box[0] == _BIG:
            continue
        kind = R[R_TILE_KIND + tile]
        sheep_tile = kind == LAMB_PUSH or kind == LAMB_ROLL or kind == LEAPFROG
        line_tile = (kind == LINE_PUSH or kind == DIAG_PUSH) and lines[0]
        refuses = refuses_reverse(st, R, tile)
        if line_tile:
            # a refusing tile is of the previous push's kind: its reverse is one of the
            # lines it would list, if that line holds a sheep
            count = line_count(kind, lines) - (refuses and reverse_is_listed(st, box, lines))
        elif refuses or not sheep_tile:
            # an Alignment or Ewe Turn (4 or 2 rows), a sheep tile refusing a reverse, a
            # spread flock's line push: listed with tile_options, as legal_actions does
            count = tile_options(st, R, seat, tile, box, lines, opts, ZERO + FIRST_ROW) - FIRST_ROW
        else:
            own = R[R_TILE_RESTR + tile] == R_OWN
            moves = own_moves if own else any_moves
            if moves[0] < 0:  # the first such tile: one pass over its sheep
                moves = movable_sheep(st, R, seat, own)
                if own:
                    own_moves = moves
                else:
                    any_moves = moves
            if kind == LAMB_PUSH:  # every direction for each sheep it may move
                count = 8 * moves[0]
            elif kind == LAMB_ROLL:
                count = moves[1]
            else:
                count = moves[2]
        opts[tile, 3] = count
        total += count
    return total


@kernel
def nth_action(st, R, seat, i, opts, box, lines):
    """Row of ``opts`` holding ``seat``'s legal option ``i``, the ``i``-th row
    :func:`..geometry.flockops.legal_actions` would fill (``0 <= i <`` the count; ``opts``, ``box``
    and ``lines`` as :func:`count_actions` had them, for the same state and seat): only
    the tile holding it is listed."""
    before = ZERO
    for tile in range(R[R_N_TILES]):
        count = opts[tile, 3]
        if i < before + count:
            tile_options(st, R, seat, tile, box, lines, opts, ZERO + FIRST_ROW)
            return FIRST_ROW + i - before
        before += count
    return ZERO - 1


@kernel
def random_option(st, R, seat, opts, streams):
    """The ``random`` policy's menu choice for ``seat``: ``(row, i, n)``, the row of
    ``opts`` holding the option ``i`` drawn uniformly (POLICY stream of ``streams``)
    among the ``n`` legal ones, as ``randbelow(n)`` picks among the rows of
    :func:`..geometry.flockops.legal_actions`; ``(-1, -1, 0)`` if there is none (the seat passes).
    Nothing is drawn for none or a lone option (taken without asking, as for every
    policy: :func:`..turns.play_turn`)."""
    box, lines = flock_lines(st)
    n = count_actions(st, R, seat, opts, box, lines)
    if n == 0:
        return ZERO - 1, ZERO - 1, n
    i = ZERO
    if n > 1:
        i = randbelow(policy_stream(streams), n)
    return nth_action(st, R, seat, i, opts, box, lines), i, n
