"""``sheepsim panic balance`` and ``sheepsim panic compare``."""

import json

from sheepsim.cli import main


def test_balance_json_stacks_player_counts_and_plots(tmp_path, capsys):
    out, plot = tmp_path / "b.json", tmp_path / "b.svg"
    code = main(["panic", "balance", "--games", "60", "--quiet", "--format", "json",
                 "--out", str(out), "--plot", str(plot)])
    assert code == 0
    doc = json.loads(out.read_text())
    seats = doc["by_seat"]
    assert sorted({r["players"] for r in seats}) == [3, 4]
    for n in (3, 4):
        assert sum(r["wins"] for r in seats if r["players"] == n) == 60  # one winner a game
    assert {r["players"] for r in doc["tile_usage"]} == {3, 4}
    assert "Points by field, 3 players" in plot.read_text()
    assert json.loads((tmp_path / "b.json.meta.json").read_text())["games"] == 60


def test_play_plot_is_titled_by_what_it_draws(tmp_path, capsys):
    """``panic play --plot`` draws points by field and tile usage: its title says which
    games (as the printed table's does), not "win rates"."""
    plot = tmp_path / "p.svg"
    assert main(["panic", "play", "--players", "3", "--games", "30", "--quiet",
                 "--plot", str(plot)]) == 0
    assert capsys.readouterr().out.startswith("Shear Panic: 3 players, 30 games\n")
    svg = plot.read_text()
    assert "Shear Panic: 3 players, 30 games" in svg and "win rates" not in svg


def test_compare_a_policy_with_itself_differs_by_exactly_zero(capsys):
    # Common random numbers: the same policy on the same dice plays the same games.
    code = main(["panic", "compare", "--players", "3", "--a", "random", "--b", "random",
                 "--field", "random", "--games", "40", "--quiet", "--format", "json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc["comparison"]
    assert all(r["diff"] == 0 for r in rows)
    assert rows[0]["a"] == rows[0]["b"]
    assert [r["metric"] for r in rows] == ["win_rate", "mean_score", "tie_rate", "tiebreak_win_rate"]
    # the pairing gain is measured, not promised: the same games twice leave no variance
    pairing = doc["meta"]["pairing"]
    assert pairing["win_rate_se_ratio"] == 0.0 and pairing["mean_score_se_ratio"] == 0.0


def test_compare_bad_seat_is_one_line(capsys):
    code = main(["panic", "compare", "--players", "3", "--seat", "4", "--games", "10"])
    err = capsys.readouterr().err
    assert code == 2 and "seat must be between 1 and 3" in err and len(err.splitlines()) == 1
