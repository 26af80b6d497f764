"""``sheepsim cache``: what sheepsim keeps in its cache folder, and removing what is old.

Two things live under :func:`sheepsim.jit.cache_root` (``~/.cache/sheepsim`` unless
``SHEEPSIM_CACHE_DIR`` or ``NUMBA_CACHE_DIR`` moves it):

* ``kernels/``: compiled kernels (:func:`sheepsim.jit.cache_dir`), a folder
  ``<module>-<digest>`` per sheepsim module and digest of what its kernels are compiled
  from (:func:`sheepsim.jit.module_digest`: the module and the sheepsim modules it
  imports, the sheepsim and numba versions), and a folder ``plugins-<digest>-<key>`` per
  set of user policies (its ``modules.txt`` names the sheepsim modules its digest
  covers) and per kernel sheepsim rebuilds for built-in policies alone (its
  ``builtin.txt`` says what it is: the race's single-race kernels, one per pace policy,
  a harness game's two entries). An edit of a module starts new folders
  for the modules that import it and nothing is ever deleted on import (a running
  process of another version may be using a folder), so old folders pile up.
  ``kernels-<digest>/`` folders (one per whole package source) are the layout of
  earlier versions: all old.
* ``odds/odds-<rules>-<digest>-<races>-<seed>.npz``: the race-odds tables the race
  policies read, one per rules file and digest of the code that computes them
  (:func:`sheepsim.games.race.simulate.odds_code_digest`); ``*.tmp`` files are writes
  that never finished (older than :data:`UNFINISHED_AFTER_S`).

Only names of these exact forms are listed or removed, so pointing ``SHEEPSIM_CACHE_DIR``
at a shared folder never touches anything else in it. "Old" means made from other source
(a digest this source tree does not have): it is never read again. Removing a folder another sheepsim process
is using only costs that process a new compilation.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sheepsim import jit
from sheepsim.api import _run
from sheepsim.errors import SheepsimError
from sheepsim.game import games, get
from sheepsim.jit import cache_root

_OLD_LAYOUT = re.compile(r"kernels-([0-9a-f]{16})")
_MODULE = re.compile(r"([A-Za-z0-9_]+)-([0-9a-f]{16})")
_PLUGINS = re.compile(r"plugins-([0-9a-f]{16})-[0-9a-f]{16}")
_ODDS = re.compile(r"odds-[0-9a-f]{20}-([0-9a-f]{16})-\d+-\d+\.npz")
#: a ``.tmp`` file in ``odds/`` older than this (seconds) is a write that never finished
UNFINISHED_AFTER_S = 3600


@dataclass(frozen=True)
class CacheEntry:
    """One folder or file sheepsim made in the cache root. ``kind``: ``"kernels"`` (a
    module's folder in ``kernels/``), ``"plug-in kernels"``, ``"built-in variant
    kernels"`` (a ``plugins-*`` folder of sheepsim's own, :data:`sheepsim.jit.VARIANT_BUILTIN`),
    ``"kernels (old layout)"``, ``"odds table"`` or ``"unfinished write"``;
    ``size_bytes`` on disk; ``current``: this source tree uses it; ``modified``: when it
    last changed (Unix seconds; a kernel folder changes when a kernel is compiled into
    it); ``what``: a built-in variant's ``"<what>: <which>"``, else empty."""

    path: Path
    kind: str
    size_bytes: int
    current: bool
    modified: float
    what: str = ""


def _entry(path: Path, kind: str, current: bool, what: str = "") -> CacheEntry:
    if path.is_file():
        size = path.stat().st_size
    else:
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return CacheEntry(path, kind, size, current, path.stat().st_mtime, what)


def _variant_entry(path: Path, digest: str) -> CacheEntry:
    """A ``plugins-*`` folder: a built-in variant's if it says what it is
    (:data:`sheepsim.jit.VARIANT_BUILTIN`), else a plug-in's."""
    current = _plugins_current(path, digest)
    try:
        what = (path / jit.VARIANT_BUILTIN).read_text().strip()
    except OSError:
        return _entry(path, "plug-in kernels", current)
    return _entry(path, "built-in variant kernels", current, what)


def current_module_folders() -> dict[str, str]:
    """``{module folder: digest}`` of every module of this source tree
    (``games_race_engine``: :func:`sheepsim.jit.module_digest` of its file)."""
    files = jit.package_files(jit.PACKAGE_DIR)
    return {jit.module_folder(rel): jit.module_digest(rel) for rel in files}


def _plugins_current(path: Path, digest: str) -> bool:
    """Whether the variant folder ``path`` was keyed by this source tree: the digest of
    the modules its manifest names is still ``digest``."""
    try:
        rels = (path / jit.VARIANT_MANIFEST).read_text().split()
    except OSError:
        return False  # no manifest: nothing says which modules it was compiled from
    files = jit.package_files(jit.PACKAGE_DIR)
    return bool(rels) and all(r in files for r in rels) and jit.module_digest(*rels) == digest


def cache_entries(root: Path | None = None) -> list[CacheEntry]:
    """Every sheepsim folder and file in ``root`` (default: the cache root), this
    source tree's first, then the most recently changed."""
    root = cache_root() if root is None else Path(root)
    entries = []
    if root.is_dir():
        for path in root.iterdir():
            if _OLD_LAYOUT.fullmatch(path.name) and path.is_dir():
                entries.append(_entry(path, "kernels (old layout)", False))
    kernels = root / "kernels"
    if kernels.is_dir():
        modules = current_module_folders()
        for path in kernels.iterdir():
            if not path.is_dir():
                continue
            if match := _PLUGINS.fullmatch(path.name):
                entries.append(_variant_entry(path, match[1]))
            elif match := _MODULE.fullmatch(path.name):
                entries.append(_entry(path, "kernels", modules.get(match[1]) == match[2]))
    odds = root / "odds"
    if odds.is_dir():
        from sheepsim.games.race.simulate import odds_code_digest

        digest = odds_code_digest()
        now = time.time()
        for path in odds.iterdir():
            match = _ODDS.fullmatch(path.name)
            if match and path.is_file():
                entries.append(_entry(path, "odds table", match[1] == digest))
            elif (path.suffix == ".tmp" and path.is_file()
                  and now - path.stat().st_mtime > UNFINISHED_AFTER_S):
                entries.append(_entry(path, "unfinished write", False))
    return sorted(entries, key=lambda e: (not e.current, e.kind, -e.modified, e.path.name))


def remove_entries(entries: list[CacheEntry]) -> int:
    """Delete ``entries``; returns the bytes freed. Raises SheepsimError naming the first
    folder or file that could not be removed (those before it are gone)."""
    freed = 0
    for entry in entries:
        try:
            if entry.path.is_dir():
                shutil.rmtree(entry.path)
            else:
                entry.path.unlink(missing_ok=True)
        except OSError as exc:
            raise SheepsimError(f"cannot remove {entry.path}: {exc.strerror or exc}") from None
        freed += entry.size_bytes
    return freed


def _mb(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:,.1f} MB"


def _items(n: int) -> str:
    return "1 folder or file" if n == 1 else f"{n} folders and files"


#: what earlier versions called a built-in variant (its ``builtin.txt``), by today's name
_RENAMED = {"a harness game's entries, one for built-in line-ups and one for plug-ins":
            "a harness game's entries"}
#: a built-in variant's ``<which>`` naming a module and the line-ups it plays:
#: ``sheepsim.games.panic.machine (plug-ins)``
_MODULE_KIND = re.compile(r"(\S+) \((.+)\)")


def _named_lines(what: str, whiches: Counter) -> list[str]:
    """The lines naming one kind of built-in variant's current folders: ``what: a, b``;
    a harness game's entries a line per module, each kind of line-up once, with its
    count of folders when there are several (one per set of built-in policies)."""
    whiches.pop("", None)
    split = {w: _MODULE_KIND.fullmatch(w) for w in whiches}
    if not whiches or not all(split.values()):
        return [f"    {what}" + (f": {', '.join(sorted(whiches))}" if whiches else "")]
    modules: dict[str, list[str]] = {}
    for which, n in sorted(whiches.items(), key=lambda item: split[item[0]].groups()):
        module, kind = split[which].groups()
        modules.setdefault(module, []).append(kind + (f" ({n} folders)" if n > 1 else ""))
    return [f"    {what}, by the line-ups they play (a folder per set of built-in policies):"] + [
        f"      {module}: {', '.join(kinds)}" for module, kinds in sorted(modules.items())]


def cache_report(entries: list[CacheEntry], root: Path) -> list[str]:
    """The lines ``sheepsim cache`` prints: the kernel folders and the odds tables, a
    line each kind (the built-in variants' current folders named under theirs), each
    folder of the old layout, the total and what ``--prune`` would free."""
    if not entries:
        return [f"nothing cached at {root}"]
    lines = [f"cache folder: {root}"]
    for kind, label in (("kernels", "kernels/ (modules)"),
                        ("built-in variant kernels", "kernels/plugins-* built-in variants"),
                        ("plug-in kernels", "kernels/plugins-* plug-ins")):
        group = [e for e in entries if e.kind == kind]
        if group:
            n_current = sum(e.current for e in group)
            lines.append(f"  {label} ({len(group)} folder{'s' * (len(group) != 1)})  "
                         f"{_mb(sum(e.size_bytes for e in group))}"
                         f"  {n_current} for this source, {len(group) - n_current} old")
            named: dict[str, Counter] = {}
            for e in group:
                if e.current and e.what:
                    what, _, which = e.what.rpartition(": ")
                    what = _RENAMED.get(what, what)
                    named.setdefault(what or which, Counter())[which if what else ""] += 1
            for what, whiches in sorted(named.items()):
                lines += _named_lines(what, whiches)
    for e in entries:
        if e.kind == "kernels (old layout)":
            day = time.strftime("%Y-%m-%d", time.localtime(e.modified))
            lines.append(f"  {e.path.name}/  {_mb(e.size_bytes):>10}  changed {day}  "
                         "old (an earlier version's layout)")
    files = [e for e in entries if e.kind in ("odds table", "unfinished write")]
    if files:
        n_current = sum(e.current for e in files)
        lines.append(f"  odds/ ({len(files)} file{'s' * (len(files) != 1)})  "
                     f"{_mb(sum(e.size_bytes for e in files))}"
                     f"  {n_current} for this source, {len(files) - n_current} old")
    old = [e for e in entries if not e.current]
    lines.append(f"total {_mb(sum(e.size_bytes for e in entries))}; old: "
                 f"{_mb(sum(e.size_bytes for e in old))} in {_items(len(old))}"
                 + ("; `sheepsim cache --prune` removes them" if old else ""))
    return lines


#: the games of a warm-up step: each command is run once with these options (tiny)
WARM_GAMES = 16
#: the plug-in a harness game's warm-up plays at every seat (:mod:`sheepsim.warm_policy`):
#: it compiles the game's plug-in entry kernel, the one every line-up with plug-ins uses
WARM_PLUGIN = "sheepsim.warm_policy:any_option"


def warm_steps(game) -> list[tuple[str, dict]]:
    """``(command, options)`` of each run ``sheepsim cache warm`` makes for ``game``: the
    shared commands (play, compare, trace, balance) with the default policies and a few
    games, then the game's own (:attr:`sheepsim.game.Game.warm`); each compiles (or
    loads) the kernels that command uses. A game declared on the harness
    (:attr:`~sheepsim.game.Game.machine`) also plays :data:`WARM_PLUGIN`: its plug-in
    entry (Aw, Sheep! lists that run in its own ``warm``; so does the race, its machine
    not declared there, with a plug-in pace and bet policy)."""
    compare = {**game.sample.get("compare", {}), "games": WARM_GAMES}
    plugged = [("play", {"games": WARM_GAMES, "policy": WARM_PLUGIN})] if game.machine else []
    return [("play", {"games": WARM_GAMES}), ("compare", compare), ("trace", {"seed": 0}),
            ("balance", {"games": WARM_GAMES}), *plugged, *((c, dict(o)) for c, o in game.warm)]


def warm(games, progress: bool = True, part: tuple[int, int] = (0, 1)) -> int:
    """Run every :func:`warm_steps` of ``games`` (:class:`~sheepsim.game.Game`), one
    progress step each; returns the number of steps. ``part`` ``(i, n)``: only the
    ``i``-th of ``n`` consecutive slices of each game's steps (the test suite warms the
    slices in parallel processes: each compiles its own kernels)."""
    from tqdm import tqdm

    i, n = part
    steps = [(g, command, options) for g in games
             for command, options in _slice(warm_steps(g), i, n)]
    with tqdm(total=len(steps), unit="step", disable=not progress, leave=True) as bar:
        for g, command, options in steps:
            plugin = " (plug-in entry)" if WARM_PLUGIN in options.values() else ""
            bar.set_description(f"{g.command} {command}{plugin}")
            _run(g.name, command, options)
            bar.update()
    return len(steps)


def _slice(steps: list, i: int, n: int) -> list:
    return steps[len(steps) * i // n:len(steps) * (i + 1) // n]


def register(subparsers) -> None:
    """Add the top-level ``cache`` command."""
    p = subparsers.add_parser(
        "cache", help="show the kernel and odds cache; --prune removes what is old; "
                      "warm compiles ahead",
        description="List what sheepsim keeps in its cache folder (compiled kernels per "
                    "module and source digest, race-odds tables). Nothing is removed "
                    "unless asked. `sheepsim cache warm [--game G]` compiles every kernel "
                    "the games' commands use (and computes the race-odds table) now, so "
                    "that later runs start warm; in every game also the entry every "
                    "line-up with plug-in policies shares (the race: its whole games'), by "
                    "playing a plug-in shipped for it (sheepsim.warm_policy:any_option): "
                    "a first plug-in then compiles only itself.")
    p.add_argument("action", nargs="?", choices=["warm"],
                   help="warm: compile what every game (or --game) needs, with a progress bar")
    p.add_argument("--game", metavar="G", help="with warm: only this game (name or command)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--prune", action="store_true",
                      help="remove the folders and files made from other source (this "
                           "source tree never reads them again)")
    what.add_argument("--clear", action="store_true",
                      help="remove everything sheepsim keeps there, this version's too "
                           "(the next run compiles again)")
    p.set_defaults(func=cmd_cache)


def cmd_cache(args) -> int:
    if args.action == "warm":
        if args.prune or args.clear:
            raise SheepsimError("cache warm takes no --prune or --clear")
        chosen = [get(args.game)] if args.game else games()
        n = warm(chosen, progress=True)
        print(f"warm: {n} runs of {', '.join(g.command for g in chosen)}; kernels in "
              f"{jit.cache_dir()}")
        return 0
    if args.game:
        raise SheepsimError("--game is an option of `sheepsim cache warm`")
    root = cache_root()
    entries = cache_entries(root)
    if args.prune or args.clear:
        doomed = entries if args.clear else [e for e in entries if not e.current]
        freed = remove_entries(doomed)
        if args.clear:
            for folder in ("odds", "kernels"):
                with contextlib.suppress(OSError):  # only if empty: it may hold others' files
                    (root / folder).rmdir()
        print(f"removed {_items(len(doomed))} ({_mb(freed)}) from {root}")
        return 0
    print("\n".join(cache_report(entries, root)))
    return 0
