"""Kernels callable from Python without a Python entry point of their own.

numba compiles every jitted function with a CPython wrapper, the entry point Python
calls: it unboxes each argument from Python objects (a named tuple of arrays is most of
the machine code of a small kernel), and LLVM optimizes it in the function's library and
again in every library that links it. Kernels are almost always called by other kernels,
which call the compiled function directly, so :func:`sheepsim.jit.njit` compiles them
without it (``no_cpython_wrapper=True``).

A Python call would then crash, so the dispatcher's class is this subclass of numba's:
calling it from Python compiles (or loads from the cache) a twin of the same Python
function *with* the entry point and calls that. The twin is a separate function to
numba, with its own cache entry: numba keys a cache entry on the function's name and
code, not on its options, so the twin's name gets a ``.python_entry`` suffix.
Kernels calling the kernel are unaffected (numba types the dispatcher as before); a
kernel that both Python and kernels call is compiled twice, once each way.
"""

from __future__ import annotations

import threading
import types

import numba
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher


class LazyEntryDispatcher(CPUDispatcher):
    """A numba dispatcher compiled without the Python entry point (see the module
    docstring); calling it from Python calls its twin :meth:`python_entry`."""

    def __call__(self, *args, **kwargs):
        return self.python_entry(*args, **kwargs)

    @property
    def python_entry(self) -> CPUDispatcher:
        """The twin that Python calls (made on first use): its ``stats``,
        ``signatures`` and ``inspect_*`` describe the calls made from Python."""
        entry = self.__dict__.get("_python_entry")
        if entry is None:
            with _TWINS_LOCK:  # two threads' first calls make one twin
                entry = self.__dict__.get("_python_entry")
                if entry is None:
                    entry = self._python_entry = _make_twin(self)
        return entry


_TWINS_LOCK = threading.Lock()


def _make_twin(disp: CPUDispatcher) -> CPUDispatcher:
    """The twin of ``disp`` with numba's Python entry point: the same code, globals,
    closure and jit options, cached where ``disp`` is (the same folder, a name of its
    own) or, like ``disp``, not at all."""
    from sheepsim.jit import _LIGHT_LOADS, VARIANT_ATTR, before_compiling, light_loads, unliteral_calls

    cached = not isinstance(disp._cache, NullCache)
    if not (cached and _LIGHT_LOADS["asked"]):
        # the first kernel Python calls: see jit.skip_blas_probe (a light cache load
        # calls it when it finds nothing: jit.skip_implementations_on_cache_loads)
        before_compiling()
    f = disp.py_func
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                              f.__closure__)
    twin.__qualname__ = f"{f.__qualname__}.python_entry"
    twin.__doc__ = f.__doc__
    if hasattr(f, VARIANT_ATTR):  # a kernel rebuilt around user policies: their folder
        setattr(twin, VARIANT_ATTR, getattr(f, VARIANT_ATTR))
    options = {k: v for k, v in disp.targetoptions.items()
               if k not in ("nopython", "no_cpython_wrapper", "cache")}
    entry = numba.njit(**options)(twin)
    if cached:
        entry.enable_caching()
    return unliteral_calls(light_loads(entry))
