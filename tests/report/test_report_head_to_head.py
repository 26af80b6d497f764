"""The ``head-to-head`` study of every game, from the game's declaration (issue 29):
Aw, Sheep! through the generic type, and the older per-game names as aliases."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sheepsim import driver
from sheepsim.cli import main
from sheepsim.game import get
from sheepsim.report.build import run_report

from .helpers import write_config

AW = """
[[study]]
type = "head-to-head"
game = "awsheep"
name = "aw-h2h"
players = 4
a = "counter"
b = "random"
field = "random"
seat = 2
seed = 5
games = 400

[[study]]
type = "head-to-head"
game = "panic"
name = "panic-generic"
players = 3
a = "greedy"
b = "random"
field = "random"
seed = 6
games = 40

[[study]]
type = "panic-head-to-head"
name = "panic-alias"
players = 3
a = "greedy"
b = "random"
field = "random"
seed = 6
games = 40
"""


@pytest.fixture(scope="module")
def aw_report(tmp_path_factory):
    base = tmp_path_factory.mktemp("h2h")
    out = base / "out"
    return out, run_report(write_config(base, AW), out, quiet=True, charts=False)


def test_awsheep_head_to_head_is_the_games_compare_job(aw_report):
    out, manifest = aw_report
    job = get("awsheep").job("head-to-head", rules=None, players=4, a="counter", b="random",
                             field="random", seat=2, seed=5)
    expected = driver.run(job, games=400, progress=False).tables["comparison"]
    got = pd.read_csv(out / "aw-h2h" / "comparison.csv")
    assert list(got.columns) == list(expected.columns)
    assert got["metric"].tolist() == ["win_rate", "mean_flock_value", "tie_rate", "tiebreak_win_rate"]
    for col in ("a", "b", "diff"):  # CSVs keep 10 significant digits
        assert got[col].to_numpy() == pytest.approx(expected[col].to_numpy(), rel=1e-9, nan_ok=True)
    study = next(s for s in manifest["studies"] if s["name"] == "aw-h2h")
    assert study["type"] == "head-to-head" and study["game"] == "aw-sheep"
    # the field as given (the game's default is counter) and its own option (draft: the rules')
    assert study["params"] == {"game": "awsheep", "players": 4, "a": "counter", "b": "random",
                               "field": "random", "seat": 2, "draft": None}
    page = (out / "report.md").read_text()
    assert "Seat 2 playing counter instead of random (others random) changes its win rate" in page
    assert "its mean flock value by" in page


def test_older_names_are_the_generic_study(aw_report):
    out, manifest = aw_report
    by_name = {s["name"]: s for s in manifest["studies"]}
    generic, alias = by_name["panic-generic"], by_name["panic-alias"]
    assert alias["type"] == "panic-head-to-head" and generic["type"] == "head-to-head"
    assert alias["params"] == {"players": 3, "a": "greedy", "b": "random", "field": "random",
                               "seat": 1, "playouts": 4}
    assert generic["params"] == {"game": "panic", **alias["params"]}
    assert (out / "panic-generic" / "comparison.csv").read_bytes() == \
        (out / "panic-alias" / "comparison.csv").read_bytes()
    assert json.loads((out / "manifest.json").read_text())["complete"] is True


BAD = {
    "no game": ('type = "head-to-head"\n', ["game", "missing", "race, panic, awsheep"]),
    "unknown game": ('type = "head-to-head"\ngame = "chess"\n', ["game", "'chess'"]),
    "unknown policy": ('type = "head-to-head"\ngame = "awsheep"\nb = "lazy"\n', ["b", "lazy"]),
    "players": ('type = "head-to-head"\ngame = "awsheep"\nplayers = 7\n', ["players", "3 to 6"]),
    "seat": ('type = "head-to-head"\ngame = "awsheep"\nplayers = 3\nseat = 4\n',
             ["seat", "between 1 and 3"]),
    "own option": ('type = "head-to-head"\ngame = "panic"\nplayouts = 0\n', ["playouts", "at least 1"]),
    "other game's option": ('type = "head-to-head"\ngame = "awsheep"\nplayouts = 2\n',
                            ["playouts", "unknown key"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_head_to_head_is_one_line_naming_the_key(case, tmp_path, capsys):
    text, words = BAD[case]
    config = write_config(tmp_path, "[[study]]\n" + text + "games = 10\n")
    code = main(["report", str(config), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("sheepsim: error: "), err
    for w in words:
        assert w in err, (w, err)
    assert not (tmp_path / "out").exists()
