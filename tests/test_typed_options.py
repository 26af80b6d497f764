"""Options once, typed (issue 45, item 4): the command line and the Python API build the
same frozen options object (:class:`sheepsim.options.Options`) from the declared options,
with the same checks and messages; the commands and the games' parts get that object,
never an argparse namespace; the API builds it from its keywords, not from argv words,
and its JSON is the CLI's byte for byte for every command it offers."""

from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

import sheepsim
from sheepsim import cli, commands
from sheepsim.errors import SheepsimError
from sheepsim.options import ArgumentsError, Options, options_class, options_from_keywords


def _sub(*path):
    parser = cli.build_parser()
    return parser, cli.subcommand_parser(parser, *path)


def test_the_command_line_gives_a_frozen_typed_object():
    parser, sub = _sub("race", "play")
    opts = parser.parse_args(["race", "play", "--players", "3", "--games", "1k"])
    assert isinstance(opts, Options) and not isinstance(opts, argparse.Namespace)
    assert type(opts) is options_class(sub) and type(opts).__name__ == "RacePlayOptions"
    assert opts.players == 3 and opts.games == 1000 and opts.seed == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.seed = 1
    # each field is typed by what its option's parser returns
    types = {f.name: f.type for f in dataclasses.fields(opts)}
    assert types["players"] is int and types["seed"] is int and types["games"] == int | None
    assert types["precision"] == float | None and types["quiet"] is bool
    # the command's constants are class attributes, not options; the same command is the
    # same class whichever parser built it
    assert type(cli.build_parser(["race", "play"]).parse_args(["race", "play"])) is type(opts)
    assert opts.game == "race" and opts.command == "play" and opts.func is commands.cmd_play
    assert "func" not in types and "game_entry" not in types
    assert opts.replace(seed=5).seed == 5 and opts.seed == 0


@pytest.mark.parametrize("path, argv, keywords", [
    (("race", "play"), ["--players", "3", "--games", "2e3", "--policy", "saver", "--seed", "7"],
     {"players": 3, "games": 2000, "policy": "saver", "seed": 7}),
    (("panic", "compare"), ["--a", "greedy", "--b", "random", "--seat", "2", "--precision", "0.05"],
     {"a": "greedy", "b": "random", "seat": 2, "precision": 0.05}),
    (("awsheep", "play"), ["--no-draft", "--rotate", "--quiet", "--workers", "2"],
     {"draft": False, "rotate": True, "quiet": True, "workers": 2}),
    (("awsheep", "card-value"), ["--set", "deck.horse=0", "--set", "deck.wolf=1", "--players", "3,4"],
     {"set": ["deck.horse=0", "deck.wolf=1"], "players": "3,4"}),
    (("race", "trace"), ["--stage", "final", "--pace-policy", "greedy,saver,greedy,saver"],
     {"stage": "final", "pace_policy": ["greedy", "saver", "greedy", "saver"]}),
])
def test_the_command_line_and_keywords_build_equal_options(path, argv, keywords):
    parser, sub = _sub(*path)
    from_cli = parser.parse_args([*path, *argv])
    from_api = options_from_keywords(sub, "test", keywords)
    assert from_api == from_cli
    # and with nothing given, the same defaults
    assert options_from_keywords(sub, "test", {}) == parser.parse_args(list(path))


@pytest.mark.parametrize("path, argv, keywords", [
    (("race", "play"), ["--games", "0"], {"games": 0}),
    (("race", "play"), ["--seed", "-1"], {"seed": -1}),
    (("panic", "play"), ["--players", "9"], {"players": 9}),
    (("race", "trace"), ["--stage", "middle"], {"stage": "middle"}),
    (("race", "play"), ["--scheduler", "tcp://x:1", "--workers", "2"],
     {"scheduler": "tcp://x:1", "workers": 2}),
    (("pig", "compare"), [], {}),
    (("race", "tune"), ["--target", "lane_ev_spread=min", "--budget", "1000"],
     {"target": ["lane_ev_spread=min"], "budget": 1000}),
])
def test_a_bad_value_is_the_same_one_line_error(path, argv, keywords, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([*path, *argv])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    _, sub = _sub(*path)
    with pytest.raises(ArgumentsError) as exc:
        options_from_keywords(sub, "test", keywords)
    assert err == f"{exc.value.prog}: error: {exc.value.message}\n"


def test_an_unknown_name_or_a_flag_that_is_not_a_bool_is_a_sheepsim_error():
    _, sub = _sub("race", "play")
    with pytest.raises(SheepsimError, match=r"^where: unknown option 'nonsense'; it takes: .*games"):
        options_from_keywords(sub, "where", {"nonsense": 1})
    with pytest.raises(SheepsimError, match=r"^where: quiet= is True or False, got 'yes'$"):
        options_from_keywords(sub, "where", {"quiet": "yes"})


def _spy(monkeypatch) -> list:
    """What the shared commands hand the games' parts (every command ends in _finish)."""
    seen = []
    finish = commands._finish

    def spy(args, out):
        seen.append(args)
        return finish(args, out)

    monkeypatch.setattr(commands, "_finish", spy)
    return seen


def test_the_api_builds_no_argv_and_the_commands_get_the_typed_object(monkeypatch, capsys):
    seen = _spy(monkeypatch)

    def no_argv(self, args=None, namespace=None):
        raise AssertionError(f"the API parsed argv words {args!r}")

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", no_argv)
    res = sheepsim.trace("pig", seed=3, players=3, quiet=True)
    monkeypatch.undo()
    later = _spy(monkeypatch)
    assert cli.main(["pig", "trace", "--seed", "3", "--players", "3", "--quiet"]) == 0
    assert capsys.readouterr().out == res.text()
    seen += later
    assert len(seen) == 2 and all(isinstance(a, Options) for a in seen)
    assert seen[0] == seen[1].replace(format=None)  # the CLI resolves --format first


@pytest.mark.parametrize("command, options", [
    ("balance", {"games": 60, "policy": "random,hold-20"}),
    ("trace", {"players": 3}),
    ("ladder", {"games": 80}),
    ("metrics", {}),
    ("variants", {"set": ["pig.target=50"], "games": 60, "metric": "mean_turns"}),
    ("sweep", {"set": ["pig.target=50,80"], "games": 60, "metric": "mean_turns"}),
    ("tune", {"vary": ["pig.target=50..100:25"], "target": ["mean_turns=min"], "budget": 12_000,
              "trials": 3, "confirm_games": 1000}),
])
def test_the_api_json_is_the_cli_json_byte_for_byte(command, options, tmp_path):
    """The commands test_python_api does not compare (play, compare: there)."""
    api = getattr(sheepsim, command)
    keywords = {**options, **({"seed": 2} if command != "metrics" else {}),
                **({"quiet": True} if command != "metrics" else {})}
    res = api("pig", **keywords)
    argv = ["pig", command]
    for key, value in keywords.items():
        if value is True:
            argv.append(f"--{key}")
        else:
            for v in value if isinstance(value, list) else [value]:
                argv.append(f"--{key.replace('_', '-')}={v}")
    out = tmp_path / "cli.json"
    assert cli.main([*argv, "--format", "json", "--out", str(out)]) == 0
    assert res.text("json") == out.read_text(encoding="utf-8")
    assert json.loads(res.text("json"))["meta"] == res.meta
