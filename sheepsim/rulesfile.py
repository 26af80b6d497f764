"""Strict reading of rules files (TOML), shared by every game.

Each game's ``rules.py`` describes its schema with these helpers; every problem raises
:class:`~sheepsim.errors.RulesError` naming the file and the dotted key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sheepsim.errors import RulesError
from sheepsim.output import sha256_bytes


@dataclass(frozen=True)
class Source:
    """Where a rules file came from: a display name, its bytes' SHA-256 and the data."""

    name: str
    sha256: str
    data: dict


def read_toml(path: str | Path | None, package: str, default_name: str) -> Source:
    """Read ``path`` (or the package's shipped ``default_name``) as TOML."""
    if path is None:
        raw = resources.files(package).joinpath(default_name).read_bytes()
        name = f"<standard>/{default_name}"
    else:
        p = Path(path)
        name = str(p)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise RulesError(name, "-", "file not found") from None
        except IsADirectoryError:
            raise RulesError(name, "-", "is a folder, not a rules file") from None
        except OSError as exc:
            raise RulesError(name, "-", f"cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RulesError(name, "-", "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(name, "-", f"not valid TOML ({exc})") from None
    return Source(name=name, sha256=sha256_bytes(raw), data=data)


class Reader:
    """Typed access to a TOML table that reports the file and full key on errors."""

    def __init__(self, source: str, table: dict, prefix: str):
        self.source = source
        self.table = table
        self.prefix = prefix
        self._seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def fail(self, name: str, problem: str):
        raise RulesError(self.source, self.key(name), problem)

    def _get(self, name, default, required):
        self._seen.add(name)
        if name not in self.table:
            if required:
                self.fail(name, "missing")
            return default
        return self.table[name]

    def table_(self, name: str, required: bool = True) -> Reader:
        value = self._get(name, {}, required)
        if not isinstance(value, dict):
            self.fail(name, f"must be a table, got {type(value).__name__}")
        return Reader(self.source, value, self.key(name))

    def tables(self, name: str) -> list[Reader]:
        value = self._get(name, None, True)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(name, "must be an array of tables ([[...]])")
        return [Reader(self.source, v, f"{self.key(name)}[{i}]") for i, v in enumerate(value)]

    def int_(self, name: str, *, min_value: int | None = None, required: bool = True,
             default: int | None = None, max_value: int | None = None) -> int:
        value = self._get(name, default, required)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(name, f"must be a whole number, got {value!r}")
        if min_value is not None and value < min_value:
            self.fail(name, f"must be at least {min_value}, got {value}")
        if max_value is not None and value > max_value:
            self.fail(name, f"must be at most {max_value}, got {value}")
        return value

    def str_(self, name: str, *, required: bool = True, default: str | None = None,
             choices: tuple[str, ...] | None = None) -> str:
        value = self._get(name, default, required)
        if not isinstance(value, str) or not value.strip():
            self.fail(name, f"must be a non-empty string, got {value!r}")
        if choices is not None and value not in choices:
            self.fail(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    def bool_(self, name: str, *, required: bool = True, default: bool | None = None) -> bool:
        value = self._get(name, default, required)
        if not isinstance(value, bool):
            self.fail(name, f"must be true or false, got {value!r}")
        return value

    def int_list(self, name: str, *, length: int | None = None, min_value: int | None = None,
                 nonempty: bool = True, required: bool = True, default=None,
                 max_value: int | None = None) -> list[int]:
        value = self._get(name, default, required)
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            self.fail(name, f"must be a list of whole numbers, got {value!r}")
        if nonempty and not value:
            self.fail(name, "must not be empty")
        if length is not None and len(value) != length:
            self.fail(name, f"must have {length} entries, got {len(value)}")
        if min_value is not None and any(v < min_value for v in value):
            self.fail(name, f"entries must be at least {min_value}, got {value!r}")
        if max_value is not None and any(v > max_value for v in value):
            self.fail(name, f"entries must be at most {max_value}, got {value!r}")
        return value

    def int_matrix(self, name: str, *, row_length: int | None = None, min_value: int | None = None,
                   rows: int | None = None, max_value: int | None = None) -> list[list[int]]:
        value = self._get(name, None, True)
        if not isinstance(value, list) or not value:
            self.fail(name, f"must be a non-empty list of lists, got {value!r}")
        if rows is not None and len(value) != rows:
            self.fail(name, f"must have {rows} rows, got {len(value)}")
        out = []
        for i, row in enumerate(value):
            sub = Reader(self.source, {str(i): row}, self.key(name))
            out.append(sub.int_list(str(i), length=row_length, min_value=min_value,
                                    max_value=max_value))
        return out

    def raw(self, name: str, required: bool = True, default=None):
        return self._get(name, default, required)

    def no_unknown_keys(self) -> None:
        for name in self.table:
            if name not in self._seen:
                raise RulesError(self.source, self.key(name), "unknown key")
