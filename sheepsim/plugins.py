"""Loading user policies given as ``package.module:function``."""

from __future__ import annotations

import importlib

from sheepsim.errors import SheepsimError


def load_object(spec: str, what: str = "policy"):
    """Import ``package.module:function``; one clear error line if it is not there."""
    if ":" not in spec:
        raise SheepsimError(f"unknown {what} {spec!r}")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SheepsimError(f"{what} {spec!r} must look like package.module:function")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SheepsimError(f"cannot import module {module_name!r} for {what} {spec!r}: {exc}") from None
    except Exception as exc:  # the user's module itself raised while importing
        line = (str(exc).strip().splitlines() or [""])[0]
        raise SheepsimError(f"module {module_name!r} (for {what} {spec!r}) raised "
                            f"{type(exc).__name__} on import: {line}") from exc
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise SheepsimError(f"module {module_name!r} has no {attr!r} (for {what} {spec!r})") from None
    return obj


def check_arguments(fn, expected: tuple[str, ...], what: str, spec: str) -> None:
    """Refuse (one line, before any compiling) a ``@numba.njit`` policy that cannot be
    called with the ``expected`` positional arguments (names as documented); checks the
    Python function behind the dispatcher (``py_func``), so it costs nothing."""
    import inspect

    py = getattr(fn, "py_func", fn)
    try:
        sig = inspect.signature(py)
    except (TypeError, ValueError):
        return  # not introspectable: numba will say
    try:
        sig.bind(*expected)
    except TypeError:
        raise SheepsimError(f"{what} {spec!r} takes ({', '.join(sig.parameters)}) but is called "
                            f"with {len(expected)} arguments ({', '.join(expected)})") from None
