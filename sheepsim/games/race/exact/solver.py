"""Exact odds of a Sheep Race, from the start or from any position.

For a pace policy whose choice depends only on the selected sheep's own state (the
built-in ``greedy``, ``saver``, ``steady``; a user policy marked with
:func:`~sheepsim.games.race.exact.lanegraph.own_state`), every sheep follows its own state
graph and the dice only decide which sheep moves when. A forward pass over the joint
states (:func:`~sheepsim.games.race.exact.sweep.forward`) then gives the exact distribution of
the top three: all 120 orders (the 216-cell table ``36a + 6b + c`` the simulation
counts), hence exact P(place), EV of every bet and set of bets with the bonus.

The blue supply: blue cubes only move between cards and the supply, so the supply
never holds fewer than ``blue cubes in play - the most blue each lane can ever hold``.
When that bound is at least 2 the supply provably never binds (the standard set);
otherwise the solver carries the supply (as the sum of the cards' blue cubes) and
every lane's graph branches on it. ``ExactOdds.supply_binds`` says which case held.

Random (``random``) and bet-aware (``partisan``) policies cannot be solved this way:
:func:`exact_reason` says why and the callers simulate instead.
"""

from __future__ import annotations

import functools
import time
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.engine import new_table, place_remaining, race_over, setup_race
from sheepsim.games.race.exact.lanegraph import BUILTIN_OWN_STATE, build_lane_graphs
from sheepsim.games.race.exact.sweep import NO_LIMIT, forward, forward_inputs
from sheepsim.games.race.policies import PACE_POLICIES, choose_pace, user_pace_option
from sheepsim.games.race.rules import RaceRules, check_stage
from sheepsim.games.race.simulate import _rules, lane_cards, resolve_policies
from sheepsim.jit import in_python
from sheepsim.output import base_meta

#: The solver holds 2 float64 per joint state: 50 million states is 800 MB.
MAX_JOINT_STATES = 50_000_000
#: The limit in force in this thread (``sheepsim serve`` lowers it while it answers a
#: web request, to bound the solve time); a context variable, so no other caller sees it.
JOINT_STATE_LIMIT: ContextVar[int] = ContextVar("joint_state_limit", default=MAX_JOINT_STATES)


@dataclass
class ExactOdds:
    """The exact result of one race from a position.

    ``joint`` ``(216,)`` probability of (1st, 2nd, 3rd) = lanes (a, b, c) at
    ``36a + 6b + c`` (semifinal); ``winner`` ``(6,)`` P(lane wins) (both stages);
    ``p_place`` ``(6, 3)`` P(lane finishes 1st/2nd/3rd) (final: 2nd/3rd are 0);
    ``lane_cards`` card index per lane; ``supply_binds`` whether the supply had to be
    tracked; ``states`` joint states visited; ``seconds`` solver time.
    """

    rules: RaceRules
    stage: str
    policy: str
    lane_cards: np.ndarray
    joint: np.ndarray
    winner: np.ndarray
    p_place: np.ndarray
    supply_binds: bool
    states: int
    seconds: float

    def meta(self) -> dict:
        return base_meta(
            game="sheep-race", rules=self.rules.source, rules_sha256=self.rules.sha256,
            stage=self.stage, policy=self.policy, method="exact",
            lanes=[self.rules.cards[i].name for i in self.lane_cards],
            supply_binds=self.supply_binds, joint_states=self.states,
        )


def exact_reason(policy: str) -> str | None:
    """None if ``policy`` (a name) can be solved exactly, else a one-line reason."""
    name = policy.strip()
    if name in BUILTIN_OWN_STATE:
        return None
    if name == "random":
        return "the random pace policy draws random numbers, so the exact solver cannot follow it"
    if name in PACE_POLICIES:
        return (f"the {name} pace policy looks at bets, not only at the selected sheep, "
                "so the exact solver cannot follow it")
    if ":" in name:
        if getattr(_load_user(name), "sheepsim_own_state", False):
            return None
        return (f"{name} is not declared own-state (sheepsim.games.race.exact.own_state), "
                "so the exact solver cannot follow it")
    return f"unknown pace policy {name!r}"


def _load_user(name: str):
    pol = resolve_policies([name])
    return pol.user_pace[0]


def exact_pace(policy: str):
    """What the lane-graph builder plays for ``policy`` (a name): the name of a built-in
    own-state policy, or the user's own-state njit function; else one error line."""
    reason = exact_reason(policy)
    if reason is not None:
        raise SheepsimError(f"no exact solution: {reason}; use Monte Carlo")
    name = policy.strip()
    return _load_user(name) if ":" in name else name


def pace_function(policy: str):
    """``fn(lane, board, race, seen, legal, rand) -> option`` for an exact policy (the
    engine's own pace signature; ``rand`` the policy stream), callable from Python; a
    plug-in (the one policy signature) is asked through
    :func:`~sheepsim.games.race.policies.user_pace_option`, as the engine asks it."""
    pace = exact_pace(policy)
    if not isinstance(pace, str):
        return lambda lane, board, race, seen, legal, rand: user_pace_option(
            pace, lane, board, race, seen, legal, rand)
    pid = PACE_POLICIES.index(pace)
    return lambda lane, board, race, seen, legal, rand: choose_pace(
        pid, lane, board, race, seen, legal, rand)


def dice_table(rules: RaceRules, stage: str) -> tuple[np.ndarray, np.ndarray]:
    """``(totals, probabilities)`` of the stage's dice, exact."""
    dist = rules.total_distribution(stage)
    return (np.array(list(dist), np.int64), np.array(list(dist.values()), np.float64))


def start_position(rules: RaceRules, lane_cards, stage: str):
    """``(board, race)`` of a race on the starting line (as the engine sets it up)."""
    table = new_table()
    _python(setup_race)(table, rules.kernel_rules(), np.asarray(lane_cards, np.int64),
                        L.FINAL if stage == "final" else L.SEMIFINAL)
    return table.board, table.race


@functools.cache
def _python(kernel):
    """``kernel`` run as Python (:func:`sheepsim.jit.in_python`): the engine's set-up
    and end of a race and the sweep's inputs run once per solve, on one position, so
    the solver compiles none of them."""
    return in_python(kernel)


def solve_position(board, race, rules: RaceRules, policy: str = "greedy", pace_fn=None):
    """Exact result from a validated position ``board`` ``(6, N_BOARD)``/``race``
    ``(N_RACE,)``: ``(joint (216,), winner (6,), p_place (6, 3), binds, states)``.
    ``pace_fn``: an own-state njit pace function to play instead of ``policy``."""
    stage = "final" if race[L.STAGE] == L.FINAL else "semifinal"
    over = finished_result(board, race)
    if over is not None:
        return (*distribution(over, stage), False, 1)
    graphs, binds = build_lane_graphs(board, race, pace_fn or exact_pace(policy))
    if graphs.n_joint > JOINT_STATE_LIMIT.get():
        raise SheepsimError(f"the exact solver would need {graphs.n_joint:.3g} joint states "
                            "(too many); use Monte Carlo")
    totals, tprob = dice_table(rules, stage)
    blue_total = int(race[L.SUPPLY_BLUE] + board[:, L.BLUE].sum())
    if not binds:  # the lane graphs forget finished sheep's cubes; the supply never binds
        blue_total = NO_LIMIT
    out = np.zeros(216, np.float64)
    higher_first = _higher_crossed_first(board)
    graph = (graphs.states, graphs.nxt, graphs.sizes)
    inputs = _python(forward_inputs)(graph, np.zeros(6, np.int64), int(higher_first),
                                     (totals, tprob))
    try:
        states = forward(inputs, graph, race.copy(), blue_total, binds, out)
    except ValueError as exc:
        raise SheepsimError(str(exc)) from None
    return (*distribution(out, stage), binds, int(states))


def finished_result(board, race) -> np.ndarray | None:
    """The kernel's output ``(216,)`` for a race that is already over, else None."""
    board, race = board.copy(), race.copy()
    if not _python(race_over)(board, race):
        return None
    _python(place_remaining)(board, race)
    lane = {int(board[i, L.PLACE]): i for i in range(6)}
    out = np.zeros(216)
    out[36 * lane[1] + 6 * lane.get(2, 0) + lane.get(3, 0)] = 1.0
    return out


def _higher_crossed_first(board) -> bool:
    fin = [lane for lane in range(6) if board[lane, L.STATUS] == L.FINISHED]
    return len(fin) == 2 and board[fin[1], L.PLACE] < board[fin[0], L.PLACE]


def distribution(out: np.ndarray, stage: str):
    """``(joint (216,), winner (6,), p_place (6, 3))`` from the kernel's output."""
    cube = out.reshape(6, 6, 6)
    p_place = np.zeros((6, 3))
    p_place[:, 0] = cube.sum(axis=(1, 2))
    if stage == "semifinal":
        p_place[:, 1] = cube.sum(axis=(0, 2))
        p_place[:, 2] = cube.sum(axis=(0, 1))
    joint = out.copy() if stage == "semifinal" else np.zeros(216)
    p_place = np.minimum(p_place, 1.0)  # sums of many paths can round to 1 + 1e-15
    return joint, p_place[:, 0].copy(), p_place


def exact_odds(rules=None, lanes=None, stage: str = "semifinal", policy: str = "greedy") -> ExactOdds:
    """Exact odds of a race from the starting line (arguments as for ``race_counts``)."""
    rules = _rules(rules)
    stage = check_stage(stage)
    cards = lane_cards(rules, lanes)
    board, race = start_position(rules, cards, stage)
    t0 = time.perf_counter()
    joint, winner, p_place, binds, states = solve_position(board, race, rules, policy)
    return ExactOdds(rules, stage, policy.strip(), cards, joint, winner, p_place, binds,
                     states, time.perf_counter() - t0)
