"""Asking a plug-in policy and recording a run's failure, once for every kernel that asks:
the harness's entry kernel (:func:`sheepsim.harness.loop.ask`, :func:`~.loop.play_games`)
and the race's single-race engine (:func:`sheepsim.games.race.engine.run_race`, which
keeps its own turn loop for speed: ``benchmarks/README.md``).

A module of its own, importing only the harness's layout, so that a game kernel that
asks through it is not keyed on the harness's loop or slots (``sheepsim.jit``'s cache
keys follow imports)."""

from sheepsim.harness.layout import F_CHOICE, F_CODE, F_GAME, F_KIND, F_N, F_PID, F_SEAT
from sheepsim.jit import WROTE_INPUTS_CHOICE, njit
from sheepsim.plugins import ILLEGAL_CHOICE, WROTE_INPUTS


@njit
def record_failure(fail, code, game, seat, pid, choice, n, kind):
    """Write a failure to ``fail`` ``(FAIL_WIDTH,)`` (:mod:`~.layout`'s ``F_*`` fields):
    ``code`` (a policy's bad choice, or the harness's ``RULES_BROKEN``, ``TOO_LONG``),
    the game's index, the seat, its policy id (-1: none asked), the choice, the options
    offered and the decision's kind. The run stops there;
    :func:`sheepsim.harness.jobs.raise_run_failure` makes it one line."""
    fail[F_CODE] = code
    fail[F_GAME] = game
    fail[F_SEAT] = seat
    fail[F_PID] = pid
    fail[F_CHOICE] = choice
    fail[F_N] = n
    fail[F_KIND] = kind


@njit
def bad_choice(fail, game, seat, pid, choice, n, kind):
    """:func:`record_failure` of policy ``pid``'s ``choice``, not a row ``0 <= choice <
    n`` of its options: ``WROTE_INPUTS`` when it is the guard's
    :data:`sheepsim.jit.WROTE_INPUTS_CHOICE` (the plug-in wrote to its inputs), else
    ``ILLEGAL_CHOICE``. A call made on a failure only: the check itself stays inline in
    the caller's loop."""
    code = WROTE_INPUTS if choice == WROTE_INPUTS_CHOICE else ILLEGAL_CHOICE
    record_failure(fail, code, game, seat, pid, choice, n, kind)


@njit(inline="always")
def ask_plugin(pid, kind, view, opts, n, rand, users):
    """Plug-in ``pid``'s choice (a row of ``opts[:n]``, unchecked): ``users`` is the first
    plug-in's id then the plug-ins as function values
    (:func:`sheepsim.policy_values.policy_values`, each in its guard: copies of its
    inputs, its own stream row), and id ``pid`` asks ``users[1 + pid - users[0]]`` with
    the one policy signature ``(kind, view, opts, n, rand)``. (The race's single-race
    engine asks :func:`no_plugins` unless rebuilt with this function in its place:
    ``sheepsim.games.race.kernels._plugged_entries``.)"""
    return users[1:][pid - users[0]](kind, view, opts, n, rand)


@njit
def no_plugins(pid, kind, view, opts, n, rand, users):
    """:func:`ask_plugin` in a kernel compiled for built-in policies alone (``users``
    None or just the first plug-in id: numba compiles no call through a function value),
    where no plug-in id can come: one raises."""
    if pid >= 0:  # (always: the return types the call for numba)
        raise ValueError("unknown policy id: this kernel plays built-in policies only")
    return -1
