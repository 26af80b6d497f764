"""``lookahead-exact``'s backward sweep (``exact.sweep.backward``, row by row since
0.5.0) gives every joint state the race can enter the very float of the plain loop it
replaced (``sweep_reference.py``): bit for bit, on positions with crossings in both
orders, exhausted sheep, finals, and a supply that binds. Exact equality, no tolerance:
the policy's choices are pinned (test_race_pinned.py)."""

import numpy as np
import pytest

from sheepsim.games.race import layout as L
from sheepsim.games.race import moves
from sheepsim.games.race import policies as P
from sheepsim.games.race.exact import game as exact_game
from sheepsim.games.race.exact import graphs, sweep
from sheepsim.games.race.exact.from_position import board_from
from sheepsim.games.race.rules import load_rules

from .sweep_reference import reference_backward
from .test_exact_game import POSITIONS, _random_walk

#: small enough for the plain loop and the numpy check of every state
MAX_STATES = 400_000


def _sweeps(board, race, lane, mine, rules):
    """``(new, reference, entered)``: both sweeps' values and the mask of the states the
    race can enter (fewer than ``need`` sheep across; when the supply binds, no more
    blue cubes on the cards than in play), or None if no option leaves the race on."""
    roots = []
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    moves.legal_options(board, race, lane, legal)
    for o in np.flatnonzero(legal):
        b, r = board.copy(), race.copy()
        moves.apply_option(b, r, lane, o)
        if not moves.race_over(b, r):
            roots.append(b[lane].copy())
    if not roots:
        return None
    states, nxt, sizes, root_ids, binding = graphs.build_graphs(board, race, P.GREEDY, lane,
                                                                np.array(roots))
    if np.prod(sizes) > MAX_STATES:
        return None
    kr = rules.kernel_rules()
    final = race[L.STAGE] == L.FINAL
    dice = exact_game.dice_table(*moves.stage_dice(kr, race[L.STAGE]))
    start = np.zeros(6, np.int64)
    start[lane] = root_ids.min()
    blue_total = exact_game._blue_total(board, race) if binding else sweep.NO_LIMIT
    pts = exact_game.points_table(mine, kr.payoffs, kr.bonus, final)
    args = ((states, nxt, sizes), start, dice, race, blue_total, binding, pts)
    new, ref = sweep.backward(*args), reference_backward(*args)
    first = sweep.index_of(start, sizes)
    digits = np.unravel_index(np.arange(first, np.prod(sizes)), tuple(sizes))
    n_fin = sum(states[ln, d, sweep.S_STATUS] == L.FINISHED for ln, d in enumerate(digits))
    entered = n_fin < (1 if final else 3)
    if binding:
        entered &= blue_total - sum(states[ln, d, sweep.S_BLUE] for ln, d in enumerate(digits)) >= 0
    return (new, ref, entered, n_fin == 2), binding


def _same_bits(a, b):
    return np.array_equal(a.view(np.int64), b.view(np.int64))


def _check(board, race, lane, mine, rules):
    out = _sweeps(board, race, lane, mine, rules)
    if out is None:
        return None
    (new, ref, entered, two), binding = out
    assert _same_bits(new[0][entered], ref[0][entered])
    assert _same_bits(new[1][entered & two], ref[1][entered & two])
    return binding


@pytest.mark.parametrize("position", POSITIONS)
def test_the_row_sweep_equals_the_plain_loop_bit_for_bit(position):
    rules = load_rules()
    board, race, _, stage = board_from(position, rules)
    gen = np.random.default_rng(len(position))
    for lane in np.flatnonzero(board[:, L.STATUS] == L.RUNNING):
        mine = np.zeros(6, np.int64)
        mine[gen.choice(6, size=2 if stage == "final" else 3, replace=False)] = 1
        _check(board, race, lane, mine, rules)


def test_the_row_sweep_equals_the_plain_loop_on_random_positions_and_a_binding_supply():
    rules = load_rules()
    gen = np.random.default_rng(46)
    checked = binds = 0
    for k in range(40):
        stage = "final" if k % 3 == 2 else "semifinal"
        board, race = _random_walk(rules, gen, stage, int(gen.integers(6, 40)))
        if k % 2:  # a supply of 0-2 blue cubes: the solver tracks it exactly
            race[L.SUPPLY_BLUE] = k % 3
        lane = int(gen.choice(np.flatnonzero(board[:, L.STATUS] == L.RUNNING)))
        mine = np.zeros(6, np.int64)
        mine[gen.choice(6, size=2 if stage == "final" else 3, replace=False)] = 1
        binding = _check(board, race, lane, mine, rules)
        if binding is not None:
            checked += 1
            binds += binding
    assert checked >= 20 and binds >= 5, (checked, binds)
