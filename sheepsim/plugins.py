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


def policy_spec(name, builtin_ids: dict, user_args: tuple[str, ...] | None = None):
    """``(built-in id or None, user function or None)`` for a policy name, a
    ``package.module:function`` spec or an ``@numba.njit`` function itself; a user
    function is checked against ``user_args`` before anything compiles."""
    if hasattr(name, "py_func"):
        if user_args is not None:
            check_arguments(name, user_args, "policy", getattr(name, "__name__", "?"))
        return None, name
    name = str(name).strip()
    if name in builtin_ids:
        return builtin_ids[name], None
    if ":" in name:
        fn = load_object(name)
        if not hasattr(fn, "py_func"):
            raise SheepsimError(f"policy {name!r} must be a @numba.njit function")
        if user_args is not None:
            check_arguments(fn, user_args, "policy", name)
        return None, fn
    raise SheepsimError(f"unknown policy {name!r}; choose one of {', '.join(builtin_ids)} "
                        "or give package.module:function")


def resolve_policy_ids(names, builtin_ids: dict, first_user_id: int,
                       user_args: tuple[str, ...] | None = None) -> tuple[list[int], tuple]:
    """Policy ids per seat and the distinct user functions behind ids from
    ``first_user_id`` on (one id per function, in order of first use)."""
    ids, users = [], []
    for name in names:
        pid, fn = policy_spec(name, builtin_ids, user_args)
        if fn is not None:
            if fn not in users:
                users.append(fn)
            pid = first_user_id + users.index(fn)
        ids.append(pid)
    return ids, tuple(users)


#: What a kernel records when a policy misbehaves (the first failure of a run stops it):
#: ``ILLEGAL_CHOICE``, the returned index is not one of the ``n`` legal options;
#: ``WROTE_INPUTS``, the policy changed the ``view`` or ``opts`` it was handed.
ILLEGAL_CHOICE = 1
WROTE_INPUTS = 2


def policy_name(policy) -> str:
    """A policy's display name (outputs, metadata, error lines): built-in names and
    ``module:function`` specs as given, an njit function as ``module:name``."""
    if hasattr(policy, "py_func"):
        return f"{policy.py_func.__module__}:{policy.py_func.__name__}"
    return str(policy).strip()


#: The arguments every game calls a plug-in with: ``policy(kind, view, opts, n, rand)``
USER_POLICY_ARGS = ("kind", "view", "opts", "n", "rand")


class PolicyTable:
    """A game's policies in one place: its built-in names -> ids, the first id a
    plug-in gets, and the arguments a plug-in is checked against (:data:`USER_POLICY_ARGS`)."""

    def __init__(self, ids: dict, first_user_id: int, user_args: tuple = USER_POLICY_ARGS):
        self.ids, self.first_user_id, self.user_args = dict(ids), first_user_id, user_args

    def spec(self, name):
        """``(id or None, user function or None)`` (:func:`policy_spec`)."""
        return policy_spec(name, self.ids, self.user_args)

    def resolve(self, names) -> tuple[list[int], tuple]:
        """Ids per seat and the distinct user functions (:func:`resolve_policy_ids`)."""
        return resolve_policy_ids(names, self.ids, self.first_user_id, self.user_args)


def seat_policies(policies, players: int, builtin: tuple) -> list:
    """One policy per seat from a name, an njit function, a comma-separated string or a
    list (one policy is repeated for every seat); names are stripped, functions kept.
    ``builtin``: the game's names, for the error line."""
    if isinstance(policies, str) or hasattr(policies, "py_func"):
        policies = policies.split(",") if isinstance(policies, str) else [policies]
    out = [p if hasattr(p, "py_func") else str(p).strip() for p in policies]
    if not out or any(isinstance(p, str) and not p for p in out):
        raise SheepsimError(f"give at least one policy name (e.g. {', '.join(builtin)})")
    if len(out) == 1:
        out = out * players
    if len(out) != players:
        raise SheepsimError(f"give 1 policy or one per player ({players}), got {len(out)}")
    return out


def kind_name(kinds, kind: int) -> str | None:
    """Decision kind ``kind``'s name as the trace's ``decisions`` table shows it (lower
    case; ``kinds`` the game's names by id); None for an id it does not have."""
    return str(kinds[kind]).lower() if 0 <= kind < len(kinds) else None


def policy_failure(code: int, policy, seat: int, game: int, choice: int, n: int,
                   kind: str | None = None) -> SheepsimError:
    """The one-line error for a policy that broke the contract (see :data:`ILLEGAL_CHOICE`):
    names the policy, its seat, the game number, what it was asked (the decision's
    ``kind``, as the trace's ``decisions`` table names it, and its ``n`` options) and what
    it did. The error's ``game`` is ``game`` (the run's line names no range of games)."""
    who = f"policy {policy_name(policy)!r} (seat {seat + 1}) in game {game}"
    asked = f"a {kind!r} decision" if kind else "a decision"
    if code == ILLEGAL_CHOICE:
        err = SheepsimError(f"{who} returned option {choice}, not one of its {n} legal options "
                            f"0..{n - 1}" + (f" ({asked})" if kind else ""))
    elif code == WROTE_INPUTS:
        err = SheepsimError(f"{who} wrote to its read-only inputs (view or opts) when asked "
                            f"{asked} with {n} options; a policy must not change what it is "
                            "shown")
    else:
        err = SheepsimError(f"{who} failed (code {code})")
    err.game = game
    return err
