"""Strict reading of a report config: one error line naming the config, study and key.

:class:`StudyReader` extends the rules-file :class:`~sheepsim.rulesfile.Reader` (same
typed accessors, same "unknown key" check) with the types a study config needs, and
:class:`ConfigError` turns every problem into
``CONFIG: study 2 "semi-odds" (race-odds): KEY: PROBLEM``.
"""

from __future__ import annotations

import contextlib
import math

from sheepsim.errors import RulesError, SheepsimError
from sheepsim.rulesfile import Reader, toml_text


class ConfigError(SheepsimError):
    """A report config (or out folder) that cannot be used; one line for the user."""

    def __init__(self, config: str, where: str, key: str, problem: str):
        self.config, self.where, self.key, self.problem = config, where, key, problem
        parts = [config] + [p for p in (where, key) if p] + [problem]
        super().__init__(": ".join(parts))


class StudyReader(Reader):
    """A :class:`Reader` over one study's table, with floats, name lists and a context
    manager that charges any :class:`SheepsimError` raised inside it to a key."""

    #: the folder a relative path in this table is read from (the config's; None for the
    #: shipped default config)
    base_dir = None

    def float_(self, name: str, *, positive: bool = True, required: bool = True,
               default: float | None = None) -> float:
        value = self._get(name, default, required)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self.fail(name, f"must be a number, got {toml_text(value)}")
        if positive and not value > 0:
            self.fail(name, f"must be greater than 0, got {toml_text(value)}")
        return float(value)

    def names(self, name: str, *, required: bool = True, default=None) -> list[str]:
        """A list of names, given as a TOML array of strings or one comma-separated string."""
        value = self._get(name, default, required)
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(name, f"must be a list of names, got {toml_text(value)}")
        value = [v.strip() for v in value]
        if not value or any(not v for v in value):
            self.fail(name, "must list at least one name and no empty ones")
        return value

    @contextlib.contextmanager
    def checking(self, name: str):
        """Report a :class:`SheepsimError` from validating ``name``'s value against that key."""
        try:
            yield
        except RulesError:
            raise
        except SheepsimError as exc:
            self.fail(name, str(exc))
