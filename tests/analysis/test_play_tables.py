"""``--table`` on the whole-game commands of both games, and the tie-break tables they
print (issue 14)."""

import io

import pandas as pd
import pytest

from sheepsim.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_race_play_table_option_picks_the_csv_table(capsys):
    base = ["race", "play", "--players", "3", "--games", "400", "--seed", "2", "--quiet",
            "--format", "csv"]
    code, out, err = run(capsys, *base, "--table", "tie_breaks")
    assert code == 0, err
    ties = pd.read_csv(io.StringIO(out))
    assert ties["decided_by"].tolist() == ["score", "token_stack"]
    assert ties["games"].sum() == 400
    assert ties["tie_rate"].iloc[0] == pytest.approx(ties["games"].iloc[1] / 400)
    code, out, _ = run(capsys, *base, "--table", "turn_order")
    order = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert {"wins_on_tie", "tie_rate", "note"} <= set(order.columns)
    assert (order["wins_on_tie"] <= order["wins"]).all()
    assert order["wins_on_tie"].sum() == ties["games"].iloc[1]
    with pytest.raises(SystemExit) as exc:  # argparse rejects it: usage error, exit 2
        main([*base, "--table", "nope"])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_panic_play_and_balance_table_option(capsys):
    base = ["panic", "play", "--players", "3", "--games", "60", "--seed", "3", "--quiet",
            "--format", "csv", "--policy", "random"]
    code, out, err = run(capsys, *base, "--table", "tie_breaks")
    assert code == 0, err
    ties = pd.read_csv(io.StringIO(out))
    assert ties["decided_by"].tolist() == ["points", "sheep_left", "turn_order"]
    assert ties["tie_for_first"].tolist() == [False, True, True]
    assert ties["games"].sum() == 60
    assert ties["tie_rate"].iloc[0] == pytest.approx(ties["games"].iloc[1:].sum() / 60)
    code, out, _ = run(capsys, *base, "--table", "by_seat")
    seats = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert seats["wins_on_tie"].sum() == ties["games"].iloc[1:].sum()
    code, _, err = run(capsys, "panic", "balance", "--games", "10", "--quiet", "--table",
                       "neutral_colour")
    assert code == 2 and "--neutral" in err
