"""The one Python path (``sheepsim.play/compare/balance/trace``), for every registered game.

The API runs the CLI's own command code with its output captured, so for the same
options its tables and metadata are the CLI's, byte for byte (checked here through the
CLI's ``--format json``); its options are the CLI's options (checked against the parser).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import pydoc
import subprocess
import sys

import pandas as pd
import pytest

import sheepsim
from sheepsim import cli, game
from sheepsim.errors import SheepsimError

GAMES = game.games()
IDS = [g.name for g in GAMES]


@pytest.fixture(params=GAMES, ids=IDS)
def g(request):
    return request.param


def _options(argv: list[str]) -> dict:
    """``["race", "play", "--players", "3", ...]`` -> ``{"players": "3", ...}``."""
    words = argv[2:]
    assert len(words) % 2 == 0 and all(w.startswith("--") for w in words[::2]), argv
    return {k[2:].replace("-", "_"): v for k, v in zip(words[::2], words[1::2], strict=True)}


def _cli_json(argv: list[str], tmp_path) -> dict:
    out = tmp_path / "cli.json"
    assert cli.main([*argv, "--quiet", "--format", "json", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_play_gives_the_cli_tables_and_metadata(g, tmp_path):
    argv = [*g.sample["cli"], "--seed", "4"]
    res = sheepsim.play(g.name, **_options(argv), quiet=True)
    assert isinstance(res, sheepsim.Result)
    assert all(isinstance(df, pd.DataFrame) for df in res.tables.values())
    # the same bytes as `sheepsim <game> play ... --format json`: every table and the meta
    assert json.loads(res.text("json")) == _cli_json(argv, tmp_path)
    assert res.meta["game"] == g.name and res.meta["seed"] == 4


def test_the_command_name_works_as_well_as_the_game_name(g):
    a = sheepsim.trace(g.name, seed=2)
    b = sheepsim.trace(g.command, seed=2)
    assert a.lines == b.lines and a.lines


def test_compare_runs_the_head_to_head_on_common_random_numbers(g, tmp_path):
    opts = dict(g.sample["compare"])
    res = sheepsim.compare(g.name, **opts, seed=6, quiet=True)
    table = res.tables["comparison"]
    # the win rate first, then the game's score (Aw, Sheep!: the flock value at the end)
    assert list(table["metric"])[0] == "win_rate" and len(table) >= 2
    argv = [g.command, "compare", *[f"--{k.replace('_', '-')}={v}" for k, v in opts.items()],
            "--seed", "6"]
    assert json.loads(res.text("json")) == _cli_json(argv, tmp_path)


def test_trace_gives_the_cli_text(g, tmp_path, capsys):
    res = sheepsim.trace(g.name, seed=5)
    # the turn log's text, and the policies' decisions as a table (test_policy_contract)
    assert list(res.tables) == ["decisions"] and res.lines and res.meta["seed"] == 5
    capsys.readouterr()
    assert cli.main([g.command, "trace", "--seed", "5", "--quiet"]) == 0
    assert capsys.readouterr().out == res.text()


def test_every_api_option_is_a_cli_option_with_the_cli_default(g):
    """The API has no options of its own: a name the command does not take is refused
    with the list of those it takes."""
    with pytest.raises(SheepsimError, match=r"unknown option 'nonsense'; it takes: .*games"):
        sheepsim.play(g.name, nonsense=1)
    sub = cli.subcommand_parser(cli.build_parser(), g.command, "play")
    # one default for every game's play, the CLI's (the race's precision-aware
    # commands keep theirs as ``default_games``)
    assert (sub.get_default("games") or sub.get_default("default_games")) == 100_000


@pytest.mark.parametrize("bad, message", [
    ({"out": "x.csv"}, r"out= is a command-line option"),
    ({"format": "json"}, r"format= is a command-line option"),
    ({"games": 0}, r"--games: the number of games must be between 1"),
    ({"seed": -1}, r"--seed: must be 0 or more"),
    ({"quiet": "yes"}, r"quiet= is True or False"),
])
def test_a_bad_option_raises_the_cli_message_before_any_work(g, bad, message):
    with pytest.raises(SheepsimError, match=message):
        sheepsim.play(g.name, **bad)


def test_an_unknown_game_or_command_is_one_error():
    with pytest.raises(SheepsimError, match="unknown game 'chess'"):
        sheepsim.play("chess")
    with pytest.raises(SheepsimError, match="has no 'nonesuch' command"):
        sheepsim.api._run("race", "nonesuch", {})


def test_help_lists_the_one_path():
    text = pydoc.render_doc(sheepsim, renderer=pydoc.plaintext)
    for name in ("play(game", "compare(game", "balance(game", "trace(game", "class Result"):
        assert name in text, name


def test_importing_sheepsim_loads_no_numerics():
    """``import sheepsim`` (the API included) imports neither numpy, pandas nor numba."""
    code = ("import sys, sheepsim; sheepsim.play; "
            "print(sorted(m for m in ('numpy', 'pandas', 'numba', 'matplotlib') if m in sys.modules))")
    # a new interpreter: what `import sheepsim` loads, none loaded before
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _packages():
    return sorted(m.name for m in pkgutil.walk_packages(sheepsim.__path__, "sheepsim.") if m.ispkg)


@pytest.mark.parametrize("package", ["sheepsim", *_packages()])
def test_every_name_in_all_exists(package):
    """``from <package> import *`` works for every package: every name its ``__all__``
    lists exists (lazy names load their module; nothing compiles)."""
    module = importlib.import_module(package)
    names = getattr(module, "__all__", [])
    namespace: dict = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - the import under test
    missing = [n for n in names if n not in namespace]
    assert not missing, missing


#: options every game's shared simulation commands take (the CLI written once)
SHARED_RUN_OPTIONS = {"--rules", "--games", "--precision", "--max-games", "--seed", "--threads",
                      "--worker-timeout", "--scheduler", "--workers", "--format", "--out",
                      "--all-columns", "--table", "--plot", "--quiet"}


def _option_strings(game_command: str, command: str) -> set[str]:
    sub = cli.subcommand_parser(cli.build_parser(), game_command, command)
    return {o for a in sub._actions for o in a.option_strings if o.startswith("--")} - {"--help"}


@pytest.mark.parametrize("command", ["play", "compare", "balance"])
def test_the_shared_commands_take_the_same_options_in_every_game(g, command):
    from sheepsim import commands

    opts = _option_strings(g.command, command)
    spec = commands.parts(g).COMMANDS[command]
    # balance runs several player counts where the game says so (Shear Panic, Aw, Sheep!)
    shared = SHARED_RUN_OPTIONS | ({"--players"} if command != "balance" or spec.players else set())
    if command == "compare":
        shared |= {"--a", "--b", "--field", "--seat"}
    assert shared <= opts, shared - opts
    # what is left is the game's policy roles and its declared extras, nothing else
    policy_flags = {commands.policy_option(g, role) for role in g.policies} | {"--policy"}
    extras = opts - shared - policy_flags
    probe = argparse_parser()
    commands.parts(g).add_options(command, probe)
    declared = {o for a in probe._actions for o in a.option_strings if o.startswith("--")}
    assert extras <= declared, extras - declared


def argparse_parser():
    import argparse

    return argparse.ArgumentParser(add_help=False)


def test_players_come_from_the_game_declaration(g, capsys):
    """``--players`` takes the game's range (Game.min_players/max_players) and defaults
    to Game.default_players in every game; one line, exit 2 outside it."""
    for command in ("play", "compare"):
        sub = cli.subcommand_parser(cli.build_parser(), g.command, command)
        assert sub.get_default("players") == g.default_players
    with pytest.raises(SystemExit) as exit_:  # argparse's own error path: exit 2
        cli.main([g.command, "play", "--players", str(g.max_players + 1), "--games", "10"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.splitlines()) == 1
    assert f"players must be {g.players_text}, got {g.max_players + 1}" in err


def test_every_player_count_plays(g):
    """The Python path for every player count from the declared minimum to the maximum:
    one win per game, as many seats as players."""
    for players in range(g.min_players, g.max_players + 1):
        res = sheepsim.play(g.name, **{**_options(g.sample["cli"]), "players": players,
                                       "games": 24}, quiet=True, seed=1)
        seats = next(iter(res.tables.values()))
        assert res.meta["players"] == players and res.meta["games"] == 24
        assert len(seats) == players, (players, seats)


def test_precision_works_in_every_game(g):
    """``--precision`` (and its Python twin) in every game's play: it stops at a block
    boundary and records the target."""
    res = sheepsim.play(g.name, **{k: v for k, v in _options(g.sample["cli"]).items() if k != "games"},
                        precision=0.2, max_games=2_000, quiet=True)
    assert res.meta["precision"] == 0.2 and res.meta["stopped_by"] in ("precision", "max_games")
    assert res.meta["games"] <= 2_000


def test_the_api_writes_no_progress_to_a_log_unless_asked(monkeypatch, capsys):
    """A script's stderr is no terminal: the API says nothing there unless the caller
    asks (``quiet=False``, the CLI's default, gives its progress lines and estimate).
    Every threshold is 0 here, so each of those lines would be written at once."""
    from sheepsim import driver

    for name in ("ESTIMATE_AFTER_SECONDS", "PROGRESS_LINE_SECONDS", "LONG_RUN_SECONDS"):
        monkeypatch.setattr(driver, name, 0)
    options = {"games": 20_000, "seed": 5, "threads": 1, "policy": "random"}
    sheepsim.play("panic", **options)
    assert capsys.readouterr().err == ""
    sheepsim.play("panic", quiet=False, **options)
    assert "sheepsim: this run will take" in capsys.readouterr().err
