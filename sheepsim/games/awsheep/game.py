"""Aw, Sheep!'s entry in the game registry."""

from sheepsim.game import Game

GAME = Game(
    name="aw-sheep",
    command="awsheep",
    title="Aw, Sheep!",
    min_players=3,
    max_players=6,
    policies={"play": ("random", "greedy", "counter")},
    # what a player expects of a simulated table: the strongest built-in player
    default_policies={"play": "counter"},
    rules_loader="sheepsim.games.awsheep.rules:load_rules",
    parts="sheepsim.games.awsheep.commands",
    cli="sheepsim.games.awsheep.cli",
    unit="rounds",
    help="Aw, Sheep! (hidden-hand card game, 3-6 players)",
    description="Simulate rounds of Aw, Sheep!.",
    studies="sheepsim.games.awsheep.studies",
    metrics="sheepsim.games.awsheep.metrics",
    jobs={"play": "sheepsim.games.awsheep.jobs:PlayJob",
          "luck-vs-skill": "sheepsim.games.awsheep.jobs:SkillJob",
          "card-value": "sheepsim.games.awsheep.jobs:CardValueJob",
          "head-to-head": "sheepsim.games.awsheep.jobs:head_to_head"},
    ladder=("random", "greedy", "counter"),
    sample={"job": {"players": 4, "policies": "random"},
            "cli": ["awsheep", "play", "--players", "4", "--games", "200", "--policy", "random"],
            "bad_policy": ["awsheep", "play", "--policy", "nosuch"],
            "compare": {"players": 4, "a": "counter", "b": "random", "field": "random",
                        "games": 300}},
    # the plug-in entry too (sheepsim.cachefolders.WARM_PLUGIN): played on the harness
    warm=(("card-value", {"games": 16}),
          ("play", {"games": 16, "policy": "sheepsim.warm_policy:any_option"})),
)
