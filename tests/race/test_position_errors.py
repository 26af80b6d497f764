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
