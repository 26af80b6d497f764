"""What the shared commands (:mod:`sheepsim.commands`) need of Shear Panic: ``play``,
``compare``, ``balance`` and ``trace`` (Shear Panic has no commands of its own)."""

from __future__ import annotations

from sheepsim.commands import CommandSpec, Output
from sheepsim.errors import SheepsimError
from sheepsim.games.panic.game import GAME
from sheepsim.options import positive_int

#: the player counts ``balance`` plays: every count the declaration (game.py) allows
PLAYERS = GAME.player_counts
#: appended to every policy option's help: the policies kept for comparisons, which the
#: list of the game's policies leaves out
POLICY_NOTE = ("also greedy-v1 and rollout-v1, greedy and rollout as they played before "
               "0.2.0, for comparisons")
_LISTED = GAME.players_listed()

#: Tables of each command in print order (``--table`` picks one; CSV prints one table).
PLAY_TABLES = ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns",
               "turn_histogram", "game_end", "tie_breaks", "tiles")
BALANCE_TABLES = ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns", "game_end",
                  "tie_breaks", "tile_usage", "neutral_colour")

COMMANDS = {
    "play": CommandSpec(
        help="win rates, points per field, shearing, game length",
        description="Simulate many games and report win rates by seat and by policy (95% "
                    "intervals; pooled policy intervals take the game as the unit), mean points "
                    "per field, sheep shorn, game length, how games end and how winners were "
                    "decided (ties for most points). Tables: " + ", ".join(PLAY_TABLES) + ".",
        games=100_000, tables=PLAY_TABLES, policies=("play",)),
    "compare": CommandSpec(
        help="head-to-head of two policies on the same dice",
        description="Every game is played twice with the same seed (the same dice), once with "
                    "seat --seat playing A and once B, the other seats playing --field. Reports "
                    "both win rates and mean points with 95% intervals, the paired difference "
                    "A - B with its interval, and p-values (win rate: exact McNemar test; "
                    "points: paired z test). Table: comparison.",
        games=2_000, tables=("comparison",), a="greedy", b="random"),
    "balance": CommandSpec(
        help=f"balance tables for {_LISTED} players",
        description=f"Balance for {_LISTED} players on the same seed: win rate by seat and "
                    "policy, points by field, sheep shorn per colour, game length, how games "
                    "end, and for each menu tile how often it is chosen, where on the time track "
                    "and the mean points its user gains that turn; with --neutral, the 3-player "
                    "games replayed with each colour as the neutral one. Tables carry a leading "
                    "players column.",
        games=10_000, tables=BALANCE_TABLES, policies=("play",), per_seat=False,
        players=False),
    "trace": CommandSpec(
        help="one game, turn by turn",
        description="Play one game and print every turn: the flock, the tile and its "
                    "parameters, regrouping, counter, points. Table (--table): decisions, "
                    "one row per decision a policy was asked.",
        tables=("decisions",), policies=("play",)),
}


def add_options(command: str, p) -> None:
    p.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                   help="rollout, rollout-v1: playouts per candidate action (default 4)")
    if command == "balance":
        p.add_argument("--neutral", action="store_true",
                       help="add the neutral-colour table (3 players; runs 4 more sets of games)")


def job_options(command: str, args) -> dict:
    return {"playouts": args.playouts}


def check(command: str, args) -> None:
    if command == "balance" and args.table == "neutral_colour" and not args.neutral:
        raise SheepsimError("--table neutral_colour needs --neutral")


def _panels(tables_by_players: dict) -> list:
    """Points by field and tile usage, one row of panels per player count."""
    from sheepsim.games.panic import plots as panic_plots
    from sheepsim.games.panic.balance import tile_usage_table

    panels = []
    for players, (tables, games) in tables_by_players.items():
        fields = tables["points_by_field"]
        tiles = tile_usage_table(tables["tiles"], games) if "tiles" in tables else tables["tile_usage"]
        tiles = tiles.rename(columns={"chosen_per_seat_game": "chosen_per_game"})
        tiles = tiles.assign(seat=1, counter_sum=tiles["mean_counter"].fillna(0) * tiles["chosen"])
        panels.append(lambda ax, f=fields, n=players: (
            panic_plots.points_by_field_chart(f, ax=ax), ax.set_title(f"Points by field, {n} players")))
        panels.append(lambda ax, t=tiles, n=players: (
            panic_plots.tile_usage_chart(t, ax=ax), ax.set_title(f"Tile usage, {n} players")))
    return panels


def play_charts(res) -> list:
    return _panels({res.job.players: (res.tables, res.games)})


def balance(args, run) -> Output:
    from sheepsim.games.panic.balance import balance_tables, neutral_colour_table
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.output import base_meta

    rules = load_rules(args.rules)
    options = {**run.options, "playouts": args.playouts}
    tables = balance_tables(rules, args.policy, seed=args.seed, **options)
    # games per player count (the same number unless --precision stopped them apart)
    games = [int(g) for g in tables["by_seat"].groupby("players")["games"].first()]
    if args.neutral:
        tables["neutral_colour"] = neutral_colour_table(rules, args.policy, seed=args.seed,
                                                        **options)
    meta = base_meta(game=GAME.name, analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=list(PLAYERS), policy=args.policy,
                     playouts=args.playouts, seed=args.seed,
                     games=games[0] if len(set(games)) == 1 else games)
    each = (f"{games[0]:,} games each" if len(set(games)) == 1
            else " and ".join(f"{g:,}" for g in games) + " games")
    title = f"{GAME.title} balance, {_LISTED} players, {each}"

    def charts():
        return _panels({n: ({k: t[t["players"] == n].drop(columns="players")
                             for k, t in tables.items() if k in ("points_by_field", "tile_usage")},
                            g) for n, g in zip(PLAYERS, games, strict=True)})

    return Output(meta, title, tables, charts)


def trace(args) -> Output:
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.games.panic.simulate import trace_game
    from sheepsim.output import base_meta

    rules = load_rules(args.rules)
    tr = trace_game(rules, players=args.players, policies=args.policy, seed=args.seed,
                    game=args.game, playouts=args.playouts)
    meta = base_meta(game=GAME.name, rules=rules.source, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy, seed=args.seed,
                     game_index=args.game)
    return Output(meta, f"Shear Panic trace, seed {args.seed}, game {args.game}",
                  tables={"decisions": tr.decisions}, lines=tr.lines,
                  outcome={"winner_seat": tr.winner + 1, "scores": tr.scores})
