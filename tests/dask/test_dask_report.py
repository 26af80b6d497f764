"""``sheepsim report`` on Dask: a config's ``[run]`` names the cluster, checkpoints are
written by the client, and ``--resume`` finishes an interrupted report with exactly the
numbers of an uninterrupted run on local threads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sheepsim.cli import main
from sheepsim.report import execute
from sheepsim.report.build import run_report

STUDIES = """
[[study]]
type = "race-odds"
name = "semi"
lanes = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Stilton"]
seed = 3
games = 6000

[[study]]
type = "panic-balance"
name = "panic"
players = 3
policies = "random"
seed = 9
games = 300
"""
CHUNK = 500  # games per checkpoint: the race study saves 12 times


def _csvs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.csv"))}


def test_resume_on_dask_gives_the_uninterrupted_threads_result(cluster, tmp_path, monkeypatch):
    local = tmp_path / "local.toml"
    local.write_text(STUDIES)
    remote = tmp_path / "dask.toml"
    remote.write_text(f'[run]\nscheduler = "{cluster.client.scheduler.address}"\n' + STUDIES)
    reference = tmp_path / "reference"
    run_report(local, reference, quiet=True, threads=2)

    out = tmp_path / "out"
    real_save, saves = execute.save_checkpoint, []

    def save_then_interrupt(path, cp):  # Ctrl-C right after the 5th checkpoint lands
        real_save(path, cp)
        saves.append(cp.done)
        if len(saves) == 5:
            raise KeyboardInterrupt

    monkeypatch.setattr(execute, "save_checkpoint", save_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_report(remote, out, quiet=True, chunk_size=CHUNK)  # on Dask, from [run]
    monkeypatch.undo()
    assert saves == [500, 1000, 1500, 2000, 2500]  # in game order, one per chunk
    assert json.loads((out / "manifest.json").read_text())["complete"] is False

    real_load, loaded = execute.load_checkpoint, []

    def load(path, identity):
        cp = real_load(path, identity)
        loaded.append(cp.done if cp else 0)
        return cp

    monkeypatch.setattr(execute, "load_checkpoint", load)
    assert main(["report", str(remote), "--out", str(out), "--resume", "--quiet"]) == 0
    assert loaded[0] == 2500  # continued from the checkpoint, not restarted
    assert _csvs(out) == _csvs(reference) and len(_csvs(out)) >= 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True and not (out / ".checkpoints").exists()


def test_run_table_is_checked_with_the_config(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[run]\nscheduler = "tcp://127.0.0.1:1"\nworkers = 2\n' + STUDIES)
    assert main(["report", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run.workers: give scheduler or workers, not both" in err
    assert not (tmp_path / "out").exists()
