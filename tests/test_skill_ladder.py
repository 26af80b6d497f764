"""The skill ladder (``sheepsim <game> ladder``, :mod:`sheepsim.skill_ladder`), its
metric ``skill_gradient`` and its report study, for every game with a ladder."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run

import sheepsim
from sheepsim import cli, game
from sheepsim.errors import SheepsimError

LADDERS = [g for g in game.games() if len(g.ladder) >= 2]


def test_every_shipped_game_declares_a_ladder_from_random_up():
    names = {g.command for g in LADDERS}
    assert {"race", "panic", "awsheep"} <= names
    for g in LADDERS:
        assert g.ladder[0].split(",")[0] == "random"


@pytest.mark.parametrize("g", LADDERS, ids=[g.name for g in LADDERS])
def test_the_ladder_runs_for_every_game(g):
    res = sheepsim.ladder(g.name, games=40, seed=1, quiet=True)
    t = res.tables["ladder"]
    assert list(t["step"]) == [str(k) for k in range(1, len(g.ladder))] + ["skill_gradient"]
    assert list(t["rung"]) == [*g.ladder[1:], g.ladder[-1]]
    assert list(t["below"]) == [*g.ladder[:-1], g.ladder[0]]
    assert (t["games"] == 40).all() and res.meta["rungs"] == list(g.ladder)
    assert np.allclose(t["gain"], t["win_rate"] - t["below_win_rate"], atol=1e-12)


def test_each_step_is_the_compare_of_its_two_rungs():
    """A step is ``compare --a RUNG --b BELOW --field BELOW`` on the same seed: the same
    numbers, byte for byte."""
    res = sheepsim.ladder("pig", players=3, games=500, seed=4, quiet=True)
    step = res.tables["ladder"].iloc[0]
    cmp = sheepsim.compare("pig", players=3, a="hold-20", b="random", field="random", games=500,
                           seed=4, quiet=True).tables["comparison"].iloc[0]
    assert (step["win_rate"], step["below_win_rate"], step["gain"], step["pvalue"]) == \
        (cmp["a"], cmp["b"], cmp["diff"], cmp["pvalue"])


def test_better_play_gains_in_pig():
    """hold-20 against random: a large gain (random banks or rolls by a coin flip)."""
    t = sheepsim.ladder("pig", players=2, games=2000, seed=2, quiet=True).tables["ladder"]
    assert t["gain_lo"].iloc[-1] > 0.3


def test_holm_adjusts_the_steps_only():
    t = sheepsim.ladder("pig", rungs=["random", "hold-20", "tests.harness.rungs:always_bank"],
                        players=2, games=300, seed=3, quiet=True).tables["ladder"]
    steps = t[t["step"] != "skill_gradient"]
    assert (steps["pvalue_holm"] >= steps["pvalue"]).all()
    assert t[t["step"] == "skill_gradient"]["pvalue_holm"].isna().all()


@pytest.mark.parametrize("argv, says", [
    (["pig", "ladder", "--rungs", "random;nosuch"], "unknown policy 'nosuch'"),
    (["pig", "ladder", "--rungs", "random"], "'random' is one rung: a ladder needs two or more"),
    # an empty rung said the rungs were not different: now it says which one is empty
    (["pig", "ladder", "--rungs", "random;hold-20;"], "rung 3 of 3 is empty; rungs are separated by ';'"),
    (["pig", "ladder", "--rungs", "random;;hold-20"], "rung 2 of 3 is empty"),
    (["pig", "ladder", "--rungs", "random,,hold-20"],
     "is one rung: a ladder needs two or more, separated by ';', lowest first (e.g. 'random;hold-20')"),
    (["pig", "ladder", "--rungs", ";"], "names no rung"),
    (["pig", "ladder", "--rungs", "random;random"], "rung 'random' is given twice"),
    (["race", "ladder", "--rungs", "random,random;ev,greedy;"], "rung 3 of 3 is empty"),
    (["pig", "ladder", "--seat", "9"], "seat must be between 1 and 2"),
    (["pig", "ladder", "--games", "0"], "games"),
])
def test_bad_input_is_one_line_and_exit_2(argv, says, capsys, tmp_path):
    out = tmp_path / "l.csv"
    code, _, err = run(capsys, *argv, "--quiet", "--out", str(out))
    err = err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and says in err, err
    assert not out.exists()


def test_the_cli_writes_the_ladder_with_its_metadata(tmp_path):
    out = tmp_path / "ladder.json"
    assert cli.main(["pig", "ladder", "--games", "200", "--seed", "5", "--quiet", "--format",
                     "json", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["meta"]["seed"] == 5 and doc["meta"]["rungs"] == ["random", "hold-20"]
    assert doc["meta"]["rules_sha256"] and len(doc["ladder"]) == 2


def test_skill_gradient_is_a_metric_of_every_game_with_a_ladder():
    for g in LADDERS:
        names = set(sheepsim.metrics(g.name).tables["metrics"]["metric"])
        assert "skill_gradient" in names, g.name
    res = sheepsim.variants("pig", set=["pig.target=50"], metric="skill_gradient", games=400,
                            quiet=True)
    base = res.tables["metrics"].set_index("variant").loc["base", "value"]
    gain = sheepsim.ladder("pig", games=400, seed=0, quiet=True).tables["ladder"]["gain"].iloc[-1]
    assert base == pytest.approx(gain)  # the same games: the ladder's top-over-bottom row


def test_the_report_has_a_ladder_study(tmp_path):
    cfg = tmp_path / "ladder.toml"
    cfg.write_text('[[study]]\ntype = "ladder"\ngame = "pig"\nplayers = 3\ngames = 400\n')
    assert cli.main(["report", str(cfg), "--out", str(tmp_path / "out"), "--quiet",
                     "--no-charts"]) == 0
    assert (tmp_path / "out" / "ladder-1" / "ladder.csv").exists()
    cfg.write_text('[[study]]\ntype = "ladder"\ngame = "pig"\nrungs = ["random", "x"]\ngames = 400\n')
    with pytest.raises(SheepsimError, match=r"rungs: unknown policy 'x'"):
        from sheepsim.report.config import load_config

        load_config(str(cfg))

