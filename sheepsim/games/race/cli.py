"""``sheepsim race ...``: odds, ev, balance, play, compare and trace for The Sheep Race.

Analysis commands share ``--games N | --precision P [--max-games N]`` (sequential
stopping: simulate in fixed blocks until every reported probability's 95% interval
half-width is at most P), ``--plot FILE`` (.png or .svg) and the output options.
"""

from __future__ import annotations

import argparse

from sheepsim.cli import (
    add_backend_options,
    add_head_to_head_options,
    add_output_options,
    add_run_options,
    add_table_option,
    add_trace_options,
    backend_from_args,
    check_plot_option,
    compiling,
    emit_trace,
    game_count,
    non_negative_int,
    player_count,
    positive_float,
)
from sheepsim.errors import SheepsimError
from sheepsim.games.race import cli_exact

DEFAULT_ODDS_GAMES = 1_000_000
DEFAULT_PLAY_GAMES = 100_000
DEFAULT_EV_GAMES = 1_000_000
DEFAULT_BALANCE_GAMES = 100_000
DEFAULT_COMPARE_GAMES = 50_000
#: Tables each multi-table command prints, in order (``--table`` picks one; CSV prints
#: one table, the first unless ``--table`` says otherwise).
EV_TABLES = ("lanes", "sets", "open_bet")
BALANCE_TABLES = ("fair_payoffs", "cards", "semifinal_lanes", "final_lanes")
PLAY_TABLES = ("seats", "policies", "turns", "scores", "turn_order", "tie_breaks")


def register(games: argparse._SubParsersAction) -> None:
    race = games.add_parser("race", help="The Sheep Race (betting on a dice-driven race)",
                            description="The Sheep Race: odds, whole games, traces.")
    sub = race.add_subparsers(dest="command", metavar="COMMAND", parser_class=type(race))
    sub.required = True
    _add_odds(sub)
    _add_ev(sub)
    _add_balance(sub)
    _add_play(sub)
    _add_compare(sub)
    _add_trace(sub)
    cli_exact.register_advise(sub)


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
                    "open bet given the lanes already taken openly (--taken). Tables: lanes, "
                    "sets, open_bet (semifinal only).")
    _add_race_options(p)
    p.add_argument("--taken", metavar="L,L", default="",
                   help="lanes (1-6) other players already bet openly this race")
    _add_sim_options(p, DEFAULT_EV_GAMES, EV_TABLES)
    cli_exact.add_exact_options(p)
    p.set_defaults(func=cmd_ev)


def _add_balance(sub) -> None:
    p = sub.add_parser(
        "balance", help="balance over random deals: fair payoff tables, card strength",
        description="Averaged over random deals (cards shuffled as in the game): P(place) by "
                    "lane, the implied fair payoffs next to the rulebook's Table 1 (semifinals) "
                    "and Table 2 (the final, lanes seated by the semifinal results as in whole "
                    "games), difference (printed - fair) and ratio (printed / fair); card "
                    "strength (P(win), P(top 3), P(win the final) with 95% intervals; over- "
                    "and under-powered cards flagged by exact binomial tests against equal "
                    "cards with Holm's correction). Each game index simulates one semifinal and "
                    "one whole game. Tables: " + ", ".join(BALANCE_TABLES) + ".")
    p.add_argument("--policy", default="greedy", metavar="NAME",
                   help="pace policy for every sheep move (default greedy)")
    p.add_argument("--players", type=player_count, default=4, metavar="N",
                   help="players in the whole games behind Table 2 (default 4; matters only "
                        "to pace policies that look at bets, e.g. partisan)")
    p.add_argument("--bet-policy", default="ev-approx", metavar="NAME",
                   help="bet policy in those games (default ev-approx)")
    _add_sim_options(p, DEFAULT_BALANCE_GAMES, BALANCE_TABLES)
    p.set_defaults(func=cmd_balance)


def _add_play(sub) -> None:
    p = sub.add_parser(
        "play", help="whole games: win rate by seat and policy",
        description="Whole games: win rate and mean score by seat, by policy pair (pooled "
                    "over its seats with the game as the unit), score distribution, mean "
                    "turns, win rate by turn order, and how winners were decided (ties for "
                    "first broken by the token stack). Identical ev players often tie; "
                    "near-ev bets break the symmetry. ev solves every dealt race exactly "
                    "(about 10 games per second); ev-approx reads the public odds table "
                    "(tens of thousands per second). Tables: " + ", ".join(PLAY_TABLES) + ".")
    p.add_argument("--players", type=player_count, required=True, metavar="N",
                   help="2 to 6 players")
    p.add_argument("--bet-policy", default="ev-approx", metavar="NAME[,NAME...]",
                   help="random, favourite, longshot, ev (exact odds of each deal), ev-approx "
                        "(the odds table), near-ev or package.module:function; one for all "
                        "seats or one per seat (default ev-approx)")
    p.add_argument("--pace-policy", default="greedy", metavar="NAME[,NAME...]",
                   help="greedy, random, saver, steady, partisan, lookahead (the option with "
                        "the most expected points for its bets, solved exactly; about 0.4 s "
                        "per game) or package.module:function (default greedy)")
    add_run_options(p, games=DEFAULT_PLAY_GAMES)
    add_table_option(p, PLAY_TABLES)
    _add_analysis_options(p, DEFAULT_PLAY_GAMES)
    p.set_defaults(func=cmd_play)


def _add_compare(sub) -> None:
    p = sub.add_parser(
        "compare", help="head-to-head of two policies on the same dice (paired difference)",
        description="Head-to-head of two policy pairs for one seat on common random numbers: "
                    "every game is played twice with the same seed (the same dice), once with "
                    "seat --seat playing A and once playing B, the other seats playing "
                    "--field. Reports both win rates and mean scores with 95% intervals, the "
                    "paired difference A - B with its interval, and p-values (win rate: exact "
                    "McNemar test; score: paired z test). --precision bounds the half-widths "
                    "of both win rates and of their difference. Table: comparison.",
        epilog="example: sheepsim race compare --players 4 --a ev,greedy --b favourite,greedy")
    add_head_to_head_options(p, players=player_count, players_help="2 to 6 players", a=None, b=None,
                             field="ev-approx,greedy", metavar="BET,PACE", players_default=None)
    _add_sim_options(p, DEFAULT_COMPARE_GAMES, ("comparison",))
    p.set_defaults(func=cmd_compare)


def _add_trace(sub) -> None:
    p = sub.add_parser("trace", help="print one race turn by turn",
                       description="Play one race and print every turn: the dice, the lane they "
                                   "select and why, the option the pace policy takes, the sheep "
                                   "and the cubes; then the result.")
    _add_race_options(p)
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                   help="random seed (default 0)")
    p.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                   help="game index within the seed (default 0)")
    add_trace_options(p)
    p.set_defaults(func=cmd_trace)


def _add_race_options(p):
    p.add_argument("--lanes", metavar="NAME,...", help="six cards for lanes 1-6 "
                   "(default: the rules file's first six)")
    # None: not given, so a --position that names its stage is not contradicted
    p.add_argument("--stage", choices=("semifinal", "final"), default=None,
                   help="which race: a semifinal (3 places paid) or the final (default "
                        "semifinal, or what --position says)")
    p.add_argument("--policy", default="greedy", metavar="NAME",
                   help="pace policy: greedy, random, saver, steady, partisan or "
                        "package.module:function (default greedy)")


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


def _run_size(args) -> dict:
    """``games``/``precision``/``max_games`` keywords for the drivers (validated)."""
    if args.precision is not None and args.games is not None:
        raise SheepsimError("give --games or --precision, not both")
    if args.max_games is not None and args.precision is None:
        raise SheepsimError("--max-games only applies with --precision")
    if args.precision is not None:
        if args.precision >= 0.5:
            raise SheepsimError(f"--precision is a probability half-width below 0.5, got {args.precision}")
        size = {"games": None, "precision": args.precision}
        if args.max_games is not None:
            size["max_games"] = args.max_games
        return size
    return {"games": args.games or args.default_games, "precision": None}


def _select(tables: dict, args) -> dict:
    name = getattr(args, "table", None)
    return {name: tables[name]} if name else tables


def _write(tables: dict, meta: dict, title: str, args, panels=None) -> None:
    """Print or write the tables, then draw the charts to --plot.

    ``panels()`` returns the chart callables; it is only called with --plot, so plain
    runs never import matplotlib (start-up time).
    """
    from sheepsim.output import emit, render

    emit(render(_select(tables, args), args.format, meta, title), args.out, meta)
    if args.plot and panels:
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(panels(), meta, title), args.plot)


def _default_stage(args) -> None:
    """--stage semifinal unless given or left to --position (which may name the final)."""
    if not getattr(args, "position", None):
        args.stage = args.stage or "semifinal"


def cmd_odds(args) -> int:
    from sheepsim.games.race.analysis import lane_ev_table
    from sheepsim.games.race.estimate import estimate_races

    _default_stage(args)
    size = _run_size(args)
    check_plot_option(args)
    if cli_exact.handle_odds(args):
        return 0
    counts, res = estimate_races(args.rules, args.lanes, args.stage, args.policy, args.seed,
                                 **size, backend=backend_from_args(args), progress=not args.quiet)
    trace = res.trace if size["precision"] is not None else None
    title = f"The Sheep Race: {args.stage} odds"
    _write(res.tables, res.meta(**cli_exact.method_meta(args)), title, args,
           lambda: _race_panels(lane_ev_table(counts), None, trace))
    return 0


def _race_panels(lanes, sets, trace):
    from functools import partial

    from sheepsim import plots

    panels = [partial(plots.lane_place_heatmap, lanes), partial(plots.lane_ev_chart, lanes)]
    if sets is not None:
        panels.append(partial(plots.bet_sets_chart, sets))
    if trace is not None:
        panels.append(partial(plots.convergence_chart, trace))
    return [lambda ax, f=f: f(ax=ax) for f in panels]


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
    from sheepsim.games.race.estimate import estimate_races

    _default_stage(args)
    size = _run_size(args)
    check_plot_option(args)
    if args.table == "open_bet" and args.stage == "final":
        raise SheepsimError("the final has no open_bet table (no open bets)")
    if cli_exact.handle_ev(args, _parse_taken(args.taken)):
        return 0
    _, res = estimate_races(args.rules, args.lanes, args.stage, args.policy, args.seed,
                            report="ev", taken=_parse_taken(args.taken), **size,
                            backend=backend_from_args(args), progress=not args.quiet)
    title = f"The Sheep Race: {args.stage} bet EV"
    _write(res.tables, res.meta(**cli_exact.method_meta(args)), title, args,
           lambda: _race_panels(res.tables["lanes"], res.tables["sets"], res.trace))
    return 0


def cmd_balance(args) -> int:
    from sheepsim.games.race.estimate import estimate_balance

    size = _run_size(args)
    check_plot_option(args)
    res = estimate_balance(args.rules, args.policy, args.seed, players=args.players,
                           bet_policy=args.bet_policy, **size, backend=backend_from_args(args),
                           progress=not args.quiet)
    t = res.tables

    def panels():
        from functools import partial

        from sheepsim import plots

        charts = [partial(plots.fair_payoff_chart, t["fair_payoffs"]),
                  partial(plots.card_strength_chart, t["cards"]),
                  partial(plots.lane_place_heatmap, t["semifinal_lanes"]),
                  partial(plots.convergence_chart, res.trace)]
        return [lambda ax, f=f: f(ax=ax) for f in charts]

    _write(t, res.meta(), "The Sheep Race: balance over random deals", args, panels)
    return 0


def cmd_compare(args) -> int:
    from sheepsim.games.race.estimate import estimate_compare

    size = _run_size(args)
    check_plot_option(args)
    res = estimate_compare(args.rules, args.players, args.a, args.b, args.field, args.seat,
                           args.seed, **size, backend=backend_from_args(args), progress=not args.quiet)
    title = f"The Sheep Race: {args.a} vs {args.b} at seat {args.seat} of {args.players}"

    def panels():
        from sheepsim import plots

        return [lambda ax: plots.convergence_chart(res.trace, ax=ax)]

    _write(res.tables, res.meta(), title, args, panels)
    return 0


def cmd_play(args) -> int:
    from sheepsim.games.race.estimate import estimate_games

    size = _run_size(args)
    check_plot_option(args)
    _, res = estimate_games(args.rules, args.players, args.bet_policy, args.pace_policy,
                            args.seed, **size, backend=backend_from_args(args), progress=not args.quiet)
    trace = res.trace if size["precision"] is not None else None
    tables = res.tables
    title = f"The Sheep Race: {args.players}-player games"

    def panels():
        from sheepsim import plots

        charts = [lambda ax: plots.win_rate_chart(tables["seats"], ax=ax),
                  lambda ax: plots.win_rate_chart(tables["turn_order"], x="turn_order", value="p_win",
                                                  ax=ax, title="Win rate by semifinal-1 turn order")]
        if trace is not None:
            charts.append(lambda ax: plots.convergence_chart(trace, ax=ax))
        return charts

    _write(tables, res.meta(), title, args, panels)
    return 0


def cmd_trace(args) -> int:
    import io

    import numpy as np

    from sheepsim.driver import chunk_error
    from sheepsim.games.race import engine
    from sheepsim.games.race.jobs import GAME
    from sheepsim.games.race.layout import FINAL, SEMIFINAL
    from sheepsim.games.race.rules import load_rules
    from sheepsim.games.race.simulate import board_array, lane_cards, resolve_policies
    from sheepsim.output import base_meta

    _default_stage(args)
    rules = load_rules(args.rules)
    lanes = lane_cards(rules, args.lanes)
    pol = resolve_policies(args.policy)
    log = np.zeros((engine.MAX_TURNS, engine.N_LOG), dtype=np.int64)
    board = board_array()
    with compiling(args):
        try:
            pol.kernels().trace_race(args.seed, args.game, rules.kernel_rules(), lanes,
                                     FINAL if args.stage == "final" else SEMIFINAL,
                                     int(pol.pace_ids[0]), log, board)
        except Exception as exc:  # a policy breaking a rule, or one that does not compile
            raise chunk_error(exc, args.seed, args.game, 1,
                              context=f"; pace policy {pol.pace_names[0]}") from None
    n_turns = int((log[:, engine.LOG_TURN] > 0).sum())
    out = io.StringIO()
    _write_trace_header(out, args, pol.pace_names[0], rules, lanes)
    _write_trace_turns(out, log[:n_turns], rules)
    places = np.full(3, -1, dtype=np.int64)
    engine.placed_lanes(board, places)
    n_places = 1 if args.stage == "final" else 3
    names = ["1st", "2nd", "3rd"]
    parts = [f"{names[k]} lane {places[k] + 1} {rules.cards[lanes[places[k]]].name}"
             for k in range(n_places)]
    out.write(f"Result after {n_turns} turns: " + ", ".join(parts) + "\n")
    meta = base_meta(game=GAME, rules=rules.source, rules_sha256=rules.sha256,
                     stage=args.stage, policy=pol.pace_names[0], seed=args.seed,
                     game_index=args.game,
                     lanes=[rules.cards[c].name for c in lanes])
    emit_trace(args, out.getvalue().splitlines(), meta, turns=n_turns,
               placed_lanes=[int(places[k]) + 1 for k in range(n_places)])
    return 0


def _write_trace_header(out, args, pace_name: str, rules, lanes) -> None:
    """The trace's provenance line, the track and the lanes' cards, and the column heads."""
    from sheepsim import __version__

    out.write(f"The Sheep Race trace: {args.stage}, pace policy {pace_name}, "
              f"seed {args.seed}, game {args.game}, rules {rules.source} "
              f"(sha256 {rules.sha256[:12]}), sheepsim {__version__}\n")
    ez = rules.track_length - rules.end_zone + 1
    out.write(f"Track {rules.track_length} squares, End Zone from square {ez}; cubes R/B/W\n")
    for lane, c in enumerate(lanes, start=1):
        card = rules.cards[c]
        out.write(f"  lane {lane}: {card.name:<11} R{card.red} B{card.blue} W{card.white}"
                  f"  trot {card.trot}  gallop {card.gallop}\n")
    out.write(f"{'turn':>4} {'dice':>4} {'lane':>4}  {'selected by':<38} {'option':<13}"
              f" {'cubes':>5}  positions (lanes 1-6)\n")


def _write_trace_turns(out, log, rules) -> None:
    """One line per logged turn ``log`` ``(turns, N_LOG)``: dice, lane, why, option,
    cubes and every lane's position after it."""
    import numpy as np

    from sheepsim.games.race import engine
    from sheepsim.games.race.layout import EXHAUSTED, OPTION_NAMES, REASON_NAMES

    pos = np.zeros(6, dtype=np.int64)
    for row in log:
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
