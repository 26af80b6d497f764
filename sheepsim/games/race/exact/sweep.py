"""The exact race solver's sweeps over the joint lane states (numba).

A joint state is one state per lane (:mod:`~sheepsim.games.race.exact.lanegraph` graphs) plus,
in a semifinal with two sheep across the line, which of them crossed first (``hf``: 1
if the higher-numbered lane did). Joint states are numbered in mixed radix over the
lanes' state numbers; every move raises one lane's number, so increasing numbers visit
each state after every state that leads to it.

* :func:`forward` pushes probability from a start state to the end: the distribution
  of the top three (the odds, and so every bet's EV); :func:`forward_inputs` makes
  what it reads and writes.
* :func:`backward` pulls a player's points back from the end: the expected points
  ``V`` of *every* joint state at once (the ``lookahead`` pace policy reads one value
  per pace option from a single sweep).

Both read each lane state's square, status and cubes from flat per-lane tables
(:func:`tables`) instead of writing an engine board per joint state: 2-3 times faster
than the previous kernel, which filled a board and called the engine's rule functions.
The dice only decide which lane moves: a total names a lane (1-6 that lane, 7 lane 6,
8 lane 5) or the Lazy Sheep (9); a named lane that is not running passes its chance to
the Lazy Sheep (the running sheep furthest from the Finish Line, ties to the highest
lane), as ``engine.select_sheep``.
"""

import numpy as np

from sheepsim.games.race.layout import FINAL, FINISHED, RUNNING, STAGE
from sheepsim.jit import kernel, njit

#: Columns of a lane state row (as in :mod:`.graphs`, which builds the lane graphs).
S_POS, S_RED, S_BLUE, S_WHITE, S_STATUS = range(5)
#: A self-loop probability this close to 1 means the race can never end.
STUCK = 1.0 - 1e-12
#: Supply that stands for "never binds" (the lane graphs then forget finished cubes).
NO_LIMIT = 1 << 40


@njit
def dice_lanes(totals, tprob):
    """``(named (6,), lazy)``: P(the dice total names lane l) and P(it names the Lazy
    Sheep), summed over the totals in order."""
    named = np.zeros(6)
    lazy = 0.0
    for t in range(totals.shape[0]):
        total = totals[t]
        if total >= 9:
            lazy += tprob[t]
        else:
            named[total - 1 if total <= 6 else 12 - total] += tprob[t]
    return named, lazy


@njit
def tables(states):
    """Per lane state (``(6, S)`` int64 each): square, status, cubes held, blue held."""
    n = states.shape[1]
    pos_t = np.zeros((6, n), np.int64)
    stat_t = np.zeros((6, n), np.int64)
    cubes_t = np.zeros((6, n), np.int64)
    blue_t = np.zeros((6, n), np.int64)
    for lane in range(6):
        for s in range(n):
            row = states[lane, s]
            pos_t[lane, s] = row[S_POS]
            stat_t[lane, s] = row[S_STATUS]
            cubes_t[lane, s] = row[S_RED] + row[S_BLUE] + row[S_WHITE]
            blue_t[lane, s] = row[S_BLUE]
    return pos_t, stat_t, cubes_t, blue_t


@njit
def _strides(sizes):
    stride = np.ones(6, np.int64)
    for lane in range(4, -1, -1):
        stride[lane] = stride[lane + 1] * sizes[lane + 1]
    return stride


@njit(inline="always")
def _scan(digits, lane_tabs, nxt, dice_p, binding, blue_total, lane_p, lane_next):
    """Who can move from the joint state ``digits`` and with what chance.

    ``lane_tabs`` = ``(pos_t, stat_t, cubes_t, blue_t)`` from :func:`tables`; ``dice_p`` =
    ``(named, lazy)`` from :func:`dice_lanes`. Fills ``lane_p``
    ``(6,)`` (P(lane moves this turn)) and ``lane_next`` ``(6,)`` (its next state);
    returns ``(n_fin, fin_a, fin_b, n_running, stalled, stay)``: finished lanes (``fin_a
    < fin_b``, the first two found, -1 where none), running ones, whether no running
    sheep can ever move again (an empty supply and no cubes; only when the supply
    binds) and the chance of a turn that changes nothing."""
    pos_t, stat_t, cubes_t, blue_t = lane_tabs
    named, lazy = dice_p
    n_fin = 0
    fin_a = -1
    fin_b = -1
    n_running = 0
    lazy_lane = -1
    blue = 0
    held = 0
    passed = lazy
    lazy_pos = 0
    for lane in range(6):
        d = digits[lane]
        status = stat_t[lane, d]
        if binding:
            blue += blue_t[lane, d]
        if status == RUNNING:
            n_running += 1
            held += cubes_t[lane, d]
            pos = pos_t[lane, d]
            if lazy_lane < 0 or pos <= lazy_pos:
                lazy_lane = lane
                lazy_pos = pos
            lane_p[lane] = named[lane]
        else:
            lane_p[lane] = 0.0
            passed += named[lane]
            if status == FINISHED:
                if n_fin == 0:
                    fin_a = lane
                else:
                    fin_b = lane
                n_fin += 1
    supply = blue_total - blue if binding else 2
    stalled = binding and supply <= 0 and held == 0
    stay = 0.0
    if lazy_lane >= 0:
        lane_p[lazy_lane] += passed
        cls = min(supply, 2)
        for lane in range(6):
            if lane_p[lane] == 0.0:
                continue
            n = nxt[lane, digits[lane], cls]
            lane_next[lane] = n
            if n == digits[lane]:
                stay += lane_p[lane]
                lane_p[lane] = 0.0
    return n_fin, fin_a, fin_b, n_running, stalled, stay


@njit(inline="always")
def _outcome(digits, pos_t, fin_a, fin_b, need):
    """Outcome code ``36a + 6b + c`` of a race that ended in this joint state: the
    crossers in crossing order, then the other sheep closest to the Finish Line, ties to
    the lowest lane (``engine.place_remaining``); places not awarded count as lane 0."""
    code = 0
    weight = 36
    used = 0  # bit mask of placed lanes
    n = 0
    for lane in (fin_a, fin_b):
        if lane >= 0:
            code += weight * lane
            weight //= 6
            used |= 1 << lane
            n += 1
    while n < need:
        best = -1
        for lane in range(6):
            if not used >> lane & 1 and (best < 0 or pos_t[lane, digits[lane]]
                                         > pos_t[best, digits[best]]):
                best = lane
        code += weight * best
        weight //= 6
        used |= 1 << best
        n += 1
    return code


@njit(inline="always")
def _ordered(n_fin, fin_a, fin_b, hf):
    """The two crossers in crossing order: ``hf`` 1 if the higher lane crossed first."""
    if n_fin == 2 and hf == 1:
        return fin_b, fin_a
    return fin_a, fin_b


@njit
def _first_state(sizes, start):
    """``(stride (6,), n_joint, first)``: the mixed radix, the number of joint states and
    the number of ``start`` ``(6,)``, where both sweeps begin or end."""
    stride = _strides(sizes)
    first = 0
    for lane in range(6):
        first += start[lane] * stride[lane]
    return stride, stride[0] * sizes[0], first


@njit(inline="always")
def _count_up(digits, sizes):
    """``digits`` ``(6,)`` of the next joint number (an odometer)."""
    lane = 5
    digits[lane] += 1
    while digits[lane] == sizes[lane]:
        digits[lane] = 0
        lane -= 1
        digits[lane] += 1


@njit(inline="always")
def _count_down5(digits, sizes):
    """``digits[:5]`` of the previous row: lanes 1-5's part of the joint number (an
    odometer run backwards; lane 6 is the inner loop of :func:`backward`)."""
    lane = 4
    digits[lane] -= 1
    while digits[lane] < 0:
        digits[lane] = sizes[lane] - 1
        lane -= 1
        digits[lane] -= 1


@njit
def forward_inputs(graph, start, start_hf, dice):
    """What :func:`forward` reads and writes besides the lane graphs' successors, the
    race and its output, all allocated here, so that :func:`forward` allocates nothing:
    ``(lane_tabs, dice_p, stride, first, mass, digits, lane_p, lane_next)``, the lanes'
    :func:`tables`, the dice's :func:`dice_lanes`, the mixed radix and the number of the
    joint state ``start`` ``(6,)``, the probability of every joint state from ``start``
    on (1 at ``start`` with crossing order ``start_hf``: ``mass[hf, idx - first]``), and
    scratch rows. ``graph`` = ``(states (6, S, 5), nxt (6, S, 3), sizes (6,))`` the lane
    graphs; ``dice`` = ``(totals (T,), tprob (T,))`` the dice totals and their
    probabilities.

    Small work, once per solve: the exact solver runs it as Python
    (:func:`sheepsim.jit.in_python`), so a cold ``race odds`` compiles only
    :func:`forward`'s loop."""
    states, nxt, sizes = graph
    stride, n_joint, first = _first_state(sizes, start)
    mass = np.zeros((2, n_joint - first))
    mass[start_hf, 0] = 1.0
    return (tables(states), dice_lanes(dice[0], dice[1]), stride, first, mass, start.copy(),
            np.zeros(6), np.zeros(6, np.int64))


@kernel
def forward(inputs, graph, race0, blue_total, binding, out):
    """Add to ``out`` ``(216,)`` the probability of each (1st, 2nd, 3rd) as
    ``36a + 6b + c`` (the final: the winner ``a`` at ``36a``) from the joint state
    ``start`` with crossing order ``start_hf`` (given to :func:`forward_inputs`, which
    makes ``inputs``). Returns the number of joint states visited.

    ``graph`` the lane graphs (as for :func:`forward_inputs`); ``race0`` the race
    entries (stage); ``blue_total`` blue cubes in play and
    ``binding`` whether the supply must be tracked (else it never holds fewer than 2).
    Allocates nothing (``kernel``: no reference counting, no allocation routines to
    compile): ``inputs`` holds every array it writes besides ``out``.
    """
    lane_tabs, dice_p, stride, first, mass, digits, lane_p, lane_next = inputs
    _, nxt, sizes = graph
    n_joint = first + mass.shape[1]
    final = race0[STAGE] == FINAL
    need = 1 if final else 3
    pos_t, stat_t = lane_tabs[0], lane_tabs[1]
    visited = 0
    for idx in range(first, n_joint):
        if idx > first:
            _count_up(digits, sizes)
        i = idx - first
        if mass[0, i] == 0.0 and mass[1, i] == 0.0:
            continue
        n_fin, fin_a, fin_b, n_running, stalled, stay = _scan(
            digits, lane_tabs, nxt, dice_p, binding, blue_total, lane_p, lane_next)
        for hf in range(2):
            m = mass[hf, i]
            if m == 0.0:
                continue
            visited += 1
            fa, fb = _ordered(n_fin, fin_a, fin_b, hf)
            if n_fin >= need or n_running == 0 or stalled:
                out[_outcome(digits, pos_t, fa, fb, need)] += m
                continue
            if stay >= STUCK:
                raise ValueError("the race can never end from this position: every "
                                 "possible move is a rest that recovers nothing")
            m = m / (1.0 - stay)
            for lane in range(6):
                if lane_p[lane] == 0.0:
                    continue
                p = m * lane_p[lane]
                new = i + (lane_next[lane] - digits[lane]) * stride[lane]
                if stat_t[lane, lane_next[lane]] != FINISHED:
                    mass[hf, new] += p
                elif final:
                    out[36 * lane] += p
                elif fb >= 0:
                    out[36 * fa + 6 * fb + lane] += p
                elif fa >= 0:
                    mass[1 if fa > lane else 0, new] += p
                else:
                    mass[0, new] += p
    return visited


@njit
def backward(graph, start, dice, race0, blue_total, binding, pts):
    """Expected points ``V`` ``(2, n_joint - first)`` of the joint states numbered from
    ``first`` (the number of ``start`` ``(6,)``) to the last, for a player paid
    ``pts`` ``(216,)`` per outcome code: ``V[hf, idx - first]`` (row 1 is set only where
    two lanes have crossed). A state from which the race can never end gets NaN. States
    the race never enters are left unset: those with ``need`` sheep across the line (the
    move that takes the last place is paid at once; in the final, every state with a
    sheep across) and, when the supply binds, those with more blue cubes on the cards
    than are in play. Arguments as for :func:`forward`.

    Every value is the float a plain loop over the joint states calling :func:`_scan` on
    each gives, from the same operations in the same order (``lookahead-exact``'s choices
    are pinned), computed row by row: a row is the states that differ only in lane 6.
    Lanes 1-5's part of the scan is done once per row for each supply class and each
    of lane 6's three cases (crossed or exhausted: its chance passes to the Lazy Sheep;
    running and not the Lazy Sheep; running and the Lazy Sheep): which lanes move, with
    what chance and to which state, and the chance of staying put (added in lane
    order, lane 6 last, as :func:`_scan` adds it). The inner loop over lane 6's states
    then only picks the case and sums the moves."""
    states, nxt, sizes = graph
    stride, n_joint, first = _first_state(sizes, start)
    value = np.empty((2, n_joint - first))
    final = race0[STAGE] == FINAL
    need = 1 if final else 3
    named, lazy = dice_lanes(dice[0], dice[1])
    pos_t, stat_t, cubes_t, blue_t = tables(states)
    size5 = sizes[5]
    first_row = first // size5
    digits = sizes - 1  # lanes 1-5: the row (an odometer); lane 6 set where read
    # per supply class and case of lane 6: lanes 1-5 that move (lane, chance, index
    # offset of the state they move to, whether it is across the line), their count,
    # and the chance of a turn that changes nothing
    mv_lane = np.zeros((3, 3, 5), np.int64)
    mv_p = np.zeros((3, 3, 5))
    mv_off = np.zeros((3, 3, 5), np.int64)
    mv_fin = np.zeros((3, 3, 5), np.bool_)
    mv_n = np.zeros((3, 3), np.int64)
    mv_stay = np.zeros((3, 3))
    mv_any_fin = np.zeros((3, 3), np.bool_)
    run_p = np.zeros(5)
    passed = np.zeros(3)
    classes = np.arange(3) if binding else np.arange(2, 3)
    for row in range(n_joint // size5 - 1, first_row - 1, -1):
        if row < n_joint // size5 - 1:
            _count_down5(digits, sizes)
        # lanes 1-5 as _scan adds them, in lane order
        p_fin = 0
        p_fa = -1
        p_fb = -1
        p_running = 0
        p_lazy = -1
        p_blue = 0
        p_held = 0
        p_passed = lazy
        p_lazy_pos = 0
        for lane in range(5):
            d = digits[lane]
            status = stat_t[lane, d]
            if binding:
                p_blue += blue_t[lane, d]
            if status == RUNNING:
                p_running += 1
                p_held += cubes_t[lane, d]
                pos = pos_t[lane, d]
                if p_lazy < 0 or pos <= p_lazy_pos:
                    p_lazy = lane
                    p_lazy_pos = pos
                run_p[lane] = named[lane]
            else:
                run_p[lane] = 0.0
                p_passed += named[lane]
                if status == FINISHED:
                    if p_fin == 0:
                        p_fa = lane
                    else:
                        p_fb = lane
                    p_fin += 1
        if p_fin >= need:
            continue  # never entered, whatever lane 6 holds
        # case 0: lane 6 not running (its chance passes on); 1: running, not the Lazy
        # Sheep; 2: running and the Lazy Sheep (then no lane 1-5 gets the passed chance)
        passed[0] = p_passed + named[5]
        passed[1] = p_passed
        for cls in classes:
            for case in range(3):
                k = 0
                stay = 0.0
                for lane in range(5):
                    p = run_p[lane]
                    if case < 2 and lane == p_lazy:
                        p += passed[case]
                    if p == 0.0:
                        continue
                    d = digits[lane]
                    n = nxt[lane, d, cls]
                    if n == d:
                        stay += p
                        continue
                    mv_lane[cls, case, k] = lane
                    mv_p[cls, case, k] = p
                    mv_off[cls, case, k] = (n - d) * stride[lane]
                    mv_fin[cls, case, k] = stat_t[lane, n] == FINISHED
                    k += 1
                mv_n[cls, case] = k
                mv_any_fin[cls, case] = mv_fin[cls, case, :k].any()
                mv_stay[cls, case] = stay
        base = row * size5 - first
        low = start[5] if row == first_row else 0
        for d5 in range(size5 - 1, low - 1, -1):
            i = base + d5
            status = stat_t[5, d5]
            n_fin, fin_a, fin_b = p_fin, p_fa, p_fb
            held = p_held
            if status == RUNNING:
                n_running = p_running + 1
                held += cubes_t[5, d5]
                if p_lazy < 0 or pos_t[5, d5] <= p_lazy_pos:
                    case = 2
                    p5 = named[5] + p_passed
                else:
                    case = 1
                    p5 = named[5]
            else:
                n_running = p_running
                case = 0
                p5 = 0.0
                if status == FINISHED:
                    if n_fin == 0:
                        fin_a = 5
                    else:
                        fin_b = 5
                    n_fin += 1
                    if n_fin >= need:
                        continue  # never entered
            supply = blue_total - p_blue - blue_t[5, d5] if binding else 2
            if supply < 0:
                continue  # never entered: more blue cubes on the cards than in play
            if n_running == 0 or (binding and supply <= 0 and held == 0):
                digits[5] = d5
                for hf in range(2 if n_fin == 2 else 1):
                    fa, fb = _ordered(n_fin, fin_a, fin_b, hf)
                    value[hf, i] = pts[_outcome(digits, pos_t, fa, fb, need)]
                continue
            cls = min(supply, 2)
            stay = mv_stay[cls, case]
            n5 = d5
            if p5 != 0.0:
                n5 = nxt[5, d5, cls]
                if n5 == d5:
                    stay += p5
                    p5 = 0.0
            fin5 = stat_t[5, n5] == FINISHED
            m = mv_n[cls, case]
            for hf in range(2 if n_fin == 2 else 1):
                if stay >= STUCK:
                    value[hf, i] = np.nan
                    continue
                acc = 0.0
                if not mv_any_fin[cls, case] and not (p5 != 0.0 and fin5):
                    for j in range(m):  # no move crosses the line: the common case
                        acc += mv_p[cls, case, j] * value[hf, i + mv_off[cls, case, j]]
                    if p5 != 0.0:
                        acc += p5 * value[hf, i + n5 - d5]
                    value[hf, i] = acc if stay == 0.0 else acc / (1.0 - stay)
                    continue
                fa, fb = _ordered(n_fin, fin_a, fin_b, hf)
                for j in range(m + 1):
                    if j < m:
                        lane, p, new, fin = (mv_lane[cls, case, j], mv_p[cls, case, j],
                                             i + mv_off[cls, case, j], mv_fin[cls, case, j])
                    elif p5 != 0.0:
                        lane, p, new, fin = 5, p5, i + n5 - d5, fin5
                    else:
                        break
                    if not fin:
                        v = value[hf, new]
                    elif final:
                        v = pts[36 * lane]
                    elif fb >= 0:
                        v = pts[36 * fa + 6 * fb + lane]
                    elif fa >= 0:
                        v = value[1 if fa > lane else 0, new]
                    else:
                        v = value[0, new]
                    acc += p * v
                value[hf, i] = acc if stay == 0.0 else acc / (1.0 - stay)
    return value


@njit
def index_of(digits, sizes):
    """Joint number of the lane states ``digits`` ``(6,)``."""
    stride = _strides(sizes)
    idx = 0
    for lane in range(6):
        idx += digits[lane] * stride[lane]
    return idx
