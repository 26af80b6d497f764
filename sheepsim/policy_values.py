"""Plug-in policies as first-class function values: compiled once per plug-in, and an
entry kernel compiled once per game whatever the line-up (issue 50, item 2).

The older way, :func:`sheepsim.jit.rebind` around :func:`sheepsim.jit.user_policy_chain`,
freezes the plug-ins into the kernels as globals, so every distinct set of plug-ins
recompiles every entry kernel (about 25 CPU s per line-up for a Shear Panic variant,
10-40 s for Pig on the harness). Here the entry kernel takes the plug-ins as an argument
instead, typed ``numba.types.FunctionType`` (numba's first-class functions): a call
through one is an indirect call of the plug-in's compiled code, with numba's own calling
convention (its exceptions reach Python).

* :func:`policy_values`: each plug-in in a guard (copies of its inputs, a check that it
  wrote none, its stream row written back, its answer an integer), around a fresh,
  bounds-checked copy (:func:`sheepsim.jit.fresh_copies`): exactly what
  :func:`sheepsim.jit.user_policy_chain` does per plug-in, so results are byte-identical.
  Each guard is compiled once per plug-in and cached on disk in the folder of the
  plug-in's own :func:`sheepsim.jit.variant_key` (via :func:`sheepsim.jit.rebind`).
* :class:`FunctionArgsEntry`: the entry kernel's Python calls. numba types a jitted
  function passed from Python by its identity (a new compile per line-up), so the entry
  is compiled for an explicit signature (``FunctionType`` per plug-in) and then closed to
  compiling: numba then converts each plug-in to its function value.

The harness (:mod:`sheepsim.harness.loop`, :meth:`sheepsim.harness.machine.Machine.kernel`)
uses it, and so do the Sheep Race's single races
(:func:`sheepsim.games.race.kernels.plugged`); measured in
``benchmarks/bench_plugins.py`` (benchmarks/README.md).
This module is not imported by any kernel module, so its edits recompile no game kernel.
"""

from __future__ import annotations

import functools
import threading

from sheepsim.jit import WROTE_INPUTS_CHOICE, fresh_copies, njit, rebind, variant_key

#: How many plug-in slots an entry kernel taking plug-ins as values is compiled for (the
#: line-up's distinct plug-ins, padded with :func:`_no_policy`): one compile per game for
#: every line-up of up to this many plug-ins.
POLICY_VALUE_SLOTS = 8


def _plugin_slot(kind, view, opts, n, rand):
    """The place of a plug-in in :func:`_plugin_guard`; :func:`sheepsim.jit.rebind` puts
    the plug-in there. Never runs."""
    raise RuntimeError("a plug-in policy is bound here (sheepsim.policy_values.policy_values)")


def _integer_choice(i):
    """A plug-in's answer as an int64; numba refuses (typing) any answer that is not an
    integer or a bool on every path (:func:`_guard_parts`)."""
    return i


def _plugin_guard(kind, view, opts, n, rand):
    """One plug-in called on copies of its inputs, as the dispatch of
    :func:`sheepsim.jit.user_policy_chain` calls it (see there)."""
    v = view.copy()
    o = opts.copy()
    r = rand.copy()  # its own row, not a window into every stream
    i = _integer_choice(_plugin_slot(kind, v, o, n, r))
    for c in range(rand.shape[1]):  # its draws advance its seat's stream
        rand[0, c] = r[0, c]
    for j in range(v.shape[0]):
        if v[j] != view[j]:
            return WROTE_INPUTS_CHOICE
    for a in range(o.shape[0]):
        for c in range(o.shape[1]):
            if o[a, c] != opts[a, c]:
                return WROTE_INPUTS_CHOICE
    return i


def _no_policy(kind, view, opts, n, rand):
    """The padding of a plug-in tuple (:data:`POLICY_VALUE_SLOTS`): never called (no
    policy id reaches it); an illegal choice if it were."""
    return -1


@functools.cache
def _guard_parts(view_dtype: str = "int64"):
    """``(slot, guard, padding, function type)``: the dispatchers of
    :func:`_plugin_slot`, :func:`_plugin_guard` and :func:`_no_policy` (one set per
    process, :func:`_dispatchers`), and the numba type of a plug-in as a value,
    ``int64(kind, view, opts, n, rand)`` with the arrays the harness hands it (``view``
    of ``view_dtype``: a machine's ``VIEW_DTYPE``, int64 or float64)."""
    from numba import types as nt

    slot, guard, padding = _dispatchers()
    view = {"int64": nt.int64, "float64": nt.float64}[view_dtype]
    fn_type = nt.FunctionType(nt.int64(nt.int64, view[::1], nt.int64[:, ::1], nt.int64,
                                       nt.uint64[:, ::1]))
    return slot, guard, padding, fn_type


@functools.cache
def _dispatchers():
    """The dispatchers of :func:`_plugin_slot`, :func:`_plugin_guard` and
    :func:`_no_policy`, made on first use (importing this module imports no numba)."""
    import numba
    import numpy as np
    from numba import types as nt
    from numba.extending import overload

    TypingError = numba.errors.TypingError  # numba's public errors module

    @overload(_integer_choice)
    def _integer_choice_impl(i):
        if isinstance(i, (nt.Integer, nt.Boolean)):
            return lambda i: np.int64(i)
        raise TypingError(f"a plug-in policy returns {i}: a policy must return an integer "
                          "on every path")

    g = globals()
    slot = g["_plugin_slot"] = njit(_plugin_slot)
    # _nrt: the copies allocate (and the plug-in may too). numba's C wrapper (which
    # sheepsim's njit leaves out unless asked) is what makes each a first-class value
    guard = njit(_plugin_guard, _nrt=True, no_cfunc_wrapper=False)
    padding = njit(_no_policy, no_cfunc_wrapper=False)
    return slot, guard, padding


def policy_values(user_fns: tuple, slots: int = POLICY_VALUE_SLOTS,
                  view_dtype: str = "int64") -> tuple:
    """The plug-ins ``user_fns`` as first-class function values for an entry kernel that
    takes them as an argument (:class:`FunctionArgsEntry`), padded to ``slots`` (more if
    there are more plug-ins): each a :func:`_plugin_guard` around a fresh, bounds-checked
    copy of the plug-in (:func:`sheepsim.jit.fresh_copies`), compiled once per plug-in
    and cached on disk in the folder of its own :func:`sheepsim.jit.variant_key` (as
    :func:`sheepsim.jit.rebind` caches a variant). So a new line-up of known plug-ins
    compiles nothing, and the entry kernel compiles once per game whatever the plug-ins.
    ``view_dtype``: the dtype of the ``view`` the game hands its plug-ins (its machine's
    ``VIEW_DTYPE``; each plug-in is compiled for it)."""
    slot, guard, padding, fn_type = _guard_parts(view_dtype)
    out = []
    with _quiet_function_types():
        for fn, fresh in zip(user_fns, fresh_copies(user_fns), strict=True):
            bound = rebind(guard, {slot: fresh}, variant_key((fn,)))
            bound.compile(fn_type.signature.args)
            out.append(bound)
        padding.compile(fn_type.signature.args)
    out += [padding] * max(0, slots - len(out))
    return tuple(out)


class _quiet_function_types:
    """numba's notice that first-class function types are experimental, silenced while
    one compiles (the test suite makes every warning an error)."""

    def __enter__(self):
        import warnings

        import numba

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.filterwarnings("ignore", category=numba.errors.NumbaExperimentalFeatureWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


class FunctionArgsEntry:
    """Python's calls of entry kernel ``kernel`` whose last argument ``users`` is the
    first plug-in's policy id followed by the plug-ins as function values
    (:func:`policy_values`).

    numba types a jitted function passed from Python by its identity, which would
    compile the kernel again per line-up; an entry compiled for an explicit signature
    (``FunctionType`` in place of each plug-in) and then closed to compiling converts each
    plug-in to a function value instead (its addresses: the call goes through numba's
    own calling convention, so a plug-in's exception reaches Python). So the entry
    compiles once per game and argument types, cached on disk, whatever the plug-ins.
    (The id first: numba types a tuple that starts with a function as a function tuple,
    with a notice that they are experimental, on every call.)"""

    def __init__(self, kernel, view_dtype: str = "int64"):
        self.kernel = kernel
        self.view_dtype = view_dtype  # of the plug-ins' view (policy_values)
        self.entry = getattr(kernel, "python_entry", kernel)
        self._compiled: set = set()
        self._lock = threading.Lock()

    def __call__(self, *args, users: tuple):
        import numba

        nt = numba.types
        fn_type = _guard_parts(self.view_dtype)[3]
        sig = (*(numba.typeof(a) for a in args),
               nt.Tuple((nt.int64, *(fn_type,) * (len(users) - 1))))
        if sig not in self._compiled:
            with self._lock, _quiet_function_types():
                if sig not in self._compiled:
                    # the dispatcher's public disable_compile and compile
                    self.entry.disable_compile(False)
                    try:
                        self.entry.compile(sig)
                    finally:
                        if self.entry.signatures:  # (numba refuses with none)
                            self.entry.disable_compile(True)
                    self._compiled.add(sig)
        return self.entry(*args, users)


