"""``sheepsim panic play`` and ``sheepsim panic trace``."""

from __future__ import annotations

import argparse

from sheepsim.cli import _Parser, add_output_options, add_run_options, non_negative_int, positive_int
from sheepsim.errors import SheepsimError

DEFAULT_GAMES = 100_000


def _players(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def register(subparsers) -> None:
    panic = subparsers.add_parser("panic", help="Shear Panic (Fragor Games, 3-4 players)",
                                  description="Simulate Shear Panic.")
    sub = panic.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    play = sub.add_parser("play", help="win rates, points per field, shearing, game length",
                          description="Simulate many games and report win rates by seat and "
                                      "by policy (Wilson 95% intervals), mean points per "
                                      "field, sheep shorn, game length and how games end.")
    play.add_argument("--players", type=_players, default=4, metavar="N", help="3 or 4")
    play.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                      help="random, greedy, rollout or package.module:function; one for "
                           "every seat or one per seat (default random)")
    play.add_argument("--playouts", type=positive_int, default=4, metavar="K",
                      help="rollout playouts per candidate choice (default 4)")
    add_run_options(play, games=DEFAULT_GAMES)
    play.set_defaults(func=cmd_play)

    trace = sub.add_parser("trace", help="one game, turn by turn",
                           description="Play one game and print every turn: the flock, the "
                                       "tile and its parameters, regrouping, counter, points.")
    trace.add_argument("--rules", metavar="FILE", help="rules TOML file (default: standard)")
    trace.add_argument("--players", type=_players, default=4, metavar="N", help="3 or 4")
    trace.add_argument("--policy", default="random", metavar="NAME[,NAME...]")
    trace.add_argument("--playouts", type=positive_int, default=4, metavar="K")
    trace.add_argument("--seed", type=non_negative_int, default=0, metavar="S")
    trace.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                       help="which game of the seed (default 0)")
    add_output_options(trace)
    trace.set_defaults(func=cmd_trace)


def cmd_play(args) -> int:
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.games.panic.simulate import play_games
    from sheepsim.output import emit, render

    rules = load_rules(args.rules)
    res = play_games(rules, players=args.players, policies=args.policy, games=args.games,
                     seed=args.seed, threads=args.threads, progress=not args.quiet,
                     playouts=args.playouts)
    meta = res.meta(playouts=args.playouts)
    title = (f"Shear Panic, {res.players} players, {res.games:,} games "
             f"(win rates with Wilson 95% intervals)")
    text = render(res.tables, args.format, meta, title)
    emit(text, args.out, meta)
    return 0


def cmd_trace(args) -> int:
    from sheepsim.games.panic.rules import load_rules
    from sheepsim.games.panic.simulate import trace_game
    from sheepsim.output import base_meta, emit, to_json

    rules = load_rules(args.rules)
    tr = trace_game(rules, players=args.players, policies=args.policy, seed=args.seed,
                    game=args.game, playouts=args.playouts)
    meta = base_meta(game="shear_panic", rules=rules.name, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy, seed=args.seed,
                     game_index=args.game)
    if args.format == "json":
        text = to_json({"meta": meta, "lines": tr.lines, "winner_seat": tr.winner + 1,
                        "scores": tr.scores})
    elif args.format == "csv":
        raise SheepsimError("trace prints text or json; use --format table or json")
    else:
        text = "\n".join(tr.lines) + "\n"
    emit(text, args.out, meta)
    return 0
