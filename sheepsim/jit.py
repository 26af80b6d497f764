"""numba for the whole package: one jit decorator, one sound kernel cache, derived re-jits.

**The cache.** numba keys a cached kernel on the file that defines it, not on the modules
it calls and inlines, so an edit of ``policies.py`` or of a constants-only ``layout.py``
could load a stale kernel. :func:`njit` therefore places every sheepsim kernel in a cache
directory named by a digest of *the whole package source*, the sheepsim version and the
numba version (:func:`cache_dir`): any edit, upgrade or numba change selects a fresh
directory, nothing is ever deleted on import, read-only installs work (the directory is
in the user's cache folder, not in the package), and concurrent processes are safe
(numba writes each cache file atomically). ``SHEEPSIM_CACHE_DIR`` or numba's own
``NUMBA_CACHE_DIR`` moves the root, e.g. to a node-local disk on a cluster.

**User policies.** Kernels call policies through module globals, which numba freezes at
compile time. :func:`rebind` recompiles a kernel and, recursively, every njit function it
reaches that (transitively) calls a replaced function, so nobody keeps a hand-written list
of what to re-jit around a user policy. Such variants are not cached on disk: their
globals hold functions defined at run time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
import types
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 (hex, first 16) of every ``.py`` file of the package, the sheepsim version
    and the numba version: the name of the kernel cache directory."""
    import numba

    from sheepsim._version import __version__

    h = hashlib.sha256()
    h.update(f"sheepsim {__version__} numba {numba.__version__}".encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    """Where kernel caches live: ``$SHEEPSIM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR/sheepsim``,
    else the user cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/sheepsim``."""
    if os.environ.get("SHEEPSIM_CACHE_DIR"):
        return Path(os.environ["SHEEPSIM_CACHE_DIR"])
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "sheepsim"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sheepsim"


def cache_dir() -> Path:
    """This source tree's kernel cache directory (created on first use)."""
    return cache_root() / f"kernels-{source_digest()}"


@functools.cache
def _package_relative(py_file: str) -> Path | None:
    """``py_file`` relative to the package, or None if it is not sheepsim's (per file:
    every kernel of a module asks)."""
    try:
        return Path(py_file).resolve().relative_to(PACKAGE_DIR)
    except ValueError:
        return None


#: Cache folders already created and found writable in this process: numba checks every
#: kernel's folder with a throw-away file, about 0.2 ms per kernel at import.
_READY_PATHS: set[str] = set()


@functools.lru_cache(maxsize=1)
def _install_locator() -> None:
    """Put :class:`_PackageLocator` first in numba's list of cache locators (once)."""
    from numba.core import caching

    class _PackageLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Cache sheepsim's kernels under :func:`cache_dir`, one folder per module."""

        def __init__(self, py_func, py_file, rel):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(self._root / "_".join(rel.with_suffix("").parts))

        def get_cache_path(self):
            return self._cache_path

        def ensure_cache_path(self):
            # once per folder and process (again if the folder was removed meanwhile)
            if self._cache_path in _READY_PATHS and os.path.isdir(self._cache_path):
                return
            super().ensure_cache_path()
            _READY_PATHS.add(self._cache_path)

        @classmethod
        def from_function(cls, py_func, py_file):
            rel = _package_relative(py_file)
            if rel is None:
                return None  # not sheepsim's: numba's own locators decide
            for root in (cache_dir(), Path(tempfile.gettempdir()) / f"sheepsim-{os.getuid()}"
                         / f"kernels-{source_digest()}"):
                cls._root = root
                self = cls(py_func, py_file, rel)
                try:
                    self.ensure_cache_path()
                    return self
                except OSError:
                    continue
            return None

    caching.CacheImpl._locator_classes.insert(0, _PackageLocator)


def njit(func=None, **options):
    """The package's jit decorator: ``numba.njit`` with ``cache=True`` (in
    :func:`cache_dir`) and ``nogil=True`` (the driver runs serial kernels on threads).
    Use as ``@njit`` or ``@njit(inline="always")``."""
    import numba  # here, not at the top: importing a game package compiles nothing

    _install_locator()
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    if func is not None:
        return unliteral_calls(numba.njit(**options)(func))
    return lambda f: unliteral_calls(numba.njit(**options)(f))


def unliteral_calls(dispatcher):
    """``dispatcher``, compiled once per argument *type* when other kernels call it.

    numba types a module constant or a literal passed to a jitted function as
    ``Literal[int](k)`` and compiles the callee, and everything it calls with that
    argument, again for every distinct value: an event code or decision kind passed
    from 18 call sites compiled ``log_event`` 18 times. Calls from kernels are typed
    with the plain types instead (``int64``), so each function compiles once per
    signature; the value is cast at the call. Results are unchanged; a kernel that
    needs a literal (tuple indexing by an argument) can ask for it with
    ``numba.literally``.
    """
    from numba.core import types

    resolve = getattr(dispatcher, "get_call_template", None)
    if resolve is None:  # NUMBA_DISABLE_JIT=1: numba.njit gave back the plain function
        return dispatcher

    def get_call_template(args, kws):
        return resolve(tuple(types.unliteral(a) for a in args),
                       {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _is_dispatcher(obj) -> bool:
    from numba.core.dispatcher import Dispatcher

    return isinstance(obj, Dispatcher)


def rebind(dispatcher, replacements: dict):
    """``dispatcher`` recompiled so that every call, direct or through other njit
    functions, to a key of ``replacements`` goes to its value.

    Only functions that reach a replaced one are recompiled (with their own jit options,
    uncached); the rest are shared. Globals, module attributes (``engine.run_race``) and
    closure cells are followed. Returns ``dispatcher`` itself when nothing is reached.
    """
    memo: dict = {}
    return _rebind(dispatcher, dict(replacements), memo)


def _rebind(disp, repl: dict, memo: dict):
    if disp in repl:
        return repl[disp]
    if disp in memo:
        return memo[disp]
    memo[disp] = disp  # a recursive cycle reaches itself unchanged
    f = disp.py_func
    names = _code_names(f.__code__)
    new_globals = {}
    for name in names:
        value = f.__globals__.get(name)
        if _is_dispatcher(value):
            new = _rebind(value, repl, memo)
            if new is not value:
                new_globals[name] = new
        elif isinstance(value, types.ModuleType) and value.__name__.startswith("sheepsim"):
            clone = _rebind_module(value, names, repl, memo)
            if clone is not value:
                new_globals[name] = clone
    cells = f.__closure__
    if cells:
        new_cells = []
        for cell in cells:
            value = cell.cell_contents
            new = _rebind(value, repl, memo) if _is_dispatcher(value) else value
            new_cells.append(types.CellType(new))
        if any(a.cell_contents is not b.cell_contents for a, b in zip(cells, new_cells, strict=True)):
            cells = tuple(new_cells)
    if not new_globals and cells is f.__closure__:
        return disp
    glob = dict(f.__globals__)
    glob.update(new_globals)
    clone = types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, cells)
    clone.__doc__, clone.__qualname__ = f.__doc__, f.__qualname__
    import numba

    # numba.njit warns when given ``nopython`` (every njit dispatcher's targetoptions hold it)
    options = {k: v for k, v in disp.targetoptions.items() if k not in ("cache", "nopython")}
    new = unliteral_calls(numba.njit(**options)(clone))
    memo[disp] = new
    return new


def _rebind_module(module, names, repl, memo):
    """A copy of ``module`` whose attributes named in ``names`` are rebound, or ``module``."""
    changed = {}
    for attr in names:
        value = getattr(module, attr, None)
        if _is_dispatcher(value):
            new = _rebind(value, repl, memo)
            if new is not value:
                changed[attr] = new
    if not changed:
        return module
    clone = types.ModuleType(module.__name__, module.__doc__)
    clone.__dict__.update(module.__dict__)
    clone.__dict__.update(changed)
    return clone


def _code_names(code) -> set[str]:
    """Global and attribute names used by ``code`` and its nested code objects."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def lazy_exports(module_name: str, names: dict[str, str]):
    """A module ``__getattr__`` that imports ``names[attr]`` on first use, so importing a
    game package compiles nothing."""
    import importlib

    def __getattr__(attr):
        if attr in names:
            return getattr(importlib.import_module(names[attr]), attr)
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")

    return __getattr__


def numba_loaded() -> bool:
    """Whether numba has been imported in this process (tests of light imports)."""
    return "numba" in sys.modules
