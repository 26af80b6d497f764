"""The Sheep Race solved exactly, from the starting line or from any position.

Importing this package compiles nothing; the names below load their module on first use.

Modules
    ``solver``: :func:`exact_odds` of a race from the start, :func:`solve_position` from
    any position, :func:`exact_reason` (why a pace policy cannot be solved);
    ``lanegraph``: each sheep's state graph (:func:`own_state` declares a user pace policy
    solvable), built by ``graphs``, the one builder (a numba kernel, also called by the
    whole-game kernels); ``sweep``: the forward and backward passes over the joint
    graph; ``game``: the whole-game policies that solve races (``ev`` bets, ``lookahead``
    pace); ``bets``: the bets ``race ev`` recommends from an exact distribution;
    ``position``: a race in progress as typed at the table; ``from_position``: odds from
    a position, exact or simulated (:func:`position_odds`); ``position_kernel``: the
    simulation kernel continuing a race from a position.
"""

from sheepsim.jit import lazy_exports

_SOLVER = "sheepsim.games.race.exact.solver"
_FROM = "sheepsim.games.race.exact.from_position"
_LAZY = {
    "ExactOdds": _SOLVER,
    "JOINT_STATE_LIMIT": _SOLVER,
    "MAX_JOINT_STATES": _SOLVER,
    "exact_odds": _SOLVER,
    "exact_reason": _SOLVER,
    "pace_function": _SOLVER,
    "solve_position": _SOLVER,
    "start_position": _SOLVER,
    "own_state": "sheepsim.games.race.exact.lanegraph",
    "BetChoice": "sheepsim.games.race.exact.bets",
    "best_bets": "sheepsim.games.race.exact.bets",
    "set_ev": "sheepsim.games.race.exact.bets",
    "Position": "sheepsim.games.race.exact.position",
    "as_position": "sheepsim.games.race.exact.position",
    "board_from": _FROM,
    "estimate_from_position": _FROM,
    "exact_from_position": _FROM,
    "position_odds": _FROM,
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
