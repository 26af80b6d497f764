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
    """Write ``data`` to ``path`` via a temporary file and ``os.replace``."""
    path = Path(path)
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


def format_table(df: pd.DataFrame, title: str | None = None, meta: dict | None = None) -> str:
    """Human-readable table with a short header naming what produced it."""
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
    body = df.to_string(index=False, float_format=lambda x: f"{x:.4f}", na_rep="")
    lines.append(body)
    return "\n".join(lines) + "\n"


def render(tables: dict[str, pd.DataFrame], fmt: str, meta: dict, title: str = "") -> str:
    """Render one or more named tables in ``fmt``.

    ``json``: ``{"meta": ..., "<name>": [rows...]}``. ``csv``: the first table only
    (other tools parse it; use ``json`` for several). ``table``: all, one after another.
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
    parts = []
    for i, (name, df) in enumerate(tables.items()):
        parts.append(format_table(df, title=(title if i == 0 else name), meta=meta if i == 0 else None))
    return "\n".join(parts)


def check_output_file(path, option: str = "--out") -> None:
    """One-line error, before any work, for a file path that cannot be written: empty, an
    existing folder, a missing or unwritable folder."""
    if path is None:
        return
    text = str(path)
    if not text.strip():
        raise SheepsimError(f"{option}: the file name is empty")
    p = Path(text)
    if p.is_dir():
        raise SheepsimError(f"{option} {text}: is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise SheepsimError(f"{option} {text}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise SheepsimError(f"{option} {text}: no permission to write there")


def emit(text: str, out: str | None, meta: dict) -> None:
    """Print ``text`` or write it to ``out`` plus a ``out.meta.json`` sidecar."""
    if out is None:
        sys.stdout.write(text)
        return
    atomic_write_text(out, text)
    try:
        atomic_write_text(f"{out}.meta.json", to_json(meta))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(out)
        raise
