"""numba for the whole package: its jit decorators, one sound kernel cache, derived re-jits.

The decorators are :func:`njit` and :func:`kernel` (:func:`njit` without numba's
reference counting and C-callable wrapper, for kernels that allocate nothing).

**The cache.** numba keys a cached kernel on the file that defines it, not on the modules
it calls and inlines, so an edit of ``policies.py`` or of a constants-only ``layout.py``
could load a stale kernel. :func:`njit` therefore places the kernels of each sheepsim
module in a folder of :func:`cache_dir` named by the module and a digest of what they
are compiled from (:func:`module_digest`): the source of the module and of every
sheepsim module it imports, transitively (found from its import statements,
:func:`module_closure`), the sheepsim version and the numba version. An edit of a module
a kernel depends on selects a fresh folder; an edit anywhere else (a report, another
game) recompiles nothing. Nothing is ever deleted on import (``sheepsim cache --prune``
removes old folders), read-only installs work (the folder is in the user's cache
folder, not in the package), and concurrent processes are safe (numba writes each cache
file atomically). ``SHEEPSIM_CACHE_DIR`` or numba's own ``NUMBA_CACHE_DIR`` moves the
root, e.g. to a node-local disk on a cluster.

**Python entry points.** numba compiles every jitted function with a CPython wrapper,
the entry point Python calls: it unboxes each argument from Python objects (a named tuple
of arrays is most of the machine code of a small kernel), and LLVM optimizes it in the
function's library and again in every library that links it. Kernels are almost always
called by other kernels, which call the compiled function directly, so :func:`njit`
compiles them without it (``no_cpython_wrapper=True``) and gives the dispatcher the class
``LazyEntryDispatcher`` (:func:`lazy_entry`): calling it from Python compiles (or loads
from the cache) a twin of the same Python function *with* the entry point and calls
that. The twin is a separate function to numba, with its own cache entry: numba keys a
cache entry on the function's name and code, not on its options, so the twin's name
gets a ``.python_entry`` suffix. Kernels calling the kernel are unaffected (numba types
the dispatcher as before); a kernel that both Python and kernels call is compiled twice,
once each way.

**One optimization per kernel tree.** numba finalizes every compiled function's library
at once: it links the finalized libraries of the functions it calls, optimizes the whole
with LLVM and emits machine code for it, so a deep kernel's subtree is optimized and
emitted again for each function above it. A kernel without a Python entry point never
runs its own machine code, so :func:`njit` compiles through a pipeline
(:func:`_deferred_pipeline`) whose libraries stay LLVM IR when nothing calls them from
Python; a function Python calls links that IR and optimizes and emits its whole tree
once. A deferred kernel is cached as its linked IR (:data:`DEFERRED_KIND`) and read back
as IR. A cold ``panic play`` compiles in 37% less CPU time; results are the same.

**Less of numba's own work per compile.** Four costs of numba's compiler that grow with
sheepsim's deeply inlined kernels, each removed without changing what numba compiles:
the inliner copied a callee's whole scope once per block of it (:func:`_install_inline_copy`);
every function got a C-callable wrapper, which only function values use (:func:`njit`'s
``no_cfunc_wrapper``); comparing compile flags, done tens of thousands of times a
compile, went through 22 properties each time (:func:`_install_flag_values`); and every
incref and decref walked into every member of a tuple or record, emitting an
instruction for each, whether or not it could hold a reference-counted pointer
(:func:`_install_meminfo_walk`).

**User policies.** Kernels call policies through module globals, which numba freezes at
compile time. :func:`rebind` recompiles a kernel and, recursively, every njit function it
reaches that (transitively) calls a replaced function, so nobody keeps a hand-written list
of what to re-jit around a user policy. A variant is cached on disk too, in its own
folder ``plugins-<digest>-<key>`` of :func:`cache_dir`: ``<digest>`` the
:func:`module_digest` of every sheepsim module the rebuilt kernels reach, ``<key>`` a
:func:`variant_key`, a fingerprint of everything the user's functions reach outside
sheepsim (their source files, the modules and constants they use), so an edit of the
policy selects a fresh folder as an edit of a module the kernels use does.
What cannot be fingerprinted (a function typed at the prompt) is compiled uncached, as
numba would.

**Python runs.** :func:`in_python` runs a kernel's source as Python, with every njit
function it reaches: for small work run once per call from Python, which would cost
seconds to compile and costs milliseconds to run (the exact solver's lane graphs).

**numba's internals.** Everything above needs parts of numba that are not its public API
(the cache locators, the dispatcher class and its fields, literal types, the BLAS probe,
the cache's load path for light loads of cached kernels, the library classes, the
inliner's copies, the compile flags and the walk for increfs and decrefs).
This module is the only one in sheepsim that touches them: each use is marked
``# numba internal:`` with what it relies on and why no public API does it, each is
listed in :data:`NUMBA_INTERNALS`, and ``tests/test_numba_internals.py`` checks that the
installed numba still has every one of them, with the expected shape, and that it is a
version in :data:`TESTED_NUMBA` (the range ``pyproject.toml`` allows). Other modules ask
this one (:func:`is_njit_function`) instead of importing ``numba.core``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
import tempfile
import threading
import types
from pathlib import Path

from sheepsim._version import __version__

PACKAGE_DIR = Path(__file__).resolve().parent

#: The numba versions (``major.minor``, lowest and highest, inclusive) the test suite has
#: passed on: only 0.68 so far. ``pyproject.toml`` allows exactly these
#: (``numba>=0.68,<0.69``); ``tests/test_numba_internals.py`` fails on any other. To
#: widen the range, run the whole suite on that numba, then change both.
TESTED_NUMBA = ("0.68", "0.68")

#: Every numba internal this module relies on (see the module docstring): its dotted
#: name and the attributes it must have (the names this module calls or overrides).
#: ``tests/test_numba_internals.py`` resolves each in the installed numba.
NUMBA_INTERNALS: dict[str, tuple[str, ...]] = {
    # _install_locator: a cache locator of our own, first in numba's list
    "numba.core.caching._CacheLocator": ("ensure_cache_path", "get_cache_path",
                                         "get_source_stamp", "get_disambiguator",
                                         "from_function"),
    "numba.core.caching._SourceFileBackedLocatorMixin": ("get_source_stamp",
                                                         "get_disambiguator"),
    "numba.core.caching.CacheImpl": ("_locator_classes",),
    # _make_twin: whether a kernel is cached (its ``_cache``), and caching its twin
    "numba.core.caching.NullCache": (),
    # lazy_entry, LazyEntryDispatcher, is_njit_function: the class of @numba.njit
    # functions (and DISPATCHER_FIELDS of each); unliteral_calls overrides its
    # get_call_template, _make_twin calls enable_caching
    "numba.core.registry.CPUDispatcher": ("enable_caching", "get_call_template", "__call__"),
    # _is_dispatcher: any numba dispatcher
    "numba.core.dispatcher.Dispatcher": ("enable_caching",),
    # unliteral_calls: a literal argument type made plain
    "numba.core.types": ("unliteral",),
    # load_implementations: the module whose import probes for scipy's BLAS
    "numba.np.arraymath": ("_HAVE_BLAS",),
    # light_loads, _light_cache_class: cached kernels loaded without numba's
    # implementations (the cache class swapped, its load path overridden)
    "numba.core.caching.FunctionCache": ("load_overload", "_load_overload",
                                         "_guard_against_spurious_io_errors"),
    "numba.core.caching.IndexDataCacheFile": ("_load_data", "_data_path"),
    # _light_cache_class: the runtime a cached kernel's machine code calls
    "numba.core.runtime.rtsys": ("initialize",),
    # _rebuild_env: environments of numba's modules rebuilt before their import
    "numba.core.environment": ("_rebuild_env", "lookup_environment", "Environment"),
    "numba.core.environment.Environment": ("_memo", "can_cache"),
    # before_compiling: numba's compiler lock
    "numba.core.compiler_lock": ("global_compiler_lock",),
    # pyproject.toml's pytest filterwarnings names it (numba's own notices)
    "numba.core.errors": ("NumbaPendingDeprecationWarning",),
    # _deferred_library_class: the library class the CPU codegen makes, its linking,
    # finalizing and cache serialization (a kernel Python never calls is not finalized)
    "numba.core.codegen.JITCodeLibrary": ("add_linking_library", "_get_module_for_linking",
                                          "finalize", "has_dynamic_globals",
                                          "serialize_using_object_code", "enable_object_caching"),
    "numba.core.codegen.JITCPUCodegen": ("create_library", "set_env"),
    # _deferred_pipeline: numba's documented compiler customization
    "numba.core.compiler": ("CompilerBase", "DefaultPassBuilder", "CompileResult"),
    "numba.core.compiler.DefaultPassBuilder": ("define_nopython_pipeline",),
    "numba.core.compiler_machinery": ("LoweringPass", "register_pass"),
    "numba.core.compiler_machinery.PassManager": ("add_pass_after", "finalize"),
    "numba.core.typed_passes": ("NativeLowering",),
    # _install_deferral: what finalizes a newly lowered function's library
    "numba.core.cpu.CPUContext": ("get_executable", "get_env_name"),
    "numba._dynfunc": ("make_function",),
    # _deferred_impl_class: how a compile result is written to and read from the cache
    "numba.core.caching.CompileResultCacheImpl": ("reduce", "rebuild"),
    # _install_flag_values: the compile flags' values and hash
    "numba.core.targetconfig.TargetConfig": ("options", "values", "__hash__", "__eq__"),
    # _install_inline_copy: the inliner's copies of a callee's IR
    "numba.core.inline_closurecall": ("copy", "InlineWorker"),
    "numba.core.inline_closurecall.InlineWorker": ("inline_ir",),
    "numba.core.ir": ("Block", "Scope"),
    # _install_meminfo_walk: the walk of a value's members for its increfs and decrefs
    "numba.core.runtime.context.NRTContext": ("get_meminfos", "_call_incref_decref"),
    "numba.core.datamodel.models.DataModel": ("traverse", "has_nrt_meminfo",
                                              "get_nrt_meminfo"),
}
#: What this module reads of each ``@numba.njit`` function (set in numba's ``__init__``,
#: so not on the class): the Python function, the jit options and the cache object (a
#: ``NullCache`` when not cached); and the keys of those options it reads or drops
#: (numba keeps ``cache`` out of them; they are filtered for ``cache`` all the same).
DISPATCHER_FIELDS = ("py_func", "targetoptions", "_cache")
TARGET_OPTIONS = ("nopython", "no_cpython_wrapper")


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def untested_numba(version: str | None = None) -> str | None:
    """Why ``version`` (the installed numba's by default) is not one the suite has passed
    on (:data:`TESTED_NUMBA`), or None if it is."""
    if version is None:
        import numba

        version = numba.__version__
    low, high = TESTED_NUMBA
    if _minor(low) <= _minor(version) <= _minor(high):
        return None
    tested = f"{low}.x" if low == high else f"{low}.x to {high}.x"
    return (f"numba {version} is not a tested version: sheepsim is tested with numba "
            f"{tested} only (sheepsim.jit.TESTED_NUMBA, pyproject.toml). sheepsim uses "
            "numba internals (sheepsim.jit.NUMBA_INTERNALS): run the whole test suite on "
            "this numba, then widen both, or install a tested numba")
#: set on a function cloned by :func:`rebind` for a cached variant: its :func:`variant_key`
VARIANT_ATTR = "_sheepsim_variant"


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 (hex, first 16) of every ``.py`` file of the package, the sheepsim version
    and the numba version: the identity of this source tree (a dask worker must have the
    same). Kernel caches are keyed by :func:`module_digest` instead, the source a kernel
    is compiled from."""
    import numba

    h = hashlib.sha256()
    h.update(f"sheepsim {__version__} numba {numba.__version__}".encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# ---- what a kernel depends on: the sheepsim modules its module imports, transitively ----

@functools.cache
def _source(root: Path, rel: str) -> bytes:
    """The bytes of module file ``rel`` (a ``/``-separated path under ``root``), once per
    process."""
    return (root / rel).read_bytes()


@functools.cache
def package_files(root: Path = PACKAGE_DIR) -> frozenset[str]:
    """Every ``.py`` file under ``root`` (``/``-separated, relative), once per process."""
    out = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel == "." else f"{rel}/"
        out.update(prefix + f for f in files if f.endswith(".py"))
    return frozenset(out)


def _resolve(root: Path, parts) -> str | None:
    """The file of sheepsim module ``sheepsim.<parts>`` under ``root`` (``a/b.py`` or
    ``a/b/__init__.py``), or None if there is none."""
    files = package_files(root)
    base = "/".join(parts)
    for rel in ((f"{base}.py", f"{base}/__init__.py") if parts else ("__init__.py",)):
        if rel in files:
            return rel
    return None


#: an import statement: ``from <module> import <names>`` (names in parentheses may span
#: lines) or ``import <modules>``, at the start of a line (in a function too)
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
                     r"|import[ \t]+([^\n#;]*))", re.M)
#: a string constant naming a sheepsim module (``lazy_exports`` tables, ``import_module``)
_MODULE_STRING = re.compile(r"""["'](sheepsim(?:\.[A-Za-z_][A-Za-z0-9_]*)+)["']""")


def _names(text: str) -> list[str]:
    """The dotted names of an import list (``a as b, c`` or ``(a,\n b)``)."""
    out = []
    text = re.sub(r"#[^\n]*", "", text)  # a comment inside parentheses
    for item in text.strip("() \t\n\\").replace("\\\n", " ").split(","):
        words = item.split()
        if words:
            out.append(words[0])
    return out


@functools.cache
def _imports(root: Path, rel: str) -> frozenset[str]:
    """The sheepsim module files module ``rel`` imports: every ``import`` and ``from ...
    import`` statement (at the top or in a function, relative or absolute) and every
    string constant naming a sheepsim module, resolved to files under ``root``. A name
    imported from a package that is not one of its submodules imports the package's
    ``__init__.py`` (and so what it imports, lazily exported names included).

    A scan of the text, not a parse (``ast.parse`` of a kernel's modules costs about
    0.2 s at import): it may also find an import in a docstring or comment, which only
    adds a file to the key; ``tests/test_cache_keys.py`` checks it finds every import
    ``ast`` finds in the package."""
    text = _source(root, rel).decode("utf-8", "replace")
    own = tuple(rel.split("/")[:-1])  # the package module ``rel`` is in
    found: set[str] = set()

    def add(parts):
        target = _resolve(root, parts)
        if target is not None:
            found.add(target)
        return target

    for match in _IMPORT.finditer(text):
        module, names, plain = match.groups()
        if plain is not None:
            for name in _names(plain):
                parts = name.split(".")
                if parts[0] == "sheepsim":
                    add(parts[1:])
            continue
        level = len(module) - len(module.lstrip("."))
        module = module[level:]
        if level:
            if level - 1 > len(own):
                continue
            parts = [*own[:len(own) - (level - 1)], *(module.split(".") if module else [])]
        elif module.split(".")[0] == "sheepsim":
            parts = module.split(".")[1:]
        else:
            continue
        for name in _names(names):
            if name == "*" or add([*parts, name]) is None:
                add(parts)  # a name defined in the module (or package) itself
    for match in _MODULE_STRING.finditer(text):
        add(match[1].split(".")[1:])
    found.discard(rel)
    return frozenset(found)


def _parents(rel: str):
    """The ``__init__.py`` of every package containing module file ``rel`` (Python runs
    them when it imports ``rel``)."""
    parts = rel.split("/")[:-1]
    for i in range(len(parts) + 1):
        yield "/".join([*parts[:i], "__init__.py"])


@functools.cache
def module_closure(rel: str, root: Path = PACKAGE_DIR) -> frozenset[str]:
    """The files a kernel defined in module file ``rel`` (``games/race/engine.py``, under
    ``root``, the package folder by default) can depend on: ``rel``, every sheepsim
    module it imports, transitively (:func:`_imports`), and the ``__init__.py`` of their
    packages."""
    seen = {rel}
    todo = [rel]
    while todo:
        for dep in _imports(root, todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    files = set(seen)
    for rel_ in seen:
        files.update(p for p in _parents(rel_) if p in package_files(root))
    return frozenset(files)


@functools.cache
def _numba_version() -> str:
    numba = sys.modules.get("numba")
    if numba is not None:
        return numba.__version__
    from importlib.metadata import version  # a warm exact ``race odds`` imports no numba

    return version("numba")


@functools.cache
def files_digest(files: frozenset[str], root: Path = PACKAGE_DIR) -> str:
    """SHA-256 (hex, first 16) of the sheepsim version, the numba version and the path
    and bytes of each of ``files`` (under ``root``)."""
    h = hashlib.sha256()
    h.update(f"sheepsim {__version__} numba {_numba_version()}".encode())
    for rel in sorted(files):
        h.update(f"\0{rel}\0".encode())
        h.update(_source(root, rel))
    return h.hexdigest()[:16]


def module_digest(*rels: str, root: Path = PACKAGE_DIR) -> str:
    """The cache key of what kernels of the module files ``rels`` are compiled from:
    :func:`files_digest` of the union of their :func:`module_closure`. An edit of any
    other file of the package leaves it unchanged."""
    files = frozenset().union(*(module_closure(r, root) for r in rels))
    return files_digest(files, root)


def module_file(module_name: str) -> str:
    """The package-relative file (``games/race/simulate.py``) of a sheepsim module."""
    rel = _resolve(PACKAGE_DIR, tuple(module_name.split(".")[1:]))
    if rel is None or not module_name.startswith("sheepsim"):
        raise ValueError(f"not a sheepsim module: {module_name}")
    return rel


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
    """The kernel cache folder, ``kernels/`` of :func:`cache_root` (created on first
    use): a folder per module and digest of what its kernels are compiled from
    (``games_race_engine-<module_digest>``), a folder per set of user policies
    (``plugins-<key>``, see :func:`rebind`)."""
    return cache_root() / "kernels"


@functools.cache
def _package_relative(py_file: str) -> Path | None:
    """``py_file`` relative to the package, or None if it is not sheepsim's (per file:
    every kernel of a module asks)."""
    try:
        return Path(py_file).resolve().relative_to(PACKAGE_DIR)
    except ValueError:
        return None


@functools.cache
def _module_folder(py_file: str) -> str | None:
    """The cache folder name of a sheepsim module's kernels (``games_race_engine``), or
    None if ``py_file`` is not sheepsim's."""
    rel = _package_relative(py_file)
    return None if rel is None else module_folder(rel.as_posix())


def module_folder(rel: str) -> str:
    """``games_race_engine`` for ``games/race/engine.py``."""
    return rel.removesuffix(".py").replace("/", "_")


@functools.cache
def _kernel_folder(py_file: str) -> str:
    """The folder of the kernels of sheepsim module ``py_file`` under :func:`cache_dir`:
    its :func:`module_folder` and :func:`module_digest`."""
    rel = _package_relative(py_file).as_posix()
    return f"{module_folder(rel)}-{module_digest(rel)}"


def _cache_dirs():
    """Where kernels are cached, first choice first: :func:`cache_dir`, else a folder
    in the temporary directory (a read-only cache root)."""
    yield str(cache_dir())
    yield os.path.join(tempfile.gettempdir(), f"sheepsim-{os.getuid()}", "kernels")


#: the sheepsim module files each variant key of this process covers (:func:`rebind`),
#: written once per folder as :data:`VARIANT_MANIFEST` so ``sheepsim cache`` can tell
#: whether a variant folder is current
_VARIANT_MODULES: dict[str, tuple[str, ...]] = {}
_MANIFESTS_WRITTEN: set[str] = set()
#: the file in a ``plugins-<key>`` folder naming the sheepsim modules its key covers
VARIANT_MANIFEST = "modules.txt"
#: what each variant key of this process rebuilt for built-in policies is (``builtin``
#: of :func:`rebind_many`), written once per folder as :data:`VARIANT_BUILTIN`
_VARIANT_BUILTIN: dict[str, str] = {}
#: the file in a ``plugins-<key>`` folder of sheepsim's own variant, not a plug-in's:
#: one line, ``<what>: <which>`` (``sheepsim cache`` lists these folders apart)
VARIANT_BUILTIN = "builtin.txt"


def _write_atomic(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _write_manifest(folder: str, variant: str) -> None:
    """Write :data:`VARIANT_MANIFEST` (and :data:`VARIANT_BUILTIN` for a built-in
    variant) into the variant folder ``folder`` (once; atomic)."""
    if folder in _MANIFESTS_WRITTEN or variant not in _VARIANT_MODULES:
        return
    path = os.path.join(folder, VARIANT_MANIFEST)
    if not os.path.exists(path):
        _write_atomic(path, "".join(f"{rel}\n" for rel in _VARIANT_MODULES[variant]))
    path = os.path.join(folder, VARIANT_BUILTIN)
    if variant in _VARIANT_BUILTIN and not os.path.exists(path):
        _write_atomic(path, f"{_VARIANT_BUILTIN[variant]}\n")
    _MANIFESTS_WRITTEN.add(folder)


#: Cache folders already created and found writable in this process: numba checks every
#: kernel's folder with a throw-away file, about 0.2 ms per kernel at import.
_READY_PATHS: set[str] = set()


@functools.lru_cache(maxsize=1)
def _install_locator() -> None:
    """Put :class:`_PackageLocator` first in numba's list of cache locators (once)."""
    # numba internal: numba.core.caching's locator classes and CacheImpl._locator_classes,
    # the list numba asks, in order, where a function's cache lives. numba's public
    # settings only move every cache (NUMBA_CACHE_DIR) or replace the whole list by class
    # paths (NUMBA_CACHE_LOCATOR_CLASSES, an environment variable read at import); neither
    # names a folder per package digest and per set of user policies, as this one does.
    from numba.core import caching

    # numba internal: the mixin stamps the cache with the source file's mtime and size
    # (reading self._py_file) and tells functions apart by first line (self._lineno);
    # _CacheLocator is the abstract locator (ensure_cache_path makes and tests the folder)
    class _PackageLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Cache sheepsim's kernels under :func:`cache_dir`, one folder per module and
        digest of what it is compiled from (:func:`module_digest`)."""

        def __init__(self, py_func, py_file, cache_path):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = cache_path

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
            folder = _module_folder(py_file)
            if folder is None:
                return None  # not sheepsim's: numba's own locators decide
            # a kernel rebuilt around user policies: the folder of that set of policies
            variant = getattr(py_func, VARIANT_ATTR, None)
            sub = os.path.join(f"plugins-{variant}", folder) if variant else _kernel_folder(py_file)
            for root in _cache_dirs():
                self = cls(py_func, py_file, os.path.join(root, sub))
                try:
                    self.ensure_cache_path()
                    if variant:
                        _write_manifest(os.path.join(root, f"plugins-{variant}"), variant)
                    return self
                except OSError:
                    continue
            return None

    caching.CacheImpl._locator_classes.insert(0, _PackageLocator)  # numba internal: see above


def njit(func=None, **options):
    """The package's jit decorator: ``numba.njit`` with ``cache=True`` (in
    :func:`cache_dir`), ``nogil=True`` (the driver runs serial kernels on threads), a
    Python entry point built only when Python calls the kernel (:func:`lazy_entry`) and
    no C-callable wrapper (``no_cfunc_wrapper=True``: a function that is to be a
    first-class function value passes ``no_cfunc_wrapper=False``; numba aborts the
    process when it looks for a wrapper that is not there, so the suite finds any that
    lacks it). Use as ``@njit`` or ``@njit(inline="always")``."""
    import numba  # here, not at the top: importing a game package compiles nothing

    _install_locator()
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    # numba internal: no_cpython_wrapper is an option numba's own code passes, not a
    # documented one of numba.njit; lazy_entry builds the entry point when it is needed
    options.setdefault("no_cpython_wrapper", True)
    # numba internal: no_cfunc_wrapper likewise. numba builds a C-callable wrapper of
    # every function for its use as a first-class function value, which only the
    # plug-in guards are (sheepsim.policy_values asks for it); lowering and optimizing
    # the wrappers was about 3 of a cold `race play`'s 45 CPU s
    options.setdefault("no_cfunc_wrapper", True)

    def build(f):
        return lazy_entry(unliteral_calls(light_loads(
            numba.njit(pipeline_class=_deferred_pipeline(), **options)(f))))

    return build(func) if func is not None else build


def kernel(func=None, **options):
    """:func:`njit` for kernels that allocate nothing, with numba's reference counting off:

    * ``_nrt=False``: no reference counting. numba's runtime (NRT) emits incref/decref
      calls around each array argument and view (about a sixth of the run time of a
      random Shear Panic game); a kernel that never allocates touches only arrays owned
      by the Python caller that allocated them (a scratch record allocated once per
      chunk of games), so it needs none, and numba compiles none of numpy's allocation
      routines for it. Calls into user policies (which may allocate) keep the NRT
      (:func:`user_policy_chain`).

    Like every :func:`njit` function, no C-callable wrapper (``no_cfunc_wrapper``).
    Use as ``@kernel`` (Shear Panic's kernels)."""
    # numba internal: _nrt is an option numba's own code passes, not a documented one of
    # numba.njit (as no_cpython_wrapper in njit)
    options.setdefault("_nrt", False)
    return njit(func, **options)


def lazy_entry(dispatcher):
    """``dispatcher`` (compiled without numba's Python entry point) made callable from
    Python all the same: its class becomes ``LazyEntryDispatcher`` (see the module
    docstring). Most kernels are only ever called by other kernels, and numba builds and
    optimizes the entry point (unboxing every argument from Python objects) for each
    compiled function otherwise: 3-7 s of the 40-48 s a cold ``panic play`` took
    (docs/performance-archive.md, "Python entry points on demand")."""
    # numba internal: CPUDispatcher, the class numba.njit returns (numba exports no name
    # for it), and its targetoptions, the jit options numba keeps on each dispatcher (no
    # public accessor). Not under NUMBA_DISABLE_JIT (a plain function), nor when a wrapper
    # was asked for.
    from numba.core.registry import CPUDispatcher

    if type(dispatcher) is CPUDispatcher and dispatcher.targetoptions.get("no_cpython_wrapper"):
        # numba internal: the class swapped on the live dispatcher (a subclass adding
        # only __call__): numba.njit has no parameter for the dispatcher class
        dispatcher.__class__ = _lazy_entry_class()
    return dispatcher


@functools.cache
def _lazy_entry_class() -> type:
    """``LazyEntryDispatcher``, a subclass of numba's ``CPUDispatcher``, made on first use
    (importing this module imports no numba) and then a global of this module, so that
    a pickled kernel names it ``sheepsim.jit.LazyEntryDispatcher`` (numba pickles a
    dispatcher with its class)."""
    from numba.core.registry import CPUDispatcher  # numba internal: see lazy_entry

    class LazyEntryDispatcher(CPUDispatcher):
        """A numba dispatcher compiled without the Python entry point (see the module
        docstring of :mod:`sheepsim.jit`); calling it from Python calls its twin
        :attr:`python_entry`."""

        # numba internal: Dispatcher.__call__ is what Python calls; kernels calling
        # this one are typed and linked by numba without it
        def __call__(self, *args, **kwargs):
            return self.python_entry(*args, **kwargs)

        @property
        def python_entry(self):
            """The twin that Python calls (made on first use): its ``stats``,
            ``signatures`` and ``inspect_*`` describe the calls made from Python."""
            entry = self.__dict__.get("_python_entry")
            if entry is None:
                with _TWINS_LOCK:  # two threads' first calls make one twin
                    entry = self.__dict__.get("_python_entry")
                    if entry is None:
                        entry = self._python_entry = _make_twin(self)
            return entry

    LazyEntryDispatcher.__qualname__ = "LazyEntryDispatcher"
    globals()["LazyEntryDispatcher"] = LazyEntryDispatcher
    return LazyEntryDispatcher


def __getattr__(name: str):
    # ``LazyEntryDispatcher`` before any kernel made it (``from sheepsim.jit import``, pickle)
    if name == "LazyEntryDispatcher":
        return _lazy_entry_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_TWINS_LOCK = threading.Lock()


def _make_twin(disp):
    """The twin of ``disp`` with numba's Python entry point: the same code, globals,
    closure and jit options, cached where ``disp`` is (the same folder, a name of its
    own) or, like ``disp``, not at all."""
    import numba
    from numba.core.caching import NullCache  # numba internal: see the _cache test below

    # numba internal: a dispatcher's _cache is a NullCache unless it caches (see below)
    cached = not isinstance(disp._cache, NullCache)
    if not (cached and _LIGHT_LOADS["asked"]):
        # the first kernel Python calls: see skip_blas_probe (a light cache load calls
        # it when it finds nothing: skip_implementations_on_cache_loads)
        before_compiling()
    f = disp.py_func
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                              f.__closure__)
    twin.__qualname__ = f"{f.__qualname__}.python_entry"
    twin.__doc__ = f.__doc__
    if hasattr(f, VARIANT_ATTR):  # a kernel rebuilt around user policies: their folder
        setattr(twin, VARIANT_ATTR, getattr(f, VARIANT_ATTR))
    # numba internal: targetoptions (see lazy_entry)
    options = {k: v for k, v in disp.targetoptions.items()
               if k not in ("nopython", "no_cpython_wrapper", "cache")}
    entry = numba.njit(pipeline_class=_deferred_pipeline(), **options)(twin)
    # numba internal: a dispatcher's _cache is a NullCache unless it caches (numba has no
    # public way to ask), and enable_caching() is what numba.njit(cache=True) calls: the
    # twin is cached exactly when the kernel is (an uncached variant's twin is not)
    if cached:
        entry.enable_caching()
    return unliteral_calls(light_loads(entry))


def is_njit_function(obj) -> bool:
    """Whether ``obj`` is an ``@numba.njit`` function (a sheepsim kernel or a user's)."""
    from numba.core.registry import CPUDispatcher  # numba internal: see lazy_entry

    return isinstance(obj, CPUDispatcher)


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
    # numba internal: Dispatcher.get_call_template(args, kws), which numba's typer calls
    # with the argument types of a call from a kernel, overridden on this dispatcher, and
    # types.unliteral, the plain type of a literal one. numba has no option to type a
    # callee's arguments without their literal values.
    from numba.core import types

    resolve = getattr(dispatcher, "get_call_template", None)
    if resolve is None:  # NUMBA_DISABLE_JIT=1: numba.njit gave back the plain function
        return dispatcher

    def get_call_template(args, kws):
        return resolve(tuple(types.unliteral(a) for a in args),
                       {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def variant_key(*groups: tuple) -> str | None:
    """The cache key of kernels rebuilt around the user functions in ``groups`` (one
    tuple per role, e.g. pace and bet policies; a function's role and position give its
    policy id): a digest of everything each function reaches outside sheepsim (its
    source file, the modules and constants it uses, recursively through the njit
    functions it calls); :func:`rebind` adds the digest of the sheepsim modules the
    variant reaches. None when any of that cannot be read, e.g. a function typed at the
    prompt or a global of a type not fingerprinted here; such a variant is compiled as
    before and not cached."""
    h = hashlib.sha256(b"variant")
    seen: set[int] = set()
    for g, user_fns in enumerate(groups):
        for k, fn in enumerate(user_fns):
            h.update(f"\0group {g} user {k}\0".encode())
            if not _fingerprint(fn, h, seen, ()):
                return None
    return h.hexdigest()[:16]


@functools.cache
def _library_roots() -> tuple[str, ...]:
    """The standard library's and site-packages' folders (resolved, with a separator)."""
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple({str(Path(paths[k]).resolve()) + os.sep
                  for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def _installed(module) -> bool:
    """A module of the standard library or an installed (non-editable) distribution:
    its version stands for its content."""
    file = getattr(module, "__file__", None)
    if file is None:
        return True  # built into the interpreter
    return str(Path(file).resolve()).startswith(_library_roots())


def _fingerprint(value, h, seen: set, names) -> bool:
    """Feed ``value`` into ``h``; False if it cannot be fingerprinted soundly. ``names``:
    the attribute names the referring code uses (for a module: which attributes count)."""
    import numpy as np

    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        h.update(f"{type(value).__name__}:{value!r}".encode())
        return True
    if isinstance(value, tuple):
        h.update(f"tuple {len(value)}".encode())
        return all(_fingerprint(v, h, seen, names) for v in value)
    if isinstance(value, np.ndarray):
        h.update(f"array {value.dtype.str} {value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
        return True
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc)):
        h.update(f"builtin {getattr(value, '__module__', '')}.{value.__name__}".encode())
        return True
    # a module counts once per set of names read from it (two callers may read others)
    mark = (id(value), frozenset(names)) if isinstance(value, types.ModuleType) else id(value)
    if mark in seen:
        h.update(f"seen {getattr(value, '__qualname__', getattr(value, '__name__', ''))}".encode())
        return True
    seen.add(mark)
    if _is_dispatcher(value):
        return _fingerprint_function(value, h, seen)
    owner = value.__module__ if isinstance(value, type) else type(value).__module__
    top = sys.modules.get(str(owner).partition(".")[0])
    if owner != "builtins" and isinstance(top, types.ModuleType) and _installed(top):
        # a numba type, a numpy dtype or scalar type: its repr is what numba freezes
        h.update(f"object {owner} {value!r}".encode())
        return True
    if isinstance(value, types.ModuleType):
        name = value.__name__
        h.update(f"module {name}".encode())
        if _is_ours(value):
            return True  # covered by rebind's digest of the sheepsim modules reached
        if _installed(value):
            top = sys.modules.get(name.partition(".")[0])
            h.update(f" {getattr(top, '__version__', '')} {sys.version}".encode())
            return True
        try:
            h.update(Path(value.__file__).read_bytes())
        except OSError:
            return False
        # what the code reads from it (a constant it imported from elsewhere, say)
        # (a submodule reached as ``pkg.sub.K``: the same names say what is read from it)
        return all(_fingerprint(getattr(value, a), h, seen, names) for a in sorted(names)
                   if hasattr(value, a))
    return False


def _fingerprint_function(disp, h, seen: set) -> bool:
    py = disp.py_func
    # numba internal: targetoptions (see lazy_entry), part of what the variant compiles
    h.update(f"njit {py.__module__}.{py.__qualname__} "
             f"{sorted((k, repr(v)) for k, v in disp.targetoptions.items())}".encode())
    if _package_relative(py.__code__.co_filename) is not None:
        return True  # sheepsim's own: covered by rebind's digest of the modules reached
    try:
        h.update(Path(py.__code__.co_filename).read_bytes())
    except OSError:
        return False
    h.update(py.__code__.co_code)
    names = _code_names(py.__code__)
    for name in sorted(names):
        if name in py.__globals__:
            h.update(f"global {name}".encode())
            if not _fingerprint(py.__globals__[name], h, seen, names):
                return False
    return all(_fingerprint(c.cell_contents, h, seen, names) for c in py.__closure__ or ())



def fresh_copies(user_fns: tuple) -> tuple:
    """``user_fns`` and every njit function they reach outside sheepsim, re-jitted
    uncached and with numba's bounds checks (``boundscheck=True``: an index outside an
    array raises ``IndexError``), for compiling into a variant: numba's own cache of a
    user function (``cache=True``) is keyed on its file alone and can hold code built
    with an old value of a constant it imports; the variant's key (:func:`variant_key`)
    is not. Unchecked, a plug-in indexing past its arrays reads or writes whatever lies
    there (numba wraps a negative index once, then trusts it)."""
    memo: dict = {}
    return tuple(_fresh(fn, memo) for fn in user_fns)


def _fresh(disp, memo: dict):
    if disp in memo:
        return memo[disp]
    f = disp.py_func
    if _package_relative(f.__code__.co_filename) is not None:
        return disp  # sheepsim's own: its cache is keyed by its module's digest
    memo[disp] = disp  # a recursive cycle reaches itself
    names = _code_names(f.__code__)
    new_globals = {}
    for name in names:
        value = f.__globals__.get(name)
        if _is_dispatcher(value):
            new_globals[name] = _fresh(value, memo)
        elif isinstance(value, types.ModuleType) and not _installed(value):
            new_globals[name] = _fresh_module(value, names, memo)
    cells = _map_cells(f.__closure__, lambda d: _fresh(d, memo))
    memo[disp] = new = _clone(disp, new_globals, cells, boundscheck=True)
    return new


def _fresh_module(module, names, memo):
    """A copy of a user's ``module`` whose njit functions and submodules named in
    ``names`` are fresh (``pkg.sub.fn``), or ``module`` itself if it is sheepsim's."""
    if _is_ours(module):
        return module
    changed = {}
    for attr in names:
        value = getattr(module, attr, None)
        if _is_dispatcher(value):
            changed[attr] = _fresh(value, memo)
        elif isinstance(value, types.ModuleType) and value is not module and not _installed(value):
            key = (id(value), frozenset(names))
            if key not in memo:  # each submodule once per names
                memo[key] = value  # a cycle of imports sees the original
                memo[key] = _fresh_module(value, names, memo)
            changed[attr] = memo[key]
    return _clone_module(module, changed)


def _is_ours(module) -> bool:
    return module.__name__ == "sheepsim" or module.__name__.startswith("sheepsim.")


def _clone(disp, new_globals: dict, cells, cache_key: str | None = None,
           boundscheck: bool = False):
    """A new dispatcher for ``disp``'s Python function with ``new_globals`` over its
    globals and closure ``cells``, with ``disp``'s jit options (and numba's bounds checks
    if ``boundscheck``: a user's function); cached in the folder of ``cache_key`` (see
    :func:`_install_locator`) if given, else uncached."""
    f = disp.py_func
    glob = dict(f.__globals__)
    glob.update(new_globals)
    clone = types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, cells)
    clone.__doc__ = f.__doc__
    clone.__qualname__ = f"{f.__qualname__}__{_clone_tag(cache_key)}"
    import numba

    # numba internal: targetoptions (see lazy_entry). numba.njit warns when given
    # ``nopython`` (every njit dispatcher's targetoptions hold it)
    options = {k: v for k, v in disp.targetoptions.items() if k not in ("cache", "nopython")}
    if boundscheck:
        options["boundscheck"] = True
    if cache_key is not None:
        setattr(clone, VARIANT_ATTR, cache_key)
        _install_locator()
        options["cache"] = True
    return lazy_entry(light_loads(numba.njit(pipeline_class=_deferred_pipeline(), **options)(clone)))


def _clone_tag(cache_key: str | None) -> str:
    """The tag a clone's name gets (:func:`_clone`): ``v`` and a digest of its cache key
    (the same variant's clone gets the same name in every process, so its cache entry is
    found), or ``u`` and a random token for an uncached clone.

    Why: numba names a compiled function's symbol after its module, qualified name,
    argument types and a counter of the process (``FunctionIdentity._unique_ids``), and
    gives the copies it links into a kernel ODR linkage. Clones of one function differ
    only in their globals, and a kernel loaded from the cache carries symbols named by
    the process that compiled it: without a tag, a clone compiled here could share its
    symbol with a different clone in a loaded kernel, and the JIT links a call to
    whichever came first (seen: a plug-in line-up of the race running another
    plug-in's code, tests/test_clone_names.py; numba issue 10486)."""
    if cache_key is None:
        return unique_tag()
    return "v" + hashlib.sha256(cache_key.encode()).hexdigest()[:12]


def unique_tag() -> str:
    """``u`` and 48 random bits: the name tag of a function compiled uncached whose
    code other kernels may link in (see :func:`_clone_tag`)."""
    import secrets

    return "u" + secrets.token_hex(6)


def uniquely_named(fn):
    """``fn`` (a plain function, before ``numba.njit``) with :func:`unique_tag` added to
    its qualified name: for a closure compiled uncached per variant whose code a cached
    kernel links in (see :func:`_clone_tag`). Returns ``fn``."""
    fn.__qualname__ = f"{fn.__qualname__}__{unique_tag()}"
    return fn


def _clone_module(module, changed: dict):
    """A copy of ``module`` with the attributes ``changed``, or ``module`` if none."""
    if not changed:
        return module
    clone = types.ModuleType(module.__name__, module.__doc__)
    clone.__dict__.update(module.__dict__)
    clone.__dict__.update(changed)
    return clone


def _map_cells(cells, fn):
    """Closure ``cells`` with ``fn(dispatcher)`` in place of each njit function; ``cells``
    itself when that changes nothing."""
    if not cells:
        return cells
    new = tuple(types.CellType(fn(c.cell_contents) if _is_dispatcher(c.cell_contents)
                               else c.cell_contents) for c in cells)
    changed = any(a.cell_contents is not b.cell_contents for a, b in zip(cells, new, strict=True))
    return new if changed else cells


def _is_dispatcher(obj) -> bool:
    # numba internal: Dispatcher, the base class of every jitted function (numba exports
    # no name for it; a duck-typed test would also take a user's objects)
    from numba.core.dispatcher import Dispatcher

    return isinstance(obj, Dispatcher)


def rebind(dispatcher, replacements: dict, cache_key: str | None = None,
           builtin: str | None = None):
    """``dispatcher`` recompiled so that every call, direct or through other njit
    functions, to a key of ``replacements`` goes to its value.

    Only functions that reach a replaced one are recompiled (with their own jit options);
    the rest are shared. Globals, module attributes (``engine.run_race``) and closure
    cells are followed. Returns ``dispatcher`` itself when nothing is reached. The
    clones are cached in the folder ``plugins-<digest>-<cache_key>`` of :func:`cache_dir`
    (``cache_key`` a :func:`variant_key`, which must cover everything ``replacements``
    reach outside sheepsim), uncached when it is None. ``<digest>`` is the
    :func:`module_digest` of every sheepsim module the graph touches (the modules of the
    njit functions and the sheepsim modules reached from ``dispatcher`` and from the
    replacements, :func:`_reached_files`), written to the folder's
    :data:`VARIANT_MANIFEST`. ``builtin``: for a variant of sheepsim's own (built-in
    policies, no plug-in), what it is, ``"<what>: <which>"``, written to the folder's
    :data:`VARIANT_BUILTIN` (``sheepsim cache`` lists it apart from plug-ins').
    """
    return rebind_many({"kernel": dispatcher}, replacements, cache_key, builtin)["kernel"]


def rebind_many(dispatchers: dict, replacements: dict, cache_key: str | None = None,
                builtin: str | None = None) -> dict:
    """:func:`rebind` of each value of ``dispatchers`` (a dict, returned with the same
    keys) at once: a function two of them reach is cloned once, so it compiles once, and
    every clone is cached in one folder (its ``<digest>`` covers what all of them reach)."""
    memo: dict = {}
    if cache_key is not None:
        roots = [*dispatchers.values(), *replacements.values()]
        files = tuple(sorted(_reached_files(roots)))
        cache_key = f"{module_digest(*files)}-{cache_key}"
        _VARIANT_MODULES.setdefault(cache_key, files)
        if builtin is not None:
            _VARIANT_BUILTIN.setdefault(cache_key, builtin)
    return {name: _rebind(d, dict(replacements), memo, cache_key)
            for name, d in dispatchers.items()}


def _reached_files(roots) -> set[str]:
    """The package files (``games/race/engine.py``) of every sheepsim njit function and
    sheepsim module reachable from ``roots`` (njit functions) through globals, module
    attributes and closure cells, as :func:`_rebind` follows them."""
    files: set[str] = set()
    seen: set[int] = set()
    todo = list(roots)

    def note(file):
        rel = _package_relative(file) if file else None
        if rel is not None:
            files.add(rel.as_posix())

    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, types.ModuleType):
            note(getattr(obj, "__file__", None))
            continue
        if not _is_dispatcher(obj):
            continue
        f = obj.py_func
        note(f.__code__.co_filename)
        names = _code_names(f.__code__)
        for name in names:
            value = f.__globals__.get(name)
            if _is_dispatcher(value):
                todo.append(value)
            elif isinstance(value, types.ModuleType):
                todo.append(value)
                todo.extend(v for v in (getattr(value, a, None) for a in names)
                            if _is_dispatcher(v) or isinstance(v, types.ModuleType))
        for cell in f.__closure__ or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
    return files


def _rebind(disp, repl: dict, memo: dict, key: str | None):
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
            new = _rebind(value, repl, memo, key)
        elif isinstance(value, types.ModuleType) and _is_ours(value):
            new = _rebind_module(value, names, repl, memo, key)
        else:
            continue
        if new is not value:
            new_globals[name] = new
    cells = _map_cells(f.__closure__, lambda d: _rebind(d, repl, memo, key))
    if not new_globals and cells is f.__closure__:
        return disp
    # numba keys a closure's cache entry on its pickled cells, which differ per process
    new = unliteral_calls(_clone(disp, new_globals, cells, key if cells is None else None))
    memo[disp] = new
    return new


def _rebind_module(module, names, repl, memo, key):
    """A copy of ``module`` whose attributes named in ``names`` are rebound, or ``module``."""
    changed = {}
    for attr in names:
        value = getattr(module, attr, None)
        if _is_dispatcher(value):
            new = _rebind(value, repl, memo, key)
            if new is not value:
                changed[attr] = new
    return _clone_module(module, changed)


def in_python(dispatcher):
    """``dispatcher``'s source run by Python: a plain function of its Python code whose
    every call to an njit function, direct or through others (globals, module attributes
    such as ``moves.apply_option``, closure cells), runs that function's Python code too,
    so calling it compiles nothing. numba's typed ``Dict.empty`` gives a Python ``dict``
    (as under ``NUMBA_DISABLE_JIT``).

    For small work run once per call from Python, where compiling costs seconds and
    running costs milliseconds (the exact solver's lane graphs: ``benchmarks/README.md``,
    "Compile time: the targets"). The same source gives the same results when it keeps
    to what numba and Python compute alike (numpy scalars and arrays, no overflow, no
    reliance on numba's typing); a test compares each such use with the kernel."""
    return _in_python(dispatcher, {})


class _PythonDict:
    """numba's ``numba.typed.Dict`` for :func:`in_python`: ``Dict.empty`` as a ``dict``."""

    @staticmethod
    def empty(key_type=None, value_type=None, n_keys=0):
        return {}


def _in_python(disp, memo: dict):
    if disp in memo:
        return memo[disp]
    f = disp.py_func
    glob = dict(f.__globals__)
    cells = _map_cells(f.__closure__, lambda d: _in_python(d, memo))
    fn = types.FunctionType(f.__code__, glob, f.__name__, f.__defaults__, cells)
    fn.__doc__, fn.__qualname__ = f.__doc__, f.__qualname__
    memo[disp] = fn  # before the globals: a recursive cycle reaches the Python copy
    from numba import typed  # public API (numba.typed.Dict), imported here: numba loads late

    names = _code_names(f.__code__)
    for name in names:
        value = f.__globals__.get(name)
        if _is_dispatcher(value):
            glob[name] = _in_python(value, memo)
        elif value is typed.Dict:
            glob[name] = _PythonDict
        elif isinstance(value, types.ModuleType) and _is_ours(value):
            glob[name] = _clone_module(value, {
                attr: _in_python(v, memo) for attr in names
                if _is_dispatcher(v := getattr(value, attr, None))})
    return fn


def _code_names(code) -> set[str]:
    """Global and attribute names used by ``code`` and its nested code objects."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


#: What a user policy's dispatcher returns in place of its choice when the policy wrote
#: to its inputs: a value no legal index can take, so the engine's one range check on every
#: returned choice catches it and names it (:func:`sheepsim.plugins.policy_failure`).
WROTE_INPUTS_CHOICE = -(1 << 40)


def user_policy_chain(decide, user_fns: tuple, first_id: int):
    """``decide(pid, kind, view, opts, n, rand) -> int``, a game's built-in policy
    dispatch, extended so that id ``first_id + k`` calls ``user_fns[k]`` with the one
    policy signature ``fn(kind, view, opts, n, rand)``; what :func:`rebind` then puts in
    place of ``decide`` in every kernel that asks a policy.

    A user policy is handed *copies* of ``view`` and ``opts`` (numba has no read-only
    view of a slice), so nothing it writes can reach the game; if it wrote anyway, its
    dispatcher returns :data:`WROTE_INPUTS_CHOICE` instead of its choice and the engine
    stops the run. It is handed a copy of its own stream row ``rand`` too (the engine's
    is a window into its array of every stream: the deal's, the other seats'), whose
    state is written back after the call, so its draws advance its seat's stream as
    before. Its functions are compiled with numba's bounds checks (:func:`fresh_copies`):
    an index outside those copies raises ``IndexError`` and stops the run (one line,
    :func:`sheepsim.driver.chunk_error`) instead of reading or writing the engine's
    memory. The copies are made only for user policies: the built-ins, tested code, are
    called on the engine's scratch directly."""
    d = decide
    for k, fn in enumerate(fresh_copies(user_fns)):
        d = _user_dispatch(d, fn, first_id + k)
    return d


def _user_dispatch(prev, fn, policy_id):
    import numba  # the plain decorator: these closures are compiled uncached, per variant

    # _nrt: the copies allocate (and the user's function may too); a name of its own:
    # cached kernels link it in (see _clone_tag)
    @numba.njit(cache=False, nogil=True, _nrt=True)
    @uniquely_named
    def dispatch(pid, kind, view, opts, n, rand):
        if pid != policy_id:
            return prev(pid, kind, view, opts, n, rand)
        v = view.copy()
        o = opts.copy()
        r = rand.copy()  # its own row, not a window into every stream
        i = fn(kind, v, o, n, r)
        for c in range(rand.shape[1]):  # its draws advance its seat's stream
            rand[0, c] = r[0, c]
        for j in range(v.shape[0]):
            if v[j] != view[j]:
                return WROTE_INPUTS_CHOICE
        for r in range(o.shape[0]):
            for c in range(o.shape[1]):
                if o[r, c] != opts[r, c]:
                    return WROTE_INPUTS_CHOICE
        return i

    return dispatch


def lazy_exports(module_name: str, names: dict[str, str]):
    """A package's ``(__getattr__, __dir__)`` for the names it exports lazily:
    ``names[attr]`` is the module ``attr`` is imported from on first use (so importing a
    game package compiles nothing), and ``dir()`` (``help()``, tab completion) lists
    them. Use as ``__getattr__, __dir__ = lazy_exports(__name__, _LAZY)``."""
    import importlib
    import sys

    def __getattr__(attr):
        if attr in names:
            return getattr(importlib.import_module(names[attr]), attr)
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[module_name])) | set(names))

    return __getattr__, __dir__


def numba_loaded() -> bool:
    """Whether numba has been imported in this process (tests of light imports)."""
    return "numba" in sys.modules


#: Whether the ``sheepsim`` command asked to load numba's implementations without its
#: BLAS probe (:func:`skip_blas_probe`); set once per process by ``cli.run``.
_NO_BLAS_PROBE = {"asked": False}
#: Whether the ``sheepsim`` command asked to load cached kernels without numba's
#: implementations (:func:`skip_implementations_on_cache_loads`); set by ``cli.run``.
_LIGHT_LOADS = {"asked": False}
_NO_BLAS_LOCK = threading.Lock()


def skip_blas_probe() -> None:
    """Ask that numba's implementations load without probing for scipy's BLAS (the
    ``sheepsim`` command calls it; library users are left alone).

    Before numba runs or loads its first kernel it imports all its implementations
    (``BaseContext.refresh``); one of them, ``numba.np.arraymath``, imports
    ``scipy.linalg.cython_blas`` at import time only to set ``_HAVE_BLAS``, which picks
    BLAS or a plain loop for the inner products of ``np.cov``/``np.corrcoef`` compiled in
    this process (no sheepsim kernel uses them; ``np.dot`` and ``np.linalg`` still find
    scipy when compiled: they import it themselves). ``scipy.linalg`` costs 0.15-0.25 s
    of CPU here, a third of what a warm command spends over ``import numba, pandas``
    (docs/performance-archive.md, "Warm start"). :func:`load_implementations` then imports that
    module with ``scipy.linalg`` hidden, and nothing else."""
    _NO_BLAS_PROBE["asked"] = True


class _HideScipyLinalg:
    """A ``sys.meta_path`` finder that makes ``import scipy.linalg...`` fail."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy.linalg" or name.startswith("scipy.linalg."):
            raise ImportError(f"{name} is hidden while numba loads its implementations")
        return None


def load_implementations() -> None:
    """Import ``numba.np.arraymath`` without its BLAS probe if :func:`skip_blas_probe`
    was asked and neither it nor ``scipy.linalg`` is imported yet; else nothing. Once
    per process, under a lock (the driver's threads may call their first kernels
    together)."""
    if not _NO_BLAS_PROBE["asked"] or "numba.np.arraymath" in sys.modules:
        return
    with _NO_BLAS_LOCK:
        if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
            return
        hide = _HideScipyLinalg()
        sys.meta_path.insert(0, hide)
        try:
            # numba internal: numba.np.arraymath sets _HAVE_BLAS at import by importing
            # scipy.linalg.cython_blas (see skip_blas_probe); numba has no setting for it
            import numba.np.arraymath  # noqa: F401
        finally:
            sys.meta_path.remove(hide)


def skip_implementations_on_cache_loads() -> None:
    """Ask that sheepsim's kernels load from the cache without numba's implementations
    (the ``sheepsim`` command calls it; library users are left alone).

    Before loading a cached kernel, numba imports and registers every implementation it
    has (``BaseContext.refresh``: typing and lowering of numpy, unicode, lists, typed
    containers, random generators...), 0.15-0.3 s of a warm command's CPU
    (docs/performance-archive.md, "Warm start"). A cached kernel is machine code: loading and
    running it needs numba's runtime (``rtsys.initialize``, which the refresh does
    first) and the modules its environments name, not the implementations, which only
    typing and lowering (compiling) use. So a kernel of a dispatcher made by
    :func:`njit` (and its Python twin, a variant) loads with the runtime only; when the
    cache has no entry for it, numba compiles, and compiling refreshes the context as
    always (:func:`load_implementations` first, without the BLAS probe when asked)."""
    _LIGHT_LOADS["asked"] = True


def light_loads(dispatcher):
    """``dispatcher`` whose cache loads skip numba's implementations when
    :func:`skip_implementations_on_cache_loads` was asked (its cache's class is
    swapped for :func:`_light_cache_class`; uncached dispatchers are unchanged)."""
    # numba internal: FunctionCache, the class of a caching dispatcher's _cache (numba has
    # no public hook on cache loads); its class is swapped on the live object
    from numba.core.caching import FunctionCache

    if type(getattr(dispatcher, "_cache", None)) is FunctionCache:
        dispatcher._cache.__class__ = _light_cache_class()
        # numba internal: FunctionCache._impl, its CompileResultCacheImpl (how a compile
        # result is written and read): deferred libraries written as linked IR
        dispatcher._cache._impl.__class__ = _deferred_impl_class()
    return dispatcher


@functools.lru_cache(maxsize=1)
def _light_cache_class():
    import pickle

    # numba internal: FunctionCache.load_overload/_load_overload/_cache_file and
    # _guard_against_spurious_io_errors, IndexDataCacheFile._load_data/_data_path: the
    # load path numba takes, overridden to skip the context refresh (no public API)
    from numba.core.caching import FunctionCache, IndexDataCacheFile

    class _LightDataFile(IndexDataCacheFile):
        """numba's cache files, whose data are unpickled with :func:`_rebuild_env`."""

        def _load_data(self, name):
            with open(self._data_path(name), "rb") as f:
                return _EnvUnpickler(f).load()

    class _EnvUnpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "numba.core.environment" and name == "_rebuild_env":
                return _rebuild_env
            return super().find_class(module, name)

    class _LightLoadCache(FunctionCache):
        """numba's cache of compiled functions; under
        :func:`skip_implementations_on_cache_loads`, a load initializes numba's
        runtime only, not its implementations (see there)."""

        def load_overload(self, sig, target_context):
            if not _LIGHT_LOADS["asked"]:
                return super().load_overload(sig, target_context)
            # numba internal: rtsys.initialize, what BaseContext.refresh does first
            from numba.core.runtime import rtsys

            # what the refresh does first: the NRT functions the machine code calls
            rtsys.initialize(target_context)
            if type(self._cache_file) is IndexDataCacheFile:
                self._cache_file.__class__ = _LightDataFile
            with self._guard_against_spurious_io_errors():
                data = self._load_overload(sig, target_context)
            if data is None:  # not in the cache: numba compiles next (and refreshes)
                before_compiling()
            return data

    return _LightLoadCache


#: ``(module name, globals)`` of environments rebuilt before their module was imported
_PENDING_ENVIRONMENTS: list[tuple[str, dict]] = []


def _rebuild_env(modname, consts, env_name):
    """numba's ``environment._rebuild_env`` for light loads: an environment of one of
    numba's own modules not imported yet (``numba.np.arrayobj``, which imports numba's
    unicode, hashing and more: 0.06-0.1 s) gets the module's globals later.

    A cached kernel's library names the environments of the functions it links (each
    numpy allocation inlines one of ``numba.np.arrayobj``); numba rebuilds each with the
    globals of its module, importing it. Machine code compiled in nopython mode reads an
    environment's constants (restored here), never its globals: only object-mode code
    does (``pylowering``), which no numba implementation module has. The globals are
    filled in (:func:`before_compiling`) before anything compiles in this process."""
    # numba internal: environment._rebuild_env (the name numba's cache pickles),
    # lookup_environment, Environment (consts, env_name, globals, _memo)
    from numba.core import environment

    if modname in sys.modules or not str(modname).startswith("numba."):
        return environment._rebuild_env(modname, consts, env_name)
    env = environment.lookup_environment(env_name)
    if env is None:
        env = environment.Environment({"__name__": modname})
        env.consts[:] = consts
        env.env_name = env_name
        environment.Environment._memo[env_name] = env
        _PENDING_ENVIRONMENTS.append((modname, env.globals))
    return env


def before_compiling() -> None:
    """Before numba compiles in a process that loaded kernels lightly: numba's
    implementations without the BLAS probe if asked (:func:`load_implementations`), and
    the globals of every environment :func:`_rebuild_env` left empty. Under numba's
    compiler lock, which numba holds when it imports its implementations itself (and
    a cache load holds when it calls this): one order of locks for every thread."""
    import importlib

    # numba internal: the lock numba compiles and refreshes its context under
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:
        load_implementations()
        while _PENDING_ENVIRONMENTS:
            modname, globals_ = _PENDING_ENVIRONMENTS.pop()
            globals_.update(importlib.import_module(modname).__dict__)


# ---- one optimization per kernel tree: libraries of kernels Python never calls are not finalized ----
#
# numba compiles each jitted function into its own library and *finalizes* it at once:
# it links the (finalized, optimized) libraries of every function it calls, runs LLVM's
# module optimization over the whole and emits machine code for it. A kernel called only
# by other kernels (no Python entry point: :func:`njit`'s ``no_cpython_wrapper``) never
# runs its own machine code, yet its subtree was optimized and emitted once for it and
# again for every caller up the tree: 33 of the 77 CPU s a cold ``panic play`` took went
# to finalizing 115 libraries (2026-12-07, benchmarks/README.md "Finalize once"). Here
# such a library is *deferred*: not finalized; a caller links its function-optimized IR
# (and its callees', :meth:`_DeferredLibrary._get_module_for_linking`) and optimizes and
# emits everything once, when the caller (a Python entry point) is finalized. Results are
# the same (LLVM's optimizations keep a program's meaning; no fast-math anywhere); the
# machine code is optimized once from the source instead of from optimized parts.
# A deferred kernel is cached as its linked, unoptimized IR (bitcode), not machine code.

#: the serialization kind of a deferred library in a cache file (numba's are 'object' and
#: 'bitcode'); only :class:`_DeferredImpl` reads it
DEFERRED_KIND = "sheepsim-deferred"


@functools.cache
def _deferred_library_class() -> type:
    # numba internal: JITCodeLibrary (the class the CPU target's codegen makes libraries
    # of) and its fields _final_module, _linking_libraries, _shared_module, _finalized and
    # methods add_linking_library, _get_module_for_linking, finalize,
    # serialize_using_object_code: numba has no public hook on how a library is linked
    import llvmlite.binding as ll
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler_lock import global_compiler_lock

    class _DeferredLibrary(JITCodeLibrary):
        """A library of a sheepsim kernel (see above). ``_deferred`` is set when its
        function turns out to have no Python entry point (:func:`_install_deferral`);
        ``_envs`` are the ``(name, environment)`` its machine code will need."""

        _deferred = False
        _envs = ()

        def is_deferred(self) -> bool:
            return self._deferred and not self._finalized

        def add_linking_library(self, library):
            if isinstance(library, _DeferredLibrary) and library.is_deferred():
                self._linking_libraries.append(library)  # linked as IR at finalize
            else:
                super().add_linking_library(library)

        def linked_module(self):
            """A new module of its own IR (linkage as lowered: its entry points stay
            external) with its callees' linked in: what it is cached as."""
            mod = self._final_module.clone()
            for library in self._linking_libraries:
                mod.link_in(library._get_module_for_linking(), preserve=True)
            return mod

        def _get_module_for_linking(self):
            if not self.is_deferred():
                return super()._get_module_for_linking()
            if self._shared_module is None:
                # external functions made linkonce_odr, as numba makes them in a
                # finalized library's module for linking (unused ones are dropped)
                mod = self.linked_module()
                for fn in mod.functions:
                    if not fn.is_declaration and fn.linkage == ll.Linkage.external:
                        fn.linkage = "linkonce_odr"
                self._shared_module = mod
            return self._shared_module

        @property
        def has_dynamic_globals(self):
            # numba's cache asks this before writing (a finalized library answers from
            # its final module): of a deferred one, from the IR it links, unfinalized
            if not self.is_deferred():
                return super().has_dynamic_globals
            return any(gv.name.startswith("numba.dynamic.globals")
                       for gv in self._get_module_for_linking().global_variables)

        def closure_envs(self, out: dict, seen: set) -> None:
            """The environments of this deferred library and of the deferred ones it
            links, by name, into ``out``."""
            if id(self) in seen or not self.is_deferred():
                return
            seen.add(id(self))
            out.update(self._envs)
            for library in self._linking_libraries:
                if isinstance(library, _DeferredLibrary):
                    library.closure_envs(out, seen)

        def finalize(self):
            # numba finalizes under its compiler lock, always inside a compile; a deferred
            # library may be finalized later, e.g. when its address is first asked for
            # (a kernel passed as a function value): take the (reentrant) lock here
            with global_compiler_lock:
                envs, seen = dict(self._envs), set()
                for library in self._linking_libraries:
                    if isinstance(library, _DeferredLibrary):
                        library.closure_envs(envs, seen)
                super().finalize()
                # what numba's get_executable does for a library it finalizes: the address
                # of each environment its machine code reads (one inlined away has none)
                engine = self._codegen._engine
                for name, env in envs.items():
                    if engine.is_symbol_defined(name):
                        self._codegen.set_env(name, env)

    return _DeferredLibrary


@functools.cache
def _deferred_pipeline() -> type:
    """The compiler :func:`njit` gives numba (``pipeline_class``): numba's nopython
    pipeline with one pass before its lowering that makes the function's library a
    :class:`_DeferredLibrary`."""
    # numba internal (documented as "customizing the compiler"): CompilerBase,
    # DefaultPassBuilder, LoweringPass (a pass after the IR took its dels), register_pass,
    # NativeLowering
    from numba.core.compiler import CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.typed_passes import NativeLowering

    library_class = _deferred_library_class()

    @register_pass(mutates_CFG=False, analysis_only=True)
    class SheepsimLibrary(LoweringPass):
        _name = "sheepsim_deferred_library"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            # what NativeLowering does when no library was given, with our class
            if state.library is None:
                state.library = state.targetctx.codegen().create_library(
                    state.func_id.func_qualname)
                state.library.enable_object_caching()
            if type(state.library) is not library_class:
                state.library.__class__ = library_class
            return False

    class SheepsimCompiler(CompilerBase):
        def define_pipelines(self):
            # here, when something compiles, not when a kernel is decorated: the inliner's
            # module imports numba's array implementations, which a process that only
            # loads cached kernels never imports (light_loads)
            _install_inline_copy()
            _install_flag_values()
            _install_meminfo_walk()
            pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm.add_pass_after(SheepsimLibrary, _pass_before(pm, NativeLowering))
            pm.finalize()
            return [pm]

    _install_deferral()
    return SheepsimCompiler


def _pass_before(pm, cls):
    """The pass that comes right before ``cls`` in pass manager ``pm``."""
    # numba internal: PassManager.passes, [(pass class, description)]
    names = [p for p, _ in pm.passes]
    return names[names.index(cls) - 1]


@functools.cache
def _install_flag_values() -> None:
    """numba keys its cache of typed overloads on the compile's flags (a ``TargetConfig``),
    whose hash is the same for all flags and whose equality builds the dict of all 22
    options twice through their properties (about 23 us): some 60,000 comparisons in a
    cold ``race play``, about 1.5 CPU s. ``values`` reads the same dict directly, and the
    hash (of the options' sorted names, as numba's) is computed once per class (once per
    process; ``tests/test_inline_copy.py`` checks them against numba's definitions)."""
    # numba internal: TargetConfig.options, ._values (set only by the options'
    # properties), Option.default, and the properties' getters
    # (self._values.get(name, option.default)), which these equal
    from numba.core.targetconfig import TargetConfig

    defaults: dict[type, dict] = {}  # per class: every option's default, in options order
    hashes: dict[type, int] = {}

    def values(self):
        cls = type(self)
        if cls not in defaults:
            defaults[cls] = {k: o.default for k, o in cls.options.items()}
        # the values given are options' (set through their properties): the same keys,
        # in the same order
        return {**defaults[cls], **self._values}

    def hash_(self):
        cls = type(self)
        if cls not in hashes:
            hashes[cls] = hash(tuple(sorted(cls.options)))
        return hashes[cls]

    TargetConfig.values = values
    TargetConfig.__hash__ = hash_


@functools.cache
def _install_meminfo_walk() -> None:
    """numba's lowering increfs and decrefs a value by walking its type's data model
    (``NRTContext.get_meminfos``): for every member of a tuple or record it emits an
    ``extractvalue`` and walks on, whether or not the member can hold a reference-counted
    pointer. An int, a float or a record of them holds none, so every walk of such a
    value (about 16,000 of the 17,700 in a cold ``race play``) and of such members of a
    tuple of arrays (``R``, the machines' tables) emits dead instructions, which numba
    builds in Python and LLVM parses and deletes: a cold ``race play`` built 115,509
    instructions, 53,878 of them ``extractvalue``; with this walk 77,067 and 15,436. Here
    a type's walk stops at members that can hold none (known per type, from the same data
    models); the meminfos found, and so the incref and decref calls, are the same, in the
    same order (``tests/test_inline_copy.py`` compares them and the machine code with
    numba's)."""
    # numba internal: NRTContext.get_meminfos (called by _call_incref_decref for every
    # incref and decref the lowering emits), its _context, DataModel.traverse (members
    # and their getters; a getter emits the member's extraction), has_nrt_meminfo and
    # get_nrt_meminfo, as numba's get_meminfos reads them
    from numba.core.runtime.context import NRTContext

    holds_cache: dict = {}  # (data model manager, type): whether it can hold a meminfo

    def holds(self, builder, ty) -> bool:
        """Whether a value of ``ty`` can hold a meminfo (numba's walk would find one)."""
        dmm = self._context.data_model_manager
        if (dmm, ty) not in holds_cache:
            model = dmm[ty]
            # traverse only lists the members (the getters emit nothing until called)
            holds_cache[dmm, ty] = model.has_nrt_meminfo() or any(
                holds(self, builder, member) for member, _ in model.traverse(builder))
        return holds_cache[dmm, ty]

    def get_meminfos(self, builder, ty, val):
        """numba's ``get_meminfos`` without walking into what holds no meminfo."""
        if not holds(self, builder, ty):
            return []
        model = self._context.data_model_manager[ty]
        meminfos = []
        if model.has_nrt_meminfo():
            meminfos.append((ty, model.get_nrt_meminfo(builder, val)))
        for member, getter in model.traverse(builder):
            if holds(self, builder, member):
                meminfos.extend(get_meminfos(self, builder, member, getter(val)))
        return meminfos

    NRTContext.get_meminfos = get_meminfos


#: the copy memos of the callee IRs being copied by the inliner on this thread (one dict per
#: source scope), set while :func:`_install_inline_copy`'s ``inline_ir`` runs
_INLINE_MEMOS = threading.local()


@functools.cache
def _install_inline_copy() -> None:
    """numba's inliner copies the callee's IR once per inlined call, block by block, each
    block with a ``copy.deepcopy`` memo of its own; every variable refers to the function's
    scope, which holds every variable, so each block copies the whole scope again: a
    callee of B blocks and V variables costs about B x V copies, twice per inlined call.
    In a cold ``race play`` that was 8.6 of 52 CPU s. Here the blocks of one function
    share one memo while ``InlineWorker.inline_ir`` runs, so the scope is copied once per
    copy of the function (once per process; elsewhere ``copy.deepcopy`` as before).

    numba then gives every inlined block the caller's scope and renames the callee's
    variables into it, so no compiled function depends on whether the callee's blocks
    had one scope copy or one each (``tests/test_inline_copy.py`` compares the LLVM IR of
    both)."""
    # numba internal: inline_closurecall's module global ``copy`` (its copy_ir, local to
    # InlineWorker.inline_ir, calls copy.deepcopy(block) per block), ir.Block.scope
    import copy

    from numba.core import inline_closurecall, ir

    class _SharedMemoCopy(types.ModuleType):
        """``copy``, except that a block copied inside ``inline_ir`` shares the memo of
        the other blocks of its function."""

        def __getattr__(self, name):
            return getattr(copy, name)

        @staticmethod
        def deepcopy(x, memo=None):
            memos = getattr(_INLINE_MEMOS, "memos", None)
            if memo is None and memos is not None and type(x) is ir.Block:
                memo = memos.setdefault(id(x.scope), {})
            return copy.deepcopy(x, memo)

    inline_closurecall.copy = _SharedMemoCopy("copy")
    original = inline_closurecall.InlineWorker.inline_ir

    @functools.wraps(original)
    def inline_ir(self, *args, **kwargs):
        outer = getattr(_INLINE_MEMOS, "memos", None)
        # the source blocks stay alive while this call runs, so their scopes' ids are theirs
        _INLINE_MEMOS.memos = {}
        try:
            return original(self, *args, **kwargs)
        finally:
            _INLINE_MEMOS.memos = outer

    inline_closurecall.InlineWorker.inline_ir = inline_ir


@functools.cache
def _install_deferral() -> None:
    """numba's ``CPUContext.get_executable`` (which finalizes a newly lowered function's
    library to give Python its address) leaves a :class:`_DeferredLibrary` without a
    Python entry point unfinalized (once per process; other libraries as before)."""
    # numba internal: CPUContext.get_executable and get_env_name, _dynfunc.make_function
    # (what get_executable builds), JITCodeLibrary._final_module.get_function
    from numba import _dynfunc
    from numba.core import cpu

    library_class = _deferred_library_class()
    original = cpu.CPUContext.get_executable

    def get_executable(self, library, fndesc, env):
        if type(library) is library_class and not library._finalized:
            try:
                library._final_module.get_function(fndesc.llvm_cpython_wrapper_name)
            except NameError:  # no Python entry point: callers link it, Python never calls it
                library._deferred = True
                library._envs = ((self.get_env_name(fndesc), env),)
                # numba's own entry for such a function has address 0 too (no wrapper symbol)
                return _dynfunc.make_function(fndesc.lookup_module(),
                                              fndesc.qualname.split(".")[-1],
                                              f"compiled wrapper for {fndesc.qualname!r}",
                                              0, env, (library,))
        return original(self, library, fndesc, env)

    cpu.CPUContext.get_executable = get_executable


@functools.cache
def _deferred_impl_class() -> type:
    """numba's cache implementation for compile results, which also writes and reads a
    deferred library: its linked IR as bitcode (kind :data:`DEFERRED_KIND`) and the
    environments that IR names; read back, it is a deferred library again."""
    # numba internal: CompileResultCacheImpl.reduce/rebuild, CompileResult (fields and
    # constructor as CompileResult._rebuild uses them), environment.lookup_environment
    import llvmlite.binding as ll
    from numba import _dynfunc
    from numba.core.caching import CompileResultCacheImpl
    from numba.core.compiler import CompileResult
    from numba.core.environment import lookup_environment

    library_class = _deferred_library_class()

    class _DeferredImpl(CompileResultCacheImpl):
        def reduce(self, cres):
            library = cres.library
            if not (type(library) is library_class and library.is_deferred()):
                return super().reduce(cres)
            module = library.linked_module()  # its own entry points kept (a function
            envs = []                          # value's address is asked of them)
            for gv in module.global_variables:
                if gv.name.startswith("_ZN08NumbaEnv"):
                    env = lookup_environment(gv.name)
                    if env is not None and env.can_cache():
                        envs.append(env)
            fndesc = cres.fndesc
            fndesc.typemap = fndesc.calltypes = None  # as numba's reduce: not needed
            return ((library.name, DEFERRED_KIND, module.as_bitcode()), fndesc,
                    cres.environment, cres.signature, cres.objectmode, cres.lifted,
                    str(cres.type_annotation), cres.reload_init, tuple(envs))

        def rebuild(self, target_context, payload):
            libdata = payload[0]
            if libdata[1] != DEFERRED_KIND:
                return super().rebuild(target_context, payload)
            (name, _, bitcode), fndesc, env, signature, objectmode, lifted, typeann, \
                reload_init, referenced_envs = payload
            for fn in reload_init or ():
                fn()
            library = target_context.codegen().create_library(name)
            library.__class__ = library_class
            library._final_module = ll.parse_bitcode(bitcode)  # already linked
            library._deferred = True
            library._envs = tuple((e.env_name, e) for e in referenced_envs) + \
                ((target_context.get_env_name(fndesc), env),)
            cfunc = _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                           f"compiled wrapper for {fndesc.qualname!r}", 0,
                                           env, (library,))
            return CompileResult(target_context=target_context,
                                 typing_context=target_context.typing_context,
                                 library=library, environment=env, entry_point=cfunc,
                                 fndesc=fndesc, type_annotation=typeann, signature=signature,
                                 objectmode=objectmode, lifted=lifted, typing_error=None,
                                 call_helper=None, metadata=None, reload_init=reload_init,
                                 referenced_envs=referenced_envs)

    return _DeferredImpl
