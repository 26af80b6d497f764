"""``sheepsim race ...``: odds, play and trace for The Sheep Race."""

from __future__ import annotations

import argparse

import numpy as np

from sheepsim.cli import add_run_options, non_negative_int
from sheepsim.output import emit, render

DEFAULT_ODDS_GAMES = 1_000_000
DEFAULT_PLAY_GAMES = 100_000


def register(games: argparse._SubParsersAction) -> None:
    race = games.add_parser("race", help="The Sheep Race (betting on a dice-driven race)",
                            description="The Sheep Race: odds, whole games, traces.")
    sub = race.add_subparsers(dest="command", metavar="COMMAND", parser_class=type(race))
    sub.required = True

    p = sub.add_parser("odds", help="P(1st/2nd/3rd) and bet EV per lane for one race")
    _add_race_options(p)
    add_run_options(p, games=DEFAULT_ODDS_GAMES)
    p.set_defaults(func=cmd_odds)

    p = sub.add_parser("play", help="whole games: win rate by seat and policy")
    p.add_argument("--players", type=int, required=True, metavar="N", help="2 to 6 players")
    p.add_argument("--bet-policy", default="ev", metavar="NAME[,NAME...]",
                   help="random, favourite, longshot, ev or package.module:function; one for "
                        "all seats or one per seat (default ev)")
    p.add_argument("--pace-policy", default="greedy", metavar="NAME[,NAME...]",
                   help="greedy, random, saver, steady, partisan or package.module:function "
                        "(default greedy)")
    add_run_options(p, games=DEFAULT_PLAY_GAMES)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("trace", help="print one race turn by turn")
    _add_race_options(p)
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S")
    p.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                   help="game index within the seed (default 0)")
    p.set_defaults(func=cmd_trace)


def _add_race_options(p):
    p.add_argument("--lanes", metavar="NAME,...", help="six cards for lanes 1-6 "
                   "(default: the rules file's first six)")
    p.add_argument("--stage", choices=("semifinal", "final"), default="semifinal")
    p.add_argument("--policy", default="greedy", metavar="NAME",
                   help="pace policy: greedy, random, saver, steady, partisan or "
                        "package.module:function (default greedy)")


def cmd_odds(args) -> int:
    from sheepsim.games.race.analysis import odds_table
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import race_counts

    rules = load_rules(args.rules)
    counts = race_counts(rules, args.lanes, args.stage, args.policy, args.games, args.seed,
                         threads=args.threads, progress=not args.quiet)
    meta = counts.meta()
    table = odds_table(counts)
    title = f"The Sheep Race: {args.stage} odds"
    emit(render({"lanes": table}, args.format, meta, title), args.out, meta)
    return 0


def cmd_play(args) -> int:
    from sheepsim.games.race.analysis import policy_table, seat_table, turns_table
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import check_players, play_games

    rules = load_rules(args.rules)
    check_players(rules, args.players)
    res = play_games(rules, args.players, args.bet_policy, args.pace_policy, args.games,
                     args.seed, threads=args.threads, progress=not args.quiet)
    meta = res.meta()
    tables = {"seats": seat_table(res), "policies": policy_table(res), "turns": turns_table(res)}
    title = f"The Sheep Race: {args.players}-player games"
    emit(render(tables, args.format, meta, title), args.out, meta)
    return 0


def cmd_trace(args) -> int:
    import sys

    from sheepsim.games.race import engine
    from sheepsim.games.race.layout import (
        EXHAUSTED,
        FINAL,
        OPTION_NAMES,
        REASON_NAMES,
        SEMIFINAL,
    )
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import _call, _lane_cards, board_array, resolve_policies

    rules = load_rules(args.rules)
    lanes = _lane_cards(rules, args.lanes)
    pol = resolve_policies(args.policy)
    faces, nfaces = rules.dice_arrays(args.stage)
    log = np.zeros((engine.MAX_TURNS, engine.N_LOG), dtype=np.int64)
    board = board_array()
    cards = rules.card_table()
    _call(pol.kernels().trace_race, args.seed, args.game, cards, lanes, rules.track_length,
          rules.track_length - rules.end_zone + 1, rules.max_cubes,
          FINAL if args.stage == "final" else SEMIFINAL, int(rules.supply[1]), faces, nfaces,
          int(pol.pace_ids[0]), log, board)
    n_turns = int((log[:, engine.LOG_TURN] > 0).sum())
    out = sys.stdout
    out.write(f"The Sheep Race trace: {args.stage}, pace policy {pol.pace_names[0]}, "
              f"seed {args.seed}, game {args.game}, rules {rules.source}\n")
    ez = rules.track_length - rules.end_zone + 1
    out.write(f"Track {rules.track_length} squares, End Zone from square {ez}; cubes R/B/W\n")
    for lane, c in enumerate(lanes, start=1):
        card = rules.cards[c]
        out.write(f"  lane {lane}: {card.name:<11} R{card.red} B{card.blue} W{card.white}"
                  f"  trot {card.trot}  gallop {card.gallop}\n")
    out.write(f"{'turn':>4} {'dice':>4} {'lane':>4}  {'selected by':<38} {'option':<13}"
              f" {'cubes':>5}  positions (lanes 1-6)\n")
    pos = np.zeros(6, dtype=np.int64)
    for row in log[:n_turns]:
        lane = int(row[engine.LOG_LANE])
        pos[lane] = row[engine.LOG_POS]
        status = int(row[engine.LOG_STATUS])
        note = " finished" if pos[lane] > rules.track_length else (
            " EXHAUSTED" if status == EXHAUSTED else "")
        positions = " ".join(f"{p:>2}" if p <= rules.track_length else " F" for p in pos)
        out.write(f"{row[engine.LOG_TURN]:>4} {row[engine.LOG_TOTAL]:>4} {lane + 1:>4}  "
                  f"{REASON_NAMES[row[engine.LOG_REASON]]:<38} "
                  f"{OPTION_NAMES[row[engine.LOG_OPTION]]:<13} "
                  f"{row[engine.LOG_RED]}/{row[engine.LOG_BLUE]}/{row[engine.LOG_WHITE]:<1}"
                  f"   {positions}{note}\n")
    places = np.full(3, -1, dtype=np.int64)
    engine.placed_lanes(board, places)
    n_places = 1 if args.stage == "final" else 3
    names = ["1st", "2nd", "3rd"]
    parts = [f"{names[k]} lane {places[k] + 1} {rules.cards[lanes[places[k]]].name}"
             for k in range(n_places)]
    out.write(f"Result after {n_turns} turns: " + ", ".join(parts) + "\n")
    return 0
