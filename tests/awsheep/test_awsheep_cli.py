"""``sheepsim awsheep play|balance|compare|trace`` and the report studies."""

import json

import pandas as pd
import pytest

from sheepsim.cli import main
from sheepsim.games.awsheep.analysis import luck_vs_skill
from sheepsim.games.awsheep.commands import PLAY_TABLES
from sheepsim.games.awsheep.jobs import SkillJob


def run(capsys, *argv):
    try:
        code = main(["awsheep", *argv])
    except SystemExit as exc:  # argparse refuses an option by exiting
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_trace_prints_the_round(capsys):
    code, out, _ = run(capsys, "trace", "--players", "3", "--policy", "counter,greedy,random",
                       "--seed", "4", "--game", "2")
    assert code == 0
    assert out.startswith("Aw, Sheep!, 3 players") and "Turn 1: seat" in out
    assert "cards moved" in out and "Round over" in out


def test_trace_flock_off_line_counts_the_tied_players_in_words():
    """"Flock Off: the most sheep in hand wins ... Ties go to the ..." (shared/rulebooks/README.md,
    Aw, Sheep!): the trace says how many players share the best flock, in words that fit
    the number (never "1 player(s)")."""
    import re

    from sheepsim.games.awsheep.trace import trace_round

    line = re.compile(r"Flock Off: best flock worth \d+, (one player has it|[2-6] players tied at it)$")
    seen = set()
    for game in range(40):
        for text in trace_round(players=4, seed=1, game=game).lines:
            if text.startswith("Flock Off"):
                assert line.match(text), text
                seen.add("one" if "one player" in text else "tied")
    assert seen == {"one", "tied"}


def test_trace_json_and_csv_refused(capsys, tmp_path):
    out = tmp_path / "t.json"
    code, _, _ = run(capsys, "trace", "--format", "json", "--out", str(out), "--draft")
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["meta"]["draft"] is True and doc["winner_seat"] >= 1 and doc["lines"]
    code, _, err = run(capsys, "trace", "--format", "csv")
    assert code == 2 and "a trace's turn-by-turn text has no columns to write as csv" in err
    code, _, err = run(capsys, "trace", "--out", str(tmp_path / "t.csv"))
    assert code == 2 and "add --table decisions for that table in csv" in err
    assert not (tmp_path / "t.csv").exists()


def test_play_csv_and_bad_players(capsys):
    code, out, _ = run(capsys, "play", "--players", "6", "--games", "300", "--format", "csv",
                       "--quiet")
    assert code == 0 and out.splitlines()[0].startswith("players,draft,field,seat,games,wins")
    code, _, err = run(capsys, "play", "--players", "7", "--games", "10")
    assert code == 2 and "players must be 3 to 6, got 7" in err and len(err.splitlines()) == 1


def test_play_table_is_a_readers_view_and_all_columns_shows_every_column(capsys):
    args = ["play", "--players", "4", "--games", "400", "--seed", "3", "--quiet", "--policy", "random"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert all(len(line) <= 120 for line in out.splitlines())
    first = out[out.index("first_player"):]
    header = first.splitlines()[1].split()
    assert "win_rate_lo" not in header and "(95%" in header and "pvalue_holm" in header
    assert "chi2_pvalue" in first.split("\n\n")[0]  # a column or, the same on every row, below
    assert "0.0000" not in first.split("\n\n")[0]  # p-values are never shown as zero
    code, full, _ = run(capsys, *args, "--all-columns")
    first = full[full.index("first_player"):]
    assert {"win_rate_lo", "win_rate_hi", "games", "chi2_pvalue"} <= set(first.splitlines()[1].split())
    code, csv, _ = run(capsys, *args, "--format", "csv")
    assert "win_rate_lo" in csv.splitlines()[0]


def test_table_picks_the_one_table_printed(capsys):
    # docs/commands.md: CSV "holds one table (`--table NAME` picks which)"
    args = ["play", "--players", "4", "--games", "300", "--seed", "3", "--quiet"]
    code, out, _ = run(capsys, *args, "--table", "card_power", "--format", "csv")
    assert code == 0
    code, doc, _ = run(capsys, *args, "--format", "json")
    assert set(json.loads(doc)) - {"meta"} == set(PLAY_TABLES)  # --table's list is complete
    columns = list(json.loads(doc)["card_power"][0])
    assert out.splitlines()[0].split(",") == columns  # the card_power table, not by_seat
    code, every, _ = run(capsys, *args)
    code, text, _ = run(capsys, *args, "--table", "round_ends")
    assert code == 0 and "card_power" in every and "by_policy" in every
    assert "card_power" not in text and "by_policy" not in text and len(text) < len(every) / 2
    assert any(line.split()[:6] == ["players", "draft", "field", "end", "games", "rounds"]
               for line in text.splitlines() if line.strip())  # the round_ends header
    with pytest.raises(SystemExit) as info:
        main(["awsheep", *args, "--table", "bogus"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "invalid choice: 'bogus'" in err and len(err.splitlines()) == 1


def test_compare_is_paired(capsys):
    code, out, _ = run(capsys, "compare", "--a", "counter", "--b", "random", "--games", "600",
                       "--format", "csv", "--quiet")
    assert code == 0
    t = pd.read_csv(pd.io.common.StringIO(out))
    row = t.set_index("metric").loc["win_rate"]
    assert row["a"] > row["b"] and row["diff_lo"] > 0


def test_skill_job_table_matches_its_pairs():
    from sheepsim import driver

    job = SkillJob(None, 4, "greedy", "random", 2, False)
    res = driver.run(job, games=500, chunk_games=123, progress=False)
    table = luck_vs_skill(job.pair_frame(res.counts, 500))
    assert table.equals(res.tables["luck_vs_skill"])
    r = table.iloc[0]
    # the baseline run is all-random: its win count over the 4 rotating slots is 500
    assert res.counts["acc_b"][0] == 500 and res.counts["pairs"].sum() > 0
    assert r["fair_share"] == 0.25


@pytest.mark.parametrize("study", ["awsheep-balance", "awsheep-luck-skill"])
def test_report_studies(tmp_path, study):
    from sheepsim.report.build import run_report

    extra = 'policies = ["counter", "random", "random"]' if study == "awsheep-balance" else \
        'policy = "greedy"'
    cfg = tmp_path / "r.toml"
    cfg.write_text(f'title = "t"\n[[study]]\ntype = "{study}"\nname = "aw"\nplayers = 3\n'
                   f"draft = true\n{extra}\nseed = 1\ngames = 400\n")
    run_report(cfg, tmp_path / "out", quiet=True)
    files = {p.name for p in (tmp_path / "out").rglob("*")}
    assert any(f.endswith(".csv") for f in files) and any(f.endswith(".png") for f in files)


def test_importing_the_game_compiles_nothing():
    # Project standard: importing a game package must not compile kernels.
    import subprocess
    import sys

    code = ("import sys; import sheepsim.games.awsheep, sheepsim.games.awsheep.game, "
            "sheepsim.games.awsheep.jobs, sheepsim.games.awsheep.commands, "
            "sheepsim.games.awsheep.analysis; print('numba' in sys.modules)")
    # a new interpreter: whether the import loads numba, none loaded before
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_report_card_value_and_turn_order_studies(tmp_path):
    # the report names the field behind each turn-order finding, one per field, and
    # gives the card values
    from sheepsim.report.build import run_report

    cfg = tmp_path / "r.toml"
    cfg.write_text('title = "t"\n'
                   '[[study]]\ntype = "awsheep-card-value"\nname = "cv"\nplayers = 3\n'
                   'policies = ["greedy"]\nseed = 1\ngames = 200\n'
                   '[[study]]\ntype = "awsheep-turn-order"\nname = "to"\nplayers = 4\n'
                   'fields = ["random", "greedy"]\nseed = 1\ngames = 400\n')
    run_report(cfg, tmp_path / "out", quiet=True)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Card value with every seat playing greedy, 3 players" in md
    assert "Turn order with every seat playing random:" in md
    assert "Turn order with every seat playing greedy:" in md
    cv = pd.read_csv(tmp_path / "out" / "cv" / "card_value.csv")
    assert set(cv["kind"]) == {"doghouse", "methane", "horse", "pig", "golden"}
    assert {"value", "value_lo", "value_hi"} <= set(cv.columns)
    first = pd.read_csv(tmp_path / "out" / "to" / "first_player.csv")
    assert first.groupby("field")["wins"].sum().to_dict() == {"greedy": 400, "random": 400}
    cfg.write_text('title = "t"\n[[study]]\ntype = "awsheep-turn-order"\nname = "to"\n'
                   'fields = ["random", "random"]\ngames = 10\n')
    from sheepsim.errors import SheepsimError

    with pytest.raises(SheepsimError, match="fields.*each field once"):
        run_report(cfg, tmp_path / "out2", quiet=True)


def test_card_value_command(capsys):
    code, out, _ = run(capsys, "card-value", "--players", "3", "--field", "greedy", "--games",
                       "60", "--format", "csv", "--table", "card_value", "--quiet")
    assert code == 0
    t = pd.read_csv(pd.io.common.StringIO(out))
    assert t["kind"].tolist() == ["doghouse", "methane", "horse", "pig", "golden"]
    assert (t["value_lo"] <= t["value"]).all() and (t["value"] <= t["value_hi"]).all()
    code, _, err = run(capsys, "card-value", "--players", "3,7", "--games", "10")
    assert code == 2 and "players must be 3 to 6, got 7" in err and len(err.splitlines()) == 1


def test_random_is_said_to_choose_among_rows(capsys, tmp_path):
    # docs/commands.md: random picks uniformly among the legal [card kind, target] rows, not the
    # cards: said in the help and in the metadata of a run with a random seat
    code, out, _ = run(capsys, "play", "--help")
    assert "[card kind, target] rows" in " ".join(out.split())
    path = tmp_path / "p.json"
    code, _, _ = run(capsys, "play", "--games", "50", "--quiet", "--format", "json", "--out",
                     str(path), "--policy", "random")
    assert "[card kind, target] rows" in json.loads(path.read_text())["meta"]["random_policy"]
    code, _, _ = run(capsys, "play", "--policy", "greedy", "--games", "50", "--quiet",
                     "--format", "json", "--out", str(path))
    assert "random_policy" not in json.loads(path.read_text())["meta"]


def test_compare_names_the_flock_value(capsys, tmp_path):
    path = tmp_path / "c.json"
    code, _, _ = run(capsys, "compare", "--games", "200", "--quiet", "--format", "json",
                     "--out", str(path))
    doc = json.loads(path.read_text())
    assert [r["metric"] for r in doc["comparison"]] == ["win_rate", "mean_flock_value",
                                                        "tie_rate", "tiebreak_win_rate"]
    assert "0 if out of cards" in doc["meta"]["metrics"]["mean_flock_value"]


def test_three_player_trace_says_which_set_aside_cards_are_named():
    # Rulebook: "With 3 players ... Remove 2 horses and 2 pigs ... remove 8 random cards
    # and place them aside": 8 unseen, 4 named (public)
    from sheepsim.games.awsheep.trace import trace_round

    deal = [t for t in trace_round(players=3, seed=1).lines if t.startswith("Deal")][0]
    assert deal.startswith("Deal (8 cards set aside unseen + 4 named removals (public))")
    deal = [t for t in trace_round(players=4, seed=1).lines if t.startswith("Deal")][0]
    assert deal.startswith("Deal (4 cards set aside unseen):")
    deal = [t for t in trace_round(players=5, seed=1).lines if t.startswith("Deal")][0]
    assert deal.startswith("Deal (1 card set aside unseen):")  # one card: no plural


def test_every_name_the_package_exports_resolves():
    # the Python API: sheepsim.games.awsheep.card_value_tables etc. (play_rounds, a name
    # that never existed, used to be listed)
    import sheepsim.games.awsheep as aw

    assert {"card_value_tables", "play_tables", "CardValueJob", "FieldsJob"} <= set(aw.__all__)
    assert all(callable(getattr(aw, name)) for name in aw.__all__)
