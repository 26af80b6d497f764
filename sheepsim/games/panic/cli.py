"""``sheepsim panic play|balance|compare|trace``."""

from __future__ import annotations

from sheepsim.cli import (
    _Parser,
    add_head_to_head_options,
    add_run_options,
    add_table_option,
    add_trace_options,
    backend_from_args,
    check_plot_option,
    compiling,
    emit_trace,
    non_negative_int,
    player_count,
    positive_int,
    select_table,
)
from sheepsim.errors import SheepsimError

DEFAULT_GAMES = 100_000
#: Tables of each command in print order (``--table`` picks one; CSV prints one table).
PLAY_TABLES = ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns",
               "turn_histogram", "game_end", "tie_breaks", "tiles")
BALANCE_TABLES = ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns", "game_end",
                  "tie_breaks", "tile_usage", "neutral_colour")


def _players(text: str) -> int:
    return player_count(text)  # as --games reads numbers (1e3); the range is checked later


def register(subparsers) -> None:
    panic = subparsers.add_parser("panic", help="Shear Panic (Fragor Games, 3-4 players)",
                                  description="Simulate Shear Panic.")
    sub = panic.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    _add_play(sub)
    _add_balance(sub)
    _add_compare(sub)
    _add_trace(sub)


def _add_play(sub) -> None:
    play = sub.add_parser("play", help="win rates, points per field, shearing, game length",
                          description="Simulate many games and report win rates by seat and "
                                      "by policy (95% intervals; pooled policy intervals "
                                      "take the game as the unit), mean points per field, "
                                      "sheep shorn, game length, how games end and how "
                                      "winners were decided (ties for most points). Tables: "
                                      + ", ".join(PLAY_TABLES) + ".")
    play.add_argument("--players", type=_players, default=4, metavar="N", help="3 or 4")
    play.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                      help="random, greedy, rollout or package.module:function; one for "
                           "every seat or one per seat (default random)")
    play.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                      help="rollout playouts per candidate choice (default 4)")
    add_run_options(play, games=DEFAULT_GAMES)
    add_table_option(play, PLAY_TABLES)
    _add_plot(play)
    play.set_defaults(func=cmd_play)


def _add_balance(sub) -> None:
    bal = sub.add_parser("balance", help="balance tables for 3 and 4 players",
                         description="Balance for 3 and 4 players on the same seed: win rate "
                                     "by seat and policy, points by field, sheep shorn per "
                                     "colour, game length, how games end, and for each menu "
                                     "tile how often it is chosen, where on the time track and "
                                     "the mean points its user gains that turn; with "
                                     "--neutral, the 3-player games replayed with each colour "
                                     "as the neutral one. Tables carry a leading players column.")
    bal.add_argument("--policy", default="greedy", metavar="NAME[,NAME...]",
                     help="one policy for every seat, or one per seat (default greedy)")
    bal.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                     help="rollout: playouts per candidate action (default 4)")
    bal.add_argument("--neutral", action="store_true",
                     help="add the neutral-colour table (3 players; runs 4 more sets of games)")
    add_run_options(bal, games=10_000)
    add_table_option(bal, BALANCE_TABLES)
    _add_plot(bal)
    bal.set_defaults(func=cmd_balance)


def _add_compare(sub) -> None:
    cmp_ = sub.add_parser("compare", help="head-to-head of two policies on the same dice",
                          description="Every game is played twice with the same seed (the same "
                                      "dice), once with seat --seat playing A and once B, the "
                                      "other seats playing --field. Reports both win rates and "
                                      "mean points with 95% intervals, the paired difference "
                                      "A - B with its interval, and p-values (win rate: exact "
                                      "McNemar test; points: paired z test). Table: comparison.")
    add_head_to_head_options(cmp_, players=_players, players_help="3 or 4", a="greedy",
                             b="random", field="greedy")
    cmp_.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                      help="rollout: playouts per candidate action (default 4)")
    add_run_options(cmp_, games=2_000)
    add_table_option(cmp_, ("comparison",))
    cmp_.set_defaults(func=cmd_compare)


def _add_trace(sub) -> None:
    trace = sub.add_parser("trace", help="one game, turn by turn",
                           description="Play one game and print every turn: the flock, the "
                                       "tile and its parameters, regrouping, counter, points.")
    trace.add_argument("--rules", metavar="FILE", help="rules TOML file (default: standard)")
    trace.add_argument("--players", type=_players, default=4, metavar="N", help="3 or 4")
    trace.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                       help="one policy for every seat or one per seat: random, greedy, "
                            "rollout or package.module:function (default random)")
    trace.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                       help="rollout: playouts per candidate action (default 4)")
    trace.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                       help="random seed (default 0)")
    trace.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                       help="which game of the seed (default 0)")
    add_trace_options(trace)
    trace.set_defaults(func=cmd_trace)


def _add_plot(p) -> None:
    p.add_argument("--plot", metavar="FILE",
                   help="also draw points by field and tile usage to FILE (.png or .svg)")


def _plot(args, tables_by_players: dict, meta: dict, title: str) -> None:
    """Points by field and tile usage, one row of panels per player count."""
    if not getattr(args, "plot", None):
        return
    from sheepsim import plots
    from sheepsim.games.panic.analysis_tables import tile_usage_table

    panels = []
    for players, (tables, games) in tables_by_players.items():
        fields = tables["points_by_field"]
        tiles = tile_usage_table(tables["tiles"], games) if "tiles" in tables else tables["tile_usage"]
        tiles = tiles.rename(columns={"chosen_per_seat_game": "chosen_per_game"})
        tiles = tiles.assign(seat=1, counter_sum=tiles["mean_counter"].fillna(0) * tiles["chosen"])
        panels.append(lambda ax, f=fields, n=players: (
            plots.points_by_field_chart(f, ax=ax), ax.set_title(f"Points by field, {n} players")))
        panels.append(lambda ax, t=tiles, n=players: (
            plots.tile_usage_chart(t, ax=ax), ax.set_title(f"Tile usage, {n} players")))
    plots.save_figure(plots.panel_figure(panels, meta, title), args.plot)


def cmd_play(args) -> int:
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.games.panic.simulate import play_games
    from sheepsim.output import emit, render

    check_plot_option(args)
    rules = load_rules(args.rules)
    res = play_games(rules, players=args.players, policies=args.policy, games=args.games,
                     seed=args.seed, backend=backend_from_args(args), progress=not args.quiet,
                     playouts=args.playouts)
    meta = res.meta(playouts=args.playouts)
    heading = f"Shear Panic, {res.players} players, {res.games:,} games"
    text = render(select_table(res.tables, args), args.format, meta,
                  f"{heading} (win rates with Wilson 95% intervals)")
    emit(text, args.out, meta)
    _plot(args, {res.players: (res.tables, res.games)}, meta, heading)  # charts: no win rates
    return 0


def cmd_balance(args) -> int:
    from sheepsim.games.panic.analysis_tables import balance_tables, neutral_colour_table
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.output import base_meta, emit, render

    check_plot_option(args)
    if args.table == "neutral_colour" and not args.neutral:
        raise SheepsimError("--table neutral_colour needs --neutral")
    rules = load_rules(args.rules)
    run = dict(backend=backend_from_args(args), progress=not args.quiet, playouts=args.playouts)
    tables = balance_tables(rules, args.policy, args.games, args.seed, **run)
    if args.neutral:
        tables["neutral_colour"] = neutral_colour_table(rules, args.policy, args.games, args.seed,
                                                        **run)
    meta = base_meta(game="shear-panic", analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=[3, 4], policy=args.policy,
                     playouts=args.playouts, seed=args.seed, games=args.games)
    title = f"Shear Panic balance, 3 and 4 players, {args.games:,} games each"
    emit(render(select_table(tables, args), args.format, meta, title), args.out, meta)
    per_players = {n: ({k: t[t["players"] == n].drop(columns="players")
                        for k, t in tables.items() if k in ("points_by_field", "tile_usage")},
                       args.games) for n in (3, 4)}
    _plot(args, per_players, meta, title)
    return 0


def cmd_compare(args) -> int:
    from sheepsim.games.panic.analysis_tables import compare
    from sheepsim.output import emit, render

    res = compare(args.rules, args.players, args.a, args.b, args.field, args.seat, args.games,
                  args.seed, playouts=args.playouts, backend=backend_from_args(args),
                  progress=not args.quiet)
    meta = res.meta()
    title = f"Shear Panic: {args.a} vs {args.b} at seat {args.seat} of {args.players}"
    emit(render(select_table(res.tables, args), args.format, meta, title), args.out, meta)
    return 0


def cmd_trace(args) -> int:
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.games.panic.simulate import trace_game
    from sheepsim.output import base_meta

    rules = load_rules(args.rules)
    with compiling(args):
        tr = trace_game(rules, players=args.players, policies=args.policy, seed=args.seed,
                        game=args.game, playouts=args.playouts)
    meta = base_meta(game="shear-panic", rules=rules.source, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy, seed=args.seed,
                     game_index=args.game)
    emit_trace(args, tr.lines, meta, winner_seat=tr.winner + 1, scores=tr.scores)
    return 0
