"""The analysis commands: outputs parse back into the same numbers; bad input is one
line on stderr, exit code 2 and no file written."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from sheepsim.cli import main
from sheepsim.games.race import analysis as an
from sheepsim.games.race import jobs as est_mod

LANES = "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ev_csv_and_json_parse_back(capsys):
    args = ["race", "ev", "--lanes", LANES, "--games", "3000", "--seed", "5", "--quiet", "--taken", "6"]
    code, out, _ = run(capsys, *args, "--format", "csv", "--table", "sets")
    assert code == 0
    sets = pd.read_csv(io.StringIO(out))
    counts, est = est_mod.estimate_races(None, LANES, "semifinal", "greedy", 5, games=3000, progress=False)
    ref = an.bet_sets_table(counts, (6,))
    assert list(sets.columns) == list(ref.columns)
    assert sets["lanes"].tolist() == ref["lanes"].tolist()
    assert np.allclose(sets["ev"], ref["ev"], rtol=1e-9) and np.allclose(
        sets["gap_to_best_hi"], ref["gap_to_best_hi"], rtol=1e-9
    )

    code, out, _ = run(capsys, *args, "--format", "json")
    doc = json.loads(out)
    assert doc["meta"]["games"] == 3000 and doc["meta"]["taken"] == [6] and doc["meta"]["seed"] == 5
    lanes = pd.DataFrame(doc["lanes"])
    ref_lanes = an.lane_ev_table(counts)
    assert np.allclose(lanes["p_first"], ref_lanes["p_first"]) and np.allclose(
        lanes["ev_lo"], ref_lanes["ev_lo"]
    )
    open_bet = pd.DataFrame(doc["open_bet"])
    assert open_bet["recommended"].sum() == 1 and not open_bet.loc[5, "recommended"]


def test_ev_final_and_precision(capsys):
    code, out, _ = run(
        capsys, "race", "ev", "--stage", "final", "--precision", "0.05", "--quiet", "--format", "json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["meta"]["stopped_by"] == "precision" and doc["meta"]["max_halfwidth"] <= 0.05
    assert doc["meta"]["games"] % est_mod.RACE_BLOCK == 0
    assert len(doc["sets"]) == 15 and "open_bet" not in doc


def test_out_plot_and_sidecar(capsys, tmp_path):
    out, png = tmp_path / "ev.csv", tmp_path / "ev.png"
    code, stdout, _ = run(
        capsys,
        "race",
        "ev",
        "--games",
        "2000",
        "--quiet",
        "--format",
        "csv",
        "--out",
        str(out),
        "--plot",
        str(png),
    )
    assert code == 0 and stdout == ""
    assert pd.read_csv(out)["lane"].tolist() == [1, 2, 3, 4, 5, 6]
    meta = json.loads((tmp_path / "ev.csv.meta.json").read_text())
    assert meta["games"] == 2000 and meta["stopped_by"] == "games"
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_balance_and_compare_json(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "race",
        "balance",
        "--games",
        "400",
        "--quiet",
        "--format",
        "json",
        "--plot",
        str(tmp_path / "b.svg"),
    )
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"meta", "fair_payoffs", "cards", "semifinal_lanes", "final_lanes"}
    fair = pd.DataFrame(doc["fair_payoffs"])
    assert len(fair) == 24 and fair["printed"].iloc[:6].tolist() == [12, 11, 9, 8, 7, 6]
    assert (tmp_path / "b.svg").exists()
    code, out, _ = run(
        capsys,
        "race",
        "compare",
        "--players",
        "3",
        "--a",
        "ev-approx,greedy",
        "--b",
        "ev-approx,greedy",
        "--games",
        "200",
        "--quiet",
        "--format",
        "csv",
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert table["metric"].tolist() == ["win_rate", "mean_score", "tie_rate", "tiebreak_win_rate"]
    assert (table["diff"] == 0).all()
    # ev-approx players often place the same bets and tie: the table says how often, and
    # how many of the seat's wins the token stack decided
    ties = table.set_index("metric")
    assert 0 < ties.loc["tiebreak_win_rate", "a"] <= ties.loc["tie_rate", "a"]
    assert ties.loc["tiebreak_win_rate", "a"] <= ties.loc["win_rate", "a"]


def test_odds_and_play_keep_their_columns(capsys):
    code, out, _ = run(capsys, "race", "odds", "--games", "1000", "--quiet", "--format", "csv")
    assert code == 0
    assert pd.read_csv(io.StringIO(out)).columns.tolist()[:5] == [
        "lane",
        "card",
        "p_first",
        "p_first_lo",
        "p_first_hi",
    ]
    code, out, _ = run(
        capsys, "race", "play", "--players", "3", "--games", "300", "--quiet", "--format", "json"
    )
    doc = json.loads(out)
    assert list(doc)[:4] == ["meta", "seats", "policies", "turns"]
    assert {"scores", "turn_order"} <= set(doc)
    assert pd.DataFrame(doc["seats"])["wins"].sum() == 300


@pytest.mark.parametrize(
    "argv",
    [
        ["race", "ev", "--games", "100", "--plot", "{tmp}/chart.pdf"],
        ["race", "ev", "--games", "100", "--taken", "7"],
        ["race", "ev", "--games", "100", "--taken", "2,x"],
        ["race", "ev", "--games", "100", "--lanes", "Nope,Pecorino,Feta,Manchego,Roquefort,Stilton"],
        ["race", "ev", "--games", "100", "--precision", "0.1"],
        ["race", "ev", "--stage", "final", "--taken", "2", "--games", "100"],
        ["race", "ev", "--max-games", "100"],
        ["race", "ev", "--precision", "0"],
        ["race", "balance", "--players", "9", "--games", "100"],
        ["race", "compare", "--players", "3", "--a", "ev", "--b", "random,greedy", "--games", "100"],
        [
            "race",
            "compare",
            "--players",
            "3",
            "--a",
            "ev,greedy",
            "--b",
            "random,greedy",
            "--seat",
            "4",
            "--games",
            "100",
        ],
        ["race", "play", "--players", "3", "--games", "100", "--plot", "{tmp}/x.jpg"],
    ],
)
def test_bad_input_exit_2_one_line_no_file(capsys, tmp_path, argv):
    out = tmp_path / "out.csv"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--quiet", "--out", str(out)]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "error" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("game,players,words", [
    ("race", "1e3", "players must be 2 to 6, got 1000"),
    ("panic", "1e3", "players must be 3 or 4, got 1000"),
    ("awsheep", "1e3", "players must be 3 to 6, got 1000"),
    ("race", "four", "argument --players: not a whole number: 'four'"),
])
def test_players_is_read_as_games_is(capsys, tmp_path, game, players, words):
    """--players 1e3 is the number 1000, as --games 1e3 is: refused for its size, in one
    line, before any work (not "invalid int value")."""
    out = tmp_path / "out.csv"
    try:
        code = main([game, "play", "--players", players, "--games", "10", "--out", str(out)])
    except SystemExit as exc:  # argparse errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()
