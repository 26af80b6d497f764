"""Issue 49, items 3-5: an edit is judged for the player counts a run plays, one default
policy line-up per game, and ``card-value``'s ``--set``, ``--plot`` and counterfactual
deck."""

import pytest
from cli_helpers import run


def one_line_error(code, err, *words):
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def bad_for(tmp_path, n: int):
    """A standard rules file whose ``setup.N`` no longer deals equally (``N`` players
    only: the others play it as usual)."""
    import importlib.resources

    text = importlib.resources.files("sheepsim.games.awsheep").joinpath("standard.toml").read_text()
    aside = {3: "set_aside_random = 8", 4: "set_aside_random = 4", 5: "set_aside_random = 1",
             6: "set_aside_random = 0"}[n]
    head, _, tail = text.partition(f"[setup.{n}]")
    path = tmp_path / f"bad{n}.toml"
    path.write_text(head + f"[setup.{n}]" + tail.replace(aside, "set_aside_random = 7", 1))
    return path


# ------------------------------------------------------------------ item 3: the counts asked
def test_an_edit_that_breaks_only_the_3_player_setup_plays_4_players(capsys):
    """Removing the Horse (``deck.horse=0``) leaves the 3-player setup removing two
    horses the deck no longer has: a 4-player run takes it (refused before: "setup.3.
    remove.horse: removes 2 but the deck has 0"), a 3-player run refuses it naming the
    key and the count, before any game."""
    argv = ["awsheep", "variants", "--set", "deck.horse=0", "--games", "200", "--metric",
            "mean_turns", "--quiet", "--format", "csv"]
    code, out, err = run(capsys, *argv, "--players", "4")
    assert code == 0, err
    assert "deck.horse=0" in out
    code, _, err = run(capsys, *argv, "--players", "3")
    one_line_error(code, err, "setup.3.remove.horse", "3-player")


def test_a_sweep_is_judged_for_its_player_count(capsys):
    """``sweep --set deck.pig=2,4 --players 4`` was refused for the 3-player setup; it is
    refused for the 4-player one (34 - 4 cards do not deal to 4), named as such."""
    code, _, err = run(capsys, "awsheep", "sweep", "--set", "deck.pig=2,4", "--players", "4",
                       "--games", "200", "--metric", "mean_turns", "--quiet")
    one_line_error(code, err, "setup.4.set_aside_random", "4 players")
    assert "setup.3" not in err
    code, _, err = run(capsys, "awsheep", "sweep", "--set", "deck.pig=0,4", "--players", "4",
                       "--games", "200", "--metric", "mean_turns", "--quiet", "--format", "csv")
    assert code == 0, err


def test_tune_judges_its_range_for_its_player_count(capsys):
    pytest.importorskip("optuna")
    code, _, err = run(capsys, "awsheep", "tune", "--vary", "deck.horse=0..4", "--target",
                       "mean_turns=min", "--players", "3", "--budget", "30000", "--quiet")
    one_line_error(code, err, "setup.3.remove.horse", "3-player")


@pytest.mark.parametrize("n", [3, 6])
def test_every_command_refuses_a_file_bad_for_the_count_it_plays(capsys, tmp_path, monkeypatch, n):
    """A file whose ``setup.N`` does not deal: ``play``/``compare``/``trace``/
    ``card-value`` with ``--players N`` and ``balance`` (every count) refuse it in one line
    naming the key and the count, before any game; with another count they play it."""
    from sheepsim.games.awsheep import jobs

    path = str(bad_for(tmp_path, n))
    key = f"setup.{n}.set_aside_random"

    def no_game(*a, **k):
        raise AssertionError("a game was played")

    with monkeypatch.context() as m:
        for cls in (jobs.PlayJob, jobs.SkillJob, jobs.CardValueJob):
            m.setattr(cls, "chunk", no_game)
        for argv in (["play", "--games", "100"], ["compare", "--games", "100"], ["trace"],
                     ["card-value", "--games", "100"], ["balance", "--games", "100"]):
            players = [] if argv[0] == "balance" else ["--players", str(n)]
            code, _, err = run(capsys, "awsheep", *argv, "--rules", path, *players, "--quiet"
                               if argv[0] != "trace" else "--seed=0")
            one_line_error(code, err, key, f"{n} players")
    other = "4"
    for argv in (["play", "--games", "100", "--quiet"], ["trace"]):
        code, _, err = run(capsys, "awsheep", *argv, "--rules", path, "--players", other)
        assert code == 0, err


def test_the_loader_keeps_the_setup_problems_for_their_count(tmp_path):
    from sheepsim.errors import RulesError
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules(bad_for(tmp_path, 5))
    assert rules.check_players(4) == 4
    with pytest.raises(RulesError) as exc:
        rules.check_players(5)
    assert exc.value.key == "setup.5.set_aside_random" and "5 players" in exc.value.problem
    assert rules.problems_for(4) == [] and len(rules.problems_for()) == 1
    assert rules.problems_for([5, 6])[0] == str(exc.value)
    assert load_rules().problems_for() == []


def test_a_linked_edit_removes_a_kind_and_keeps_the_deck_size(capsys):
    """``KEY=VALUE~OTHER`` moves the change to OTHER: ``deck.horse=0~deck.sheep`` removes
    the Horse and keeps 36 cards, so the 5-player setup still deals (plain
    ``deck.horse=0`` leaves 31 for 5 players, refused naming the key and the count)."""
    import json
    import tomllib

    from sheepsim.game import get
    from sheepsim.rulesedit import EditError, base_text, edited, parse_edit

    base = base_text(get("awsheep"))
    deck = tomllib.loads(edited(base, [parse_edit("deck.horse=0~deck.sheep")]).text)["deck"]
    assert deck["horse"] == 0 and deck["sheep"] == 21 and sum(deck.values()) == 36
    for bad, words in (("deck.horse=0~deck.horse", "another key"),
                       ("deck.horse=0~options.draft", "whole numbers"),
                       ("deck.horse=0~deck.shep", "did you mean 'sheep'")):
        with pytest.raises(EditError, match=words):
            edited(base, [parse_edit(bad)])
    argv = ["awsheep", "variants", "--games", "200", "--metric", "mean_turns", "--players", "5",
            "--policy", "random", "--quiet"]
    code, _, err = run(capsys, *argv, "--set", "deck.horse=0")
    one_line_error(code, err, "setup.5.set_aside_random", "5 players")
    code, out, err = run(capsys, *argv, "--set", "deck.horse=0~deck.sheep", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["meta"]["variants"][1]["edits"] == "deck.horse=0~deck.sheep"


# ------------------------------------------------------------------ item 4: one default line-up
def _parsers(g):
    from sheepsim import cli
    from sheepsim.commands import SHARED, parts

    names = [c for c in SHARED if c in parts(g).COMMANDS]
    names += ["variants", "sweep", "tune"] if g.metrics else []
    parser = cli.build_parser()
    return {n: cli.subcommand_parser(parser, g.command, n) for n in names}


def _games():
    from sheepsim.game import games

    return games()


@pytest.mark.parametrize("g", _games(), ids=lambda g: g.command)
def test_every_command_of_a_game_defaults_to_its_one_line_up(g):
    """Declared once (``Game.default_policies``) and used by every command: before,
    Aw, Sheep! ``balance`` and ``card-value`` defaulted to counter and ``play``,
    ``trace``, ``variants``... to random; Shear Panic ``balance`` to greedy and the rest
    to random. Each option's help says the default."""
    from sheepsim.commands import policy_dest, policy_option

    defaults = g.policy_defaults
    assert set(defaults) == set(g.policies)
    for command, sub in _parsers(g).items():
        for action in sub._actions:
            for role, name in defaults.items():
                if action.dest == policy_dest(g, role) and policy_option(g, role) in action.option_strings:
                    assert action.default == name, (command, role)
                    assert f"(default {name})" in action.help
        field = sub.get_default("field") if command == "compare" else None
        if field is not None and len(g.policies) == 1:
            assert field == defaults["play"], command


def test_the_line_ups_a_player_expects():
    from sheepsim.game import get

    assert get("awsheep").policy_defaults == {"play": "counter"}
    assert get("panic").policy_defaults == {"play": "greedy"}
    assert get("race").policy_defaults == {"pace": "greedy", "bet": "ev-approx"}
    from sheepsim import cli

    cv = cli.subcommand_parser(cli.build_parser(), "awsheep", "card-value")
    assert cv.get_default("field") == "counter"
    race = cli.subcommand_parser(cli.build_parser(), "race", "compare")
    assert race.get_default("field") == "ev-approx,greedy" == race.get_default("a")


@pytest.mark.parametrize(("argv", "key", "value"), [
    (["awsheep", "play", "--games", "100"], "policies", ["counter"] * 4),
    (["awsheep", "variants", "--set", "scoring.golden_worth=4", "--games", "200",
      "--metric", "mean_turns"], "policies", {"play": "counter"}),
    (["panic", "play", "--games", "20", "--players", "3"], "policies", ["greedy"] * 3),
])
def test_the_default_line_up_is_in_the_metadata(capsys, argv, key, value):
    import json

    code, out, err = run(capsys, *argv, "--quiet", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["meta"][key] == value


# ------------------------------------------------------------------ item 5: card-value
def test_card_value_takes_rules_edits_and_draws_its_chart(capsys, tmp_path):
    """``card-value --set`` edits the rules as the designers' commands do (validated for
    the counts it plays) and ``--plot`` draws the card value chart; before, neither
    option existed."""
    import json

    chart = tmp_path / "cv.png"
    code, out, err = run(capsys, "awsheep", "card-value", "--set", "deck.horse=0;deck.sheep=21",
                         "--players", "4", "--games", "40", "--field", "random", "--quiet",
                         "--format", "json", "--plot", str(chart))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["meta"]["edits"] == "deck.horse=0 deck.sheep=21"
    assert doc["meta"]["rules"].endswith("with deck.horse=0 deck.sheep=21")
    assert {r["kind"]: r["holders"] for r in doc["card_value"]}["horse"] == 0  # none dealt
    assert chart.stat().st_size > 0
    code, _, err = run(capsys, "awsheep", "card-value", "--set", "deck.horse=0", "--players",
                       "3,4", "--games", "40", "--quiet")
    one_line_error(code, err, "setup.3.remove.horse", "3-player")
    code, _, err = run(capsys, "awsheep", "card-value", "--set", "deck.hores=0", "--games", "40")
    one_line_error(code, err, "deck.hores", "did you mean 'horse'")
