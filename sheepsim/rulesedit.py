"""Edits of a rules file by dotted key, for variants, sweeps and the balance search.

A designer names a value of a rules file by its dotted path, as the loaders' error
messages do: ``race.payoffs.bonus_three``, ``race.cards[5].gallop`` (arrays count from
0, as in error messages), ``race.cards.Stilton.gallop`` (an element of an array of
tables picked by its ``name``), ``race.payoffs.semifinal[0][5]`` (a cell of a matrix),
``deck.pig``, ``setup.4.set_aside_random``, ``menu[1].time``. A value is written as in a
TOML file (``3``, ``true``, ``"yellow"``, ``[1, 2, 0]``); a word that is not TOML is
taken as a string.

A linked edit ``KEY=VALUE~OTHER`` sets ``KEY`` and moves the difference to ``OTHER`` (both
whole numbers), so their sum is kept: ``deck.horse=0~deck.sheep`` removes the Horse and
puts as many plain sheep in the deck, keeping the deck's size (and so every setup that
dealt it).

:func:`edited` applies edits to a base file's data and gives a :class:`RulesText`: the
edited file as TOML text with a name saying what was edited. Every loader reads it as it
reads a file (:func:`sheepsim.rulesfile.read_toml`), so an edit is validated by the
game's own loader and a bad value is reported with its key. ``text`` is what
``tune --out-rules`` writes: a rules file every command accepts.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from dataclasses import dataclass

from sheepsim.errors import SheepsimError

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


class EditError(SheepsimError):
    """A ``KEY=VALUE`` edit that names no value of the rules file, or is malformed."""


@dataclass(frozen=True)
class Edit:
    """``key`` (dotted path) set to ``value`` (a TOML value)."""

    key: str
    value: object
    #: a linked edit's other key: it takes the change of ``key`` with the opposite sign,
    #: so the two keep their sum (``deck.horse=0~deck.sheep``)
    balance: str | None = None

    @property
    def text(self) -> str:
        return f"{self.key}={toml_value(self.value)}" + (f"~{self.balance}" if self.balance else "")


@dataclass(frozen=True)
class RulesText:
    """A rules file in memory: ``name`` (shown where a file path would be) and its TOML
    ``text``; the loaders hash its UTF-8 bytes as they hash a file's."""

    name: str
    text: str

    def __fspath__(self) -> str:  # never opened: read_toml reads .text; this is for display
        return self.name

    def __str__(self) -> str:
        return self.name


def parse_value(text: str):
    """A value as a rules file writes it; a bare word that is not TOML is a string."""
    text = text.strip()
    if not text:
        raise EditError("an edit's value is empty")
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if re.fullmatch(r"[A-Za-z_][\w\- ]*", text):
            return text
        raise EditError(f"{text!r} is not a value a rules file can hold (write strings in quotes)") from None


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets and quotes (``[1,2],3`` -> 2 parts)."""
    out, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out]


#: what each option's ``KEY=...`` looks like, for its error message
FORMS = {"--set": "KEY=VALUE or KEY=VALUE~OTHER (e.g. race.payoffs.bonus_three=2)",
         "--vary": "KEY=LO..HI[:STEP] (e.g. race.payoffs.bonus_three=0..6)",
         "--target": "METRIC=VALUE|min|max (e.g. lane_ev_spread=min)"}


def parse_assignment(text: str, option: str = "--set", *, path: bool = True) -> tuple[str, str]:
    """``"KEY=REST"`` -> ``(key, rest)``, one line naming the option if malformed
    (``path``: the key must be a dotted rules key)."""
    key, eq, rest = str(text).partition("=")
    key = key.strip()
    if not eq or not key or not rest.strip():
        raise EditError(f"{option} takes {FORMS.get(option, 'KEY=VALUE')}, got {text!r}")
    if path:
        check_path(key)
    return key, rest.strip()


def parse_edit(text: str, option: str = "--set") -> Edit:
    """``KEY=VALUE``, or the linked ``KEY=VALUE~OTHER`` (see the module's notes)."""
    key, value = parse_assignment(text, option)
    m = _LINKED.fullmatch(value)
    if m:
        other = m.group(2)
        check_path(other)
        if other == key:
            raise EditError(f"{option} {text!r}: a linked edit moves the change to another key")
        parsed = parse_value(m.group(1))
        if isinstance(parsed, bool) or not isinstance(parsed, int):
            raise EditError(f"{option} {text!r}: a linked edit KEY=VALUE~OTHER takes a whole "
                            f"number, got {m.group(1).strip()!r}")
        return Edit(key, parsed, other)
    return Edit(key, parse_value(value))


#: ``VALUE~OTHER`` of a linked edit: a whole number, ``~``, a dotted key
_LINKED = re.compile(r"\s*([+-]?[\d_]+)\s*~\s*([A-Za-z_][\w.\[\]-]*)\s*")


def check_path(key: str) -> list:
    """The tokens of a dotted path (names and integer indices); one line if malformed."""
    tokens, pos = [], 0
    for m in _TOKEN.finditer(key):
        gap = key[pos:m.start()]
        if gap not in ("", ".") or (gap == "." and not tokens):
            raise EditError(f"{key!r} is not a dotted key (e.g. race.cards[5].gallop)")
        tokens.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    if pos != len(key) or not tokens or isinstance(tokens[0], int):
        raise EditError(f"{key!r} is not a dotted key (e.g. race.cards[5].gallop)")
    return tokens


def apply(data: dict, edit: Edit, source: str) -> None:
    """Set ``edit`` in ``data`` (in place). The key must lead to an existing table or
    array; its last part may be new in a table (the loader then says whether the game
    knows it)."""
    if edit.balance:
        _apply_linked(data, edit, source)
        return
    tokens = check_path(edit.key)
    node, where, norm = data, "", []
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        shown = f"{where}[{tok}]" if isinstance(tok, int) else (f"{where}.{tok}" if where else tok)
        if isinstance(node, list):
            if not isinstance(tok, int):
                named = [j for j, el in enumerate(node) if isinstance(el, dict) and el.get("name") == tok]
                if not named:
                    names = [el.get("name") for el in node if isinstance(el, dict) and "name" in el]
                    hint = f"; names: {', '.join(map(str, names))}" if names else ""
                    raise EditError(f"{source}: {edit.key}: {where} has no element named {tok!r}{hint}")
                tok = named[0]
            if not -len(node) <= tok < len(node):
                raise EditError(f"{source}: {edit.key}: {where} has {len(node)} entries "
                                f"(0 to {len(node) - 1}), no [{tok}]")
        elif isinstance(node, dict):
            if isinstance(tok, int):
                raise EditError(f"{source}: {edit.key}: {where or 'the file'} is a table, not an array")
            if tok not in node and not last:
                raise EditError(f"{source}: {edit.key}: unknown key {shown}{_close(tok, node)}")
            if tok not in node and last and not _knows(norm, tok):
                raise EditError(f"{source}: {edit.key}: unknown key{_close(tok, node)}")
        else:
            raise EditError(f"{source}: {edit.key}: {where} is a value, not a table or array")
        norm.append(tok)
        if last:
            old = node[tok] if not isinstance(node, dict) or tok in node else None
            if isinstance(old, dict | list) and not isinstance(edit.value, type(old)):
                raise EditError(f"{source}: {edit.key}: is a {'table' if isinstance(old, dict) else 'list'}; "
                                f"name a value inside it")
            node[tok] = edit.value
        else:
            node = node[tok]
        where = shown


def _value_at(data: dict, key: str, source: str, edit: Edit) -> int:
    """The whole number at dotted ``key`` of ``data`` (one line if there is none)."""
    probe = copy.deepcopy(data)
    marker = object()
    apply(probe, Edit(key, marker), source)  # a key that names nothing: apply's own line
    tokens = check_path(key)
    value = _get(data, tokens[:-1], tokens[-1])
    if value is marker or isinstance(value, bool) or not isinstance(value, int):
        raise EditError(f"{source}: {edit.text}: a linked edit moves whole numbers; {key} is "
                        f"{'not set' if value is None else toml_value(value)}")
    return value


def _get(data, path: list, last):
    """The value at ``path`` + ``last`` (a path :func:`apply` accepted; None: a table's
    key that is not set)."""
    node = data
    for tok in [*path, last]:
        if isinstance(node, list) and not isinstance(tok, int):
            tok = next(j for j, el in enumerate(node) if isinstance(el, dict) and el.get("name") == tok)
        if isinstance(node, dict) and tok not in node:
            return None
        node = node[tok]
    return node


def _apply_linked(data: dict, edit: Edit, source: str) -> None:
    """``KEY=VALUE~OTHER``: KEY set to VALUE, OTHER changed by KEY's old value minus
    VALUE (their sum kept)."""
    old = _value_at(data, edit.key, source, edit)
    other = _value_at(data, edit.balance, source, edit)
    apply(data, Edit(edit.key, edit.value), source)
    apply(data, Edit(edit.balance, other + old - edit.value), source)


def _close(tok: str, node: dict) -> str:
    import difflib

    close = difflib.get_close_matches(str(tok), [str(k) for k in node], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _knows(parents: list, name: str) -> bool:
    """A new key ``name`` in the table at ``parents`` (names and indices): allowed where a
    shipped rules file has it (an optional key a file may leave out), else unknown."""
    from sheepsim.rulesfile import shipped_keys

    prefix = "".join(f"[{t}]" if isinstance(t, int) else f".{t}" for t in parents).lstrip(".")
    return name in shipped_keys(prefix)


def edited(base: RulesText, edits: list[Edit], label: str | None = None) -> RulesText:
    """``base`` with ``edits`` applied, as TOML text named ``"BASE with KEY=VALUE ..."``."""
    data = tomllib.loads(base.text)
    data = copy.deepcopy(data)
    for e in edits:
        apply(data, e, base.name)
    name = label or (f"{base.name} with {' '.join(e.text for e in edits)}" if edits else base.name)
    return RulesText(name, dumps(data) if edits else base.text)


def base_text(game, path=None) -> RulesText:
    """The rules file a variant edits: ``path`` or the game's shipped standard rules,
    read as text (checked as TOML here, validated by the game's loader later)."""
    from sheepsim.rulesfile import parse_toml, read_bytes

    if isinstance(path, RulesText):
        return path
    package = game.rules_loader.partition(":")[0].rpartition(".")[0]
    name, raw = read_bytes(path, package, "standard.toml")
    parse_toml(name, raw)
    return RulesText(name, raw.decode("utf-8"))


# --- a TOML writer for rules data (tomllib reads only) --------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _key(k: str) -> str:
    return k if _BARE.fullmatch(k) else json.dumps(k)


def toml_value(v) -> str:
    """One TOML value (no tables of tables: rules files keep those as headers)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    if hasattr(v, "isoformat"):
        return v.isoformat()
    raise EditError(f"cannot write {v!r} into a rules file")


def _is_table_array(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps(data: dict) -> str:
    """``data`` (as ``tomllib`` reads it) as TOML text that reads back equal."""
    lines: list[str] = []

    def table(node: dict, path: list[str]) -> None:
        for k, v in node.items():
            if not isinstance(v, dict) and not _is_table_array(v):
                lines.append(f"{_key(k)} = {toml_value(v)}")
        for k, v in node.items():
            sub = [*path, _key(k)]
            if isinstance(v, dict):
                lines.extend(["", f"[{'.'.join(sub)}]"])
                table(v, sub)
            elif _is_table_array(v):
                for el in v:
                    lines.extend(["", f"[[{'.'.join(sub)}]]"])
                    table(el, sub)

    table(data, [])
    return "\n".join(lines).lstrip("\n") + "\n"
