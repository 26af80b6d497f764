"""The lane-graph builder: each sheep's possible futures as a small state graph (numba).

When the pace policy's choice depends only on the selected sheep's own state (see
:mod:`~sheepsim.games.race.exact.lanegraph`), a sheep's next state depends only on its
current state and on how many blue cubes the supply can give it: ``min(supply, 2)`` (a
rest recovers up to 2, a walk up to 1). So every lane is a graph over its own states
with one edge per *supply class* 0, 1, 2+; the dice only decide which lane takes its
next edge. The graphs are built by calling the engine's own rule functions
(``legal_options``, ``apply_option``) and the policy itself on a one-sheep board, so the
solver plays exactly the rules and the policy the simulation plays.

This is the one builder: whole-game kernels call :func:`build_graphs` (the ``ev`` bet
policy, the ``lookahead`` pace policy solve races exactly) with a built-in own-state
pace policy (``greedy``, ``saver``, ``steady``, by id); the exact solver calls it through
``lanegraph.build_lane_graphs``, which runs this source as Python for a built-in policy
(:func:`sheepsim.jit.in_python`: nothing to compile) and rebuilds the kernel
(:func:`sheepsim.jit.rebind`) around a user's own-state policy, built with ``check``
True: the policy is also called in a second context on every state (other sheep, bets,
turn and random streams changed) and the build stops if its choice changes, so the
claim ``own_state`` makes is checked.

One extension: the selected lane may start from several roots (the states after each
pace option), so one joint graph serves every option of a decision.
"""

import numpy as np
from numba import types
from numba.typed import Dict

from sheepsim import rng
from sheepsim.games.race import moves
from sheepsim.games.race.layout import (
    BLUE,
    FINISHED,
    MAX_CUBES,
    N_BOARD,
    N_OPTIONS,
    N_PLACED,
    N_RUNNING,
    POS,
    RED,
    RUNNING,
    STATUS,
    SUPPLY_BLUE,
    TRACK,
    TURN,
    WHITE,
)
from sheepsim.games.race.policies import GREEDY, SAVER, STEADY, greedy, saver, steady
from sheepsim.jit import njit

#: Supply classes: the supply holds 0, 1, or at least 2 blue cubes.
N_CLASSES = 3
#: Columns of a lane state row.
S_POS, S_RED, S_BLUE, S_WHITE, S_STATUS = range(5)
N_STATE = 5
_COLS = (POS, RED, BLUE, WHITE, STATUS)


@njit(inline="always")
def _code(key, span):
    """One int64 per lane state ``key`` ``(5,)``; ``span`` bounds every column."""
    return (((key[0] * span + key[1]) * span + key[2]) * span + key[3]) * 4 + key[4]


@njit
def _key_of(row, track, binding, key):
    """``key`` ``(5,)`` = the lane state of board ``row``; a finished sheep's cubes matter
    only to the supply (when it never binds, they are forgotten)."""
    if row[STATUS] == FINISHED and not binding:
        key[0], key[1], key[2], key[3], key[4] = track + 1, 0, 0, 0, FINISHED
    else:
        for j in range(N_STATE):
            key[j] = row[_COLS[j]]


@njit(inline="always")
def _copy_row(src, dst):
    """``dst[:] = src`` for rows of the same length, as a loop: an array copied into a
    slice compiles numba's shape-mismatch error message (string formatting, about 2.5 CPU
    s of a cold ``race odds``: ``benchmarks/README.md``, "Compile time: the targets")."""
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit
def _grow(a, n):
    """``a`` ``(rows, cols)`` with room for at least ``n`` rows (doubling, new rows -1)."""
    if n <= a.shape[0]:
        return a
    b = np.full((2 * n, a.shape[1]), -1, a.dtype)
    for i in range(a.shape[0]):  # loops, not slice copies: see _copy_row
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]
    return b


@njit
def _grow_flags(a, n):
    if n <= a.shape[0]:
        return a
    b = np.zeros(2 * n, np.bool_)
    for i in range(a.shape[0]):
        b[i] = a[i]
    return b


@njit
def _intern(code, key, index, keys, n):
    """Index of state ``key`` (appended as number ``n`` if new); returns ``(i, keys, n)``."""
    if code in index:
        return index[code], keys, n
    index[code] = n
    keys = _grow(keys, n + 1)
    _copy_row(key, keys[n])
    return n, keys, n + 1


@njit
def own_state_pace(pid, lane, board, race, seen, legal, rand):
    """The built-in own-state pace policies by id (not ``choose_pace``: the whole-game
    kernels that solve races are not recompiled around user pace policies)."""
    if pid == SAVER:
        return saver(lane, board, race, seen, legal, rand)
    if pid == STEADY:
        return steady(lane, board, race, seen, legal, rand)
    if pid == GREEDY:
        return greedy(lane, board, race, seen, legal, rand)
    raise ValueError("the exact solver in a game kernel plays greedy, saver or steady")


@njit
def _place(work, lane, key, template, supply):
    """Put the lane state ``key`` on ``lane`` of the table ``work`` (the rest of the row
    from ``template``) with ``supply`` blue cubes in the supply; its legal options."""
    board, race, seen, legal, rand = work
    for j in range(N_BOARD):
        board[lane, j] = template[j]
    for j in range(N_STATE):
        board[lane, _COLS[j]] = key[j]
    race[SUPPLY_BLUE] = supply
    moves.legal_options(board, race, lane, legal)


@njit
def _step(pid, lane, key, template, supply, work, other, check, out):
    """Write into ``out`` ``(N_BOARD,)`` the lane's row after the policy's move from
    ``key`` with ``supply`` blue cubes in the supply; ``work`` = ``(board, race, seen,
    legal, rand)`` the policy's table, overwritten. ``check`` True: the policy is also
    called on the table ``other`` (other sheep, bets, turn and random stream changed),
    and a different choice raises (it is not own-state); ``check`` None: no check, and
    numba compiles none (its branch is pruned when ``check`` is typed None)."""
    board, race, seen, legal, rand = work
    _place(work, lane, key, template, supply)
    option = own_state_pace(pid, lane, board, race, seen, legal, rand)
    if check is not None:
        _place(other, lane, key, template, supply)
        if own_state_pace(pid, lane, other[0], other[1], other[2], other[3], other[4]) != option:
            raise ValueError("the pace policy's choice changed with other sheep, bets or "
                             "random draws: it is not own-state (use Monte Carlo)")
    if option < 0 or option >= N_OPTIONS or not legal[option]:
        raise ValueError("pace policy returned an illegal option")
    race[N_RUNNING] = 6
    moves.apply_option(board, race, lane, option)
    for j in range(N_BOARD):
        out[j] = board[lane, j]


@njit
def _table(template, race0):
    """The policy's table ``(board, race, seen, legal, rand)`` for a lane's exploration:
    every row ``template``, no bets seen."""
    board = np.zeros((6, N_BOARD), np.int64)
    for ln in range(6):
        _copy_row(template, board[ln])
    streams = np.zeros((rng.N_PURPOSES, 2), np.uint64)
    rand = streams[rng.POLICY:rng.POLICY + 1]
    return board, race0.copy(), np.zeros((2, 6), np.int64), np.zeros(N_OPTIONS, np.bool_), rand


@njit
def _other_table(template, race0):
    """The second context of the own-state check (a table of :func:`_table`'s kind): the
    other sheep spread over the track, turn 7, one sheep placed, every bet seen, another
    random stream. A function of its own, so a build without the check compiles none of
    it."""
    board, race, seen, legal, rand = _table(template, race0)
    for ln in range(6):
        board[ln, POS] = (ln * 3) % (race0[TRACK] + 1)
    race[TURN] = 7
    race[N_PLACED] = 1
    seen[:] = 1
    streams = np.zeros((rng.N_PURPOSES, 2), np.uint64)
    rng.seed_streams(streams, 3, 4)
    return board, race, seen, legal, streams[rng.POLICY:rng.POLICY + 1]


@njit
def explore(pid, lane, template, roots, binding, race0, span, check):
    """States reachable from the rows ``roots`` ``(k, N_BOARD)`` of ``lane`` (``check``
    True: the policy's own-state claim checked on every state; None: not, see
    :func:`_step`).

    Returns ``(keys (n, 5), succ (n, 3), n, most_blue, root_ids (k,))``: ``succ[i, c]``
    the state after a move with supply class ``c`` (-1 where the class is not explored:
    every class if ``binding``, else class 2 only), absorbing states pointing to
    themselves; ``most_blue`` the most blue cubes the sheep ever holds."""
    track = race0[TRACK]
    work = _table(template, race0)
    other = work
    if check is not None:  # pruned for a plain build (check None): see _step
        other = _other_table(template, race0)
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    keys = np.zeros((16, N_STATE), np.int64)
    succ = np.full((16, N_CLASSES), -1, np.int64)
    done = np.zeros(16, np.bool_)
    key = np.zeros(N_STATE, np.int64)
    new = np.zeros(N_BOARD, np.int64)
    n = 0
    most_blue = 0
    root_ids = np.zeros(roots.shape[0], np.int64)
    todo = []
    for r in range(roots.shape[0]):
        most_blue = max(most_blue, roots[r, BLUE])
        _key_of(roots[r], track, binding, key)
        i, keys, n = _intern(_code(key, span), key, index, keys, n)
        root_ids[r] = i
    succ = _grow(succ, n)
    done = _grow_flags(done, n)
    for r in range(roots.shape[0] - 1, -1, -1):
        todo.append(root_ids[r])
    while len(todo) > 0:
        i = todo.pop()
        if done[i]:
            continue
        done[i] = True
        if keys[i, S_STATUS] != RUNNING:
            succ[i, 0] = succ[i, 1] = succ[i, 2] = i
            continue
        for c in range(N_CLASSES):
            if not binding and c < 2:
                continue
            _step(pid, lane, keys[i].copy(), template, c, work, other, check, new)
            most_blue = max(most_blue, new[BLUE])
            _key_of(new, track, binding, key)
            j, keys, n = _intern(_code(key, span), key, index, keys, n)
            succ = _grow(succ, n)
            done = _grow_flags(done, n)
            succ[i, c] = j
            todo.append(j)
    return keys[:n], succ[:n], n, most_blue, root_ids


@njit
def topological(succ, n, root_ids):
    """``order`` ``(n,)``: the states in an order where every edge except self-loops goes
    forward; ``order[0]`` a root: a depth-first search from each root in turn. A cycle
    raises ``ValueError``."""
    state = np.zeros(n, np.int64)  # 0 new, 1 on the stack, 2 done
    post = np.zeros(n, np.int64)
    n_post = 0
    stack_key = np.zeros(4 * n + 4, np.int64)
    stack_i = np.zeros(4 * n + 4, np.int64)
    nsucc = np.zeros(N_CLASSES, np.int64)
    for r in range(root_ids.shape[0]):
        top = 0
        stack_key[0], stack_i[0] = root_ids[r], 0
        top = 1
        while top > 0:
            top -= 1
            key, i = stack_key[top], stack_i[top]
            if i == 0:
                if state[key] == 2:
                    continue
                state[key] = 1
            m = 0
            for c in range(N_CLASSES):
                s = succ[key, c]
                if s >= 0 and s != key:
                    nsucc[m] = s
                    m += 1
            if i < m:
                stack_key[top], stack_i[top] = key, i + 1
                top += 1
                nxt = nsucc[i]
                if state[nxt] == 1:
                    raise ValueError("the pace policy can return a sheep to an earlier state "
                                     "(a cycle): the exact solver cannot use it")
                if state[nxt] == 0:
                    if top >= stack_key.shape[0]:
                        stack_key = np.concatenate((stack_key, stack_key))
                        stack_i = np.concatenate((stack_i, stack_i))
                    stack_key[top], stack_i[top] = nxt, 0
                    top += 1
            else:
                state[key] = 2
                post[n_post] = key
                n_post += 1
    return post[:n_post][::-1].copy()


@njit
def build_graphs(board, race, pid, sel, roots, check=None):
    """The six lanes' graphs from the position ``board`` ``(6, N_BOARD)``/``race``
    ``(N_RACE,)`` under the built-in pace policy ``pid``; lane ``sel`` starts from the
    rows ``roots`` ``(k, N_BOARD)`` instead of its own row (``sel`` -1: every lane from
    its row). ``check`` True: the policy is also checked to be own-state on every state
    (:func:`_step`); the default None compiles no check.

    First every lane is explored assuming the supply always holds at least 2 blue cubes.
    Blue cubes only move between cards and the supply, so the supply never holds fewer
    than ``blue_total - sum(most blue each lane ever holds)``; if that bound is at least
    2 the assumption is proved for every future of this position and ``binding`` is
    False. Otherwise the graphs are rebuilt with an edge for each supply class, and the
    solver tracks the supply exactly.

    Returns ``(states (6, S, 5), nxt (6, S, 3), sizes (6,), root_ids (k,), binding)``:
    ``states`` rows (pos, red, blue, white, status), numbered so that every edge other
    than a self-loop goes to a higher number; ``nxt`` the next state per supply class
    (absorbing states point to themselves); every other lane starts at state 0, lane
    ``sel``'s roots are states ``root_ids``.

    One function, no thin wrappers around it: numba optimizes and emits the machine code
    of everything a function calls again in each caller's library, so every level of
    calls costs about 1 CPU s of a cold ``race odds`` (``benchmarks/README.md``,
    "Compile time: the targets").
    """
    span = race[TRACK] + 2
    for ln in range(6):
        for c in (RED, BLUE, WHITE):
            span = max(span, board[ln, c] + 1)
    span = max(span, race[MAX_CUBES] + 1)
    for r in range(roots.shape[0]):
        for c in (RED, BLUE, WHITE):
            span = max(span, roots[r, c] + 1)
    blue_total = race[SUPPLY_BLUE]
    for ln in range(6):
        blue_total += board[ln, BLUE]
    binding = False
    for attempt in range(2):
        binding = attempt == 1
        found = []
        most = 0
        for ln in range(6):
            own = roots if ln == sel else board[ln:ln + 1]
            keys, succ, n, most_blue, root_ids = explore(pid, ln, board[ln], own, binding,
                                                         race, span, check)
            found.append((keys, succ, topological(succ, n, root_ids), most_blue, root_ids))
            most += most_blue
        if blue_total - most >= 2:
            break
    return _assemble(found, binding, sel)


@njit
def _assemble(found, binding, sel):
    """Pad and renumber the lanes' explorations in topological order."""
    size = 0
    for ln in range(6):
        size = max(size, found[ln][2].shape[0])
    states = np.zeros((6, size, N_STATE), np.int64)
    nxt = np.zeros((6, size, N_CLASSES), np.int64)
    sizes = np.zeros(6, np.int64)
    root_ids = np.zeros(0, np.int64)
    for ln in range(6):
        keys, succ, order, _, roots = found[ln]
        n = order.shape[0]
        sizes[ln] = n
        number = np.full(keys.shape[0], -1, np.int64)
        for i in range(n):
            number[order[i]] = i
        for i in range(n):
            _copy_row(keys[order[i]], states[ln, i])
            for c in range(N_CLASSES):
                s = succ[order[i], c]
                nxt[ln, i, c] = number[s if s >= 0 else succ[order[i], 2]]
        if ln == max(sel, 0):
            root_ids = number[roots]
    return states, nxt, sizes, root_ids, binding
