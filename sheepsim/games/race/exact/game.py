"""Exact race solving inside the whole-game kernels: the ``ev`` bets and ``lookahead-exact``
pace.

``ev`` (bets): before a race's betting, :func:`deal_joint` solves the dealt race exactly
from the starting line (one solve serves every seat: the lanes are public), then each
``ev`` seat bets as ``race ev`` recommends (:func:`exact_ev_bets`, the rule of
:func:`sheepsim.games.race.exact_bets.best_bets`): the open lane whose best set of three
has the highest EV (bonus from the joint top-3 distribution; ties to the higher
single-bet EV), then the two hidden lanes completing the best set with the open one;
the final, the pair with the highest EV. The odds assume the pace policy every seat
plays when they all play the same own-state one (``greedy``, ``saver``, ``steady``);
otherwise exact odds are unavailable and ``greedy`` (the reference pace, as ``race
ev``'s default) is assumed (:func:`odds_pace`; the run's meta says so).

``lookahead-exact`` (pace; ``lookahead`` before 0.4.0): every legal option is valued by
the player's expected points this race (payoffs and bonus for the player's own bets,
:func:`points_table`) if every later
turn is played by ``greedy``, exactly: one backward sweep
(:func:`~sheepsim.games.race.exact_sweep.backward`) over the joint graph where the
selected lane starts from the states after each option gives all the values at once
(the values ``race advise`` prints). It sees only its own bets (``seen``), the board
and the rules; never rivals' hidden bets or the dice stream.
"""

import numpy as np

from sheepsim.games.race import moves
from sheepsim.games.race.exact import graphs as exact_graphs
from sheepsim.games.race.exact import sweep as exact_sweep
from sheepsim.games.race.layout import (
    BET_FINAL,
    BET_OPEN,
    BLUE,
    FINAL,
    FINISHED,
    MY_BETS,
    N_BOARD,
    N_OPTIONS,
    PLACE,
    STAGE,
    STATUS,
    SUPPLY_BLUE,
)
from sheepsim.games.race.policies import EV, GREEDY, SAVER, STEADY, WIN
from sheepsim.jit import njit

#: The solver holds 2 float64 per joint state: 50 million states is 800 MB.
MAX_JOINT_STATES = 50_000_000


@njit
def dice_table(faces, nfaces):
    """``(totals, probabilities)`` of the dice ``faces`` ``(n_dice, max_faces)`` /
    ``nfaces`` ``(n_dice,)``, totals ascending: the very floats of
    ``RaceRules.total_distribution`` (same order of additions)."""
    keys = np.zeros(1, np.int64)
    probs = np.ones(1)
    for d in range(faces.shape[0]):
        new_keys = np.zeros(keys.shape[0] * nfaces[d], np.int64)
        new_probs = np.zeros(keys.shape[0] * nfaces[d])
        m = 0
        for i in range(keys.shape[0]):
            for k in range(nfaces[d]):
                t = keys[i] + faces[d, k]
                j = 0
                while j < m and new_keys[j] != t:
                    j += 1
                if j == m:
                    new_keys[m] = t
                    m += 1
                new_probs[j] += probs[i] / nfaces[d]
        keys, probs = new_keys[:m], new_probs[:m]
    order = np.argsort(keys)
    return keys[order], probs[order]


@njit
def _blue_total(board, race):
    total = race[SUPPLY_BLUE]
    for lane in range(6):
        total += board[lane, BLUE]
    return total


@njit
def _check_size(sizes):
    n = 1.0
    for lane in range(6):
        n *= sizes[lane]
    if n > MAX_JOINT_STATES:
        raise ValueError("the exact solver would need too many joint states for this race")


# ------------------------------------------------------------------ ev bets
@njit
def odds_pace(pace_ids):
    """Pace policy id the exact odds assume: the seats' common one if every seat plays
    the same own-state policy (``pace_ids`` None: all ``greedy``), else ``greedy``."""
    if pace_ids is None:
        return GREEDY
    pid = pace_ids[0]
    for p in pace_ids:
        if p != pid:
            return GREEDY
    return pid if pid == SAVER or pid == STEADY else GREEDY


@njit
def wants_exact_odds(bet_ids):
    for b in bet_ids:
        if b == EV or b == WIN:
            return True
    return False


@njit
def deal_joint(rules, lane_cards, stage, pid, table):
    """Exact ``(216,)`` outcome distribution of the race dealt ``lane_cards`` from the
    starting line under pace policy ``pid`` (``36a + 6b + c``; the final: the winner at
    ``36a``). Sets up ``table`` as the engine does (the caller sets it up again)."""
    moves.setup_race(table, rules, lane_cards, stage)
    board, race = table.board, table.race
    states, nxt, sizes, _, binding = exact_graphs.build_graphs(board, race, pid, -1, board[0:1])
    _check_size(sizes)
    faces, nfaces = moves.stage_dice(rules, stage)
    totals, tprob = dice_table(faces, nfaces)
    blue_total = _blue_total(board, race) if binding else exact_sweep.NO_LIMIT
    out = np.zeros(216)
    graph = (states, nxt, sizes)
    inputs = exact_sweep.forward_inputs(graph, np.zeros(6, np.int64), 0, (totals, tprob))
    exact_sweep.forward(inputs, graph, race.copy(), blue_total, binding, out)
    return out


@njit
def set_ev(joint, payoffs, bonus, a, b, c):
    """Exact EV of the bets {a, b, c} from the joint distribution, bonus included
    (the additions of ``exact_bets.set_ev``, in the same order)."""
    mask = 1 << a | 1 << b | 1 << c
    ev = 0.0
    for idx in range(216):
        q = joint[idx]
        if q == 0.0:
            continue
        points = 0
        hits = 0
        placed = (idx // 36, idx // 6 % 6, idx % 6)
        for k in range(3):
            if mask >> placed[k] & 1:
                points += payoffs[k, placed[k]]
                hits += 1
        if hits == 2:
            points += bonus[0]
        elif hits == 3:
            points += bonus[1]
        ev += q * points
    return ev


@njit
def single_ev(joint, payoffs, lane):
    """EV of one semifinal bet on ``lane`` (bonus excluded)."""
    p = np.zeros(3)
    for x in range(6):
        for y in range(6):
            p[0] += joint[36 * lane + 6 * x + y]
            p[1] += joint[36 * x + 6 * lane + y]
            p[2] += joint[36 * x + 6 * y + lane]
    return min(p[0], 1.0) * payoffs[0, lane] + min(p[1], 1.0) * payoffs[1, lane] \
        + min(p[2], 1.0) * payoffs[2, lane]


@njit
def _best_set_with(evs, sets, lane):
    """Index of the first set (lexicographic order) holding ``lane`` with the top EV."""
    best = -1
    for s in range(sets.shape[0]):
        if (sets[s, 0] == lane or sets[s, 1] == lane or sets[s, 2] == lane) and \
                (best < 0 or evs[s] > evs[best]):
            best = s
    return best


@njit
def exact_ev_bets(kind, joint, payoffs, bonus, taken, my_open, out):
    """The ``ev`` bets from the deal's exact ``joint`` (see the module docstring):
    ``out[0]`` the open lane, or ``out[0] < out[1]`` the hidden / final pair."""
    if kind == BET_FINAL:
        best = -np.inf
        for a in range(6):
            for b in range(a + 1, 6):
                v = min(joint[36 * a], 1.0) * payoffs[3, a] + min(joint[36 * b], 1.0) * payoffs[3, b]
                if v > best:
                    best = v
                    out[0], out[1] = a, b
        return
    sets = np.zeros((20, 3), np.int64)
    evs = np.zeros(20)
    n = 0
    for a in range(6):
        for b in range(a + 1, 6):
            for c in range(b + 1, 6):
                sets[n, 0], sets[n, 1], sets[n, 2] = a, b, c
                evs[n] = set_ev(joint, payoffs, bonus, a, b, c)
                n += 1
    if kind == BET_OPEN:
        best_set, best_single = -np.inf, -np.inf
        for lane in range(6):
            if taken[lane]:
                continue
            v = evs[_best_set_with(evs, sets, lane)]
            single = single_ev(joint, payoffs, lane)
            if v > best_set or (v == best_set and single > best_single):
                best_set, best_single = v, single
                out[0] = lane
        return
    s = _best_set_with(evs, sets, my_open)
    k = 0
    for j in range(3):
        if sets[s, j] != my_open:
            out[k] = sets[s, j]
            k += 1


# ------------------------------------------------------------------ lookahead pace
@njit
def points_table(mine, payoffs, bonus, final):
    """``(216,)`` the points of a player holding bets ``mine`` ``(6,)`` (1 = bet) for each
    outcome code (``advise.points_per_outcome``)."""
    pts = np.zeros(216)
    for idx in range(216):
        placed = (idx // 36, idx // 6 % 6, idx % 6)
        if final:
            pts[idx] = payoffs[3, placed[0]] if mine[placed[0]] else 0
            continue
        points = 0
        hits = 0
        for k in range(3):
            if mine[placed[k]]:
                points += payoffs[k, placed[k]]
                hits += 1
        if hits == 2:
            points += bonus[0]
        elif hits == 3:
            points += bonus[1]
        pts[idx] = points
    return pts


@njit
def _ended_code(board, race):
    """Outcome code of a race that is over on ``board`` (copies are modified)."""
    b, r = board.copy(), race.copy()
    moves.place_remaining(b, r)
    code = 0
    for lane in range(6):
        p = b[lane, PLACE]
        if p == 1:
            code += 36 * lane
        elif p == 2:
            code += 6 * lane
        elif p == 3:
            code += lane
    return code


@njit
def _higher_crossed_first(board):
    """1 if exactly two sheep have crossed and the higher lane crossed first."""
    a = b = -1
    n = 0
    for lane in range(6):
        if board[lane, STATUS] == FINISHED:
            n += 1
            if a < 0:
                a = lane
            else:
                b = lane
    return 1 if n == 2 and board[b, PLACE] < board[a, PLACE] else 0


@njit
def option_values(lane, board, race, mine, rules, pid):
    """``(N_OPTIONS,)`` expected points this race of each legal option for ``lane``
    (NaN where illegal) for a player holding ``mine`` ``(6,)``, every later turn played
    by the own-state pace policy ``pid``."""
    legal = np.zeros(N_OPTIONS, np.bool_)
    moves.legal_options(board, race, lane, legal)
    final = race[STAGE] == FINAL
    pts = points_table(mine, rules.payoffs, rules.bonus, final)
    values = np.full(N_OPTIONS, np.nan)
    roots = np.zeros((N_OPTIONS, N_BOARD), np.int64)
    root_of = np.full(N_OPTIONS, -1, np.int64)
    root_hf = np.zeros(N_OPTIONS, np.int64)
    m = 0
    for o in range(N_OPTIONS):
        if not legal[o]:
            continue
        b, r = board.copy(), race.copy()
        moves.apply_option(b, r, lane, o)
        if moves.race_over(b, r):
            values[o] = pts[_ended_code(b, r)]
            continue
        roots[m] = b[lane]
        root_of[o] = m
        root_hf[m] = _higher_crossed_first(b)
        m += 1
    if m == 0:
        return values
    states, nxt, sizes, root_ids, binding = exact_graphs.build_graphs(board, race, pid, lane,
                                                                      roots[:m])
    _check_size(sizes)
    faces, nfaces = moves.stage_dice(rules, race[STAGE])
    totals, tprob = dice_table(faces, nfaces)
    blue_total = _blue_total(board, race) if binding else exact_sweep.NO_LIMIT
    start = np.zeros(6, np.int64)
    start[lane] = root_ids.min()
    value = exact_sweep.backward((states, nxt, sizes), start, (totals, tprob), race,
                                 blue_total, binding, pts)
    first = exact_sweep.index_of(start, sizes)
    for o in range(N_OPTIONS):
        k = root_of[o]
        if k >= 0:
            start[lane] = root_ids[k]
            values[o] = value[root_hf[k], exact_sweep.index_of(start, sizes) - first]
            if np.isnan(values[o]):
                raise ValueError("the race can never end from this position: every "
                                 "possible move is a rest that recovers nothing")
    return values


@njit
def lookahead(lane, board, race, seen, legal, rules):
    """The ``lookahead-exact`` pace policy: the legal option with the most expected points this
    race for the player's own bets ``seen[MY_BETS]``, later turns by ``greedy`` (equal
    options, which ``race advise`` marks all best, go to the lowest option number)."""
    only = -1
    n = 0
    for o in range(N_OPTIONS):
        if legal[o]:
            only = o
            n += 1
    if n == 1:
        return only
    values = option_values(lane, board, race, seen[MY_BETS], rules, GREEDY)
    best = -1
    for o in range(N_OPTIONS):
        if legal[o] and (best < 0 or values[o] > values[best]):
            best = o
    return best
