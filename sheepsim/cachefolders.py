"""``sheepsim cache``: what sheepsim keeps in its cache folder, and removing what is old.

Two things live under :func:`sheepsim.jit.cache_root` (``~/.cache/sheepsim`` unless
``SHEEPSIM_CACHE_DIR`` or ``NUMBA_CACHE_DIR`` moves it):

* ``kernels-<digest>/``: compiled kernels, one folder per package source digest
  (:func:`sheepsim.jit.source_digest`: every source file, the sheepsim and numba
  versions). Each upgrade or source edit starts a new folder and nothing is ever deleted
  on import (a running process of another version may be using its folder), so old
  folders pile up, tens of MB each. Plug-in policy variants live inside the folder of the
  version that compiled them.
* ``odds/odds-<rules>-<digest>-<races>-<seed>.npz``: the race-odds tables the race
  policies read, one per rules file and source digest; ``*.tmp`` files are writes that
  never finished (older than :data:`UNFINISHED_AFTER_S`).

Only names of these exact forms are listed or removed, so pointing ``SHEEPSIM_CACHE_DIR``
at a shared folder never touches anything else in it. "Old" means made by another source
digest: this version never reads it again. Removing a folder another sheepsim process
is using only costs that process a new compilation.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from sheepsim.errors import SheepsimError
from sheepsim.jit import cache_root, source_digest

_KERNELS = re.compile(r"kernels-([0-9a-f]{16})")
_ODDS = re.compile(r"odds-[0-9a-f]{20}-([0-9a-f]{16})-\d+-\d+\.npz")
#: a ``.tmp`` file in ``odds/`` older than this (seconds) is a write that never finished
UNFINISHED_AFTER_S = 3600


@dataclass(frozen=True)
class CacheEntry:
    """One folder or file sheepsim made in the cache root. ``kind``: ``"kernels"``,
    ``"odds table"`` or ``"unfinished write"``; ``size_bytes`` on disk; ``current``:
    this version (its source digest) uses it; ``modified``: when it last changed (Unix
    seconds; a kernel folder changes when a kernel is compiled into it)."""

    path: Path
    kind: str
    size_bytes: int
    current: bool
    modified: float


def _entry(path: Path, kind: str, current: bool) -> CacheEntry:
    if path.is_file():
        size = path.stat().st_size
    else:
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return CacheEntry(path, kind, size, current, path.stat().st_mtime)


def cache_entries(root: Path | None = None) -> list[CacheEntry]:
    """Every sheepsim folder and file in ``root`` (default: the cache root), this
    version's (its source digest) first, then the most recently changed."""
    root = cache_root() if root is None else Path(root)
    digest = source_digest()
    entries = []
    if root.is_dir():
        for path in root.iterdir():
            match = _KERNELS.fullmatch(path.name)
            if match and path.is_dir():
                entries.append(_entry(path, "kernels", match[1] == digest))
    odds = root / "odds"
    if odds.is_dir():
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


def cache_report(entries: list[CacheEntry], root: Path) -> list[str]:
    """The lines ``sheepsim cache`` prints: each kernel folder, the odds tables in one
    line, the total and what ``--prune`` would free."""
    if not entries:
        return [f"nothing cached at {root}"]
    lines = [f"cache folder: {root}"]
    for e in entries:
        if e.kind == "kernels":
            use = "this version" if e.current else "old (another version or source)"
            day = time.strftime("%Y-%m-%d", time.localtime(e.modified))
            lines.append(f"  {e.path.name}/  {_mb(e.size_bytes):>10}  changed {day}  {use}")
    files = [e for e in entries if e.kind != "kernels"]
    if files:
        n_current = sum(e.current for e in files)
        lines.append(f"  odds/ ({len(files)} file{'s' * (len(files) != 1)})  "
                     f"{_mb(sum(e.size_bytes for e in files))}"
                     f"  {n_current} for this version, {len(files) - n_current} old")
    old = [e for e in entries if not e.current]
    lines.append(f"total {_mb(sum(e.size_bytes for e in entries))}; old: "
                 f"{_mb(sum(e.size_bytes for e in old))} in {_items(len(old))}"
                 + ("; `sheepsim cache --prune` removes them" if old else ""))
    return lines


def register(subparsers) -> None:
    """Add the top-level ``cache`` command."""
    p = subparsers.add_parser(
        "cache", help="show the kernel and odds cache; --prune removes what is old",
        description="List what sheepsim keeps in its cache folder (compiled kernels per "
                    "source version, race-odds tables). Nothing is removed unless asked.")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--prune", action="store_true",
                      help="remove the folders and files of other versions (this version "
                           "never reads them again)")
    what.add_argument("--clear", action="store_true",
                      help="remove everything sheepsim keeps there, this version's too "
                           "(the next run compiles again)")
    p.set_defaults(func=cmd_cache)


def cmd_cache(args) -> int:
    root = cache_root()
    entries = cache_entries(root)
    if args.prune or args.clear:
        doomed = entries if args.clear else [e for e in entries if not e.current]
        freed = remove_entries(doomed)
        if args.clear:
            with contextlib.suppress(OSError):  # only if empty: it may hold others' files
                (root / "odds").rmdir()
        print(f"removed {_items(len(doomed))} ({_mb(freed)}) from {root}")
        return 0
    print("\n".join(cache_report(entries, root)))
    return 0
