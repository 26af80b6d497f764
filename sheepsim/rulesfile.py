"""Strict reading of rules files (TOML), shared by every game.

Each game's ``rules.py`` describes its schema with these helpers; every problem raises
:class:`~sheepsim.errors.RulesError` naming the file and the dotted key.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sheepsim.errors import RulesError
from sheepsim.game import games
from sheepsim.output import sha256_bytes


class RulesFileError(RulesError):
    """A rules file that cannot be read as TOML at all: the line names the file and the
    problem, no key (``my.toml: file not found``)."""

    def __init__(self, source: str, problem: str):
        super().__init__(source, "", problem)
        self.args = (f"{source}: {problem}",)


def toml_text(value) -> str:
    """``value`` as a TOML file spells it, for error messages: ``true``, ``"abc"``,
    ``[1, 2]``, ``a table``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "a table"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)


def toml_type(value) -> str:
    """The TOML name of ``value``'s type: ``a string``, ``a whole number``, ``true``..."""
    if isinstance(value, bool):
        return toml_text(value)
    kinds = ((dict, "a table"), (list, "an array"), (str, "a string"),
             (int, "a whole number"), (float, "a number"))
    return next((name for t, name in kinds if isinstance(value, t)), "a date or time")


def _shipped_rules() -> list[tuple[str, dict]]:
    """``("Title (sheepsim command)", data)`` of every registered game's shipped rules."""
    out = []
    for game in games():
        package = game.rules_loader.partition(":")[0].rpartition(".")[0]
        try:
            out.append((f"{game.title} (sheepsim {game.command})", tomllib.loads(
                resources.files(package).joinpath("standard.toml").read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue
    return out


def other_game(data: dict, missing: str) -> str | None:
    """``Shear Panic (sheepsim panic)``: the game whose shipped rules file has every
    top-level table of ``data`` but not ``missing`` (a file of another game given to
    this one), else None."""
    keys = set(data)
    if not keys:
        return None
    return next((game for game, shipped in _shipped_rules()
                 if missing not in shipped and keys <= set(shipped)), None)


def shipped_keys(prefix: str) -> set[str]:
    """The keys the shipped rules files have in the table at dotted ``prefix``
    (``race.payoffs``, ``race.cards[1]``; "" the top level), over every game."""
    parts = [p for p in re.split(r"\.|\[\d+\]", prefix) if p] if prefix else []
    keys: set[str] = set()
    for _, table in _shipped_rules():
        for part in parts:
            table = table.get(part) if isinstance(table, dict) else None
            if isinstance(table, list):
                table = table[0] if table else None
        if isinstance(table, dict):
            keys |= set(table)
    return keys


@dataclass(frozen=True)
class Source:
    """Where a rules file came from: a display name, its bytes' SHA-256 and the data."""

    name: str
    sha256: str
    data: dict


def read_toml(path: str | Path | None, package: str, default_name: str) -> Source:
    """Read ``path`` (or the package's shipped ``default_name``) as TOML; ``path`` may be
    a :class:`sheepsim.rulesedit.RulesText` (an edited file in memory)."""
    name, raw = read_bytes(path, package, default_name)
    return Source(name=name, sha256=sha256_bytes(raw), data=parse_toml(name, raw))


def read_bytes(path, package: str, default_name: str) -> tuple[str, bytes]:
    """``(display name, bytes)`` of a rules file, or one line naming why it cannot be read."""
    if hasattr(path, "text") and hasattr(path, "name") and not isinstance(path, str | Path):
        raw, name = path.text.encode("utf-8"), path.name
    elif path is None:
        raw = resources.files(package).joinpath(default_name).read_bytes()
        name = f"<standard>/{default_name}"
    else:
        p = Path(path)
        name = str(p)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise RulesFileError(name, "file not found") from None
        except IsADirectoryError:
            raise RulesFileError(name, "is a folder, not a rules file") from None
        except OSError as exc:
            raise RulesFileError(name, f"cannot read: {exc.strerror}") from None
    return name, raw


def parse_toml(name: str, raw: bytes) -> dict:
    """A rules file's bytes as TOML data, or one line naming the file and the problem."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RulesFileError(name, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesFileError(name, f"not valid TOML ({exc})") from None


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
                self.missing(name)
            return default
        return self.table[name]

    def missing(self, name: str, problem: str = "missing"):
        """A required key is absent (``problem`` says so, and what to give instead): a
        misspelling of it is reported as the unknown key it is; a file with none of
        this game's tables may be another game's."""
        known = shipped_keys(self.prefix)
        unread = [k for k in self.table if k not in self._seen and k not in known]
        close = difflib.get_close_matches(name, unread, n=1, cutoff=0.75)
        if close:
            self.fail(close[0], f"unknown key; did you mean {name!r}?")
        if not self.prefix:
            game = other_game(self.table, name)
            if game:
                having = [g for g, shipped in _shipped_rules() if name in shipped]
                this = having[0] if len(having) == 1 else "this game"
                self.fail(name, f"{problem}; this looks like a rules file for {game}, "
                                f"not for {this}")
        self.fail(name, problem)

    def table_(self, name: str, required: bool = True) -> Reader:
        value = self._get(name, {}, required)
        if not isinstance(value, dict):
            self.fail(name, f"must be a table, got {toml_type(value)}")
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
            self.fail(name, f"must be a whole number, got {toml_text(value)}")
        if min_value is not None and value < min_value:
            self.fail(name, f"must be at least {min_value}, got {value}")
        if max_value is not None and value > max_value:
            self.fail(name, f"must be at most {max_value}, got {value}")
        return value

    def str_(self, name: str, *, required: bool = True, default: str | None = None,
             choices: tuple[str, ...] | None = None) -> str:
        value = self._get(name, default, required)
        if not isinstance(value, str) or not value.strip():
            self.fail(name, f"must be a non-empty string, got {toml_text(value)}")
        if choices is not None and value not in choices:
            self.fail(name, f"must be one of {', '.join(choices)}, got {toml_text(value)}")
        return value

    def bool_(self, name: str, *, required: bool = True, default: bool | None = None) -> bool:
        value = self._get(name, default, required)
        if not isinstance(value, bool):
            self.fail(name, f"must be true or false, got {toml_text(value)}")
        return value

    def int_list(self, name: str, *, length: int | None = None, min_value: int | None = None,
                 nonempty: bool = True, required: bool = True, default=None,
                 max_value: int | None = None) -> list[int]:
        value = self._get(name, default, required)
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            self.fail(name, f"must be a list of whole numbers, got {toml_text(value)}")
        if nonempty and not value:
            self.fail(name, "must not be empty")
        if length is not None and len(value) != length:
            self.fail(name, f"must have {length} entries, got {len(value)}")
        if min_value is not None and any(v < min_value for v in value):
            self.fail(name, f"entries must be at least {min_value}, got {toml_text(value)}")
        if max_value is not None and any(v > max_value for v in value):
            self.fail(name, f"entries must be at most {max_value}, got {toml_text(value)}")
        return value

    def int_matrix(self, name: str, *, row_length: int | None = None, min_value: int | None = None,
                   rows: int | None = None, max_value: int | None = None) -> list[list[int]]:
        value = self._get(name, None, True)
        if not isinstance(value, list) or not value:
            self.fail(name, f"must be a non-empty list of lists, got {toml_text(value)}")
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
                close = difflib.get_close_matches(name, sorted(self._seen - set(self.table)),
                                                  n=1, cutoff=0.75)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise RulesError(self.source, self.key(name), f"unknown key{hint}")
