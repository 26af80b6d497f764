"""numba helpers shared by the games' kernels."""

from __future__ import annotations

import types


def rejit(dispatcher, parallel: bool = False, **names):
    """Compile ``dispatcher``'s Python function again with global ``names`` rebound.

    This is how user policies run the very same engine source as the built-ins: the
    kernels call policies through global names, and numba treats globals as compile-time
    constants. numba cannot cache such a variant on disk (its cache key would hold a
    function object that differs in every process), so it compiles once per process.
    """
    import numba as nb  # here, not at the top: game packages import this module cheaply

    f = dispatcher.py_func
    glob = dict(f.__globals__)
    glob.update(names)
    clone = types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, f.__closure__)
    clone.__doc__ = f.__doc__
    return nb.njit(parallel=parallel)(clone)


def lazy_exports(module_name: str, names: dict[str, str]):
    """A module ``__getattr__`` that imports ``names[attr]`` on first use, so importing a
    game package compiles nothing."""
    import importlib

    def __getattr__(attr):
        if attr in names:
            return getattr(importlib.import_module(names[attr]), attr)
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")

    return __getattr__
