"""A report compiles its simulated studies' kernels up front in worker processes, one
per game (``sheepsim.report.warmup``, issue 50 item 4): the workers succeed, and the
report's files are byte-identical with and without them (the workers only compile)."""

from __future__ import annotations

import pytest

from sheepsim.report import build, warmup

CONFIG = '''title = "warm-up"

[[study]]
type = "race-balance"
name = "balance"
players = 3
bet_policies = ["ev-approx", "random", "favourite"]
seed = 7
games = 600

[[study]]
type = "head-to-head"
game = "pig"
name = "pig"
a = "hold-20"
players = 3
games = 600
seed = 2
'''


def _files(out):
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.csv"))}


def test_the_workers_compile_and_the_report_is_unchanged(tmp_path, monkeypatch):
    cfg = tmp_path / "warm.toml"
    cfg.write_text(CONFIG)
    started = []

    def start(config, studies):
        w = real_start(config, studies)
        started.append(w)
        return w

    real_start = warmup.start
    monkeypatch.setattr(warmup, "cores", lambda: 2)
    monkeypatch.setattr(warmup, "start", start)
    monkeypatch.setenv(warmup.ENV, "1")
    build.run_report(cfg, tmp_path / "warm", quiet=True, charts=False)
    (w,) = started
    assert len(w.futures) == 2 and "sheep-race" in w.futures  # one worker per game
    assert [f.result() for f in w.futures.values()] == [0, 0]  # each worker exited cleanly
    monkeypatch.setenv(warmup.ENV, "0")
    build.run_report(cfg, tmp_path / "cold", quiet=True, charts=False)
    assert started[1].futures == {}
    warm, cold = _files(tmp_path / "warm"), _files(tmp_path / "cold")
    assert warm and warm == cold


@pytest.mark.parametrize("cores, env", [(1, "1"), (2, "0")])
def test_no_workers_on_one_core_or_when_turned_off(cores, env, monkeypatch):
    from sheepsim.report.config import load_config

    monkeypatch.setattr(warmup, "cores", lambda: cores)
    monkeypatch.setenv(warmup.ENV, env)
    w = warmup.start(None, load_config(None).studies)
    assert w.pool is None and w.futures == {}
