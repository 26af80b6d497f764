"""Sheep Race chunk kernels over many single races, and their user-policy variants (whole
games: the race machine, :mod:`.machine`; one traced race: :mod:`.single` on the harness).

Each kernel simulates races ``start .. start+count-1`` serially and releases the GIL:
the driver runs chunks on a thread pool (or Dask workers). :class:`Kernels` allocates
a chunk's scratch in Python and every game's streams are keyed by ``(seed, game
index)``, so results never depend on chunks or threads.

Built-in policies are chosen by integer id inside these cached kernels. User policies
(``@numba.njit`` functions) reach single races as an argument
(:func:`plugged`): ``fill_races`` rebuilt once to ask a plug-in
through its ``users`` argument (:func:`_plugged_entries`) take the plug-ins as numba
first-class function values, each plug-in compiled once in
its guard and cached on disk (:func:`sheepsim.policy_values.policy_values`), the entries
compiled once whatever the plug-ins (issue 50, item 2). (The exact solver alone still
rebuilds a kernel around a plug-in: :func:`decide_for`, ``exact/lanegraph.py``.)

Seat ``s`` draws from its own policy streams, keyed by ``(seed, game, s, phase)``
(:func:`sheepsim.rng.seed_policy_stream`; ``phase`` pace or bets); the dice and deal
streams are keyed as before. A policy's bad choice stops the chunk: the kernels return
early with the failure and its game in ``asks.fail``, the harness's failure record, which
the Python layer turns into the harness's line
(:meth:`~sheepsim.games.race.simulate.PolicySet.check`).
"""

from __future__ import annotations

import functools
import hashlib
import threading
import types

import numpy as np

from sheepsim import rng
from sheepsim.games.race import greedy_table, policies
from sheepsim.games.race.engine import (
    new_table,
    placed_lanes,
    run_race,
    setup_race,
    stage_dice,
)
from sheepsim.games.race.layout import (
    FINAL,
    MAX_OPTS,
    N_JOINT,
    N_LANES,
    N_PHASES,
    N_VIEW,
    PACE_PHASE,
    V_BONUS,
    V_PAYOFFS,
    Asks,
    Seats,
)
from sheepsim.harness import ask
from sheepsim.harness.layout import F_GAME, FAIL_WIDTH
from sheepsim.jit import njit, rebind, rebind_many, user_policy_chain, variant_key


def new_asks(seats: int, rules=None) -> Asks:
    """An :class:`~sheepsim.games.race.layout.Asks` for ``seats`` seats (numpy arrays,
    allocated in Python); ``rules`` (a
    ``KernelRules``, single races) puts their payoffs and bonus in the view (whole games
    write the view's race parts every race, ``policies.fill_table_view``)."""
    view = np.zeros(N_VIEW, dtype=np.float64)
    if rules is not None:
        view[V_PAYOFFS:V_PAYOFFS + 4 * N_LANES] = rules.payoffs.ravel()
        view[V_BONUS:V_BONUS + 2] = rules.bonus
    return Asks(np.zeros((N_PHASES * seats, 2), dtype=np.uint64), view,
                np.zeros((MAX_OPTS, 1), dtype=np.int64), np.zeros((MAX_OPTS, 2), dtype=np.int64),
                np.zeros(FAIL_WIDTH, dtype=np.int64))


@njit(inline="always")
def _deal(streams, seed, g, random_deal, deck, lanes, n_cards):
    """Race ``g``'s lanes: with ``random_deal`` six cards drawn from the deck (the DEAL
    stream), else ``lanes`` as they are."""
    if random_deal:
        rng.seed_stream(streams, rng.DEAL, seed, g)
        for i in range(n_cards):
            deck[i] = i
        rng.shuffle(streams, rng.DEAL, deck)
        # element loops, not ``a[:] = b``: numba compiles a slice copy with a
        # shape-mismatch message formatted from strings (~3 s of a cold compile)
        for lane in range(N_LANES):
            lanes[lane] = deck[lane]


@njit(inline="always")
def _count_places(joint, card_place, lanes, places):
    for k in range(3):
        if places[k] >= 0:
            card_place[lanes[places[k]], places[k], k] += 1
    if places[2] >= 0:
        joint[N_LANES * (N_LANES * places[0] + places[1]) + places[2]] += 1


@njit
def fill_races(seed, start, count, rules, lane_cards, random_deal, stage, pace_ids, out, work,
               users=None):
    """Simulate ``count`` single races of one stage with one pace policy.

    ``rules`` a ``KernelRules`` record; ``pace_ids`` ``(1,)`` the policy id, or None for
    ``greedy`` (see :func:`engine.run_race`); ``lane_cards`` ``(6,)`` card per lane, or with
    ``random_deal`` six cards drawn from the deck for every race (the DEAL stream).
    Adds to ``out`` = ``(joint, card_place, turns)``: ``joint`` ``(N_JOINT,)`` counts of
    (1st, 2nd, 3rd) lanes as ``36*a + 6*b + c`` (semifinal only); ``card_place``
    ``(n_cards, 6, 3)`` counts of card in lane finishing 1st/2nd/3rd; ``turns`` ``(1,)``.
    ``work`` the chunk's arrays (:meth:`Kernels.race_chunk`), its ``asks`` (seat 0's
    streams) last; a policy's failure ends the chunk early (``asks.fail``). ``users``
    the plug-ins as function values in the kernel rebuilt for them (:func:`plugged`),
    omitted in the built-in kernels (:func:`engine.run_race`).

    Every sheep ``greedy`` with a supply that never binds is :func:`fill_greedy_races`'s
    (the same races, from tables); this kernel plays the engine's turn loop.
    """
    joint, card_place, turns = out
    streams, table, no_bets, deck, lanes, places, _, _, _, asks = work
    n_cards = rules.cards.shape[0]
    seats = Seats(no_bets, no_bets)
    dice = stage_dice(rules, stage)
    for lane in range(N_LANES):
        lanes[lane] = lane_cards[lane]
    for g in range(start, start + count):
        # only the streams a race draws from (the others are independent of them);
        # ``greedy`` (pace_ids None) draws nothing from the policy stream
        rng.seed_stream(streams, rng.DICE, seed, g)
        if pace_ids is not None:
            rng.seed_policy_stream(asks.streams, PACE_PHASE, seed, g, 0, PACE_PHASE)
        _deal(streams, seed, g, random_deal, deck, lanes, n_cards)
        setup_race(table, rules, lanes, stage)
        t = run_race(table, dice, streams, asks, pace_ids, seats, 0, users=users)
        if t < 0:
            asks.fail[F_GAME] = g
            return
        turns[0] += t
        placed_lanes(table.board, places)
        _count_places(joint, card_place, lanes, places)


@njit
def fill_greedy_races(seed, start, count, rules, lane_cards, random_deal, stage, out, work):
    """:func:`fill_races` with every sheep ``greedy`` and a supply that never binds (the
    chunk's ``greedy`` tables are not empty, :func:`greedy_table.new_tables`): each race
    is played from per-card transition tables, race by race identical to
    :func:`engine.run_race` and about four times as fast (``docs/performance-archive.md``,
    "The race kernel against the shared C file"). A kernel of its own, so a first
    ``race odds`` does not compile the engine's turn loop it never plays (about 5 CPU s:
    ``benchmarks/README.md``, "Compile time: the targets")."""
    joint, card_place, turns = out
    streams, _, _, deck, lanes, places, gtables, gstarts, gwork, _ = work
    n_cards = rules.cards.shape[0]
    dice = stage_dice(rules, stage)
    greedy_table.fill_tables(rules, gtables)
    greedy_table.fill_starts(rules, gstarts)
    need = 1 if stage == FINAL else 3
    for lane in range(N_LANES):
        lanes[lane] = lane_cards[lane]
    for g in range(start, start + count):
        rng.seed_stream(streams, rng.DICE, seed, g)
        _deal(streams, seed, g, random_deal, deck, lanes, n_cards)
        turns[0] += greedy_table.run_race(gstarts, gtables, lanes, dice, streams, need,
                                          gwork, places)
        _count_places(joint, card_place, lanes, places)


# ------------------------------------------------------------ user-policy variants
class Kernels(types.SimpleNamespace):
    """The kernel set for one policy configuration (``fill_races``,
    ``fill_greedy_races``) and the Python call that
    allocate their arrays: the kernels allocate nothing, so numba compiles none of
    numpy's allocation routines for them (about 2 s of a cold ``race odds``, measured
    with the compile listener of ``benchmarks/bench_compile.py``)."""

    def race_chunk(self, seed, start, count, rules, lane_cards, random_deal, stage,
                   pace_ids, out, tables=True):
        """:func:`fill_races` with the chunk's arrays (``tables=False``: the engine's
        turn loop even where the ``greedy`` tables apply, for tests and benchmarks)."""
        n_cards = rules.cards.shape[0]
        no_bets = np.zeros((1, N_LANES), dtype=np.int64)
        asks = new_asks(1, rules=rules)
        gtables = greedy_table.new_tables(rules) if tables and pace_ids is None else \
            np.zeros(0, dtype=np.int64)
        work = (rng.new_streams(), new_table(), no_bets, np.arange(n_cards, dtype=np.int64),
                np.zeros(N_LANES, dtype=np.int64), np.zeros(3, dtype=np.int64), gtables,
                np.zeros(n_cards, dtype=np.int64), np.zeros((3, N_LANES), dtype=np.int64), asks)
        lane_cards = np.asarray(lane_cards, dtype=np.int64)
        if pace_ids is None and gtables.shape[0] > 0:
            self.fill_greedy_races(seed, start, count, rules, lane_cards, random_deal, stage,
                                   out, work)
        else:
            self.fill_races(seed, start, count, rules, lane_cards, random_deal, stage,
                            pace_ids, out, work)
        return asks


@njit(inline="always")
def pace_greedy(policy_id, lane, board, race, seen, legal, rand):
    """``policies.choose_pace`` for a line-up of ``greedy`` alone given by its id (a
    line-up of ``greedy`` alone otherwise passes ``pace_ids`` None: no dispatch)."""
    return policies.greedy(lane, board, race, seen, legal, rand)


@njit(inline="always")
def pace_random(policy_id, lane, board, race, seen, legal, rand):
    """``policies.choose_pace`` for a line-up of ``random`` alone (see :class:`_Builtin`)."""
    return policies.random_pace(lane, board, race, seen, legal, rand)


@njit(inline="always")
def pace_saver(policy_id, lane, board, race, seen, legal, rand):
    """``policies.choose_pace`` for a line-up of ``saver`` alone."""
    return policies.saver(lane, board, race, seen, legal, rand)


@njit(inline="always")
def pace_steady(policy_id, lane, board, race, seen, legal, rand):
    """``policies.choose_pace`` for a line-up of ``steady`` alone."""
    return policies.steady(lane, board, race, seen, legal, rand)


@njit(inline="always")
def pace_partisan(policy_id, lane, board, race, seen, legal, rand):
    """``policies.choose_pace`` for a line-up of ``partisan`` alone."""
    return policies.partisan(lane, board, race, seen, legal, rand)


#: The single-race kernel's pace dispatch per built-in policy (every sheep ``greedy``
#: compiles none: ``pace_ids`` None, :func:`kernel_pace_ids`).
ONE_PACE = {policies.GREEDY: pace_greedy, policies.RANDOM_PACE: pace_random, policies.SAVER: pace_saver,
            policies.STEADY: pace_steady, policies.PARTISAN: pace_partisan}
#: The built-in kernels (:data:`BUILTIN`; :func:`kernels_for` rebuilds them).
ENTRIES = dict(fill_races=fill_races, fill_greedy_races=fill_greedy_races)


class _Builtin(Kernels):
    """:data:`ENTRIES` for built-in policies only. Single races (``race odds``, ``race
    ev``, ``race advise`` and ``serve`` when simulated) play one pace policy, so
    :meth:`race_chunk` runs :func:`fill_races` rebuilt (:func:`sheepsim.jit.rebind`, on
    first use, cached on disk per policy) for that policy alone: ``policies.choose_pace``
    rebound to the policy (:data:`ONE_PACE`); a plug-in id is refused
    (:func:`sheepsim.harness.ask.no_plugins`, the engine's plug-in ask in every kernel
    not rebuilt to take plug-ins). A cold ``race ev --policy random`` then compiles one
    pace policy and no bet policy instead of every built-in one (``benchmarks/README.md``,
    "Compile time: the targets")."""

    def race_chunk(self, seed, start, count, rules, lane_cards, random_deal, stage,
                   pace_ids, out, tables=True):
        kernels = self if pace_ids is None else one_pace(int(np.asarray(pace_ids)[0]))
        return Kernels.race_chunk(kernels, seed, start, count, rules, lane_cards,
                                  random_deal, stage, pace_ids, out, tables)


#: what :func:`one_pace`'s kernels are, as ``sheepsim cache`` lists them
BUILTIN_LABEL = "the race's single-race kernels, one per built-in pace policy"


@functools.cache
def one_pace(pid: int) -> Kernels:
    """The single-race kernels rebuilt for the built-in pace policy ``pid`` alone (see
    :class:`_Builtin`), cached on disk per policy: ``fill_races`` and the position
    kernels ``races_from`` and ``race_outcomes``
    (:mod:`~sheepsim.games.race.exact.position_kernel`: ``race odds|ev|advise
    --position`` simulated), rebuilt together so that the engine's turn loop they share
    compiles once."""
    from sheepsim.games.race.exact import position_kernel

    swap = {policies.choose_pace: ONE_PACE[pid]} if pid in ONE_PACE else {}
    name = policies.PACE_POLICIES[pid]
    key = hashlib.sha256(f"sheepsim race single races {name}".encode()).hexdigest()[:16]
    return Kernels(**rebind_many(dict(fill_races=fill_races,
                                      races_from=position_kernel.races_from,
                                      race_outcomes=position_kernel.race_outcomes),
                                 swap, key, builtin=f"{BUILTIN_LABEL}: {name}"))


BUILTIN = _Builtin(**ENTRIES)
#: The built-in kernels' call, as a function (tests and benchmarks call it).
race_chunk = BUILTIN.race_chunk


class _Plugged(Kernels):
    """The kernels of a line-up with plug-ins (:func:`plugged`): single races
    on the entries that take the plug-ins as function values (:func:`_plugged_entries`),
    compiled once whatever the plug-ins (whole games: the race machine)."""

    def __init__(self, user_pace: tuple, user_bets: tuple):
        super().__init__(user_pace=user_pace, user_bets=user_bets)
        self._lock = threading.Lock()
        self._users = None

    def users(self) -> tuple:
        """``(FIRST_USER_ID, *plug-ins)``: the pace then the bet plug-ins as function
        values, each compiled once (float64 view) and cached on disk on first use."""
        with self._lock:
            if self._users is None:
                from sheepsim.policy_values import policy_values

                self._users = (policies.FIRST_USER_ID,
                               *policy_values(self.user_pace + self.user_bets,
                                              view_dtype="float64"))
            return self._users

    def call(self, name: str, *args):
        """Entry ``name`` of :func:`_plugged_entries` on ``args`` and this line-up's
        plug-ins (compiled here on first use: a plug-in that does not compile raises
        where the kernel is called)."""
        return _plugged_entries()[name](*args, users=self.users())

    def fill_races(self, *args):
        return self.call("fill_races", *args)


#: what :func:`_plugged_entries`' kernels are, as ``sheepsim cache`` lists them
PLUGGED_LABEL = "the race's single-race kernels that take plug-ins as function values"


@functools.cache
def _plugged_entries() -> dict:
    """``fill_races`` and the position kernels ``races_from`` and
    ``race_outcomes`` (:mod:`~sheepsim.games.race.exact.position_kernel`) rebuilt
    (:func:`sheepsim.jit.rebind`, together: the turn loop they share compiles once) with
    the harness's :func:`~sheepsim.harness.ask.ask_plugin` in place of
    :func:`~sheepsim.harness.ask.no_plugins` (the engine's plug-in ask,
    ``engine.ask_user_pace``), so that a plug-in is asked through the ``users`` argument
    as the harness asks one, and each made a
    :class:`~sheepsim.policy_values.FunctionArgsEntry` (compiled for an explicit
    signature, once whatever the plug-ins, cached on disk), by the kernel's name."""
    from sheepsim.games.race.exact import position_kernel
    from sheepsim.policy_values import FunctionArgsEntry

    key = hashlib.sha256(b"sheepsim race plug-ins as values").hexdigest()[:16]
    rebuilt = rebind_many(dict(fill_races=fill_races,
                               races_from=position_kernel.races_from,
                               race_outcomes=position_kernel.race_outcomes),
                          {ask.no_plugins: ask.ask_plugin}, key,
                          builtin=PLUGGED_LABEL)
    return {name: FunctionArgsEntry(kernel, "float64") for name, kernel in rebuilt.items()}


@functools.lru_cache(maxsize=16)
def plugged(user_pace: tuple = (), user_bets: tuple = ()) -> Kernels:
    """The kernels of a line-up: the cached built-ins without plug-ins, else
    :class:`_Plugged`, whose single races take the plug-ins (``user_pace``,
    then ``user_bets``: ids from ``FIRST_USER_ID``, as ``simulate.resolve_policies``
    numbers them) as function
    values, so a new line-up compiles only its new plug-ins (issue 50, item 2)."""
    if not user_pace and not user_bets:
        return BUILTIN
    return _Plugged(tuple(user_pace), tuple(user_bets))


@functools.lru_cache(maxsize=16)
def kernels_for(user_pace: tuple = (), user_bets: tuple = ()) -> Kernels:
    """:data:`ENTRIES` rebuilt around the plug-ins (id ``FIRST_USER_ID + k`` calls
    ``user_pace[k]``, the ids after them ``user_bets``: :func:`decide_for`), recompiled
    per line-up and cached in the line-up's own folder (:func:`sheepsim.jit.variant_key`);
    with no user policies the cached built-ins. sheepsim itself no longer plays a
    line-up this way (:func:`plugged`): the tests of the variant cache
    (``tests/test_plugin_cache.py``, ``test_cache_command.py``) still use it, as the exact
    solver's rebuilt lane-graph builder uses :func:`decide_for`.

    Which functions are recompiled is derived (:func:`sheepsim.jit.rebind`): every
    kernel function that reaches the engine's plug-in ask
    (:func:`sheepsim.harness.ask.no_plugins` in the built-in kernels), asked here
    through :func:`ask_decide` with ``policies.decide`` rebound to the plug-ins' chain.
    """
    if not user_pace and not user_bets:
        return BUILTIN
    swap = {ask.no_plugins: rebind(ask_decide,
                                   {policies.decide: decide_for(user_pace, user_bets)})}
    key = variant_key(user_pace, user_bets)
    return Kernels(**{name: rebind(kernel, swap, key) for name, kernel in ENTRIES.items()})


@njit
def ask_decide(pid, kind, view, opts, n, rand, users):
    """The engine's plug-in ask (:func:`sheepsim.harness.ask.ask_plugin`'s signature)
    through ``policies.decide``: :func:`kernels_for` binds it with ``decide`` rebound to
    :func:`decide_for`'s chain of the plug-ins (``users`` unused)."""
    return policies.decide(pid, kind, view, opts, n, rand)


def decide_for(user_pace: tuple, user_bets: tuple = ()):
    """``policies.decide`` extended with the plug-ins (:func:`sheepsim.jit.user_policy_chain`):
    what :func:`sheepsim.jit.rebind` puts in place of it in any kernel that asks a policy."""
    return user_policy_chain(policies.decide, tuple(user_pace) + tuple(user_bets),
                             policies.FIRST_USER_ID)


def kernel_pace_ids(pace_ids: np.ndarray):
    """What the kernels take for these seats' pace ids: None when every seat plays
    ``greedy`` (the kernels are then compiled without the policy dispatch)."""
    return None if (np.asarray(pace_ids) == policies.GREEDY).all() else pace_ids


def empty_race_counts(n_cards: int):
    """Zeroed ``(joint (N_JOINT,), card_place (n_cards, 6, 3), turns (1,))`` int64."""
    return (np.zeros(N_JOINT, dtype=np.int64), np.zeros((n_cards, N_LANES, 3), dtype=np.int64),
            np.zeros(1, dtype=np.int64))
