"""Bad --position and lane arguments: one line that says what is wrong in the player's
terms (exit 2), before any solving."""

import pytest

from sheepsim.cli import main

START = "semifinal 6.011 10.010 8.000 10.001 12.020"


def _err(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("position,words", [
    ("", "the position is empty"),
    ("   ", "the position is empty"),
    ("pos.txt", "no such file: pos.txt"),
    ("missing/dir/p", "no such file: missing/dir/p"),
    (f"{START} F2", "with 1 sheep across the line their places must be F1"),
])
def test_bad_positions(capsys, position, words):
    code, err = _err(capsys, "race", "odds", "--position", position)
    assert code == 2 and words in err and err.count("\n") == 1, err


def test_bad_lane_arguments_of_advise(capsys):
    pos = f"{START} F1"
    code, err = _err(capsys, "race", "advise", "--position", pos, "--lane", "1", "--hidden", "7")
    assert code == 2 and "hidden bets: a lane number 1-6, got 7" in err, err
    code, err = _err(capsys, "race", "advise", "--position", pos, "--lane", "1", "--hidden", "2,2")
    assert code == 2 and "a lane may be named once, got 2, 2" in err, err


SHEEP = "6.011 10.010 8.000 10.001 12.020 F1"


@pytest.mark.parametrize("argv,words", [
    (["--position", f"semifnal {SHEEP}"], "'semifnal' is not a stage"),
    (["--position", f"semifinal final {SHEEP}"], "names the stage twice"),
    (["--position", f"stage=semi {SHEEP}"], "stage=semi: the stage is semifinal or final"),
    (["--position", f"final {SHEEP}", "--stage", "semifinal"],
     "the position is a final but the stage given is semifinal"),
    (["--position", f"supply=-1 {SHEEP}"], "supply=-1: the supply is negative"),
    (["--position", f"lanes=Feta,Feta,Jumbuck,Crowdie,Stilton,Limburger {SHEEP}"],
     "Feta is named twice"),
    (["--position", f"lanes=Feta,Karoo,Jumbuck,Crowdie,Stilton,Limburger {SHEEP}", "--lanes",
      "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"],
     "the position's lanes=Feta,Karoo,Jumbuck,Crowdie,Stilton,Limburger differ from the lanes given"),
    (["--position", "6.011 10.010 8.000 10.001 X5 F1"],
     "lane 5: X5 is outside the End Zone (squares 16-20)"),
    (["--exact", "--policy", "lookahead"], "try race play --pace-policy lookahead"),
])
def test_position_grammar_blames_the_right_part(capsys, tmp_path, argv, words):
    out = tmp_path / "odds.csv"
    code, err = _err(capsys, "race", "odds", *argv, "--out", str(out))
    assert code == 2 and words in err and err.count("\n") == 1, err
    assert not out.exists()


def test_space_after_a_comma_in_lanes_is_accepted():
    from sheepsim.games.race.exact.position import parse_position

    pos = parse_position(f"lanes=Feta, Karoo,Jumbuck , Crowdie,Stilton,Limburger {SHEEP}")
    assert pos.lanes == ("Feta", "Karoo", "Jumbuck", "Crowdie", "Stilton", "Limburger")
    assert len(pos.sheep) == 6


def test_advise_without_bets_one_line(capsys, tmp_path):
    out = tmp_path / "advice.json"
    code, err = _err(capsys, "race", "advise", "--position", f"{START} F1", "--lane", "1",
                     "--rival-open", "2", "--out", str(out))
    assert code == 2 and err == "sheepsim: error: advise needs your bets: --open/--hidden " \
        "(open_bet=/hidden= in Python)\n", err
    assert not out.exists()


def test_odds_from_a_position_carry_it_in_their_title(capsys):
    pos = f"final {SHEEP[:-3]} 3.000"
    code = main(["race", "odds", "--position", pos])
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"The Sheep Race: final odds (exact) from position {pos}")
