"""The numba sheepsim runs on: a tested version, and every internal ``sheepsim.jit`` uses.

sheepsim relies on parts of numba that are not its public API (``sheepsim.jit``'s module
docstring says which and why), all in ``sheepsim/jit.py``. A numba upgrade that changes
one of them should fail here, by name, rather than somewhere obscure (a kernel cache
that silently stops hitting, a crash in a Python call).
"""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from pathlib import Path

import pytest

from sheepsim import jit

ROOT = Path(__file__).resolve().parents[1]


def test_the_installed_numba_is_a_tested_version():
    problem = jit.untested_numba()
    if problem is not None:
        pytest.fail(problem, pytrace=False)


def test_a_version_outside_the_tested_range_is_named_with_what_to_do():
    low, high = jit.TESTED_NUMBA
    assert jit.untested_numba(f"{low}.0") is None
    assert jit.untested_numba(f"{high}.9rc1") is None
    major, minor = (int(p) for p in high.split("."))
    newer = f"{major}.{minor + 1}.0"
    problem = jit.untested_numba(newer)
    assert problem is not None
    assert f"numba {newer} is not a tested version" in problem
    assert "TESTED_NUMBA" in problem and "pyproject.toml" in problem
    major, minor = (int(p) for p in low.split("."))
    assert jit.untested_numba(f"{major}.{minor - 1}.1") is not None


def test_pyproject_allows_exactly_the_tested_numba_versions():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (numba_req,) = [d for d in deps if re.match(r"numba\b", d)]
    low, high = jit.TESTED_NUMBA
    major, minor = (int(p) for p in high.split("."))
    assert numba_req.replace(" ", "") == f"numba>={low},<{major}.{minor + 1}", (
        "pyproject.toml's numba requirement must allow exactly sheepsim.jit.TESTED_NUMBA")


def _resolve(dotted: str):
    """The object at ``dotted``: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("name", sorted(jit.NUMBA_INTERNALS))
def test_each_numba_internal_sheepsim_uses_still_exists(name):
    try:
        obj = _resolve(name)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"numba internal {name} is gone from numba (sheepsim.jit relies on it; "
                    f"see sheepsim.jit.NUMBA_INTERNALS): {exc!r}", pytrace=False)
    missing = [a for a in jit.NUMBA_INTERNALS[name] if not hasattr(obj, a)]
    assert not missing, f"numba internal {name} has no {', '.join(missing)} any more"


def test_the_numba_internals_have_the_shapes_sheepsim_uses():
    import numba
    from numba.core import caching, types
    from numba.core.dispatcher import Dispatcher
    from numba.core.registry import CPUDispatcher
    from numba.np import arraymath

    # _install_locator: a list numba asks in order, each a class with from_function
    assert isinstance(caching.CacheImpl._locator_classes, list)
    assert all(inspect.isclass(c) and hasattr(c, "from_function")
               for c in caching.CacheImpl._locator_classes)
    assert list(inspect.signature(caching._CacheLocator.from_function).parameters) == [
        "py_func", "py_file"]
    assert set(caching._CacheLocator.__abstractmethods__) <= {
        "ensure_cache_path", "get_cache_path", "get_source_stamp", "get_disambiguator",
        "from_function"}
    # the mixin reads the attributes _PackageLocator sets
    mixin = inspect.getsource(caching._SourceFileBackedLocatorMixin)
    assert "self._py_file" in mixin and "self._lineno" in mixin
    # numba.njit's dispatchers, and the typer's hook unliteral_calls overrides
    assert issubclass(CPUDispatcher, Dispatcher)
    assert list(inspect.signature(CPUDispatcher.get_call_template).parameters) == [
        "self", "args", "kws"]
    assert types.unliteral(types.literal(3)) == types.int64
    assert isinstance(arraymath._HAVE_BLAS, bool)
    assert inspect.isclass(caching.NullCache)

    def f(x):
        return x + 1

    plain = numba.njit(no_cpython_wrapper=True)(f)
    assert type(plain) is CPUDispatcher
    assert all(hasattr(plain, a) for a in jit.DISPATCHER_FIELDS)
    assert plain.py_func is f
    assert isinstance(plain._cache, caching.NullCache)
    assert {"nopython", "no_cpython_wrapper"} <= set(plain.targetoptions)


def test_a_sheepsim_kernel_carries_the_fields_jit_reads():
    """A kernel of the package (decorated, never compiled here): the class swap, its
    options and its on-disk cache, as ``lazy_entry`` and ``_make_twin`` read them."""
    from numba.core.caching import NullCache

    from sheepsim import rng
    from sheepsim.jit import LazyEntryDispatcher

    kernels = [v for v in vars(rng).values() if jit.is_njit_function(v)]
    assert kernels
    for k in kernels:
        assert type(k) is LazyEntryDispatcher
        assert set(jit.TARGET_OPTIONS) <= set(k.targetoptions)
        assert k.targetoptions["no_cpython_wrapper"] is True
        assert not isinstance(k._cache, NullCache)
    assert not jit.is_njit_function(rng)
    assert not jit.is_njit_function(kernels[0].py_func)


def test_only_sheepsim_jit_touches_numba_internals():
    """Every other module uses numba's public API (``numba.njit``, ``numba.types``,
    ``numba.typed``...) or asks ``sheepsim.jit``; each internal import in ``jit.py`` is
    commented (``# numba internal:`` on it or just above it)."""
    internal = re.compile(r"numba\.(core|np|misc|cpython|parfors|_[a-z])")
    package = ROOT / "sheepsim"
    offenders = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
                 for p in sorted(package.rglob("*.py")) if p.name != "jit.py" or p.parent != package
                 for n, line in enumerate(p.read_text().splitlines(), 1)
                 if internal.search(line.split("#")[0])]
    assert not offenders, "numba internals outside sheepsim/jit.py:\n" + "\n".join(offenders)
    lines = (package / "jit.py").read_text().splitlines()
    uncommented = [f"jit.py:{n + 1}: {line.strip()}" for n, line in enumerate(lines)
                   if re.match(r"\s*(from|import) numba\.", line)
                   and not any("numba internal" in x for x in lines[max(0, n - 8):n + 1])]
    assert not uncommented, "numba internals without a comment:\n" + "\n".join(uncommented)
