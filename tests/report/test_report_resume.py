"""Reproducibility, interrupts and --resume, and re-running into the same folder."""

from __future__ import annotations

import json

import pytest

from sheepsim.report import execute
from sheepsim.report.build import run_report

from .helpers import csvs, tree, write_config

CHUNK = 500  # games per checkpoint in the interrupted runs


@pytest.fixture
def reference_run(small_report):
    """An uninterrupted run with the default chunk sizes and every core."""
    return small_report


@pytest.fixture
def reference(reference_run):
    return csvs(reference_run[0])


def _saves_per_study(manifest) -> dict[str, int]:
    """Checkpoints each study writes with chunks of CHUNK games (blocks are multiples)."""
    return {s["name"]: -(-s["games"] // CHUNK) for s in manifest["studies"]}


def test_same_config_gives_identical_csvs_for_any_chunk_size_and_threads(tmp_path, reference_run,
                                                                         reference):
    out = tmp_path / "out"
    run_report(write_config(tmp_path), out, quiet=True, threads=1, chunk_size=700)
    assert csvs(out) == reference
    # charts too (same machine and library versions): no dates, fixed SVG ids
    charts = {k: v for k, v in tree(out).items() if k.endswith((".png", ".svg"))}
    assert charts and charts == {k: v for k, v in tree(reference_run[0]).items() if k in charts}


def _interrupt_after(monkeypatch, n_saves: int):
    """Make the n-th checkpoint write raise KeyboardInterrupt right after it lands, as if
    the user pressed Ctrl-C between two chunks."""
    real = execute.save_checkpoint
    calls = {"n": 0}

    def save(path, cp):
        real(path, cp)
        calls["n"] += 1
        if calls["n"] == n_saves:
            raise KeyboardInterrupt

    monkeypatch.setattr(execute, "save_checkpoint", save)


@pytest.mark.parametrize("where", ["inside semi", "end of semi", "inside fairness",
                                   "inside balance", "inside panic"])
def test_resume_after_interrupt_gives_the_uninterrupted_result(tmp_path, monkeypatch, reference_run,
                                                               reference, where):
    # "end of semi": after the first study's last checkpoint, before its files are written;
    # fairness is the precision study (it stops at a block boundary)
    saves = _saves_per_study(reference_run[1])
    names = list(saves)
    before = {n: sum(saves[m] for m in names[:i]) for i, n in enumerate(names)}
    n_saves = {"inside semi": 3, "end of semi": saves["semi"],
               "inside fairness": before["fairness"] + 2, "inside balance": before["balance"] + 1,
               "inside panic": before["panic"] + 1}[where]
    config = write_config(tmp_path)
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, n_saves)
    with pytest.raises(KeyboardInterrupt):
        run_report(config, out, quiet=True, charts=False, chunk_size=CHUNK)
    monkeypatch.undo()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False
    assert any((out / ".checkpoints").iterdir())
    done = [s for s in manifest["studies"] if s["status"] == "done"]
    for s in done:  # finished studies are on disk already
        assert all((out / f).is_file() for f in s["files"])
    lines: list[str] = []
    run_report(config, out, resume=True, quiet=True, charts=False, chunk_size=300, log=lines.append)
    assert csvs(out) == reference
    assert not (out / ".checkpoints").exists()
    assert json.loads((out / "manifest.json").read_text())["complete"] is True
    # the log says which studies came from their checkpoints and this session's time
    by_study = {line.split(":")[0]: line for line in lines}
    for s in done:
        assert "loaded from the checkpoint (not simulated again" in by_study[s["name"]]
    assert all(line.endswith((" s", " s this session", " s this session)")) for line in lines)


def test_resume_continues_from_the_checkpoint(tmp_path, monkeypatch):
    config = write_config(tmp_path)
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, 6)
    with pytest.raises(KeyboardInterrupt):
        run_report(config, out, quiet=True, charts=False, chunk_size=CHUNK)
    monkeypatch.undo()
    starts = []
    real = execute.simulate

    def spy(job, *args, **kwargs):
        chunk = job.chunk

        def recording(start, count):
            starts.append(start)
            return chunk(start, count)

        job.chunk = recording
        return real(job, *args, **kwargs)

    monkeypatch.setattr("sheepsim.report.build.simulate", spy)
    lines: list[str] = []
    run_report(config, out, resume=True, quiet=True, charts=False, chunk_size=CHUNK, log=lines.append)
    assert starts[0] == 3000  # six chunks of the first study were already done
    assert lines[0].startswith("semi: 6,000 games (3,000 from the checkpoint), ")
    assert lines[0].endswith(" s this session")
    assert "checkpoint" not in lines[1]  # the next study ran from its start


def test_resume_of_a_complete_report_changes_nothing(tmp_path):
    config = write_config(tmp_path)
    out = tmp_path / "out"
    run_report(config, out, quiet=True, charts=False)
    before = tree(out)
    run_report(config, out, resume=True, quiet=True, charts=False)
    assert tree(out) == before
    lines: list[str] = []  # asked for charts now: said, not done (the report is complete)
    run_report(config, out, resume=True, quiet=True, log=lines.append)
    assert tree(out) == before
    assert lines == [f"{out}: the report is already complete (without charts, as it was run; "
                     "rerun without --resume to build it again)"]


def test_same_config_without_resume_restarts_cleanly(tmp_path, monkeypatch, reference):
    config = write_config(tmp_path)
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, 16)
    with pytest.raises(KeyboardInterrupt):
        run_report(config, out, quiet=True, charts=False, chunk_size=CHUNK)
    monkeypatch.undo()
    lines: list[str] = []
    run_report(config, out, quiet=True, charts=False, log=lines.append)
    assert csvs(out) == reference
    assert not (out / ".checkpoints").exists()
    assert lines[0] == (f"{out}: holds an unfinished run of this report; starting over "
                        "(use --resume to continue it instead)")
    assert not any("checkpoint" in line for line in lines[1:])
    lines.clear()
    run_report(config, out, quiet=True, charts=False, log=lines.append)  # a finished one: replaced
    assert lines[0] == f"{out}: replacing the previous run of this report"


def test_cli_interrupt_exits_130_and_resume_finishes(tmp_path, monkeypatch, reference, capsys):
    from sheepsim.cli import main

    config = write_config(tmp_path)
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, 2)
    assert main(["report", str(config), "--out", str(out), "--quiet", "--no-charts"]) == 130
    err = capsys.readouterr().err
    assert err == (f"sheepsim: interrupted; rerun with --resume to continue: sheepsim report "
                   f"{config} --out {out} --no-charts --resume\n")
    monkeypatch.undo()
    assert main(["report", str(config), "--out", str(out), "--quiet", "--no-charts", "--resume"]) == 0
    assert csvs(out) == reference
    # interrupted again, then run without --resume: one line says it starts over, even quiet
    _interrupt_after(monkeypatch, 2)
    assert main(["report", str(config), "--out", str(out), "--quiet", "--no-charts"]) == 130
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["report", str(config), "--out", str(out), "--quiet", "--no-charts"]) == 0
    # --quiet keeps two lines: that it starts over, and where the finished report is
    first, last = capsys.readouterr().err.splitlines()
    assert first == (f"{out}: holds an unfinished run of this report; "
                     "starting over (use --resume to continue it instead)")
    assert last.startswith(f"report written to {out / 'index.html'} (")
    assert csvs(out) == reference


KILL_CONFIG = """
[[study]]
type = "race-odds"
name = "odds"
seed = 11
games = 300_000

[[study]]
type = "race-balance"
name = "games"
players = 4
seed = 12
games = 20_000
"""


def test_killed_process_resumes_to_the_uninterrupted_result(tmp_path):
    """SIGKILL (no clean-up at all) right after the first checkpoint lands."""
    import os
    import signal
    import subprocess
    import sys
    import time

    config = write_config(tmp_path, KILL_CONFIG)
    out = tmp_path / "killed"
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.Popen([sys.executable, "-m", "sheepsim", "report", str(config), "--out", str(out),
                             "--quiet", "--no-charts"], env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:
        while not (out / ".checkpoints").is_dir() or not any((out / ".checkpoints").glob("*.npz")):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no checkpoint within 2 minutes"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    assert not json.loads((out / "manifest.json").read_text())["complete"]
    run_report(config, out, resume=True, quiet=True, charts=False)
    fresh = tmp_path / "fresh"
    run_report(config, fresh, quiet=True, charts=False)
    assert csvs(out) == csvs(fresh) and csvs(out)


def test_resume_without_charts_leaves_no_chart_of_the_earlier_session(tmp_path, monkeypatch,
                                                                      reference_run, reference):
    # the first study finished (charts drawn) before the interrupt; --no-charts resumes
    config = write_config(tmp_path)
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, _saves_per_study(reference_run[1])["semi"] + 1)
    with pytest.raises(KeyboardInterrupt):
        run_report(config, out, quiet=True, chunk_size=CHUNK)
    monkeypatch.undo()
    assert list(out.rglob("*.png"))
    manifest = run_report(config, out, resume=True, quiet=True, charts=False, chunk_size=CHUNK)
    assert csvs(out) == reference
    present = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert present == {f["path"] for f in manifest["files"]} | {"manifest.json"}
    assert not [p for p in present if p.endswith((".png", ".svg"))]
