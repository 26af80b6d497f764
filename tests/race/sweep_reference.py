"""The exact solver's backward sweep as it was written before 0.5.0 (a plain loop over
the joint states calling ``sweep._scan`` on each), the reference the row-by-row
``sweep.backward`` must equal bit for bit (``lookahead-exact``'s choices are pinned).

One change: when the supply binds, a joint state holding more blue cubes on the cards
than are in play (never entered) is skipped; the old loop indexed the lane graphs'
successor table with its negative supply class there."""

import numpy as np

from sheepsim.games.race.exact.sweep import (
    STUCK,
    _first_state,
    _ordered,
    _outcome,
    _scan,
    dice_lanes,
    tables,
)
from sheepsim.games.race.layout import FINAL, FINISHED, STAGE
from sheepsim.jit import njit


@njit(inline="always")
def _count_down(digits, sizes):
    """``digits`` ``(6,)`` of the previous joint number."""
    lane = 5
    digits[lane] -= 1
    while digits[lane] < 0:
        digits[lane] = sizes[lane] - 1
        lane -= 1
        digits[lane] -= 1


@njit
def _supply(digits, blue_t, blue_total):
    held = 0
    for lane in range(6):
        held += blue_t[lane, digits[lane]]
    return blue_total - held


@njit
def reference_backward(graph, start, dice, race0, blue_total, binding, pts):
    """Expected points ``V`` ``(2, n_joint - first)`` of every joint state numbered from
    ``first`` (the number of ``start`` ``(6,)``) to the last, for a player paid
    ``pts`` ``(216,)`` per outcome code: ``V[hf, idx - first]`` (row 1 is set only where
    two lanes have crossed). A state from which the race can never end gets NaN.
    Arguments as for :func:`forward`."""
    states, nxt, sizes = graph
    stride, n_joint, first = _first_state(sizes, start)
    value = np.empty((2, n_joint - first))
    final = race0[STAGE] == FINAL
    need = 1 if final else 3
    dice_p = dice_lanes(dice[0], dice[1])
    lane_tabs = tables(states)
    pos_t, stat_t = lane_tabs[0], lane_tabs[1]
    digits = sizes - 1
    lane_p = np.zeros(6)
    lane_next = np.zeros(6, np.int64)
    for idx in range(n_joint - 1, first - 1, -1):
        if idx < n_joint - 1:
            _count_down(digits, sizes)
        i = idx - first
        if binding and _supply(digits, lane_tabs[3], blue_total) < 0:
            continue  # never entered (the one change: _scan would index outside nxt)
        n_fin, fin_a, fin_b, n_running, stalled, stay = _scan(
            digits, lane_tabs, nxt, dice_p, binding, blue_total, lane_p, lane_next)
        for hf in range(2 if n_fin == 2 else 1):
            fa, fb = _ordered(n_fin, fin_a, fin_b, hf)
            if n_fin >= need or n_running == 0 or stalled:
                value[hf, i] = pts[_outcome(digits, pos_t, fa, fb, need)]
                continue
            if stay >= STUCK:
                value[hf, i] = np.nan
                continue
            acc = 0.0
            for lane in range(6):
                if lane_p[lane] == 0.0:
                    continue
                new = i + (lane_next[lane] - digits[lane]) * stride[lane]
                if stat_t[lane, lane_next[lane]] != FINISHED:
                    v = value[hf, new]
                elif final:
                    v = pts[36 * lane]
                elif fb >= 0:
                    v = pts[36 * fa + 6 * fb + lane]
                elif fa >= 0:
                    v = value[1 if fa > lane else 0, new]
                else:
                    v = value[0, new]
                acc += lane_p[lane] * v
            value[hf, i] = acc / (1.0 - stay)
    return value


