"""What the shared commands (:mod:`sheepsim.commands`) need of The Sheep Race: ``play``,
``compare``, ``balance`` and ``trace``. The race's own commands (``odds``, ``ev``,
``advise``) are in :mod:`.cli`."""

from __future__ import annotations

from sheepsim.commands import CommandSpec, Output
from sheepsim.games.race.game import GAME as _ENTRY
from sheepsim.games.race.trace import trace  # noqa: F401 - the trace command's part

#: ``compare``'s form of the game's default line-up (BET,PACE: ev-approx,greedy)
_LINEUP = f"{_ENTRY.policy_defaults['bet']},{_ENTRY.policy_defaults['pace']}"

PLAY_TABLES = ("seats", "policies", "turns", "scores", "turn_order", "tie_breaks")
BALANCE_TABLES = ("fair_payoffs", "cards", "semifinal_lanes", "final_lanes")

COMMANDS = {
    "play": CommandSpec(
        help="whole games: win rate by seat and policy",
        description="Whole games: win rate and mean score by seat, by policy pair (pooled "
                    "over its seats with the game as the unit), score distribution, mean "
                    "turns, win rate by turn order, and how winners were decided (ties for "
                    "first broken by the token stack). Identical ev players often tie; "
                    "near-ev bets break the symmetry. ev solves every dealt race exactly "
                    "(about 10 games per second); ev-approx reads the public odds table "
                    "(tens of thousands per second); lookahead paces for its bets by imagined "
                    "races (about 0.02 s a game), lookahead-exact by their exact expected "
                    "points (about 0.2 CPU s a game). Tables: " + ", ".join(PLAY_TABLES) + ".",
        games=100_000, tables=PLAY_TABLES, policies=("bet", "pace"),
        policy_alias="pace"),
    "compare": CommandSpec(
        help="head-to-head of two policies on the same dice (paired difference)",
        description="Head-to-head of two policy pairs for one seat on common random numbers: "
                    "every game is played twice with the same seed (the same dice), once with "
                    "seat --seat playing A and once playing B, the other seats playing "
                    "--field. Reports both win rates and mean scores with 95% intervals, the "
                    "paired difference A - B with its interval, and p-values (win rate: exact "
                    "McNemar test; score: paired z test). --precision bounds the half-widths "
                    "of both win rates and of their difference. Table: comparison.",
        epilog="example: sheepsim race compare --players 4 --a ev,greedy --b favourite,greedy",
        games=50_000, tables=("comparison",), a=_LINEUP, b="random,greedy", field=_LINEUP,
        metavar="BET,PACE"),
    "balance": CommandSpec(
        help="balance over random deals: fair payoff tables, card strength",
        description="Averaged over random deals (cards shuffled as in the game): P(place) by "
                    "lane, the implied fair payoffs next to the rulebook's Table 1 (semifinals) "
                    "and Table 2 (the final, lanes seated by the semifinal results as in whole "
                    "games), difference (printed - fair) and ratio (printed / fair); card "
                    "strength (P(win), P(top 3), P(win the final) with 95% intervals; over- "
                    "and under-powered cards flagged by exact binomial tests against equal "
                    "cards with Holm's correction). Each game index simulates one semifinal and "
                    "one whole game. Tables: " + ", ".join(BALANCE_TABLES) + ".",
        games=100_000, tables=BALANCE_TABLES, policies=("pace", "bet"),
        per_seat=False, policy_alias="pace",
        players_help="players in the whole games behind Table 2 (matters only to pace "
                     "policies that look at bets, e.g. partisan)"),
    "trace": CommandSpec(
        help="print one race turn by turn",
        description="Play one race, the players taking turns (seat 1 first), and print every "
                    "turn: the dice, the lane they select and why, the option the seat's pace "
                    "policy takes, the sheep and the cubes; then the result. Table decisions "
                    "(--table decisions): every decision a policy was asked.",
        tables=("decisions",), policies=("pace",), policy_alias="pace",
        players_help="players taking turns (the seats' pace policies in --pace-policy)"),
}


def add_options(command: str, p) -> None:
    if command == "trace":
        from sheepsim.games.race.cli import add_lane_options

        add_lane_options(p)


def job_options(command: str, args) -> dict:
    return {}


def play_charts(res) -> list:
    from sheepsim import plots

    tables = res.tables
    return [lambda ax: plots.win_rate_chart(tables["seats"], ax=ax),
            lambda ax: plots.win_rate_chart(tables["turn_order"], x="turn_order", value="p_win",
                                            ax=ax, title="Win rate by semifinal-1 turn order")]


def balance(args, run) -> Output:
    from sheepsim.games.race.jobs import BalanceJob

    res = run(BalanceJob(args.rules, args.pace_policy, args.seed, args.players, args.bet_policy),
              "balance")
    t = res.tables

    def charts():
        from functools import partial

        from sheepsim import plots
        from sheepsim.games.race import plots as race_plots

        panels = [partial(race_plots.fair_payoff_chart, t["fair_payoffs"]),
                  partial(race_plots.card_strength_chart, t["cards"]),
                  partial(race_plots.lane_place_heatmap, t["semifinal_lanes"]),
                  partial(plots.convergence_chart, res.trace)]
        return [lambda ax, f=f: f(ax=ax) for f in panels]

    return Output(res.meta(), "The Sheep Race: balance over random deals", t, charts)
