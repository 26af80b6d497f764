"""Running a report: validate, check the out folder, simulate each study (checkpointed),
write its tables and charts as soon as it finishes, then the documents and manifest.

Order of writes matters for interrupt safety: a study's files are written (atomically)
before the manifest lists it as done, and the checkpoints are removed only after the
final manifest is in place; an interrupt at any point leaves a folder ``--resume`` can
finish with exactly the numbers of an uninterrupted run.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pandas as pd

from sheepsim._version import __version__
from sheepsim.options import close_backend, make_backend
from sheepsim.output import atomic_write_bytes, atomic_write_text, format_csv
from sheepsim.report import figures, warmup
from sheepsim.report.config import ReportConfig, load_config
from sheepsim.report.execute import CHECKPOINT_DIR, checkpoint_path, run_direct, simulate, solve
from sheepsim.report.outdir import (
    COMPLETE,
    MANIFEST,
    RESTART,
    check_out,
    clear_previous,
    environment,
    file_entries,
    make_writable_folder,
    manifest_text,
    read_manifest,
)
from sheepsim.report.registry import Study
from sheepsim.report.render import RenderedStudy, duration_text, render_html, render_markdown


def run_report(config: str | Path | None, out: str | Path, *, resume: bool = False,
               quiet: bool = False, threads: int | None = None, scheduler: str | None = None,
               workers: int | None = None, backend=None, chunk_size: int | None = None,
               charts: bool = True, log=None, worker_timeout: float | None = None,
               started: float | None = None) -> dict:
    """Build the report of ``config`` (None: the shipped default) in ``out``.

    Where the games run: ``backend`` (a driver backend, e.g. a
    :class:`~sheepsim.dask_backend.DaskBackend`; left open), else ``threads``/
    ``scheduler``/``workers`` (as the CLI options), else the config's ``[run]`` table,
    else every local core; a Dask client and local cluster started here are closed at
    the end. ``chunk_size`` overrides every study's games per chunk (= per checkpoint).
    Results depend on neither. ``charts=False`` writes the tables and documents without
    drawing a chart (a CSV batch; drawing is most of a small report's time). ``log``
    receives one line per finished study (default: stderr unless ``quiet``) and, even
    with ``quiet``, the line saying a previous run in ``out`` is replaced. Returns the
    manifest; its ``total_seconds`` is the report's total time, the figure its header
    gives: wall clock from ``started`` (a ``time.perf_counter()``; default: this call)
    to the documents, plus the studies' time in earlier sessions (``--resume``).
    """
    started = time.perf_counter() if started is None else started
    def stderr(line: str) -> None:
        print(line, file=sys.stderr)

    # work about to be discarded is said even with quiet (to ``log`` if one is given)
    warn = log or stderr
    if log is None:
        log = (lambda line: None) if quiet else stderr
    cfg = load_config(config)  # every study, key and rules file validated here
    out = Path(out)
    mode = check_out(out, cfg.source, cfg.hash, resume)
    if mode == COMPLETE:
        done = read_manifest(out)
        drawn = done.get("charts", True)
        note = "" if drawn == charts else (
            f" ({'with' if drawn else 'without'} charts, as it was run; rerun without "
            "--resume to build it again)")
        log(f"{out}: the report is already complete{note}")
        # an interrupt between the final manifest and the clean-up can leave these behind
        shutil.rmtree(out / CHECKPOINT_DIR, ignore_errors=True)
        return done
    owned = backend is None
    warm = None
    if owned:
        run = {"threads": threads, "scheduler": scheduler, "workers": workers}
        run = run if any(v is not None for v in run.values()) else dict(cfg.run)
        if worker_timeout is not None:  # --worker-timeout: how long a Dask run waits
            run["worker_timeout"] = worker_timeout
        backend = make_backend(**run)
    try:
        if hasattr(backend, "start"):
            backend.start()  # an unreachable scheduler fails before anything is written
        if mode == RESTART:
            _say_restart(out, warn)
            clear_previous(out)
        make_writable_folder(out)  # before any simulation: a folder we cannot write fails now
        # the kernels of the simulated studies compiled in worker processes meanwhile
        # (not for Dask, whose workers compile where they run)
        if not hasattr(backend, "start"):
            warm = warmup.start(config, cfg.studies)
        return _run(cfg, out, resume=resume, quiet=quiet, chunk_size=chunk_size, log=log,
                    backend=backend, charts=charts, warm=warm, started=started)
    finally:
        if warm is not None:
            warm.close()
        if owned:
            close_backend(backend)


def _manifest(cfg: ReportConfig, env: dict, entries: list[dict], complete: bool,
              files: list[dict]) -> dict:
    doc = dict(env)
    doc.update({
        "title": cfg.title,
        "config": {"source": cfg.source, "sha256": cfg.sha256, "hash": cfg.hash, "text": cfg.text},
        "complete": complete,
        "rules": sorted({(s.game, s.rules_label(), s.rules.sha256) for s in cfg.studies}),
        "studies": entries,
        "files": files,
    })
    doc["rules"] = [{"game": g, "file": f, "sha256": h} for g, f, h in doc["rules"]]
    return doc


def _run(cfg: ReportConfig, out: Path, *, resume: bool, quiet: bool, chunk_size, log,
         backend, charts: bool, warm: warmup.Warmup | None = None,
         started: float | None = None) -> dict:
    started = time.perf_counter() if started is None else started
    env = dict(environment(), charts=charts)  # the manifest says whether charts were drawn
    entries = [dict(s.describe(), status="pending") for s in cfg.studies]
    atomic_write_text(out / MANIFEST, manifest_text(_manifest(cfg, env, entries, False, [])))
    rendered: list[RenderedStudy] = []
    files: list[str] = []
    earlier = 0.0  # the studies' time in earlier sessions of this report (--resume)
    for i, study in enumerate(cfg.studies):
        t0 = time.perf_counter()
        if study.exact:
            cp = solve(study, _identity_hash(study))
        elif study.direct:
            cp = run_direct(study, _identity_hash(study), backend, not quiet)
        else:
            if warm is not None:
                warm.wait(study)
            cp = simulate(study.job(), study.sampling, checkpoint_path(out, study.name),
                          _identity_hash(study), resume=resume, progress=not quiet,
                          desc=study.name, chunk_size=chunk_size, backend=backend)
        earlier += cp.earlier_seconds
        r = _write_study(out, study, cp, charts)
        rendered.append(r)
        study_files = list(r.tables.values()) + [p for png, svg, _ in r.charts.values() for p in (png, svg)]
        files += study_files
        seconds = {("solve_seconds" if study.exact else "simulate_seconds"): round(cp.seconds, 3)}
        entries[i].update(status="done", games=cp.done, **seconds,
                          wall_seconds=round(cp.earlier_seconds + time.perf_counter() - t0, 3),
                          files=study_files)
        atomic_write_text(out / MANIFEST, manifest_text(_manifest(cfg, env, entries, False, [])))
        log(study_log_line(study.name, cp, time.perf_counter() - t0, exact=study.exact))
    # one figure for the page, the manifest and the line the command ends with
    total = round(earlier + time.perf_counter() - started, 3)
    header = [header_line(env["sheepsim_version"], cfg),
              f"Total time {duration_text(total)} for {len(entries)} "
              f"{'study' if len(entries) == 1 else 'studies'} (wall clock from the command's "
              "start, earlier sessions' studies included; per study in manifest.json)."]
    if not charts:
        header.append("Charts were not drawn (--no-charts): the tables hold every number.")
    atomic_write_text(out / "index.html", render_html(cfg.title, header, rendered))
    atomic_write_text(out / "report.md", render_markdown(cfg.title, header, rendered))
    files += ["index.html", "report.md"]
    doc = _manifest(cfg, env, entries, True, file_entries(out, files))
    doc["total_seconds"] = total
    atomic_write_text(out / MANIFEST, manifest_text(doc))
    # Only now is every number safely on disk; the checkpoints have served their purpose.
    shutil.rmtree(out / CHECKPOINT_DIR, ignore_errors=True)
    return doc


def header_line(version: str, cfg: ReportConfig) -> str:
    """The page's provenance line: the config file's SHA-256 (what ``sha256sum`` says)
    and the studies digest (what decides whether a folder holds this report)."""
    return (f"sheepsim {version} · config {cfg.source} (SHA-256 {cfg.sha256[:12]}) · "
            f"studies digest {cfg.hash[:12]} (of every study's type, seed, games, parameters "
            f"and rules file) · full provenance in manifest.json")


def study_log_line(name: str, cp, session_seconds: float, exact: bool = False) -> str:
    """One line per finished study; a resumed study says what came from its checkpoint
    and how long this session spent on it; an exact one that it was solved."""
    if exact:
        return f"{name}: solved exactly, {session_seconds:.1f} s"
    line = f"{name}: {cp.done:,} games"
    if cp.loaded_finished:
        return (f"{line}, loaded from the checkpoint (not simulated again; "
                f"{session_seconds:.1f} s this session)")
    if cp.earlier_games:
        return (f"{line} ({cp.earlier_games:,} from the checkpoint), {session_seconds:.1f} s "
                f"this session")
    return f"{line}, {session_seconds:.1f} s"


def _say_restart(out: Path, log) -> None:
    """One line when a run without ``--resume`` replaces what the folder holds."""
    manifest = read_manifest(out) or {}
    if manifest.get("complete"):
        log(f"{out}: replacing the previous run of this report")
    else:
        log(f"{out}: holds an unfinished run of this report; starting over "
            "(use --resume to continue it instead)")


def _identity_hash(study: Study) -> str:
    """What a checkpoint must match to be continued: the study and the sheepsim version
    (another version may simulate differently, so its totals must not be mixed in)."""
    import hashlib
    import json

    doc = {"study": study.identity(), "sheepsim": __version__}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _stopping(study: Study, cp) -> tuple[pd.DataFrame, str]:
    """The sequential-stopping record of a precision study, and a one-line finding."""
    target = study.sampling.precision
    df = pd.DataFrame(cp.trace, columns=["games", "max_halfwidth"])
    df["precision"] = target
    df["met"] = df["max_halfwidth"] <= target
    last = df.iloc[-1]
    if last["met"]:
        note = (f"Stopped after {cp.done:,} games: every reported probability's 95% half-width "
                f"is at most {target:g} (widest {last['max_halfwidth']:.4f}).")
    else:
        note = (f"Reached max_games ({cp.done:,}) before the precision target {target:g}: the "
                f"widest 95% half-width is {last['max_halfwidth']:.4f}.")
    return df, note


def _write_study(out: Path, study: Study, cp, charts: bool) -> RenderedStudy:
    """Tables as CSV and (if ``charts``) charts as PNG + SVG under ``out/<study>/``."""
    result = study.results(cp.totals, cp.done)
    games = cp.done
    if study.sampling.precision is not None:
        result.tables["stopping"], note = _stopping(study, cp)
        result.notes.append(note)
        result.captions["stopping"] = ("Sequential stopping: the widest 95% half-width of the "
                                       "reported probabilities at each block boundary checked.")
    folder = out / study.name
    folder.mkdir(exist_ok=True)
    r = RenderedStudy(study, games, result)
    for name, df in result.tables.items():
        rel = f"{study.name}/{name}.csv"
        atomic_write_text(out / rel, format_csv(df))
        r.tables[name] = rel
    for name, draw in result.figures.items():
        png, svg = f"{study.name}/{name}.png", f"{study.name}/{name}.svg"
        if not charts:  # a resumed run may find the charts of an earlier session
            for rel in (png, svg):
                (out / rel).unlink(missing_ok=True)
            continue
        fig = draw()
        r.chart_titles[name] = figures.title(fig)
        data = figures.png_bytes(fig)
        atomic_write_bytes(out / png, data)
        atomic_write_bytes(out / svg, figures.svg_bytes(fig))
        figures.close(fig)
        r.charts[name] = (png, svg, data)
    return r
