"""A game's state machine as the harness loads it: its sizes checked, its kernel built.

The machine module (``Game.machine``) declares, besides the functions of
:mod:`sheepsim.harness.slots`:

* ``RULES``: the rules file's keys under its ``[<command>]`` table, each with its
  smallest allowed value (ints); the kernels' ``R`` holds them in this order;
* ``state_size(players) -> int``: the length of the state vector ``st``;
* ``MAX_OPTIONS``, ``OPTION_WIDTH``: the shape of the option rows ``opts``;
* ``VIEW_LEN``: the length of a seat's view;
* ``KINDS``: the names of the decision kinds (a decision's ``kind`` indexes it);
* optionally ``VIEW_DTYPE`` (default ``"int64"``, or ``"float64"``): the dtype of a
  seat's view (what slot ``view`` writes and a plug-in is shown);
* optionally ``OPTION_WIDTHS`` (default ``OPTION_WIDTH`` for every kind): per decision
  kind, how many columns of its option rows a plug-in is shown (``opts[:n, :width]``, a
  copy when narrower; the built-in policies see every column);
* optionally ``MAX_DECISIONS`` (default :data:`MAX_DECISIONS`): a game that runs past
  it stops the run with one line (a machine or a plug-in that never ends a game);
* optionally ``CHANCE_STREAMS`` (default 1): the rows of ``chance``, one per purpose
  (the deal, the dice...), each keyed by ``(seed, game, purpose)``;
* optionally ``KIND_PHASES`` (default all 0): the policy-stream phase of each decision
  kind (a game with a draft and a play phase keeps a seat's draws of each apart);
* optionally the slot ``role(kind)`` (:mod:`~sheepsim.harness.slots`), for a game whose
  seats each hold one policy per role (the race's bets and pace): the kernel's ``pids``
  then hold ``roles`` ids per slot (one more than the largest role of a kind,
  :attr:`Machine.roles`), role-major (role ``q`` of slot ``j`` at ``q * players + j``),
  and so does the ``seat_pid`` slots ``seated`` and ``tally`` get (by seat);
  ``own_variant`` gets one tuple of built-in ids per role;
* optionally ``TALLY_LEN`` (default 0) and the slot ``tally``: the game's own counts,
  a block of the accumulator after the harness's fields; and the optional slots
  ``needs_view`` and ``seated`` (:data:`sheepsim.harness.slots.OPTIONAL`);
* optionally ``SCRATCH_LEN`` (default 0): entries after the state in ``st`` that the
  harness allocates with it but zeroes once a chunk, not before every game (the game's
  own scratch, e.g. its trace's event rows: it reads there only what it wrote in the
  same game);
* optionally ``EVENT_WIDTH`` (default 0) and the slots ``trace_on`` and ``events``: the
  game's own event log in a trace (:func:`sheepsim.harness.jobs.run_games`); and the
  slot ``own_events`` for those of the stretches it plays itself (slot ``own``);
* optionally ``RESULT_LEN`` (default 0) and the slot ``result``: each game's own
  outcome, one row per game when the caller asks for it (e.g. what a later run on
  some of the same games needs: :func:`sheepsim.harness.jobs.run_games` plays a list
  of games as well as a range);
* optionally ``PLUGGED_SLOTS``, the name of a module with a plain-Python
  ``plugged_slots(builtins) -> {slot name: function}``: slots that replace the
  machine's in a line-up with plug-ins seating the built-in policy ids ``builtins``
  (e.g. a game whose ``own`` plays built-in seats' turns and whose plug-in seats' turns
  stop at each decision, in a module that builds on the machine's: named, not
  imported, so the two modules do not import each other);
* optionally plain-Python ``describe(st, players) -> str`` and ``option_text(kind, row)
  -> str`` for the trace's lines;
* optionally the slot ``own`` (a machine that plays stretches of the game itself, e.g. a
  built-in seat's whole turn with its own direct code), with ``OWN_STRETCHES`` (default
  1: the most stretches one call plays), plain-Python ``new_scratch(players, R)`` (its
  own scratch, made once a chunk), ``own_variant(built-in ids seated) -> name`` (the
  ``own`` to bind for a line-up, so that what it rules out is not compiled) and
  ``OWN_BUILTINS`` (``own`` plays every built-in seat: line-ups of built-ins alone run
  :func:`sheepsim.harness.loop.play_own_games`, which compiles nothing of asking);
  optionally ``own_only_variant(built-in ids seated) -> name`` (default
  ``own_variant``): the ``own`` bound in that own-only entry, which never traces (e.g.
  one that compiles no trace logging and no policy the line-up does not seat); and the
  slot ``own_turns`` for stretches that span several seats' turns (one stretch a race,
  say: the harness counts its turns without a row each).
"""

from __future__ import annotations

import functools
import importlib
import threading

import numpy as np

from sheepsim import jit, policy_values
from sheepsim.errors import SheepsimError
from sheepsim.harness import layout as H
from sheepsim.harness import slots

#: the default cap on decisions in one game
MAX_DECISIONS = 100_000
#: what a machine module must define
REQUIRED = ("RULES", "state_size", "MAX_OPTIONS", "OPTION_WIDTH", "VIEW_LEN", "KINDS",
            "start", "to_move", "apply", "scores", "winner", "view")

_LOCK = threading.Lock()
#: what a game's entry kernels are, as ``sheepsim cache`` lists them (:meth:`Machine.kernel`)
ENTRY_LABEL = "a harness game's entries"


@functools.cache
def load(path: str) -> Machine:
    """The machine module ``path``, checked (one line naming what it lacks)."""
    try:
        module = importlib.import_module(path)
    except ImportError as exc:
        raise SheepsimError(f"cannot import the game machine {path!r}: {exc}") from None
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if not (hasattr(module, "decide") or hasattr(module, "decide_rules")):
        missing.append("decide")
    if missing:
        raise SheepsimError(f"game machine {path!r} does not define {', '.join(missing)}")
    return Machine(path, module)


class Machine:
    """A loaded machine module: its sizes and its kernels (one per set of plug-ins)."""

    def __init__(self, path: str, module):
        self.path, self.module = path, module
        self.kinds = tuple(module.KINDS)
        self.option_width = int(module.OPTION_WIDTH)
        self.max_decisions = int(getattr(module, "MAX_DECISIONS", MAX_DECISIONS))
        self.chance_streams = int(getattr(module, "CHANCE_STREAMS", 1))
        self.tally_len = int(getattr(module, "TALLY_LEN", 0))
        self.event_width = int(getattr(module, "EVENT_WIDTH", 0))
        self.scratch_len = int(getattr(module, "SCRATCH_LEN", 0))
        self.result_len = int(getattr(module, "RESULT_LEN", 0))
        self.view_dtype = str(getattr(module, "VIEW_DTYPE", "int64"))
        if self.view_dtype not in ("int64", "float64"):
            raise SheepsimError(f"game machine {path!r}: VIEW_DTYPE must be 'int64' or "
                                f"'float64', got {self.view_dtype!r}")
        widths = getattr(module, "OPTION_WIDTHS", None)
        self.option_widths = np.array((self.option_width,) * len(self.kinds) if widths is None
                                      else widths, dtype=np.int64)
        if self.option_widths.shape != (len(self.kinds),) or (self.option_widths < 1).any() \
                or (self.option_widths > self.option_width).any():
            raise SheepsimError(f"game machine {path!r}: OPTION_WIDTHS needs one width "
                                f"1..OPTION_WIDTH per kind of KINDS ({len(self.kinds)})")
        self.kind_phase = np.array(getattr(module, "KIND_PHASES", (0,) * len(self.kinds)),
                                   dtype=np.int64)
        if self.kind_phase.shape != (len(self.kinds),) or (self.kind_phase < 0).any():
            raise SheepsimError(f"game machine {path!r}: KIND_PHASES needs one phase >= 0 "
                                f"per kind of KINDS ({len(self.kinds)})")
        role = getattr(module, "role", None)  # (a kernel: called here, it compiles alone)
        self.kind_role = np.array([int(role(k)) if role is not None else 0
                                   for k in range(len(self.kinds))], dtype=np.int64)
        if (self.kind_role < 0).any():
            raise SheepsimError(f"game machine {path!r}: role(kind) must be 0 or more")
        #: the policies a seat holds (one per role)
        self.roles = int(self.kind_role.max()) + 1
        if self.chance_streams < 1:
            raise SheepsimError(f"game machine {path!r}: CHANCE_STREAMS must be at least 1")
        self._entries: dict = {}  # plug-ins or not: the entry
        self._users: dict = {}

    def sizes(self, players: int) -> np.ndarray:
        m = self.module
        z = np.zeros(H.N_SIZES + len(self.kinds), dtype=np.int64)
        z[H.Z_STATE] = m.state_size(players)
        z[H.Z_OPTIONS] = m.MAX_OPTIONS
        z[H.Z_OPTION_WIDTH] = m.OPTION_WIDTH
        z[H.Z_VIEW] = m.VIEW_LEN
        z[H.Z_MAX_DECISIONS] = self.max_decisions
        z[H.Z_KINDS] = len(self.kinds)
        z[H.Z_CHANCE] = self.chance_streams
        z[H.Z_PHASES] = int(self.kind_phase.max()) + 1
        z[H.Z_SCRATCH] = self.scratch_len
        z[H.Z_OWN] = int(getattr(m, "OWN_STRETCHES", 1)) if hasattr(m, "own") else 0
        z[H.Z_ROLES] = self.roles
        z[H.Z_KIND_WIDTHS:] = self.option_widths
        return z

    def new_scratch(self, players: int, R):
        """The machine's scratch for one chunk (its ``new_scratch(players, R)``), an
        empty array for a machine with ``own`` but no scratch, None without ``own`` (the
        entry then compiles nothing of ``own``)."""
        if not hasattr(self.module, "own"):
            return None
        fn = getattr(self.module, "new_scratch", None)
        return fn(players, R) if fn is not None else np.zeros(0, dtype=np.int64)

    def functions(self) -> tuple:
        """The slots of :data:`~sheepsim.harness.slots.NAMES`, None for a ``decide`` the
        machine does not define (its ``decide_rules`` stands in)."""
        return tuple(getattr(self.module, name, None) for name in slots.NAMES)

    def optional(self) -> dict:
        """The optional slots the machine defines: ``{slot: its function}``."""
        return {getattr(slots, n): getattr(self.module, n) for n in slots.OPTIONAL
                if hasattr(self.module, n)}

    def offsets(self, players: int) -> np.ndarray:
        """The accumulator's offsets (:func:`sheepsim.harness.layout.offsets`)."""
        return H.offsets(players, len(self.kinds), self.tally_len)

    def kernel(self, user_fns: tuple, first_user_id: int, pids=(), trace: bool = False):
        """The entry kernel :func:`sheepsim.harness.loop.play_games` with this game's
        functions bound in and the plug-ins ``user_fns`` (ids from ``first_user_id`` on)
        as its argument, function values each compiled once per plug-in and cached on
        its own (:func:`sheepsim.policy_values.policy_values`). Entries per game, each
        compiled once and cached on disk under a key of everything they reach
        (:func:`sheepsim.jit.variant_key`): one for line-ups with plug-ins, whatever they
        are, and one for the built-ins alone (:func:`~sheepsim.harness.loop.ask_builtin`);
        for a machine whose ``own`` plays every built-in seat (``OWN_BUILTINS``), the
        built-ins alone run :func:`~sheepsim.harness.loop.play_own_games` unless
        ``trace``, and its ``own_variant(built-in ids seated)`` names the ``own`` bound in
        for the policy ids ``pids``. Call it with ``play_games``'s arguments up to
        ``out``."""
        plugged = bool(user_fns)
        variant = None
        builtins = tuple(sorted({int(p) for p in pids if p < first_user_id}))
        own_only = not plugged and not trace and getattr(self.module, "OWN_BUILTINS", False)
        if hasattr(self.module, "own_variant"):
            ids = [int(p) for p in pids]
            per = len(ids) // self.roles
            sets = tuple(tuple(sorted({p for p in ids[q * per:(q + 1) * per]
                                       if p < first_user_id})) for q in range(self.roles))
            name = "own_variant"
            if own_only and hasattr(self.module, "own_only_variant"):
                name = "own_only_variant"
            variant = getattr(self.module, name)(sets[0] if self.roles == 1 else sets)
        # (keyed by plugged alone for a machine without own_variant or OWN_BUILTINS)
        entry = plugged if variant is None and not own_only else (plugged, variant, own_only)
        with _LOCK:
            if entry not in self._entries:
                from sheepsim.harness import loop  # numba: built when a job runs

                own = self.functions()
                repl = {getattr(slots, n): f
                        for n, f in zip(slots.NAMES, own, strict=True) if f is not None}
                own = tuple(f for f in own if f is not None)
                repl.update(self.optional())
                if variant is not None:
                    repl[slots.own] = getattr(self.module, variant)
                if plugged and hasattr(self.module, "PLUGGED_SLOTS"):
                    cut = importlib.import_module(self.module.PLUGGED_SLOTS)
                    for name, fn in cut.plugged_slots(builtins).items():
                        repl[getattr(slots, name)] = fn
                own = tuple(repl[getattr(slots, n)] for n in slots.NAMES
                            if getattr(slots, n) in repl)  # (decide: or decide_rules)
                own = own + tuple(repl[getattr(slots, n)] for n in slots.OPTIONAL
                                  if hasattr(self.module, n))
                if self.view_dtype == "float64":  # (its own cache key: another kernel)
                    repl[loop.new_view] = loop.new_float_view
                    own = own + (loop.new_float_view,)
                key = jit.variant_key(own)
                label = f"{ENTRY_LABEL}: {self.path} ({'plug-in' if plugged else 'built-in'}s)"
                if own_only:
                    label = f"{ENTRY_LABEL}: {self.path} (built-ins the machine plays itself)"
                    kernel = OwnEntry(jit.rebind(loop.play_own_games, repl, cache_key=key,
                                                 builtin=label))
                else:
                    if not plugged:  # (its own cache key: the two entries share a name)
                        key = jit.variant_key(own, (loop.ask_builtin,))
                        repl[loop.ask] = jit.rebind(loop.ask_builtin, repl, cache_key=key,
                                                    builtin=label)
                    kernel = policy_values.FunctionArgsEntry(
                        jit.rebind(loop.play_games, repl, cache_key=key, builtin=label),
                        self.view_dtype)
                self._entries[entry] = kernel
            if user_fns not in self._users:
                self._users[user_fns] = policy_values.policy_values(
                    user_fns, view_dtype=self.view_dtype) if plugged else ()
            return functools.partial(self._entries[entry],
                                     users=(first_user_id, *self._users[user_fns]))

    def describe(self, st, players: int) -> str:
        fn = getattr(self.module, "describe", None)
        return fn(st, players) if fn is not None else " ".join(str(int(v)) for v in st)

    def option_text(self, kind: int, row) -> str:
        fn = getattr(self.module, "option_text", None)
        return fn(kind, row) if fn is not None else ",".join(str(int(v)) for v in row)


class OwnEntry:
    """Python's calls of :func:`sheepsim.harness.loop.play_own_games` with
    :func:`~sheepsim.harness.loop.play_games`'s arguments: its work arrays
    (:data:`~sheepsim.harness.layout.OwnWork`) allocated here, once a call."""

    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, R, players, pids, rotate, seed, games, sizes, kind_phase, off, out,
                 scratch, users=()):
        z = sizes
        stretches = int(z[H.Z_OWN])
        work = H.OwnWork(
            np.zeros(z[H.Z_STATE] + z[H.Z_SCRATCH], dtype=np.int64),
            np.zeros((z[H.Z_OPTIONS], z[H.Z_OPTION_WIDTH]), dtype=np.int64),
            np.zeros((z[H.Z_CHANCE] + z[H.Z_PHASES] * players, 2), dtype=np.uint64),
            np.zeros(players, dtype=np.int64), np.zeros(players, dtype=np.int64),
            # a turn has a decision: room for every turn until MAX_DECISIONS is passed
            np.zeros((z[H.Z_MAX_DECISIONS] + stretches + 2, players + 1), dtype=np.int64),
            np.zeros(H.report_len(int(z[H.Z_KINDS])), dtype=np.int64),
            np.zeros((stretches, 2 + players), dtype=np.int64))
        return self.kernel(R, players, pids, rotate, seed, games, sizes, off, out, scratch,
                           work)
