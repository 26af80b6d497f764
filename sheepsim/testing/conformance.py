"""The conformance suite: what every game must do, as pytest tests.

Like pgx's one ``api_test`` for all environments: every game (the built-in registry's
and those installed through the ``sheepsim.games`` entry points) is checked by
``tests/conformance/test_contract.py`` without a test of its own for these points. A
game in its own package runs the same tests on itself::

    from sheepsim.testing.conformance import *  # noqa: F403 (the tests and their helpers)

    @pytest.fixture
    def g():
        return sheepsim.game.get("pig")
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from sheepsim import driver, game

GAMES = game.games()
IDS = [g.name for g in GAMES]


@pytest.fixture(params=GAMES, ids=IDS)
def g(request):
    return request.param


def _job(g, seed=11, **extra):
    return g.job("play", seed=seed, **{**g.sample["job"], **extra})


def test_registry_entry_is_complete(g):
    assert g.name and g.command and g.title
    assert game.get(g.name) is g and game.get(g.command) is g
    rules = g.load_rules(None)
    assert rules.source.endswith(".toml") and len(rules.sha256) == 64
    assert set(g.sample) >= {"job", "cli", "bad_policy"}
    assert g.min_players <= g.sample["job"]["players"] <= g.max_players


def test_same_seed_same_tables_for_any_threads_and_chunking(g):
    ref = driver.run(_job(g), games=240, chunk_games=240, threads=1, progress=False)
    for chunk, threads in ((17, 2), (100, 1), (1, 2)):
        res = driver.run(_job(g), games=240, chunk_games=chunk, threads=threads,
                         progress=False)
        assert res.counts.keys() == ref.counts.keys()
        for k in ref.counts:
            assert np.array_equal(res.counts[k], ref.counts[k]), k
        for name, df in ref.tables.items():
            assert res.tables[name].equals(df), name
    other = driver.run(_job(g, seed=12), games=240, progress=False)
    assert any(not np.array_equal(other.counts[k], ref.counts[k]) for k in ref.counts)


def test_precision_stops_at_the_same_block_for_any_chunking(g):
    job = _job(g)
    job.block = 50
    a = driver.run(job, precision=0.2, max_games=1000, chunk_games=7, progress=False)
    job2 = _job(g)
    job2.block = 50
    b = driver.run(job2, precision=0.2, max_games=1000, chunk_games=64, threads=2,
                   progress=False)
    assert a.games == b.games and a.games % 50 == 0 and a.stopped_by == b.stopped_by
    assert all(a.tables[k].equals(b.tables[k]) for k in a.tables)


def test_head_to_head_of_a_policy_with_itself_is_exactly_paired(g):
    """Common random numbers: the same policy in both arms plays the very same games."""
    from sheepsim.headtohead import HeadToHeadJob

    h2h = HeadToHeadJob(_job(g), _job(g), 1, ("x", "x", "x"))
    res = driver.run(h2h, games=120, chunk_games=50, progress=False)
    row = res.tables["comparison"].set_index("metric")
    assert row.loc["win_rate", "diff"] == 0 and row.loc["mean_score", "diff"] == 0
    wins_a, wins_b, a_only, b_only = res.counts["paired"][:4]
    assert wins_a == wins_b and a_only == b_only == 0


def test_column_and_metadata_conventions(g):
    from sheepsim import __version__

    res = driver.run(_job(g), games=60, progress=False)
    meta = res.meta()
    assert meta["game"] == g.name and meta["sheepsim_version"] == __version__
    assert meta["seed"] == 11 and meta["games"] == 60
    assert meta["rules"].endswith(".toml") and len(meta["rules_sha256"]) == 64
    for name, df in res.tables.items():
        cols = set(df.columns)
        assert not cols & {"lo", "hi"}, f"{name}: bare lo/hi columns"
        for c in cols:
            if c.endswith("_lo"):
                assert c[:-3] + "_hi" in cols, f"{name}.{c} has no _hi"


def test_jobs_pickle_and_give_the_same_counts(g):
    """What a Dask worker receives: the job by value, kernels rebuilt there."""
    import pickle

    job = _job(g)
    again = pickle.loads(pickle.dumps(job))
    a, b = job.chunk(5, 30), again.chunk(5, 30)  # games 5-34 of the jobs' seed, 11
    assert all(np.array_equal(a[k], b[k]) for k in a)


def _cli(argv, tmp_path):
    """``sheepsim ARGV`` as its own process (``python -m sheepsim``), run in ``tmp_path``:
    one real run per game, as a user starts it (its imports, the exit of
    :func:`sheepsim.cli.run`, the files it leaves); the other cases run in this process."""
    return subprocess.run([sys.executable, "-m", "sheepsim", *argv], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)


def _cli_here(argv, tmp_path, capsys, monkeypatch):
    """``(exit code, stderr)`` of ``sheepsim ARGV`` run in this process in ``tmp_path``
    (:func:`sheepsim.testing.cli.run`: the code a process runs, ``python -m sheepsim``
    being ``main`` then exit, without a new interpreter's 2-3 CPU s of imports per case;
    :func:`test_cli_play_writes_tables_with_metadata` runs a real process per game)."""
    from sheepsim.testing.cli import run

    monkeypatch.chdir(tmp_path)
    capsys.readouterr()  # only this command's lines
    code, _, err = run(capsys, *argv)
    return code, err


def test_cli_play_writes_tables_with_metadata(g, tmp_path):
    out = tmp_path / "play.json"
    r = _cli([*g.sample["cli"], "--seed", "3", "--format", "json", "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["meta"]["game"] == g.name and doc["meta"]["seed"] == 3
    assert json.loads((tmp_path / "play.json.meta.json").read_text())["rules_sha256"]


@pytest.mark.parametrize("case", ["policy", "games", "rules", "seed", "out_dir", "threads"])
def test_every_bad_input_gets_one_line_and_exit_2(g, case, tmp_path, capsys, monkeypatch):
    base = list(g.sample["cli"])
    argv = {
        "policy": g.sample["bad_policy"],
        "games": [*base, "--games", "0"],
        "rules": [*base, "--rules", str(tmp_path / "missing.toml")],
        "seed": [*base, "--seed", "-1"],
        "out_dir": [*base, "--out", str(tmp_path / "no" / "such" / "dir" / "x.csv")],
        "threads": [*base, "--threads", "0"],
    }[case]
    code, err = _cli_here(argv, tmp_path, capsys, monkeypatch)
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in err, err
    assert not list(tmp_path.rglob("x.csv*"))
