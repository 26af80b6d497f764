"""``race odds``/``race ev`` exact and from a position, and ``race advise`` (CLI).

Method rule for ``odds`` and ``ev``: ``--exact`` solves exactly (an error if the pace
policy is random or bet-aware); ``--mc``, ``--games`` or ``--precision`` simulate;
otherwise the answer is exact when the policy allows it and simulated (with a note
saying why) when it does not. ``--position`` starts from a race in progress
(:mod:`~sheepsim.games.race.exact.position`). :mod:`~sheepsim.games.race.cli` calls the
hooks here; each returns False when the plain simulation path should run instead.
Both print through :func:`write_tables` and draw :func:`race_panels` (kept here, so this
module never imports :mod:`~sheepsim.games.race.cli` back).
"""

from __future__ import annotations

import argparse

from sheepsim.errors import SheepsimError
from sheepsim.options import (
    add_output_options,
    backend_from_args,
    compiling,
    non_negative_int,
    positive_int,
    progress_of,
    publish,
)

POSITION_HELP = ("race in progress: a position string or a file holding one, e.g. "
                 "'semifinal supply=14 7.101 9.110 F1 X17 12.010 0.030' (per lane "
                 "SQUARE.RBW running with red/blue/white cubes, F1-F3 finished with its "
                 "place, X<square> exhausted; see sheepsim.games.race.exact.position)")


def position_text(text: str) -> str:
    """``--position``: not empty; a name that looks like a file must exist."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the position is empty")
    from pathlib import Path

    looks_like_file = " " not in text.strip() and (
        "/" in text or Path(text).suffix.lower() in (".txt", ".pos", ".toml"))
    if looks_like_file and not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return text


def add_exact_options(p: argparse.ArgumentParser) -> None:
    """``--exact``/``--mc`` and ``--position`` for ``race odds`` and ``race ev``."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--exact", action="store_true",
                       help="exact odds (default when the pace policy allows it and neither "
                            "--games nor --precision is given)")
    group.add_argument("--mc", action="store_true", help="simulate even if exact odds are possible")
    p.add_argument("--position", type=position_text, metavar="FILE|STRING", help=POSITION_HELP)


STANDINGS_HELP = ("with --scores (the players' scores before this race, seat order), in the "
                  "final: the chance of winning the game, and --objective win (the default "
                  "when the scores differ) ranks by it; points (the default when all scores "
                  "are equal, without --scores, and in a semifinal, whose chance of winning "
                  "the game needs the races after it) ranks by expected points. Ties for the "
                  "game go to the scoring token on top of the stack (the rules README): a "
                  "player who scored in the final beats one who did not, two who scored go "
                  "by turn order from the leader (the later on top), two who did not by "
                  "--tie-order. Unless --rival-bets says, each rival bets the pair of highest "
                  "expected points at the start of this final.")


def add_standings_options(p: argparse.ArgumentParser) -> None:
    """``--scores``, ``--seat``, ``--objective``, ``--tie-order``, ``--rival-bets`` for
    ``race advise`` and ``race ev`` (validated by :mod:`~sheepsim.games.race.standings`)."""
    g = p.add_argument_group("playing to win the game", STANDINGS_HELP)
    g.add_argument("--scores", metavar="S1,S2,...",
                   help="every player's score before this race, seat order (one per player, "
                        "whole numbers >= 0)")
    g.add_argument("--seat", default="1", metavar="N",
                   help="your seat, 1-based, in the order of --scores (default 1)")
    g.add_argument("--objective", choices=("win", "points"), default=None,
                   help="win: the chance of winning the game (the default when --scores "
                        "differ, final only); points: expected points of this race (the "
                        "default when all scores are equal or no --scores)")
    g.add_argument("--tie-order", metavar="S,S,...",
                   help="seats from the top of the scoring-token stack down, for ties between "
                        "players level before the final (default seat order: the stack as set "
                        "up, seat 1 the first player of semifinal 1)")
    g.add_argument("--rival-bets", metavar="L,L/L,L",
                   help="the rivals' two final bets, pairs in seat order without yours "
                        "(default: each rival on the pair of highest expected points at the "
                        "start of this final, from the exact odds of --policy, or of greedy "
                        "when it can only be simulated)")


def standings_of(args):
    """The validated standings of ``args`` (None without --scores)."""
    from sheepsim.games.race.advise import game_standings

    return game_standings(args.scores, args.seat, args.tie_order, args.rival_bets)


def game_pairs(args, st, stage, winner, games, rules, cards, start_winner):
    """``(table or None, meta fields)``: the final's pairs by the chance of winning the
    game (``winner``: P(lane wins), or frequencies over ``games`` races)."""
    from sheepsim.games.race import standings as S

    goal, why = S.choose_objective(args.objective, st, stage)
    if st is None:
        return None, {}
    if stage != "final":
        return None, {"goal": goal, "goal_reason": why, **st.meta()}
    rivals, how = S.rival_pairs(st, start_winner, rules)
    table = S.game_table(winner, rules, st, rivals, goal, cards, games)
    return table, S.game_meta(table, st, goal, why, rivals, how)


def _method(args) -> tuple[bool, str]:
    """``(exact?, note)`` from the method options and the pace policy."""
    from sheepsim.games.race.exact.solver import exact_reason

    sized = args.games is not None or args.precision is not None
    if args.exact and sized:
        raise SheepsimError("--exact takes no --games or --precision (nothing is simulated)")
    reason = exact_reason(args.policy)
    if args.exact and reason:
        from sheepsim.games.race.policies import WHOLE_GAME_PACE

        if args.policy.strip() in WHOLE_GAME_PACE:  # simulating a single race fails too
            raise SheepsimError(f"no exact solution: the {args.policy.strip()} pace policy plays "
                                "whole games only; try race play --pace-policy "
                                f"{args.policy.strip()},greedy,... or race compare")
        raise SheepsimError(f"no exact solution: {reason}; drop --exact to simulate")
    if args.mc or sized:
        return False, ""
    if reason:
        return False, f"simulated because {reason}"
    return True, ""


def _solve(args, rules):
    from sheepsim.games.race.exact.from_position import exact_from_position
    from sheepsim.games.race.exact.solver import exact_odds

    if args.position:
        return exact_from_position(args.position, rules, args.policy, stage=args.stage,
                                   lanes=args.lanes)
    return exact_odds(rules, args.lanes, args.stage, args.policy)


def _simulate_position(args, report: str, taken=()):
    """Monte Carlo from ``--position`` with the usual --games/--precision driver."""
    from sheepsim.commands import run_size
    from sheepsim.games.race.exact.from_position import estimate_from_position

    return estimate_from_position(args.position, args.rules, args.policy, args.seed,
                                  report=report, taken=taken, stage=args.stage, lanes=args.lanes,
                                  backend=backend_from_args(args), progress=progress_of(args),
                                  **run_size(args))


def _exact_meta(res, args, **extra) -> dict:
    meta = {**res.meta(), **extra}
    if args.position:
        from sheepsim.games.race.exact.position import as_position

        meta["position"] = as_position(args.position, stage=args.stage, lanes=args.lanes).text()
    return meta


def handle_odds(args) -> bool:
    """``race odds`` exact or from a position; False: run the plain simulation."""
    from sheepsim.games.race.analysis import lane_ev_table, odds_table

    exact, _ = _method(args)
    if exact:
        from sheepsim.games.race.exact.from_position import exact_tables
        from sheepsim.games.race.rules import load_rules

        with compiling(args):
            res = _solve(args, load_rules(args.rules))
        meta = _exact_meta(res, args)
        title = f"The Sheep Race: {res.stage} odds (exact){_from(meta)}"
        tables = exact_tables(res, {"lanes": odds_table, "ev": lane_ev_table})
        write_tables({"lanes": tables["lanes"]}, meta, title, args,
               lambda: race_panels(tables["ev"], None, None))
        return True
    if not args.position:  # the plain simulation; method_meta adds the note
        return False
    counts, res = _simulate_position(args, "odds")
    trace = res.trace if args.precision is not None else None
    meta = res.meta(**method_meta(args))
    write_tables(res.tables, meta, f"The Sheep Race: {counts.stage} odds{_from(meta)}", args,
           lambda: race_panels(lane_ev_table(counts), None, trace))
    return True


def _from(meta: dict) -> str:
    """`` from position ...`` for titles of results that start from a position."""
    return f" from position {meta['position']}" if meta.get("position") else ""


def method_meta(args) -> dict:
    """Meta fields of the plain simulation path: the method and why it simulated."""
    note = _method(args)[1]
    return {"method": "monte carlo", **({"note": note} if note else {})}


def ev_builders(stage: str, taken) -> dict:
    from sheepsim.games.race import analysis as an

    builders = {"lanes": an.lane_ev_table, "sets": lambda c: an.bet_sets_table(c, taken)}
    if stage == "semifinal":
        builders["open_bet"] = lambda c: an.open_bet_table(c, taken)
    return builders


def handle_ev(args, taken) -> bool:
    """``race ev`` exact or from a position; False: run the plain simulation.
    ``taken``: lanes (1-6) opened by others, not yet validated."""
    from sheepsim.games.race.analysis import _check_taken

    exact, _ = _method(args)
    taken = _check_taken(taken)
    st = standings_of(args)
    if not exact and not args.position:
        return False  # the plain simulation validates the rest
    if exact:
        from sheepsim.games.race.exact.from_position import exact_tables
        from sheepsim.games.race.rules import load_rules

        rules = load_rules(args.rules)
        with compiling(args):
            res = _solve(args, rules)
        _check_final_taken(res.stage, taken)
        tables = exact_tables(res, ev_builders(res.stage, taken))
        start = (lambda: start_winner(rules, res.lane_cards, args.policy)) if args.position \
            else (lambda: res.winner)
        with compiling(args):
            game, fields = game_pairs(args, st, res.stage, res.winner, None, rules,
                                      [rules.cards[i].name for i in res.lane_cards], start)
        meta = _exact_meta(res, args, taken=list(taken), **fields)
        tables = with_game_table(tables, game, args)
        write_tables(tables, meta, f"The Sheep Race: {res.stage} bet EV (exact){_from(meta)}"
                     + game_title(fields), args,
                     lambda: race_panels(tables["lanes"], tables["sets"], None))
        return True
    counts, res = _simulate_position(args, "ev", taken)
    _check_final_taken(res.job.stage, taken)
    tables, fields = simulated_game_table(args, st, counts, res.tables)
    meta = res.meta(**method_meta(args), **fields)
    write_tables(tables, meta, f"The Sheep Race: {res.job.stage} bet EV{_from(meta)}"
                 + game_title(fields), args,
                 lambda: race_panels(tables["lanes"], tables["sets"], res.trace))
    return True


def start_winner(rules, lane_cards, policy: str):
    """P(lane wins) at the start of the final on these lanes (the rivals' ev bets)."""
    from sheepsim.games.race.advise import _start_winner

    return _start_winner(rules, lane_cards, policy)


def simulated_game_table(args, st, counts, tables: dict) -> tuple[dict, dict]:
    """``race ev``'s tables and meta fields with the pairs table from simulated counts."""
    import numpy as np

    from sheepsim.games.race.analysis import outcome_counts

    if st is None:
        game, fields = game_pairs(args, None, counts.stage, None, None, None, None, None)
        return with_game_table(tables, game, args), fields
    n = counts.games
    wins = outcome_counts(counts) if counts.stage == "final" else np.zeros(6)
    freq = wins / n
    cards = None if counts.lanes is None else [counts.rules.cards[i].name for i in counts.lanes]
    if counts.lanes is not None:  # the rivals' bets: the same odds as every command's
        def start():
            return start_winner(counts.rules, counts.lanes, args.policy)
    else:
        def start():
            return freq
    with compiling(args):
        game, fields = game_pairs(args, st, counts.stage, freq, n, counts.rules, cards, start)
    return with_game_table(tables, game, args), fields


def with_game_table(tables: dict, game, args) -> dict:
    """The pairs table first (the advice), then ``race ev``'s usual tables."""
    if game is None:
        if getattr(args, "table", None) == "game":
            raise SheepsimError("the game table needs --scores and the final")
        return tables
    return {"game": game, **tables}


def game_title(fields: dict) -> str:
    """The title's second line with scores: which objective and, where they disagree,
    both best pairs."""
    if "best_for_win" not in fields:
        if "goal" in fields:
            return f"\nranked by expected points: {fields['goal_reason']}"
        return ""
    what = "the chance of winning the game" if fields["goal"] == "win" else "expected points"
    line = (f"\nfinal pairs (table game) ranked by {what} ({fields['goal_reason']}); scores "
            f"{', '.join(map(str, fields['scores']))}, you in seat {fields['seat']}, rivals "
            f"on {' / '.join(fields['rival_bets'])}")
    if fields["objectives_disagree"]:
        line += (f"\nthey disagree: to win the game bet {fields['best_for_win']} "
                 f"(+{fields['win_gain']:.4f} win probability, {fields['points_cost']:.4f} "
                 f"expected points less); for points bet {fields['best_for_points']}")
    else:
        line += f"\nboth objectives pick {fields['best_for_win']}"
    return line


def _check_final_taken(stage: str, taken) -> None:
    if taken and stage == "final":
        raise SheepsimError("--taken applies to semifinals (the final has no open bets)")


# ------------------------------------------------------------------ race advise
#: ``--games`` of ``race advise``: the default of :func:`~sheepsim.games.race.advise.advise`
#: (kept here so that building the parser does not import the solver; a test keeps them equal)
DEFAULT_ADVISE_GAMES = 20_000


def register_advise(sub) -> None:
    """Add ``sheepsim race advise`` to the ``race`` subcommands."""
    p = sub.add_parser(
        "advise", help="the best pace now: expected points of each option for the chosen sheep",
        description="On your turn, for the sheep the dice selected: every legal pace option "
                    "with the expected points this race gives you (payoffs and the bonus for "
                    "your bets, --open/--hidden: at least one is needed) if every later turn "
                    "of every sheep follows --policy, best first, with the margin of the best "
                    "(equal options are all marked best: a tie). Exact when the policy "
                    "allows it (greedy, saver, steady), else simulated with every option on "
                    "the same dice (paired intervals). Table: options.",
        epilog="example: sheepsim race advise --position 'semifinal supply=14 7.101 9.110 "
               "6.020 8.201 12.110 10.111' --lane 4 --open 4 --hidden 1,6 --rival-open 2,5")
    p.add_argument("--position", type=position_text, required=True, metavar="FILE|STRING",
                   help=POSITION_HELP)
    p.add_argument("--lane", required=True, type=int, metavar="L",
                   help="lane (1-6) of the sheep the dice selected (after any Lazy Sheep)")
    p.add_argument("--open", metavar="L", help="your open bet (semifinal)")
    p.add_argument("--hidden", default="", metavar="L,L", help="your hidden bets")
    p.add_argument("--rival-open", default="", metavar="L,L", help="lanes rivals bet openly")
    p.add_argument("--lanes", metavar="NAME,...", help="six cards for lanes 1-6 (default: the "
                   "position's lanes=, else the rules file's first six)")
    p.add_argument("--stage", choices=("semifinal", "final"), default=None,
                   help="if the position does not say (default semifinal)")
    from sheepsim.games.race.game import GAME

    pace = GAME.policy_defaults["pace"]
    p.add_argument("--policy", default=pace, metavar="NAME",
                   help=f"pace policy for every later turn (default {pace})")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--exact", action="store_true", help="require the exact answer")
    group.add_argument("--mc", action="store_true", help="simulate even if exact is possible")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file")
    p.add_argument("--games", type=positive_int, default=DEFAULT_ADVISE_GAMES, metavar="N",
                   help=f"races per option when simulating (default {DEFAULT_ADVISE_GAMES:,})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                   help="random seed when simulating (default 0)")
    add_standings_options(p)
    add_output_options(p)
    p.set_defaults(func=cmd_advise)


def cmd_advise(args) -> int:
    from sheepsim.games.race.advise import advise
    from sheepsim.games.race.rules import load_rules
    from sheepsim.output import base_meta, emit, render

    rules = load_rules(args.rules)
    method = "exact" if args.exact else ("mc" if args.mc else "auto")
    with compiling(args):
        a = advise(args.position, args.lane, rules, open_bet=args.open, hidden=args.hidden,
                   rival_open=args.rival_open, policy=args.policy, method=method,
                   games=args.games, seed=args.seed, stage=args.stage, lanes=args.lanes,
                   scores=args.scores, seat=args.seat, objective=args.objective,
                   tie_order=args.tie_order, rival_bets=args.rival_bets)
    meta = base_meta(game="sheep-race", rules=rules.source, rules_sha256=rules.sha256,
                     **a.meta_fields)
    # the objective and the bets it used, in words, under the headline
    title = (f"The Sheep Race: {a.headline(args.lane)}\n"
             f"position: {a.meta_fields['position']}\n"
             f"ranked by {a.objective}"
             + (f"; rivals open on {', '.join(map(str, a.meta_fields['rival_open']))}"
                if a.meta_fields["rival_open"] else "")
             + (f" ({a.meta_fields['goal_reason']})" if "scores" in a.meta_fields else "")
             + (f"\n{a.disagreement()}" if a.disagreement() else ""))
    emit(render({"options": a.table}, args.format, meta, title), args.out, meta)
    return 0


# ------------------------------------------------------------------ output (odds and ev)
def write_tables(tables: dict, meta: dict, title: str, args, panels=None) -> None:
    """Print or write the tables, then draw the charts to --plot.

    ``panels()`` returns the chart callables; it is only called with --plot, so plain
    runs never import matplotlib (start-up time).
    """
    def plot():
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(panels(), meta, title), args.plot)

    publish(args, tables, meta, title, plot if panels else None)


def race_panels(lanes, sets, trace):
    """The charts of ``race odds``/``race ev``: the lanes' place heatmap and EV, the bet
    sets (``sets`` None: none) and the convergence trace (``trace`` None: none)."""
    from functools import partial

    from sheepsim import plots
    from sheepsim.games.race import plots as race_plots

    panels = [partial(race_plots.lane_place_heatmap, lanes),
              partial(race_plots.lane_ev_chart, lanes)]
    if sets is not None:
        panels.append(partial(race_plots.bet_sets_chart, sets))
    if trace is not None:
        panels.append(partial(plots.convergence_chart, trace))
    return [lambda ax, f=f: f(ax=ax) for f in panels]
