"""The ``sheepsim race`` command line: outputs other tools parse, and bad input."""

import json

import pandas as pd
import pytest

from sheepsim.cli import main

from .helpers import standard_text

ODDS_COLUMNS = ["lane", "card", "p_first", "p_first_lo", "p_first_hi", "p_second",
                "p_second_lo", "p_second_hi", "p_third", "p_third_lo", "p_third_hi", "ev",
                "games", "seed"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_odds_csv_columns_and_numbers(tmp_path, capsys):
    out_file = tmp_path / "odds.csv"
    code, out, err = run(capsys, "race", "odds", "--games", "20000", "--seed", "3",
                         "--format", "csv", "--out", str(out_file), "--quiet")
    assert code == 0 and out == "" and err == ""
    df = pd.read_csv(out_file)
    assert list(df.columns) == ODDS_COLUMNS
    assert df["lane"].tolist() == [1, 2, 3, 4, 5, 6]
    assert df["card"].tolist()[:2] == ["Requeijao", "Pecorino"]
    for place in ("first", "second", "third"):
        assert abs(df[f"p_{place}"].sum() - 1) < 1e-9
        assert (df[f"p_{place}_lo"] <= df[f"p_{place}"]).all()
        assert (df[f"p_{place}"] <= df[f"p_{place}_hi"]).all()
    payoffs = [[12, 11, 9, 8, 7, 6], [9, 8, 6, 5, 4, 3], [7, 6, 4, 3, 2, 1]]
    ev = sum(df[f"p_{p}"] * payoffs[k] for k, p in enumerate(("first", "second", "third")))
    assert (abs(df["ev"] - ev) < 1e-8).all()
    meta = json.loads((tmp_path / "odds.csv.meta.json").read_text())
    assert meta["games"] == 20000 and meta["seed"] == 3 and meta["policy"] == "greedy"
    assert len(meta["rules_sha256"]) == 64 and meta["sheepsim_version"]


def test_odds_json_final_has_empty_places_and_meta(capsys):
    code, out, _ = run(capsys, "race", "odds", "--games", "5000", "--stage", "final",
                       "--lanes", "Feta,Karoo,Jumbuck,Crowdie,Stilton,Limburger", "--format",
                       "json", "--quiet")
    assert code == 0
    doc = json.loads(out)
    assert doc["meta"]["stage"] == "final" and doc["meta"]["lanes"][0] == "Feta"
    rows = doc["lanes"]
    assert [r["card"] for r in rows][0] == "Feta"
    assert all(r["p_second"] is None and r["p_third"] is None for r in rows)
    assert abs(sum(r["p_first"] for r in rows) - 1) < 1e-9


def test_play_reports_seats_and_policies(capsys):
    code, out, _ = run(capsys, "race", "play", "--players", "3", "--games", "600",
                       "--bet-policy", "ev-approx,random,longshot", "--format", "json", "--quiet")
    assert code == 0
    doc = json.loads(out)
    assert sum(r["wins"] for r in doc["seats"]) == 600
    assert [r["bet_policy"] for r in doc["seats"]] == ["ev-approx", "random", "longshot"]
    assert doc["meta"]["players"] == 3 and len(doc["turns"]) == 3


def test_trace_prints_turns_and_result(capsys):
    code, out, _ = run(capsys, "race", "trace", "--seed", "5")
    assert code == 0
    assert "Result after" in out and "1st lane" in out and "GALLOP" in out


def test_user_policy_plugin_runs_in_a_trace(capsys):
    code, out, _ = run(capsys, "race", "trace", "--seed", "5", "--policy",
                       "sheepsim.games.race.examples:always_gallop")
    assert code == 0 and "always_gallop" in out and "Result after" in out


BAD = [
    (["race", "odds", "--lanes", "Feta,Brie,Karoo,Jumbuck,Crowdie,Stilton"], "unknown card 'Brie'"),
    (["race", "odds", "--policy", "sprinty"], "unknown pace policy 'sprinty'"),
    (["race", "odds", "--policy", "no_such_module:fn"], "cannot import module"),
    (["race", "odds", "--games", "0"], "--games"),
    (["race", "play", "--players", "7"], "players must be 2 to 6"),
    (["race", "play", "--players", "3", "--bet-policy", "ev,ev"], "give 1 or 3 bet policies"),
    (["race", "odds", "--lanes", "Feta,Feta,Karoo,Jumbuck,Crowdie,Stilton"], "6 different"),
]


@pytest.mark.parametrize("argv,words", BAD, ids=[b[1] for b in BAD])
def test_bad_input_one_line_exit_2_no_file(tmp_path, capsys, argv, words):
    out_file = tmp_path / "out.csv"
    try:
        code = main(argv + ["--out", str(out_file)] if argv[1] != "trace" else argv)
    except SystemExit as exc:  # argparse errors exit directly
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out_file.exists() and not (tmp_path / "out.csv.meta.json").exists()


def test_malformed_rules_file(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(standard_text().replace("end_zone = 5", "end_zone = 25"))
    code, _, err = run(capsys, "race", "odds", "--rules", str(bad), "--out", str(tmp_path / "o"))
    assert code == 2 and "bad.toml: race.end_zone" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o").exists()
