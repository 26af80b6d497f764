"""A plain-Python lane-graph builder: the oracle the one builder
(``sheepsim.games.race.exact.graphs``, numba) is checked against in test_exact_game.py.

It explores each lane by calling the engine's rule functions and the pace policy from
Python (twice, in two contexts, to check the policy is own-state), numbers the states in
a depth-first topological order and pads the six lanes, as the solver needs; the
numba builder must give the very same arrays.
"""

import numpy as np

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.exact.lanegraph import LaneGraphs

N_CLASSES = 3
N_STATE = 5


class _Caller:
    """Calls the pace policy on a one-sheep board, twice in different contexts (other
    sheep, bets, turn and random streams changed) to check it is own-state."""

    def __init__(self, pace_fn, lane_row, race):
        from sheepsim.games.race.policies import policy_stream
        from sheepsim.rng import new_streams, seed_streams

        self.pace_fn = pace_fn
        self.boards = [np.zeros((6, L.N_BOARD), np.int64) for _ in range(2)]
        self.races = [race.copy(), race.copy()]
        self.seen = [np.zeros((2, 6), np.int64), np.ones((2, 6), np.int64)]
        streams = [new_streams(), new_streams()]
        seed_streams(streams[0], 1, 2)
        seed_streams(streams[1], 3, 4)
        # the policy streams (all the randomness a policy gets), differently seeded
        self.rands = [policy_stream(s) for s in streams]
        for b in self.boards:
            b[:] = lane_row
        self.boards[1][:, L.POS] = (np.arange(6) * 3) % (int(race[L.TRACK]) + 1)
        self.races[1][L.TURN] = 7
        self.races[1][L.N_PLACED] = 1

    def step(self, lane, row, supply):
        """Next row of ``lane`` from ``row`` with ``supply`` blue in the supply."""
        from sheepsim.games.race.engine import apply_option, legal_options

        legal = np.zeros(L.N_OPTIONS, np.bool_)
        choices = []
        for b, r, seen, rand in zip(self.boards, self.races, self.seen, self.rands, strict=True):
            b[lane] = row
            r[L.SUPPLY_BLUE] = supply
            legal_options(b, r, lane, legal)
            choices.append(int(self.pace_fn(lane, b, r, seen, legal, rand)))
        option = choices[0]
        if choices[1] != option:
            raise SheepsimError("the pace policy's choice changed with other sheep, bets or "
                                "random draws: it is not own-state (use Monte Carlo)")
        if not 0 <= option < L.N_OPTIONS or not legal[option]:
            raise SheepsimError("pace policy returned an illegal option")
        b, r = self.boards[0], self.races[0]
        r[L.N_RUNNING] = 6
        apply_option(b, r, lane, option)
        return b[lane].copy()


def _key(row, track, binding):
    """A lane state as a tuple; a finished sheep's cubes matter only to the supply."""
    status = int(row[L.STATUS])
    if status == L.FINISHED and not binding:
        return (track + 1, 0, 0, 0, status)
    return (int(row[L.POS]), int(row[L.RED]), int(row[L.BLUE]), int(row[L.WHITE]), status)


def _explore(caller, lane, row0, classes, binding, track):
    """States reachable from ``row0``, their edges per supply class (dict) and the most
    blue cubes the sheep ever holds (a finished sheep keeps its cubes on its card)."""
    template = row0.copy()
    start = _key(row0, track, binding)
    edges: dict[tuple, list] = {}
    most_blue = int(row0[L.BLUE])
    todo = [start]
    while todo:
        key = todo.pop()
        if key in edges:
            continue
        if key[4] != L.RUNNING:
            edges[key] = [key] * N_CLASSES
            continue
        row = template.copy()
        row[[L.POS, L.RED, L.BLUE, L.WHITE, L.STATUS]] = key
        out = []
        for c in range(N_CLASSES):
            if c not in classes:
                out.append(None)
                continue
            new = caller.step(lane, row, c)
            most_blue = max(most_blue, int(new[L.BLUE]))
            nxt = _key(new, track, binding)
            out.append(nxt)
            todo.append(nxt)
        edges[key] = out
    return start, edges, most_blue


def _topological(start, edges) -> list[tuple]:
    """States in an order where every edge except self-loops goes forward."""
    order, state = [], {}
    stack = [(start, 0)]
    while stack:
        key, i = stack.pop()
        if i == 0:
            if state.get(key) == 2:
                continue
            state[key] = 1
        succ = [s for s in edges[key] if s is not None and s != key]
        if i < len(succ):
            stack.append((key, i + 1))
            nxt = succ[i]
            if state.get(nxt) == 1:
                raise SheepsimError("the pace policy can return a sheep to an earlier state "
                                    "(a cycle): the exact solver cannot use it")
            if state.get(nxt) is None:
                stack.append((nxt, 0))
        else:
            state[key] = 2
            order.append(key)
    return order[::-1]


def python_lane_graphs(board, race, pace_fn) -> tuple[LaneGraphs, bool]:
    """The six lanes' graphs from the position ``board`` ``(6, N_BOARD)``/``race``
    ``(N_RACE,)`` under ``pace_fn(lane, board, race, seen, legal, rand)``.

    Returns ``(graphs, binding)``. First every lane is explored assuming the supply
    always holds at least 2 blue cubes. Blue cubes only move between cards and the
    supply, so the supply never holds fewer than ``blue_total - sum(most blue each lane
    ever holds)``; if that bound is at least 2 the assumption is proved for every
    future of this position and ``binding`` is False. Otherwise the graphs are rebuilt
    with an edge for each supply class, and the solver tracks the supply exactly.
    """
    track = int(race[L.TRACK])
    blue_total = int(race[L.SUPPLY_BLUE] + board[:, L.BLUE].sum())
    caller = _Caller(pace_fn, board[0], race)
    for binding in (False, True):
        classes = (0, 1, 2) if binding else (2,)
        found = [_explore(caller, lane, board[lane], classes, binding, track) for lane in range(6)]
        if binding or blue_total - sum(f[2] for f in found) >= 2:
            break
    orders = [_topological(start, edges) for start, edges, _ in found]
    size = max(len(o) for o in orders)
    states = np.zeros((6, size, N_STATE), np.int64)
    nxt = np.zeros((6, size, N_CLASSES), np.int64)
    for lane, ((_, edges, _), order) in enumerate(zip(found, orders, strict=True)):
        index = {key: i for i, key in enumerate(order)}
        for i, key in enumerate(order):
            states[lane, i] = key
            for c in range(N_CLASSES):
                succ = edges[key][c] if edges[key][c] is not None else edges[key][2]
                nxt[lane, i, c] = index[succ]
    sizes = np.array([len(o) for o in orders], np.int64)
    return LaneGraphs(states, nxt, sizes), binding
