"""``sheepsim awsheep play|balance|compare|trace``."""

from __future__ import annotations

import argparse

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
    select_table,
)
from sheepsim.errors import SheepsimError

GAME = "aw-sheep"
DEFAULT_GAMES = 100_000
SKILL_PAIRS = (("counter", "random"), ("greedy", "random"))
#: Tables of each command in print order (``--table`` picks one; CSV prints one table).
PLAY_TABLES = ("by_seat", "by_policy", "first_player", "round_ends", "round_length",
               "card_power", "golden")
BALANCE_TABLES = PLAY_TABLES + ("luck_vs_skill",)


def _players(text: str) -> int:
    return player_count(text)  # as --games reads numbers (1e3); the range is checked later


def _add_draft(p) -> None:
    p.add_argument("--draft", action=argparse.BooleanOptionalAction, default=None,
                   help="play the Animal Auction draft (default: as the rules file says, off)")


def register(subparsers) -> None:
    aw = subparsers.add_parser("awsheep", help="Aw, Sheep! (hidden-hand card game, 3-6 players)",
                               description="Simulate rounds of Aw, Sheep!.")
    sub = aw.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    play = sub.add_parser("play", help="win rates, how rounds end, card power",
                          description="Simulate many rounds: win rate by seat, by policy and "
                                      "by position in turn order (Wilson 95% intervals), how "
                                      "rounds end and their length, card power (win rate by "
                                      "cards of each kind in the starting hand) and the golden "
                                      "sheep's effect.")
    play.add_argument("--players", type=_players, default=4, metavar="N", help="3 to 6")
    play.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                      help="random, greedy, counter or package.module:function; one for every "
                           "seat or one per seat (default random)")
    play.add_argument("--rotate", action="store_true",
                      help="move the policies one seat per round (seat-fair policy rates)")
    _add_draft(play)
    add_run_options(play, games=DEFAULT_GAMES)
    add_table_option(play, PLAY_TABLES)
    _add_plot(play)
    play.set_defaults(func=cmd_play)

    bal = sub.add_parser("balance", help="balance for 3-6 players, with and without the draft",
                         description="For 3, 4, 5 and 6 players, without and with the draft, "
                                     "on the same seed: the play tables with leading players and "
                                     "draft columns, and luck vs skill: counter and greedy "
                                     "against random players (paired on the same rounds, the "
                                     "tested seat rotating) next to the 1/n of a pure-luck game.")
    bal.add_argument("--policy", default="counter", metavar="NAME",
                     help="the policy of every seat in the balance tables (default counter)")
    add_run_options(bal, games=20_000)
    add_table_option(bal, BALANCE_TABLES)
    _add_plot(bal)
    bal.set_defaults(func=cmd_balance)

    _add_compare(sub)
    _add_trace(sub)


def _add_compare(sub) -> None:
    cmp_ = sub.add_parser("compare", help="head-to-head of two policies on the same rounds",
                          description="Every round is played twice with the same seed (the same "
                                      "deal and draws), once with seat --seat playing A and once "
                                      "B, the other seats playing --field: both win rates with "
                                      "95% intervals, the paired difference and an exact "
                                      "McNemar p-value. Table: comparison.")
    add_head_to_head_options(cmp_, players=_players, players_help="3 to 6", a="counter",
                             b="random", field="random")
    _add_draft(cmp_)
    add_run_options(cmp_, games=20_000)
    add_table_option(cmp_, ("comparison",))
    cmp_.set_defaults(func=cmd_compare)


def _add_trace(sub) -> None:
    trace = sub.add_parser("trace", help="one round, turn by turn, hands shown",
                           description="Play one round and print every turn: the card played, "
                                       "its target, the cards moved, hand sizes, the run of "
                                       "sheep and every hand.")
    trace.add_argument("--rules", metavar="FILE", help="rules TOML file (default: standard)")
    trace.add_argument("--players", type=_players, default=4, metavar="N", help="3 to 6")
    trace.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                       help="random, greedy, counter or package.module:function; one for "
                            "every seat or one per seat (default random)")
    _add_draft(trace)
    trace.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                       help="random seed (default 0)")
    trace.add_argument("--game", type=non_negative_int, default=0, metavar="G",
                       help="which round of the seed (default 0)")
    add_trace_options(trace)
    trace.set_defaults(func=cmd_trace)


def _add_plot(p) -> None:
    p.add_argument("--plot", metavar="FILE",
                   help="also draw win rate by position and card power to FILE (.png or .svg)")


def _check(args) -> None:
    from sheepsim.output import check_output_file

    check_plot_option(args)
    check_output_file(getattr(args, "out", None))


def _plot(args, tables: dict, meta: dict, title: str) -> None:
    if not getattr(args, "plot", None):
        return
    from sheepsim import plots
    from sheepsim.games.awsheep import plots as aw

    panels = [lambda ax: aw.win_rate_by_position_chart(tables["first_player"], ax=ax),
              lambda ax: aw.card_power_chart(tables["card_power"], "sheep", ax=ax)]
    if "luck_vs_skill" in tables:
        panels.append(lambda ax: aw.luck_vs_skill_chart(tables["luck_vs_skill"], ax=ax))
    plots.save_figure(plots.panel_figure(panels, meta, title), args.plot)


def _run(job, args, desc):
    from sheepsim import driver

    return driver.run(job, seed=args.seed, games=args.games, backend=backend_from_args(args),
                      progress=not args.quiet, desc=desc)


def cmd_play(args) -> int:
    from sheepsim.game import get
    from sheepsim.output import emit, render

    _check(args)
    job = get(GAME).job("play", rules=args.rules, players=args.players, policies=args.policy,
                        seed=args.seed, draft=args.draft, rotate=args.rotate)
    res = _run(job, args, "aw sheep")
    meta = res.meta()
    title = (f"Aw, Sheep!, {job.players} players, draft {'on' if job.draft else 'off'}, "
             f"{res.games:,} rounds (win rates with Wilson 95% intervals)")
    emit(render(select_table(res.tables, args), args.format, meta, title), args.out, meta)
    _plot(args, res.tables, meta, title)
    return 0


def balance_tables(rules, policy: str, games: int, seed: int, *, threads=None, progress=True,
                   backend=None):
    """Play tables for 3-6 players without and with the draft (concatenated, leading
    ``players``/``draft`` columns) and the luck-vs-skill table."""
    import pandas as pd

    from sheepsim import driver
    from sheepsim.games.awsheep.analysis import luck_vs_skill, play_tables
    from sheepsim.games.awsheep.jobs import PlayJob, SkillJob
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules(rules) if not hasattr(rules, "sha256") else rules
    frames, pairs = {}, []
    run = dict(seed=seed, games=games, threads=threads, progress=progress, backend=backend)
    for players in (3, 4, 5, 6):
        for draft in (False, True):
            job = PlayJob(rules, players, policy, seed, draft)
            res = driver.run(job, **run, desc=f"aw sheep {players}p")
            for name, df in job.frames(res.counts).items():
                frames.setdefault(name, []).append(df)
            for tested, baseline in SKILL_PAIRS:
                sk = SkillJob(rules, players, tested, baseline, seed, draft)
                r = driver.run(sk, **run, desc=f"{tested} vs {baseline} {players}p")
                pairs.append(sk.pair_frame(r.counts, r.games))
    tables = play_tables({k: pd.concat(v, ignore_index=True) for k, v in frames.items()})
    tables["luck_vs_skill"] = luck_vs_skill(pd.concat(pairs, ignore_index=True))
    return rules, tables


def cmd_balance(args) -> int:
    from sheepsim.output import base_meta, emit, render

    _check(args)
    if args.policy.count(",") or not args.policy.strip():
        raise SheepsimError("balance takes one policy name for every seat")
    rules, tables = balance_tables(args.rules, args.policy, args.games, args.seed,
                                   backend=backend_from_args(args), progress=not args.quiet)
    meta = base_meta(game=GAME, analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=[3, 4, 5, 6], draft=[False, True],
                     policy=args.policy, seed=args.seed, games=args.games,
                     luck_vs_skill=[f"{a} vs {b}" for a, b in SKILL_PAIRS])
    title = (f"Aw, Sheep! balance, 3-6 players with and without the draft, {args.games:,} "
             f"rounds per setting")
    emit(render(select_table(tables, args), args.format, meta, title), args.out, meta)
    _plot(args, tables, meta, title)
    return 0


def cmd_compare(args) -> int:
    from sheepsim.game import get
    from sheepsim.output import emit, render

    _check(args)
    job = get(GAME).job("head-to-head", rules=args.rules, players=args.players, a=args.a,
                        b=args.b, field=args.field, seat=args.seat, seed=args.seed,
                        draft=args.draft)
    res = _run(job, args, "aw sheep compare")
    meta = res.meta()
    title = f"Aw, Sheep!: {args.a} vs {args.b} at seat {args.seat} of {args.players}"
    emit(render(select_table(res.tables, args), args.format, meta, title), args.out, meta)
    return 0


def cmd_trace(args) -> int:
    from sheepsim.games.awsheep.rules import load_rules
    from sheepsim.games.awsheep.trace import trace_round
    from sheepsim.output import base_meta, check_output_file

    check_output_file(args.out)
    rules = load_rules(args.rules)
    with compiling(args):
        tr = trace_round(rules, players=args.players, policies=args.policy, seed=args.seed,
                         game=args.game, draft=args.draft)
    meta = base_meta(game=GAME, rules=rules.source, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy,
                     draft=rules.draft if args.draft is None else args.draft,
                     seed=args.seed, game_index=args.game)
    emit_trace(args, tr.lines, meta, winner_seat=tr.winner + 1, end=tr.end)
    return 0
