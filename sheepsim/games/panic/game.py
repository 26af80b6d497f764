"""Shear Panic's entry in the game registry."""

from sheepsim.game import Game

GAME = Game(
    name="shear-panic",
    command="panic",
    title="Shear Panic",
    min_players=3,
    max_players=4,
    policies={"play": ("random", "greedy", "rollout")},
    # a sensible, fast opponent (rollout plays stronger at many times the cost)
    default_policies={"play": "greedy"},
    rules_loader="sheepsim.games.panic.rules:load_rules",
    parts="sheepsim.games.panic.commands",
    help="Shear Panic (Fragor Games, 3-4 players)",
    description="Simulate Shear Panic.",
    studies="sheepsim.games.panic.studies",
    metrics="sheepsim.games.panic.metrics",
    jobs={"play": "sheepsim.games.panic.jobs:PlayJob",
          "head-to-head": "sheepsim.games.panic.jobs:head_to_head"},
    ladder=("random", "greedy", "rollout"),
    sample={"job": {"players": 3, "policies": "random"},
            "cli": ["panic", "play", "--players", "3", "--games", "60", "--policy", "random"],
            "bad_policy": ["panic", "play", "--policy", "nosuch"],
            "compare": {"players": 3, "a": "random", "b": "random", "field": "random",
                        "games": 40}},
    # the plug-in entry too (sheepsim.cachefolders.WARM_PLUGIN): plug-in seats play on
    # the harness, every line-up with plug-ins shares it
    warm=(("play", {"games": 16, "policy": "sheepsim.warm_policy:any_option"}),),
)
