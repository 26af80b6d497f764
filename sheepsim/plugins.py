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
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise SheepsimError(f"module {module_name!r} has no {attr!r} (for {what} {spec!r})") from None
    return obj
