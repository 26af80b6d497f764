"""Declaring a game on the harness: :func:`game` (no numba, no pandas: the registry
reads declarations to build the command line)."""

from __future__ import annotations

from sheepsim.game import Game


def game(*, name: str, command: str, title: str, min_players: int, max_players: int,
         policies: tuple[str, ...], machine: str, default_players: int | None = None,
         unit: str = "games", help: str = "", description: str = "") -> Game:
    """A :class:`~sheepsim.game.Game` played by the harness.

    ``policies``: the built-in policy names, ``"random"`` first and the strongest last
    (the machine's ``decide`` gets a name's position as its ``pid``; in this order they
    are the game's skill ladder, :mod:`sheepsim.skill_ladder`); ``machine``: the module of the
    game's state machine (:mod:`sheepsim.harness.machine` lists what it defines), which
    also defines ``load_rules`` (:func:`sheepsim.harness.rules.loader`) and ships its
    ``standard.toml`` beside it. Everything else (the shared commands, the designers'
    metrics, the jobs, the conformance sample) is the harness's."""
    if not policies or policies[0] != "random":
        raise ValueError(f"{title}: the built-in policies start with 'random', got {policies!r}")
    default = min_players if default_players is None else default_players
    strongest = policies[-1]
    return Game(
        name=name, command=command, title=title, min_players=min_players,
        max_players=max_players, policies={"play": tuple(policies)},
        rules_loader=f"{machine}:load_rules", parts="sheepsim.harness.parts",
        metrics="sheepsim.harness.metrics", unit=unit, default_players=default,
        help=help or f"{title} ({min_players}-{max_players} players)",
        description=description or f"Simulate games of {title}.",
        jobs={"play": "sheepsim.harness.jobs:PlayJob",
              "head-to-head": "sheepsim.harness.jobs:head_to_head"},
        machine=machine, ladder=tuple(policies),
        sample={"job": {"players": default, "policies": "random"},
                "cli": [command, "play", "--players", str(default), "--games", "200"],
                "bad_policy": [command, "play", "--policy", "nosuch"],
                "compare": {"players": default, "a": strongest, "b": "random",
                            "field": "random", "games": 300}})
