"""Writing results: tables (text, CSV, JSON), metadata and atomic files.

Every output records what produced it (seed, games, rules file and its SHA-256,
policies, sheepsim version). Files are written to a temporary name in the same folder
and renamed into place, so an error or an interrupt never leaves a partial file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import platform
import sys
import tempfile
import textwrap
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from sheepsim._version import __version__
from sheepsim.errors import SheepsimError

if TYPE_CHECKING:  # imported where used: rules files and the CLI parser need this module
    import pandas as pd

FORMATS = ("table", "csv", "json")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def base_meta(**fields) -> dict:
    """Metadata common to every output; ``fields`` add the run's own (seed, games...)."""
    import numba
    import numpy as np
    import pandas as pd

    meta = {
        "sheepsim_version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "pandas": pd.__version__,
    }
    meta.update(fields)
    return meta


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that an error or an interrupt never leaves a partial
    file: via a temporary file in the same folder and ``os.replace``.

    A symbolic link is written through (its target is replaced, the link stays); a
    pipe or a device (``/dev/stdout``, a FIFO) cannot be replaced and is written
    directly."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file() and not path.is_dir():
        with open(path, "wb") as fh:
            fh.write(data)
        return
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise SheepsimError(f"cannot write {path}: folder {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        # mkstemp creates 0600; give the file the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def is_stream(path) -> bool:
    """Whether ``path`` (after links) is an existing pipe or device rather than a file."""
    p = Path(os.path.realpath(path))
    return p.exists() and not p.is_file() and not p.is_dir()


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _jsonable(value):
    import numpy as np
    import pandas as pd

    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        f = float(value)
        return None if math.isnan(f) else f
    if isinstance(value, np.bool_):
        return bool(value)
    if value is pd.NA or value is None:
        return None
    return value


def to_json(obj) -> str:
    return json.dumps(_jsonable(obj), indent=2, sort_keys=False) + "\n"


def frame_records(df: pd.DataFrame) -> list[dict]:
    """Rows as plain dicts with NaN turned into JSON null."""
    return [_jsonable(rec) for rec in df.to_dict(orient="records")]


def format_csv(df: pd.DataFrame) -> str:
    # Fixed float format so the same numbers always give the same bytes.
    return df.to_csv(index=False, float_format="%.10g", lineterminator="\n")


#: the CLI ``table`` format's width (characters) before it leaves columns out
TABLE_WIDTH = 120
#: ``--all-columns`` for :func:`render` calls that do not say (set once per command by
#: :func:`sheepsim.cli.main` from the option every ``--format`` command has)
TABLE_OPTIONS = {"all_columns": False}


def format_table(df: pd.DataFrame, title: str | None = None, meta: dict | None = None, *,
                 all_columns: bool = False, width: int = TABLE_WIDTH) -> str:
    """Human-readable table with a short header naming what produced it.

    By default the reader's columns (:func:`sheepsim.tableview.table_view`: intervals
    folded into ``x (95% CI)``, no standard errors, a constant note once below, columns
    left out from the right beyond ``width`` characters, and a line saying so);
    ``all_columns``: every column, each formatted the same way."""
    from sheepsim.tableview import table_view, text_table

    lines = []
    if title:
        lines.append(title)
    if meta:
        keys = [k for k in ("rules", "rules_sha256", "policy", "games", "seed") if k in meta]
        bits = []
        for k in keys:
            v = meta[k]
            if k == "rules_sha256":
                v = str(v)[:12]
            if k == "games":
                v = f"{v:,}"
            bits.append(f"{k}={v}")
        if bits:
            lines.append("  ".join(bits))
    view = table_view(df, all_columns=all_columns, width=None if all_columns else width)
    lines.append(text_table(view, None if all_columns else width, wrap_to=width))
    for line in view.footer:  # said once for every row, wrapped to the table's width
        lines += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
    if view.hidden:
        names = view.hidden[:4] + ([f"{len(view.hidden) - 4} more"] if len(view.hidden) > 4 else [])
        lines.append(f"({len(view.headers)} of {view.total} columns shown, not {', '.join(names)}; "
                     f"--all-columns shows them, csv and json have them all)")
    return "\n".join(lines) + "\n"


def render(tables: dict[str, pd.DataFrame], fmt: str, meta: dict, title: str = "", *,
           all_columns: bool | None = None) -> str:
    """Render one or more named tables in ``fmt``.

    ``json``: ``{"meta": ..., "<name>": [rows...]}``. ``csv``: the first table only
    (other tools parse it; use ``json`` for several). ``table``: all, one after another,
    each as :func:`format_table` (``all_columns``: every column; None: as the command's
    ``--all-columns`` said). CSV and JSON always have every column and every digit.
    """
    if fmt not in FORMATS:
        raise SheepsimError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        doc = {"meta": meta}
        for name, df in tables.items():
            doc[name] = frame_records(df)
        return to_json(doc)
    if fmt == "csv":
        return format_csv(next(iter(tables.values())))
    if all_columns is None:
        all_columns = TABLE_OPTIONS["all_columns"]
    parts = []
    for i, (name, df) in enumerate(tables.items()):
        parts.append(format_table(df, title=(title if i == 0 else name),
                                  meta=meta if i == 0 else None, all_columns=all_columns))
    return "\n".join(parts)


def decisions_table(rows, columns, kind_names, phase_column=None) -> pd.DataFrame:
    """A trace's ``decisions`` table, the same in every game: one row per decision a
    policy was asked, in order (a lone legal option is taken without asking and is not a
    row). ``rows`` ``(n, k)`` the kernel's decision log; ``columns`` the log's columns of
    ``(seat 0-based, kind, n_options, choice)``; ``kind_names`` the game's decision kinds
    by id; ``phase_column`` the column of the seat stream's phase (None: one stream per
    seat, phase 0).

    Columns: ``decision`` (0-based order), ``seat`` (1-based, as every other table and
    error line), ``phase`` (of ``sheepsim.rng.seed_policy_stream``), ``kind`` (lower
    case), ``n_options`` and ``choice`` (the 0-based row of the options it picked)."""
    import numpy as np
    import pandas as pd

    rows = np.asarray(rows, dtype=np.int64)
    seat, kind, n_options, choice = columns
    phase = rows[:, phase_column] if phase_column is not None else np.zeros(len(rows), np.int64)
    return pd.DataFrame({"decision": np.arange(len(rows), dtype=np.int64),
                         "seat": rows[:, seat] + 1, "phase": phase,
                         "kind": [kind_names[k].lower() for k in rows[:, kind]],
                         "n_options": rows[:, n_options], "choice": rows[:, choice]})


def check_output_file(path, option: str = "--out") -> None:
    """One-line error, before any work, for a file path that cannot be written: empty, an
    existing folder, a missing folder, or a folder where no file can be created (tried:
    permission bits do not tell for root or for ``/proc``)."""
    if path is None:
        return
    text = str(path)
    if not text.strip():
        raise SheepsimError(f"{option}: the file name is empty")
    p = Path(os.path.realpath(text))
    if p.is_dir():
        raise SheepsimError(f"{option} {text}: is a folder; give a file name")
    if is_stream(p):
        if not os.access(p, os.W_OK):
            raise SheepsimError(f"{option} {text}: no permission to write there")
        return
    parent = p.parent
    if not parent.is_dir():
        raise SheepsimError(f"{option} {text}: {_missing_folder(Path(text).parent)}")
    sidecar = Path(f"{p}.meta.json")
    if option == "--out" and sidecar.is_dir():
        raise SheepsimError(f"{option} {text}: its metadata file {text}.meta.json is a folder; "
                            "give another file name")
    if p.exists() and not os.access(p, os.W_OK):
        raise SheepsimError(f"{option} {text}: no permission to write there")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".probe", dir=parent)
    except OSError as exc:
        raise SheepsimError(f"{option} {text}: cannot create a file in {Path(text).parent or '.'} "
                            f"({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _missing_folder(folder: Path) -> str:
    """Why the folder ``folder`` (as the user wrote it) cannot hold a file: the nearest
    of it and its parents that exists is a file (``a.json/x.csv``), else it does not
    exist."""
    for up in (folder, *folder.parents):
        if up.exists() or up.is_symlink():
            if not up.is_dir():
                return f"{up} is a file, not a folder"
            break
    return f"folder {folder} does not exist"


#: Where :func:`emit` prints instead of stdout in this thread (or asyncio task): see
#: :func:`captured_output`. A context variable, so concurrent captures do not mix.
_CAPTURE: ContextVar[list[str] | None] = ContextVar("sheepsim_output_capture", default=None)


@contextlib.contextmanager
def captured_output():
    """Collect what :func:`emit` would print to stdout in this context: yields a list
    the printed texts are appended to (``sheepsim serve`` answers with exactly what a
    command prints, from any number of request threads at once)."""
    texts: list[str] = []
    token = _CAPTURE.set(texts)
    try:
        yield texts
    finally:
        _CAPTURE.reset(token)


def emit(text: str, out: str | None, meta: dict) -> None:
    """Print ``text`` or write it to ``out`` plus a ``out.meta.json`` sidecar (none for a
    pipe or device: use ``--format json`` to keep the metadata with the tables there).

    If the file cannot be written after all (disk full, the folder gone), the result is
    not lost: it is saved in the temporary folder and the one-line error names it."""
    if out is None:
        capture = _CAPTURE.get()
        if capture is not None:
            capture.append(text)
        else:
            sys.stdout.write(text)
        return
    try:
        atomic_write_text(out, text)
        if is_stream(out):
            return
        try:
            atomic_write_text(f"{out}.meta.json", to_json(meta))
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(out)
            raise
    except OSError as exc:
        raise SheepsimError(f"cannot write {out} ({exc.strerror or exc}); "
                            f"{_save_elsewhere(out, text, meta)}") from None


def _save_elsewhere(out, text: str, meta: dict) -> str:
    """Save a result that could not be written where asked; say where it went."""
    fd, rescue = tempfile.mkstemp(prefix="sheepsim-", suffix=f"-{Path(str(out)).name}")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        atomic_write_text(f"{rescue}.meta.json", to_json(meta))
    except OSError:
        return "the result could not be saved elsewhere either"
    return f"the result is saved in {rescue}"


def table_files(out: str, names) -> dict[str, str]:
    """Where ``--out FILE`` puts each of several tables written as CSV, one file per
    table: the first table in ``FILE`` itself (as every command writes its one CSV
    table), every other in ``FILE`` with the table's name before the ending
    (``v.csv``: ``v.csv``, ``v.differences.csv``; a name without ending: ``v.differences``)."""
    p = Path(str(out))
    names = list(names)
    files = {names[0]: str(out)}
    for name in names[1:]:
        files[name] = str(p.with_name(f"{p.stem}.{name}{p.suffix}" if p.suffix else f"{p.name}.{name}"))
    return files


#: ``--out`` file endings that choose the format when ``--format`` is not given
FORMAT_BY_SUFFIX = {".csv": "csv", ".json": "json"}
#: the ending of a file holding the text table (a name without ending holds any format)
TEXT_SUFFIX = ".txt"


def output_format(fmt: str | None, out: str | None,
                  formats: tuple[str, ...] = ("table", "csv", "json")) -> str:
    """``--format`` as given, else what ``--out``'s ending says (``.csv``, ``.json``),
    else ``table``. A ``--format`` that contradicts the ending is refused: a ``.csv``
    file holding JSON would mislead whoever opens it, and so would JSON or CSV in a
    ``.txt`` (a name without an ending is free); so is a format the command does not
    write (``formats``: a trace without tables is text, never csv), and any other ending (``.xlsx``:
    sheepsim writes no spreadsheet, and a text table there would not open)."""
    suffix = Path(str(out)).suffix.lower() if out else ""
    if suffix and suffix != TEXT_SUFFIX and suffix not in FORMAT_BY_SUFFIX and not is_stream(out):
        endings = [e for e, f in FORMAT_BY_SUFFIX.items() if f in formats]
        raise SheepsimError(f"--out {out}: sheepsim does not write {suffix} files; end the name "
                            f"in {', '.join(endings)} or {TEXT_SUFFIX} (the text table), or "
                            "leave the ending out")
    implied = FORMAT_BY_SUFFIX.get(suffix)
    if fmt and implied and fmt != implied:
        raise SheepsimError(f"--format {fmt} but --out {out} ends in "
                            f"{Path(str(out)).suffix}: give one of them, or make them agree")
    if fmt in FORMAT_BY_SUFFIX.values() and suffix and not implied:
        # JSON or CSV in a file whose name says otherwise (x.txt) misleads whoever opens it
        raise SheepsimError(f"--format {fmt} but --out {out} ends in {Path(str(out)).suffix}: "
                            f"name the file {Path(str(out)).stem}.{fmt}, or leave --format "
                            "out for a text table")
    chosen = fmt or implied or "table"
    if chosen not in formats:
        raise SheepsimError(f"--out {out} asks for {chosen}, but this command writes "
                            f"{' or '.join(formats)}")
    return chosen
