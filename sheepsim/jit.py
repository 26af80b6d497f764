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


def refresh_numba_cache(package_file: str) -> None:
    """Drop a game package's numba cache when any of its sources changed.

    numba keys a cached kernel on the file that defines it, not on the modules it calls
    (and inlines), so after an edit of, say, ``policies.py`` or an upgrade of sheepsim a
    stale kernel could load. Every kernel module imports the game's ``layout.py``, which
    calls this first: it hashes the package's sources (and the shared random streams,
    which are inlined everywhere) and clears ``__pycache__/*.nbi|*.nbc`` on a mismatch.
    A read-only install is left alone (numba then caches in its user-wide folder).
    """
    import hashlib
    from pathlib import Path

    pkg = Path(package_file).resolve().parent
    sources = sorted(pkg.glob("*.py")) + [Path(__file__).resolve().with_name("rng.py")]
    h = hashlib.sha256()
    for path in sources:
        data = path.read_bytes()
        if b"njit" in data:  # only modules with kernels: editing the CLI keeps the cache
            h.update(path.name.encode())
            h.update(data)
    digest = h.hexdigest()
    cache = pkg / "__pycache__"
    stamp = cache / "sheepsim-sources.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        return
