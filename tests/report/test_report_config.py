"""Every bad config (and bad out folder) is one error line, exit 2, and touches nothing."""

from __future__ import annotations

import pytest

from sheepsim.cli import main
from sheepsim.report.config import load_config

from .helpers import SMALL, race_rules_text, tree, write_config

ODDS = '[[study]]\ntype = "race-odds"\nname = "odds"\ngames = 100\n'


def _study(extra: str, base: str = ODDS) -> str:
    return base + extra


BAD = {
    # case: (config text, words the error line must contain)
    "unknown type": ('[[study]]\ntype = "race-odd"\ngames = 10\n', ["study 1", "type", "race-odds"]),
    "missing type": ("[[study]]\ngames = 10\n", ["study 1", "type", "missing"]),
    "unknown study key": (_study("lane = 3\n"), ['study 1 \'odds\'', "lane", "unknown key"]),
    "unknown top key": ('titel = "x"\n' + ODDS, ["titel", "unknown key"]),
    "no studies": ('title = "x"\n', ["study", "missing"]),
    "empty study list": ("study = []\n", ["study", "no studies"]),
    "games wrong type": ('[[study]]\ntype = "race-odds"\nname = "odds"\ngames = "many"\n',
                         ["odds", "games", "whole number"]),
    "games zero": ('[[study]]\ntype = "race-odds"\nname = "odds"\ngames = 0\n', ["games", "at least 1"]),
    "no game count": ('[[study]]\ntype = "race-balance"\n', ["games", "missing"]),
    # a misspelt game count is named as the unknown key it is, not as games missing
    "misspelt games": ('[[study]]\ntype = "race-balance"\ngmaes = 500\n',
                       ["study 1", "gmaes", "unknown key; did you mean 'games'?"]),
    "misspelt games, mc": ('[[study]]\ntype = "race-odds"\nmethod = "mc"\ngaems = 100\n',
                           ["gaems", "unknown key; did you mean 'games'?"]),
    "misspelt games, random pace": ('[[study]]\ntype = "race-odds"\npolicy = "random"\n'
                                    'gamse = 100\n', ["gamse", "unknown key; did you mean 'games'?"]),
    # race-odds: exact (no games) or mc (games), by the rule of `race odds`
    "unknown method": (_study('method = "fast"\n'), ["odds", "method", "exact, mc", "fast"]),
    "exact with games": (_study('method = "exact"\n'), ["method", "no games"]),
    "exact with seed": ('[[study]]\ntype = "race-odds"\nseed = 3\n', ["seed", "exact"]),
    "exact random pace": ('[[study]]\ntype = "race-odds"\nmethod = "exact"\npolicy = "random"\n',
                          ["method", "no exact solution", "random"]),
    "mc without games": ('[[study]]\ntype = "race-odds"\nmethod = "mc"\n', ["games", "missing"]),
    "random pace without games": ('[[study]]\ntype = "race-odds"\npolicy = "random"\n',
                                  ["games", "missing", "random pace policy"]),
    "bad position": ('[[study]]\ntype = "race-odds"\nposition = "semifinal 7.101 9.110"\n',
                     ["position", "6 sheep"]),
    "games and precision": (_study("precision = 0.01\nmax_games = 10\n"), ["precision", "not both"]),
    "precision without max": ('[[study]]\ntype = "race-odds"\nprecision = 0.01\n', ["max_games", "missing"]),
    "precision wrong type": ('[[study]]\ntype = "race-odds"\nprecision = "tight"\nmax_games = 9\n',
                             ["precision", "number"]),
    "block with games": (_study("block = 10\n"), ["block", "only used with precision"]),
    "seed negative": (_study("seed = -1\n"), ["seed", "at least 0"]),
    "seed float": (_study("seed = 1.5\n"), ["seed", "whole number"]),
    "bad name": ('[[study]]\ntype = "race-odds"\nname = "Odds Table"\ngames = 5\n', ["name", "lowercase"]),
    "duplicate name": (ODDS + ODDS, ["study 2", "name", "already"]),
    "unknown card": (_study('lanes = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort", "Brie"]\n'),
                     ["lanes", "Brie"]),
    "five lanes": (_study('lanes = ["Requeijao", "Pecorino", "Feta", "Manchego", "Roquefort"]\n'),
                   ["lanes", "6"]),
    "lanes wrong type": (_study("lanes = 6\n"), ["lanes", "list of names"]),
    "bad stage": (_study('stage = "quarterfinal"\n'), ["stage", "semifinal, final"]),
    "unknown pace policy": (_study('policy = "sprinter"\n'), ["policy", "sprinter"]),
    "players out of range": ('[[study]]\ntype = "race-balance"\ngames = 5\nplayers = 9\n',
                             ["players", "2 to 6"]),
    "unknown bet policy": ('[[study]]\ntype = "race-balance"\ngames = 5\nbet_policies = ["ev", "yolo"]\n'
                           'players = 2\n', ["bet_policies", "yolo"]),
    "policy count": ('[[study]]\ntype = "race-balance"\ngames = 5\nplayers = 4\n'
                     'pace_policies = ["greedy", "random"]\n', ["pace_policies", "1 or 4"]),
    "taken in the final": (_study('stage = "final"\ntaken = [2]\n'), ["taken", "no open bets"]),
    "taken out of range": (_study("taken = [7]\n"), ["taken", "1-6"]),
    "pair without pace": ('[[study]]\ntype = "race-head-to-head"\ngames = 5\na = "ev"\n', ["a", "BET,PACE"]),
    "seat past players": ('[[study]]\ntype = "race-head-to-head"\ngames = 5\nplayers = 3\nseat = 4\n',
                          ["seat", "between 1 and 3"]),
    "panic two players": ('[[study]]\ntype = "panic-balance"\ngames = 5\nplayers = 2\n',
                          ["players", "3 or 4"]),
    "panic unknown policy": ('[[study]]\ntype = "panic-balance"\ngames = 5\npolicies = "smart"\n',
                             ["policies", "smart"]),
    "panic playouts zero": ('[[study]]\ntype = "panic-balance"\ngames = 5\nplayouts = 0\n',
                            ["playouts", "at least 1"]),
    "panic rules invalid": ('[[study]]\ntype = "panic-balance"\ngames = 5\nrules = "bad_rules.toml"\n',
                            ["rules", "bad_rules.toml"]),
    "panic pair unknown": ('[[study]]\ntype = "panic-head-to-head"\ngames = 5\nb = "lazy"\n', ["b", "lazy"]),
    "panic seat past players": ('[[study]]\ntype = "panic-head-to-head"\ngames = 5\nplayers = 3\nseat = 4\n',
                                ["seat", "between 1 and 3"]),
    "rules missing": (_study('rules = "nowhere.toml"\n'), ["odds", "rules", "nowhere.toml", "not found"]),
    "rules invalid": (_study('rules = "bad_rules.toml"\n'),
                      ["odds", "rules", "bad_rules.toml", "track_length"]),
    "rules wrong type": (_study("rules = 3\n"), ["rules", "string"]),
    "not toml": ("[[study]\n", ["not valid TOML"]),
}


def _bad_rules(folder):
    text = race_rules_text().replace("track_length = 20", 'track_length = "twenty"')
    (folder / "bad_rules.toml").write_text(text)


def _run_cli(args, capsys):
    code = main(["report", *args, "--quiet"])
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_is_one_line_exit_2_before_anything_runs(case, tmp_path, capsys, monkeypatch):
    text, words = BAD[case]
    _bad_rules(tmp_path)
    config = write_config(tmp_path, text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("not ours")
    (out / "manifest.json").write_text("{}")
    before = tree(out)

    def no_simulation(*a, **k):
        raise AssertionError("simulated before validating")

    monkeypatch.setattr("sheepsim.report.build.simulate", no_simulation)
    monkeypatch.setattr("sheepsim.report.build.solve", no_simulation)
    code, err = _run_cli([str(config), "--out", str(out)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("sheepsim: error: ")
    assert str(config) in err
    for w in words:
        assert w in err, (w, err)
    assert tree(out) == before


def test_config_file_not_found(tmp_path, capsys):
    code, err = _run_cli([str(tmp_path / "none.toml"), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "config file not found" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.fixture
def finished(small_report):
    return small_report[0]


@pytest.mark.parametrize("resume", [False, True])
def test_out_folder_with_a_different_report_is_refused(tmp_path, finished, capsys, resume):
    other = write_config(tmp_path, SMALL.replace("seed = 3", "seed = 4"))
    before = tree(finished)
    args = [str(other), "--out", str(finished)] + (["--resume"] if resume else [])
    code, err = _run_cli(args, capsys)
    assert code == 2 and "holds a different report" in err and err.count("\n") == 1
    assert tree(finished) == before


def test_out_folder_with_other_files_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, err = _run_cli([str(write_config(tmp_path)), "--out", str(out)], capsys)
    assert code == 2 and "holds no sheepsim report" in err
    assert tree(out) == {"notes.txt": tree(out)["notes.txt"]}


def test_out_is_a_file(tmp_path, capsys):
    out = tmp_path / "out"
    out.write_text("x")
    code, err = _run_cli([str(write_config(tmp_path)), "--out", str(out)], capsys)
    assert code == 2 and "not a folder" in err


def test_threads_out_of_range_writes_nothing(tmp_path, capsys):
    code, err = _run_cli([str(write_config(tmp_path)), "--out", str(tmp_path / "out"),
                          "--threads", "999"], capsys)
    assert code == 2 and "threads" in err
    assert not (tmp_path / "out").exists()


def test_rules_path_is_relative_to_the_config(tmp_path, monkeypatch):
    sub = tmp_path / "cfg"
    sub.mkdir()
    (sub / "variant.toml").write_text(race_rules_text().replace("bonus_three = 3", "bonus_three = 2"))
    config = write_config(sub, _study('rules = "variant.toml"\n'))
    monkeypatch.chdir(tmp_path)
    cfg = load_config(config)
    assert cfg.studies[0].rules.bonus_three == 2


def test_default_config_validates_and_hash_is_stable():
    a, b = load_config(None), load_config(None)
    assert a.hash == b.hash and len(a.studies) >= 4
    assert {s.game for s in a.studies} == {"sheep-race", "shear-panic", "aw-sheep"}
