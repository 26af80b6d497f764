"""The Sheep Race's entry in the game registry."""

from sheepsim.game import Game

#: the race machine's module: the harness's state machine of the race's whole games
#: (and the failure line of its single races, ``simulate.PolicySet.raise_failure``)
MACHINE = "sheepsim.games.race.machine"

GAME = Game(
    name="sheep-race",
    command="race",
    title="The Sheep Race",
    min_players=2,
    max_players=6,
    policies={"pace": ("greedy", "random", "saver", "steady", "partisan", "lookahead",
                       "lookahead-exact"),
              "bet": ("random", "favourite", "longshot", "ev", "near-ev", "ev-approx", "win")},
    default_policies={"pace": "greedy", "bet": "ev-approx"},
    rules_loader="sheepsim.games.race.rules:load_rules",
    parts="sheepsim.games.race.commands",
    cli="sheepsim.games.race.cli",
    help="The Sheep Race (betting on a dice-driven race)",
    description="The Sheep Race: odds, bet advice, whole games, balance, traces.",
    studies="sheepsim.games.race.studies",
    metrics="sheepsim.games.race.metrics",
    jobs={"races": "sheepsim.games.race.jobs:RacesJob",
          "play": "sheepsim.games.race.jobs:GamesJob",
          "balance": "sheepsim.games.race.jobs:BalanceJob",
          "head-to-head": "sheepsim.games.race.jobs:head_to_head"},
    ladder=("random,random", "random,greedy", "ev-approx,greedy", "ev-approx,lookahead"),
    sample={"job": {"players": 3, "bet_policy": "random", "pace_policy": "random"},
            "cli": ["race", "play", "--players", "3", "--bet-policy", "random", "--games", "300"],
            "bad_policy": ["race", "play", "--bet-policy", "nosuch"],
            "compare": {"players": 3, "a": "random,greedy", "b": "random,random",
                        "field": "random,greedy", "games": 200}},
    # the exact odds (the default), the simulated odds and the bet advice; whole games
    # whose machine holds the rules (`ev`/`win` bets, a `lookahead` pace: the machine's
    # kernels for them, about 60 and 85 CPU s cold); the entry every line-up with plug-ins
    # shares (sheepsim.cachefolders.WARM_PLUGIN as pace and bet policy)
    warm=(("odds", {}), ("odds", {"mc": True, "games": 1000}), ("ev", {"games": 1000}),
          ("play", {"games": 2, "bet_policy": "ev"}),
          ("play", {"games": 1, "pace_policy": "lookahead-exact"}),
          ("play", {"games": 16, "pace_policy": "sheepsim.warm_policy:any_option",
                    "bet_policy": "sheepsim.warm_policy:any_option"})),
)
