"""The out folder: deciding whether it may be written, and the manifest.

``manifest.json`` is written as soon as a run starts (``"complete": false``) and
rewritten after every finished study, so a folder always says which config it belongs
to (by the studies digest, ``ReportConfig.hash``) and which studies in it are finished. Rules:

* a missing or empty folder: a fresh report;
* a folder whose manifest has this config's studies digest: ``--resume`` continues it (or does
  nothing if it is complete); without ``--resume`` the report is restarted cleanly
  (checkpoints and the files the old manifest lists are removed, then everything runs);
* anything else (a different config's report, files that are not a report): an error,
  and nothing in the folder is touched.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from pathlib import Path

from sheepsim.errors import SheepsimError
from sheepsim.output import base_meta, sha256_bytes, to_json
from sheepsim.report.execute import CHECKPOINT_DIR
from sheepsim.report.reader import ConfigError

MANIFEST = "manifest.json"
FRESH, RESTART, RESUME, COMPLETE = "fresh", "restart", "resume", "complete"


def read_manifest(out: Path) -> dict | None:
    try:
        return json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}


def check_out(out: Path, config_source: str, config_hash: str, resume: bool) -> str:
    """What to do with ``out`` (FRESH, RESTART, RESUME, COMPLETE); raise ConfigError
    if it must not be written. Reads only."""

    def fail(problem: str):
        raise ConfigError(config_source, f"--out {out}", "", problem)

    if not out.exists():
        return FRESH
    if not out.is_dir():
        fail("exists and is not a folder")
    if not any(out.iterdir()):
        return FRESH
    manifest = read_manifest(out)
    if manifest is None:
        fail("is not empty and holds no sheepsim report (no manifest.json); "
             "choose a new or empty folder")
    old = manifest.get("config", {}).get("hash") if isinstance(manifest, dict) else None
    if not isinstance(old, str):
        fail("has a manifest.json that is not a sheepsim report manifest; choose another folder")
    if old != config_hash:
        fail(f"holds a different report (studies digest {old[:12]}, this config's "
             f"{config_hash[:12]}); "
             "choose another folder or delete it")
    if not resume:
        return RESTART
    return COMPLETE if manifest.get("complete") else RESUME


def make_writable_folder(out: Path) -> None:
    """Create ``out`` (and its parents) and prove a file can be written in it; one
    :class:`SheepsimError` line otherwise (a read-only disk, no permission, a path
    under a file), so the report fails before it simulates anything."""
    import tempfile

    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise SheepsimError(f"--out {out}: cannot write the report there "
                            f"({exc.strerror or exc})") from None


def clear_previous(out: Path) -> None:
    """Remove a previous run of the same config: its checkpoints and listed files."""
    manifest = read_manifest(out) or {}
    listed = [e.get("path", "") for e in manifest.get("files", []) if isinstance(e, dict)]
    for study in manifest.get("studies", []):  # an unfinished run lists files per study
        if isinstance(study, dict):
            listed += [p for p in study.get("files", []) if isinstance(p, str)]
    for rel in listed:
        target = (out / rel).resolve()
        # only files inside the folder, whatever the manifest says
        if rel and out.resolve() in target.parents and target.is_file():
            target.unlink()
    shutil.rmtree(out / CHECKPOINT_DIR, ignore_errors=True)


def environment() -> dict:
    """Versions and machine for the manifest."""
    import matplotlib
    import numba

    meta = base_meta()
    meta["matplotlib"] = matplotlib.__version__
    meta["machine"] = {"platform": platform.platform(), "machine": platform.machine(),
                       "processor": platform.processor() or None, "cpus": os.cpu_count(),
                       "numba_threads": numba.get_num_threads()}
    return meta


def file_entries(out: Path, paths: list[str]) -> list[dict]:
    return [{"path": p, "sha256": sha256_bytes((out / p).read_bytes())} for p in paths]


def manifest_text(doc: dict) -> str:
    return to_json(doc)
