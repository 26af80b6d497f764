"""``sheepsim race odds|ev|advise``: the race's own commands (``play``, ``compare``,
``balance`` and ``trace`` are the shared ones of :mod:`sheepsim.commands`).

Analysis commands share ``--games N | --precision P [--max-games N]`` (sequential
stopping: simulate in fixed blocks until every reported probability's 95% interval
half-width is at most P), ``--plot FILE`` (.png or .svg) and the output options.
"""

from __future__ import annotations

import argparse

from sheepsim.commands import run_size
from sheepsim.errors import SheepsimError
from sheepsim.games.race import cli_exact
from sheepsim.games.race.cli_exact import race_panels, write_tables
from sheepsim.options import (
    add_backend_options,
    add_output_options,
    add_run_options,
    add_table_option,
    backend_from_args,
    check_plot_option,
    game_count,
    non_negative_int,
    positive_float,
    positive_int,
    progress_of,
)

DEFAULT_ODDS_GAMES = 1_000_000
DEFAULT_EV_GAMES = 1_000_000
#: Tables each multi-table command prints, in order (``--table`` picks one; CSV prints
#: one table, the first unless ``--table`` says otherwise).
EV_TABLES = ("game", "lanes", "sets", "open_bet")


def register(sub: argparse._SubParsersAction) -> None:
    """The race's own commands under ``sheepsim race`` (the shared ``play``, ``compare``,
    ``balance`` and ``trace`` come from :mod:`sheepsim.commands`)."""
    _add_odds(sub)
    _add_ev(sub)
    cli_exact.register_advise(sub)
    _add_move(sub)


def _add_odds(sub) -> None:
    p = sub.add_parser("odds", help="P(1st/2nd/3rd) and bet EV per lane for one race",
                       description="Chances of each lane finishing 1st, 2nd and 3rd in one race "
                                   "from the starting line, and the EV of a bet on each lane: "
                                   "exact when the pace policy allows it, else (or with --mc, "
                                   "--games, --precision) by simulation.")
    _add_race_options(p)
    add_run_options(p, games=DEFAULT_ODDS_GAMES)
    _add_analysis_options(p, DEFAULT_ODDS_GAMES)
    cli_exact.add_exact_options(p)
    p.set_defaults(func=cmd_odds)


def _add_ev(sub) -> None:
    p = sub.add_parser(
        "ev", help="bet advice for a dealt race: EV per lane, best open bet, best sets",
        description="What a player needs at the table for a dealt race: P(1st/2nd/3rd) per lane "
                    "with 95% intervals and the EV of one bet; the fair payoff per lane (payoff "
                    "making every lane's EV equal the table's mean EV; fair_* ignore the bonus, "
                    "fair_bonus_* count each lane's share of it); all sets of bets (20 "
                    "sets of 3 in a semifinal, bonus counted from the joint distribution of the "
                    "top three; 15 pairs in the final) ranked by EV with intervals (sets that "
                    "cannot be placed given --taken rank last); and the best "
                    "open bet given the lanes already taken openly (--taken); with --scores "
                    "in the final, first the 15 pairs of bets by your chance of winning the "
                    "game (table game). Tables: game (final with --scores), lanes, sets, "
                    "open_bet (semifinal only).")
    _add_race_options(p)
    p.add_argument("--taken", metavar="L,L", default="",
                   help="lanes (1-6) other players already bet openly this race")
    _add_sim_options(p, DEFAULT_EV_GAMES, EV_TABLES)
    cli_exact.add_exact_options(p)
    cli_exact.add_standings_options(p)
    p.set_defaults(func=cmd_ev)


def add_lane_options(p, stage_default: str | None = "semifinal") -> None:
    """``--lanes`` and ``--stage``: which race. ``stage_default`` None: not given, so a
    ``--position`` that names its stage is not contradicted (:func:`_default_stage`)."""
    p.add_argument("--lanes", metavar="NAME,...", help="six cards for lanes 1-6 "
                   "(default: the rules file's first six)")
    p.add_argument("--stage", choices=("semifinal", "final"), default=stage_default,
                   help="which race: a semifinal (3 places paid) or the final (default "
                        "semifinal" + ("" if stage_default else ", or what --position says") + ")")


def _add_race_options(p):
    add_lane_options(p, stage_default=None)
    from sheepsim.games.race.game import GAME

    pace = GAME.policy_defaults["pace"]
    p.add_argument("--policy", default=pace, metavar="NAME",
                   help="pace policy: greedy, random, saver, steady, partisan or "
                        f"package.module:function (default {pace})")


def _add_analysis_options(p, default_games: int) -> None:
    """--precision/--max-games/--plot for commands whose --games comes from add_run_options."""
    p.add_argument("--precision", type=positive_float, metavar="P",
                   help="instead of --games: simulate until every reported probability's 95%% "
                        "interval half-width is at most P (checked after fixed blocks, so the "
                        "same command gives the same answer)")
    p.add_argument("--max-games", type=game_count, metavar="N",
                   help="with --precision: stop here at the latest (default 10,000,000 races "
                        "or 1,000,000 games)")
    p.add_argument("--plot", metavar="FILE", help="also draw the charts to FILE (.png or .svg)")
    # None means "not given", so --games and --precision can be told apart
    p.set_defaults(games=None, default_games=default_games)


def _add_sim_options(p, default_games: int, tables: tuple[str, ...]) -> None:
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (default: the shipped standard rules)")
    p.add_argument("--games", type=game_count, metavar="N",
                   help=f"number of games/races to simulate (default {default_games:,})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")
    add_backend_options(p)
    add_output_options(p)
    add_table_option(p, tables)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_analysis_options(p, default_games)


def _default_stage(args):
    """--stage semifinal unless given or left to --position (which may name the final)."""
    if not getattr(args, "position", None):
        return args.replace(stage=args.stage or "semifinal")
    return args


def cmd_odds(args) -> int:
    args = _default_stage(args)
    size = run_size(args)
    check_plot_option(args)
    if cli_exact.handle_odds(args):
        return 0
    from sheepsim.games.race.analysis import lane_ev_table
    from sheepsim.games.race.jobs import estimate_races

    counts, res = estimate_races(args.rules, args.lanes, args.stage, args.policy, args.seed,
                                 **size, backend=backend_from_args(args), progress=progress_of(args))
    trace = res.trace if size["precision"] is not None else None
    title = f"The Sheep Race: {args.stage} odds"
    write_tables(res.tables, res.meta(**cli_exact.method_meta(args)), title, args,
           lambda: race_panels(lane_ev_table(counts), None, trace))
    return 0


def _parse_taken(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    try:
        taken = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise SheepsimError(f"--taken takes lane numbers 1-6 separated by commas, got {text!r}") from None
    if len(set(taken)) != len(taken):
        raise SheepsimError(f"--taken names a lane twice: {text!r}")
    return taken


def cmd_ev(args) -> int:
    from sheepsim.games.race.jobs import estimate_races

    args = _default_stage(args)
    size = run_size(args)
    check_plot_option(args)
    if args.table == "open_bet" and args.stage == "final":
        raise SheepsimError("the final has no open_bet table (no open bets)")
    if cli_exact.handle_ev(args, _parse_taken(args.taken)):
        return 0
    st = cli_exact.standings_of(args)
    counts, res = estimate_races(args.rules, args.lanes, args.stage, args.policy, args.seed,
                                 report="ev", taken=_parse_taken(args.taken), **size,
                                 backend=backend_from_args(args), progress=progress_of(args))
    tables, fields = cli_exact.simulated_game_table(args, st, counts, res.tables)
    title = f"The Sheep Race: {args.stage} bet EV" + cli_exact.game_title(fields)
    write_tables(tables, res.meta(**cli_exact.method_meta(args), **fields), title, args,
           lambda: race_panels(tables["lanes"], tables["sets"], res.trace))
    return 0


# ------------------------------------------------------------------ race move
def _add_move(sub) -> None:
    """Add ``sheepsim race move`` to the ``race`` subcommands."""
    from sheepsim.games.race.cli_exact import POSITION_HELP, position_text

    p = sub.add_parser(
        "move", help="play one turn on a position: the dice total and the pace chosen",
        description="One turn as the engine plays it: the sheep the dice total selects "
                    "(the Lazy Sheep for a 9, or when the total's sheep is exhausted or "
                    "finished), each legal pace option with the sheep and the whole position "
                    "after it (cubes paid or recovered, the blue supply, exhaustion, a finish "
                    "and its place; when the race ends, lanes_by_place: the lanes placed "
                    "1st, 2nd, 3rd); with --option, the "
                    "position after that option. Table: options.",
        epilog="example: sheepsim race move --position 'semifinal 0.111 0.210 0.030 0.201 "
               "0.120 0.111' --total 9 --option GALLOP_RED")
    p.add_argument("--position", type=position_text, required=True, metavar="FILE|STRING",
                   help=POSITION_HELP)
    p.add_argument("--total", type=positive_int, required=True, metavar="N",
                   help="the dice total rolled (semifinal 1-9, final 1-8 with the standard dice)")
    p.add_argument("--option", metavar="NAME",
                   help="the pace option played (REST, WALK_RECOVER, WALK_FREE, WALK_WHITE, "
                        "TROT_BLUE, TROT_WHITE, GALLOP_RED, GALLOP_BLUE2, GALLOP_WHITE)")
    p.add_argument("--lanes", metavar="NAME,...", help="six cards for lanes 1-6 (default: the "
                   "position's lanes=, else the rules file's first six)")
    p.add_argument("--stage", choices=("semifinal", "final"), default=None,
                   help="if the position does not say (default semifinal)")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    add_output_options(p)
    p.set_defaults(func=cmd_move)


def cmd_move(args) -> int:
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.turn import play_turn
    from sheepsim.output import base_meta, emit, render

    rules = load_rules(args.rules)
    t = play_turn(args.position, args.total, args.option, rules, stage=args.stage,
                  lanes=args.lanes)
    m = t.meta_fields
    meta = base_meta(game="sheep-race", rules=rules.source, rules_sha256=rules.sha256, **m)
    why = "" if m["reason"] == "dice" else f", the {m['reason']}"
    title = f"The Sheep Race: total {m['total']} moves lane {m['lane']}{why}\nposition: {m['position']}"
    if "option" in m:
        title += f"\n{m['option']}: {m['next']}" + (
            "\nthe race is over: " + ", ".join(f"{place} lane {lane}" for place, lane in zip(
                ("1st", "2nd", "3rd"), m["lanes_by_place"], strict=False)) if m["over"] else "")
    emit(render({"options": t.table}, args.format, meta, title), args.out, meta)
    return 0
