"""Races where every sheep runs ``greedy``, played from per-card transition tables.

``greedy`` looks only at the moving sheep's own square and cubes, and at the blue supply
through ``min(1, supply)`` and ``min(2, supply)`` (may it recover?). When the supply can
never fall below what a recovery takes (:func:`supply_never_binds`), the option greedy
takes and where it leaves the sheep depend on the sheep alone, so one table per card
gives the whole turn: ``next[state]`` packs the state after the move, the new square and
the status. The turn loop then rolls the dice (the same draws, in the same order, as
:func:`~sheepsim.games.race.engine.run_race`), selects the sheep and reads one entry.

The results are identical to the engine's, race by race (checked in
``tests/race/test_greedy_table.py`` over every state of every card and against the
engine on whole chunks); it is what issue 34 asks of the ``race odds`` kernel against the
shared C yardstick (``benchmarks/bench_c_yardstick.py``).
"""

from __future__ import annotations

import numpy as np

from sheepsim import rng
from sheepsim.games.race.layout import EXHAUSTED, FINISHED, N_LANES, RUNNING
from sheepsim.games.race.moves import MAX_TURNS, dice_lane, roll_dice, sheep_moved
from sheepsim.games.race.policies import greedy_option
from sheepsim.jit import njit

# packed table entry: state index (low 32 bits) | square << 32 | status << 48
_SQ_SHIFT = np.int64(32)
_STATUS_SHIFT = np.int64(48)
_LOW32 = np.int64(0xFFFFFFFF)
_LOW16 = np.int64(0xFFFF)


def supply_never_binds(rules) -> bool:
    """True when, whatever the deal, the blue supply always holds the cubes a recovering
    sheep would take, so ``greedy`` and the moves ignore the supply.

    The other five sheep hold at most ``5 * max_cubes`` blue cubes; a sheep may recover
    only with at most ``max_cubes - 1`` cubes (walk, 1 cube) or ``max_cubes - 2`` (rest,
    2 cubes), so the supply then holds at least ``blue_total - 6 * max_cubes + 1`` and
    ``+ 2``, enough when ``blue_total >= 6 * max_cubes + 1``; a sheep at ``max_cubes``
    recovers nothing whatever the supply (REST and WALK_RECOVER are illegal), and the
    supply is then at least 1, so the stalemate rule (no blue cube left) never applies.
    The standard rules: 19 blue cubes, 3 per card (19 >= 19)."""
    return int(rules.blue_total) >= N_LANES * int(rules.max_cubes) + 1


def table_width(rules) -> int:
    """States per card: square ``0..track`` x red x blue ``0..max_cubes`` x white."""
    cards = np.asarray(rules.cards)
    return (int(rules.track) + 1) * (int(cards[:, 0].max()) + 1) * (int(rules.max_cubes) + 1) \
        * (int(cards[:, 2].max()) + 1)


def new_tables(rules) -> np.ndarray:
    """Scratch for :func:`fill_tables`: ``(n_cards * table_width,)`` int64, or empty when
    the supply may bind (the engine's own turn loop is played then)."""
    if not supply_never_binds(rules):
        return np.zeros(0, dtype=np.int64)
    return np.zeros(np.asarray(rules.cards).shape[0] * table_width(rules), dtype=np.int64)


@njit(inline="always")
def _index(pos, red, blue, white, nr, nb, nw):
    return ((pos * nr + red) * nb + blue) * nw + white


@njit
def fill_tables(rules, tables):
    """``tables[c * width + state]``: the packed result of ``greedy``'s move for a sheep of
    card ``c`` in ``state`` (unreachable states included: they are never read). One flat
    array, and an entry's state index includes its card's offset: the turn loop then
    follows a sheep with one load, whatever its card."""
    cards = rules.cards
    nr = np.int64(cards[:, 0].max()) + 1
    nb = np.int64(rules.max_cubes) + 1
    nw = np.int64(cards[:, 2].max()) + 1
    width = (rules.track + 1) * nr * nb * nw
    track, ez_first, max_cubes = rules.track, rules.ez_first, rules.max_cubes
    big = np.int64(2)  # a supply that never binds: every recovery is whole (see above)
    for c in range(cards.shape[0]):
        trot, gallop = cards[c, 3], cards[c, 4]
        for pos in range(track + 1):
            for red in range(nr):
                for blue in range(nb):
                    for white in range(nw):
                        s = c * width + _index(pos, red, blue, white, nr, nb, nw)
                        if red + blue + white > max_cubes:
                            tables[s] = -1  # never reached
                            continue
                        option = greedy_option(pos, red, blue, white, trot, gallop, big,
                                               track, ez_first, max_cubes)
                        if option < 0:  # an empty sheep in the End Zone: never running
                            tables[s] = -1
                            continue
                        row, _ = sheep_moved(option, (pos, red, blue, white, trot, gallop),
                                             big, track, ez_first, 0)
                        npos, nred, nblue, nwhite, status = row[0], row[1], row[2], row[3], row[4]
                        nxt = c * width + _index(min(npos, track), nred, nblue, nwhite, nr, nb,
                                                 nw)
                        tables[s] = nxt | (npos << _SQ_SHIFT) | (status << _STATUS_SHIFT)


@njit
def fill_starts(rules, starts):
    """``starts[c]``: the table index of a sheep of card ``c`` on the starting line (once
    per chunk: computed per race, the card maxima cost about a tenth of a race)."""
    cards = rules.cards
    nr = np.int64(cards[:, 0].max()) + 1
    nb = np.int64(rules.max_cubes) + 1
    nw = np.int64(cards[:, 2].max()) + 1
    width = (rules.track + 1) * nr * nb * nw
    for card in range(cards.shape[0]):
        starts[card] = card * width + _index(0, cards[card, 0], cards[card, 1], cards[card, 2],
                                             nr, nb, nw)


@njit(inline="always")
def _lazy(pos, status):
    """:func:`~sheepsim.games.race.moves.lazy_sheep` on the table's arrays."""
    best = -1
    for lane in range(N_LANES):
        if status[lane] == RUNNING and (best < 0 or pos[lane] <= pos[best]):
            best = lane
    return best


@njit
def run_race(starts, tables, lane_cards, dice, streams, need, work, places):
    """One race with every sheep ``greedy`` from ``tables`` (:func:`fill_tables`) and
    ``starts`` (:func:`fill_starts`); ``lane_cards`` ``(6,)``, ``dice`` ``(faces, nfaces)``,
    ``need`` places (3 or 1); ``work`` ``(3, 6)`` int64 scratch. Fills ``places[k]``, the
    lane placed k+1-th (as :func:`~sheepsim.games.race.engine.placed_lanes` after the
    engine's race), and returns the turns played."""
    faces, nfaces = dice
    pos, status, cur = work[0], work[1], work[2]
    for lane in range(N_LANES):
        pos[lane] = 0
        status[lane] = RUNNING
        cur[lane] = starts[lane_cards[lane]]
    for k in range(places.shape[0]):
        places[k] = -1
    dice_state, dice_gamma = streams[rng.DICE, 0], streams[rng.DICE, 1]
    n_placed, n_running, turn = 0, N_LANES, 0
    while n_placed < need and n_running > 0:
        if turn >= MAX_TURNS:
            raise ValueError("race did not end within MAX_TURNS turns")
        total, dice_state = roll_dice(faces, nfaces, dice_state, dice_gamma)
        lane = dice_lane(total)
        if lane < 0 or status[lane] != RUNNING:
            lane = _lazy(pos, status)
        e = tables[cur[lane]]
        cur[lane] = e & _LOW32
        pos[lane] = (e >> _SQ_SHIFT) & _LOW16
        st = e >> _STATUS_SHIFT
        if st != RUNNING:
            status[lane] = st
            n_running -= 1
            if st == FINISHED:
                places[n_placed] = lane
                n_placed += 1
        turn += 1
    streams[rng.DICE, 0] = dice_state
    # the places not won by crossing, as engine.place_remaining gives them. greedy never
    # exhausts a sheep (in the End Zone it can always walk for free), so with the tables
    # this loop does not run; it is kept so that the function is the engine's race
    # whatever table it is given
    while n_placed < need:
        best = -1
        for lane in range(N_LANES):
            if status[lane] == EXHAUSTED and (best < 0 or pos[lane] > pos[best]):
                best = lane
        status[best] = FINISHED
        places[n_placed] = best
        n_placed += 1
    return turn
