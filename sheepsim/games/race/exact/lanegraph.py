"""Each sheep's possible futures under an own-state pace policy, as a small state graph.

When the pace policy's choice depends only on the selected sheep's own state (its
square, cubes and status; the built-in ``greedy``, ``saver`` and ``steady``, or a user
policy declared with :func:`own_state`), every lane is a graph over its own states with
one edge per supply class (0, 1, 2+ blue cubes in the supply) and the dice only decide
which lane takes its next edge; :mod:`~sheepsim.games.race.exact.solver` combines the
six graphs. They are built by the one builder,
:mod:`~sheepsim.games.race.exact.graphs` (a numba kernel the whole-game kernels call
too); :func:`build_lane_graphs` is its entry for the solver.
"""

from __future__ import annotations

import functools
import hashlib
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from sheepsim.errors import SheepsimError
from sheepsim.games.race.exact import graphs
from sheepsim.games.race.layout import N_OPTIONS, N_VIEW, PACE
from sheepsim.games.race.policies import FIRST_USER_ID, N_PACE_POLICIES, PACE_POLICIES, fill_pace_view
from sheepsim.jit import rebind, uniquely_named, variant_key

#: The built-in pace policies that are own-state (the exact solver plays them).
BUILTIN_OWN_STATE = ("greedy", "saver", "steady")
#: Whether a built-in policy is solved with the builder of every built-in one
#: (:func:`~sheepsim.games.race.exact.graphs.build_graphs` itself, the policy an id chosen
#: at run time, as the whole-game kernels use it) rather than one rebuilt for it alone:
#: ``sheepsim serve`` answers for all three, so it compiles one builder, not three. The
#: same graphs either way. A context variable: no other caller sees it.
EVERY_BUILTIN: ContextVar[bool] = ContextVar("every_builtin_builder", default=False)


def own_state(fn):
    """Declare that a user pace policy's choice depends only on the selected sheep's own
    row of ``board``, on ``legal`` and on the fixed race entries (``TRACK``,
    ``EZ_FIRST``, ``MAX_CUBES``, ``STAGE``), never on other sheep, bets, the turn or
    random draws. The exact solver then accepts it (and checks the claim on every state
    it visits). Use it as a decorator above numba's decorator."""
    fn.sheepsim_own_state = True
    return fn


@dataclass
class LaneGraphs:
    """Six lanes' state graphs, padded to a common size.

    ``states`` ``(6, S, 5)`` int64 rows (pos, red, blue, white, status), numbered
    so that every edge other than a self-loop goes to a higher number;
    ``nxt`` ``(6, S, 3)`` next state per supply class (absorbing states point
    to themselves); ``sizes`` ``(6,)`` states per lane. Every lane starts at state 0.
    """

    states: np.ndarray
    nxt: np.ndarray
    sizes: np.ndarray

    @property
    def n_joint(self) -> int:
        return int(np.prod(self.sizes.astype(np.float64)))


def build_lane_graphs(board, race, pace) -> tuple[LaneGraphs, bool]:
    """The six lanes' graphs from the position ``board`` ``(6, N_BOARD)``/``race``
    ``(N_RACE,)`` under the pace policy ``pace``: a built-in own-state policy's name
    (``greedy``, ``saver``, ``steady``) or a user's own-state njit function.

    Returns ``(graphs, binding)`` from the one builder,
    :func:`~sheepsim.games.race.exact.graphs.build_graphs` (``binding``: whether the
    blue supply can run short, so the solver must track it). A user policy whose choice
    changes with other sheep, bets or random draws, that returns an illegal option or
    that can return a sheep to an earlier state raises :class:`SheepsimError`.
    """
    build, pid, check = _builder(pace)
    try:
        states, nxt, sizes, _, binding = build(board, race, pid, -1, board[0:1], check)
    except ValueError as exc:  # the builder's own checks (the policy's, the rules')
        raise SheepsimError(str(exc)) from None
    return LaneGraphs(states, nxt, sizes), bool(binding)


def _builder(pace):
    """``(build, pid, check)``: the builder kernel, the policy id it plays and its
    ``check`` argument (True for a user's policy, whose own-state claim is checked)."""
    if isinstance(pace, str):
        if pace not in BUILTIN_OWN_STATE:
            raise SheepsimError(f"the exact solver plays {', '.join(BUILTIN_OWN_STATE)} or an "
                                f"own-state user policy, not {pace!r}")
        build = graphs.build_graphs if EVERY_BUILTIN.get() else _builtin_builder(pace)
        return build, PACE_POLICIES.index(pace), None
    return _user_builder(pace), N_PACE_POLICIES, True


#: what :func:`_builtin_builder`'s kernels are, as ``sheepsim cache`` lists them
BUILTIN_LABEL = "the race's exact solver, one per built-in pace policy"


@functools.cache
def _builtin_builder(name):
    """:func:`~sheepsim.games.race.exact.graphs.build_graphs` recompiled to play only the
    built-in policy ``name`` (``graphs.own_state_pace`` rebound to ``graphs.ONLY[name]``),
    so a solve compiles one pace policy, not the three the whole-game kernels choose
    from at run time (cached on disk per policy, in a folder of its own)."""
    key = hashlib.sha256(f"sheepsim builtin own-state pace {name}".encode()).hexdigest()[:16]
    return rebind(graphs.build_graphs, {graphs.own_state_pace: graphs.ONLY[name]}, key,
                  builtin=f"{BUILTIN_LABEL}: {name}")


@functools.lru_cache(maxsize=8)
def _user_builder(fn):
    """:func:`~sheepsim.games.race.exact.graphs.build_graphs` recompiled so that pace id
    ``N_PACE_POLICIES`` calls ``fn`` (once per process; cached on disk per policy by
    :func:`sheepsim.jit.variant_key`, as the simulation kernels around user policies)."""
    return rebind(graphs.build_graphs, {graphs.own_state_pace: _user_pace(fn)},
                  variant_key((fn,)))


def _user_pace(fn):
    """``own_state_pace`` for a plug-in: it is asked with the one policy signature, as the
    engine asks it (its legal options as rows ``[option]``, a lone option taken without
    asking, a pace ``view`` of the board; copies through
    :func:`sheepsim.jit.user_policy_chain`); -1 (the builder's illegal-option error) for
    a choice outside its options or a write to its inputs."""
    import numba

    from sheepsim.games.race.kernels import decide_for

    ask = decide_for((fn,), ())

    # the arrays below allocate; a name of its own (sheepsim.jit._clone_tag)
    @numba.njit(cache=False, nogil=True, _nrt=True)
    @uniquely_named
    def pace(pid, lane, board, race, seen, legal, rand):
        opts = np.zeros((N_OPTIONS, 1), dtype=np.int64)
        n = 0
        for o in range(N_OPTIONS):
            if legal[o]:
                opts[n, 0] = o
                n += 1
        if n == 1:
            return opts[0, 0]
        view = np.zeros(N_VIEW, dtype=np.float64)
        fill_pace_view(view, lane, 0, 1, board, race, seen)
        i = ask(FIRST_USER_ID, PACE, view, opts[:n], n, rand)
        if i < 0 or i >= n:
            return -1
        return opts[i, 0]

    return pace
