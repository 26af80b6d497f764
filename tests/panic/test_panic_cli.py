"""``sheepsim panic play`` / ``trace``: outputs, metadata, user policies and bad input
(one line on stderr, exit code 2, no traceback, no partial file)."""

import json

import numba
import pytest

from sheepsim.cli import main


@numba.njit
def first_option(kind, view, opts, n, rand):
    """A user policy for the test: always the first legal option."""
    return 0


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse refuses an option by exiting
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_play_json_has_tables_and_metadata(capsys):
    code, out, err = run(capsys, "panic", "play", "--players", "3", "--games", "200",
                         "--seed", "4", "--format", "json", "--quiet", "--policy", "random")
    assert code == 0, err
    doc = json.loads(out)
    meta = doc["meta"]
    assert meta["rules"] == "<standard>/standard.toml" and len(meta["rules_sha256"]) == 64
    assert meta["policies"] == ["random"] * 3 and meta["games"] == 200
    assert meta["seed"] == 4 and "sheepsim_version" in meta
    for table in ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns",
                  "turn_histogram", "game_end", "tie_breaks", "tiles"):
        assert doc[table], table
    assert sum(r["wins"] for r in doc["by_seat"]) == 200
    assert set(doc["by_seat"][0]) >= {"seat", "colour", "policy", "wins", "win_rate", "win_rate_lo",
                                      "win_rate_hi", "mean_points"}


def test_play_table_and_csv_to_file_with_sidecar(tmp_path, capsys):
    out_file = tmp_path / "res.csv"
    code, out, err = run(capsys, "panic", "play", "--games", "100", "--format", "csv",
                         "--out", str(out_file), "--policy", "greedy,random,random,random",
                         "--quiet")
    assert code == 0, err
    assert out == ""
    assert out_file.read_text().startswith("seat,colour,policy,games,wins,win_rate,win_rate_lo,win_rate_hi")
    meta = json.loads((tmp_path / "res.csv.meta.json").read_text())
    assert meta["policies"] == ["greedy", "random", "random", "random"]
    code, out, err = run(capsys, "panic", "play", "--games", "50", "--quiet")
    assert code == 0 and "by_policy" in out and "game_end" in out
    # the tiles table shows its means, whatever else the width leaves out
    tiles = out[out.index("tiles"):]
    assert "mean_counter" in tiles and "mean_gain" in tiles and "chosen_per_game" in tiles


def test_trace_prints_every_turn(capsys):
    code, out, err = run(capsys, "panic", "trace", "--players", "4", "--seed", "3")
    assert code == 0, err
    assert out.count("Opening:") == 4
    assert "Turn 1:" in out and "Winner:" in out and "(facing " in out
    assert "counter " in out


def test_user_policy_plugs_in(capsys):
    code, out, err = run(capsys, "panic", "trace", "--players", "3", "--seed", "1",
                         "--policy", "test_panic_cli:first_option,random,greedy")
    assert code == 0, err
    assert "test_panic_cli:first_option" in out
    # the same function object passed to the Python API gives the same game
    from sheepsim.games.panic.simulate import trace_game

    tr = trace_game(players=3, policies=[first_option, "random", "greedy"], seed=1)
    assert "\n".join(tr.lines) + "\n" == out
    # and through the one Python path, a policy per seat, the function among them
    import sheepsim

    res = sheepsim.trace("panic", seed=1, players=3, policy=[first_option, "random", "greedy"],
                         quiet=True)
    assert res.text() == out
    assert res.meta["policy"] == "test_panic_cli:first_option,random,greedy"


@pytest.mark.parametrize("argv,needle", [
    (["panic", "play", "--players", "2", "--games", "10"], "players must be 3 or 4, got 2"),
    (["panic", "play", "--players", "5", "--games", "10"], "players must be 3 or 4"),
    (["panic", "play", "--policy", "sneaky", "--games", "10"], "unknown policy 'sneaky'"),
    (["panic", "play", "--policy", "random,random", "--games", "10"], "one per player"),
    (["panic", "play", "--policy", "nosuchmod:fn", "--games", "10"], "cannot import module"),
    (["panic", "play", "--policy", "json:dumps", "--games", "10"], "@numba.njit"),
    (["panic", "play", "--rules", "/nonexistent/rules.toml"], "file not found"),
    (["panic", "trace", "--format", "csv"], "--format csv but --out"),  # out.txt
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, needle):
    out_file = tmp_path / "out.txt"
    code, out, err = run(capsys, *argv, "--out", str(out_file))
    assert code == 2
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out_file.exists() and not list(tmp_path.iterdir())


def test_out_folder_missing_leaves_nothing(tmp_path, capsys):
    target = tmp_path / "missing" / "x.json"
    code, out, err = run(capsys, "panic", "play", "--games", "20", "--out", str(target),
                         "--quiet")
    assert code == 2 and "does not exist" in err
    assert not list(tmp_path.iterdir())


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["panic", "play", "--games", "0"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_trace_decisions_table_is_what_the_policies_were_asked(capsys):
    """``trace --table decisions``: one row per decision a policy was asked, in order; the
    menu choices are the turns the text shows (no lone option in this game), and the
    Python API gives the same table beside the same text."""
    argv = ["panic", "trace", "--players", "3", "--seed", "3", "--policy", "greedy,random,random",
            "--quiet"]
    code, text, err = run(capsys, *argv)
    assert code == 0, err
    code, out, err = run(capsys, *argv, "--table", "decisions", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["decisions"]
    assert [r["decision"] for r in rows] == list(range(len(rows)))
    assert {r["kind"] for r in rows} <= {"action", "group", "route", "panic_push", "panic_turn"}
    assert all(r["n_options"] >= 2 and 0 <= r["choice"] < r["n_options"] for r in rows)
    assert all(r["phase"] == 0 for r in rows) and {r["seat"] for r in rows} == {1, 2, 3}
    actions = [r for r in rows if r["kind"] == "action"]
    assert len(actions) == text.count("\nTurn ")
    # the opening: each seat in turn rolls the panic die and pushes (8 directions for
    # each sheep of the colour) or turns the flock
    first_action = next(i for i, r in enumerate(rows) if r["kind"] == "action")
    assert [r["seat"] for r in rows[:first_action]
            if r["kind"] in ("panic_push", "panic_turn")] == [1, 2, 3]
    assert all(r["n_options"] % 8 == 0 for r in rows if r["kind"] == "panic_push")
    import sheepsim

    res = sheepsim.trace("panic", seed=3, players=3, policy="greedy,random,random", quiet=True)
    assert res.text() == text and list(res.tables) == ["decisions"]
    assert res.tables["decisions"].to_dict("records") == rows
