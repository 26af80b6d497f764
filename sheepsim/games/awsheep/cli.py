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
    select_table,
)
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep.layout import RANDOM_CHOOSES

GAME = "aw-sheep"
DEFAULT_GAMES = 100_000
SKILL_PAIRS = (("counter", "random"), ("greedy", "random"))
#: Tables of each command in print order (``--table`` picks one; CSV prints one table).
PLAY_TABLES = ("by_seat", "by_policy", "first_player", "round_ends", "ties",
               "flock_off_triggers", "margins", "knockouts", "round_length", "card_power",
               "golden", "card_use")
BALANCE_TABLES = PLAY_TABLES + ("luck_vs_skill",)
CARD_VALUE_TABLES = ("card_value", "golden_value", "card_use")
POLICY_HELP = ("random, greedy, counter or package.module:function; one for every seat or one "
               "per seat (default random); " + RANDOM_CHOOSES)


def _players(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _add_draft(p) -> None:
    p.add_argument("--draft", action=argparse.BooleanOptionalAction, default=None,
                   help="play the Animal Auction draft (default: as the rules file says, off)")


def register(subparsers) -> None:
    aw = subparsers.add_parser("awsheep", help="Aw, Sheep! (hidden-hand card game, 3-6 players)",
                               description="Simulate rounds of Aw, Sheep!.")
    sub = aw.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    play = sub.add_parser("play", help="win rates, how rounds end, ties, card use",
                          description="Simulate many rounds: win rate by seat, by policy and "
                                      "by position in turn order (Wilson 95% intervals, Holm-"
                                      "adjusted p-values), how rounds end, ties and how they "
                                      "were broken, how each Flock Off started, winning "
                                      "margins, knock-outs, round length, card power "
                                      "(starting-hand composition: win rate by the cards of "
                                      "each kind in the starting hand, not card value; see "
                                      "card-value), the golden sheep in the starting hand and "
                                      "how each card kind is used. " + RANDOM_CHOOSES + ".")
    play.add_argument("--players", type=_players, default=4, metavar="N", help="3 to 6")
    play.add_argument("--policy", default="random", metavar="NAME[,NAME...]",
                      help=POLICY_HELP)
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
    bal.add_argument("--policy", default="counter", metavar="NAME[,NAME...]",
                     help="the policy field of the balance tables: each name is played by "
                          "every seat, several give one set of rows each (field column; "
                          "default counter)")
    add_run_options(bal, games=20_000)
    add_table_option(bal, BALANCE_TABLES)
    _add_plot(bal)
    bal.set_defaults(func=cmd_balance)

    _add_card_value(sub)
    _add_compare(sub)
    _add_trace(sub)


def _player_list(text: str) -> list[int]:
    return [_players(t) for t in text.split(",")]


def _add_card_value(sub) -> None:
    cv = sub.add_parser("card-value", help="what each card kind is worth, on common random "
                                           "numbers",
                        description="Card value: every round is played as dealt and again for "
                                    "every seat and card kind in its starting hand with one "
                                    "card of that kind replaced by a plain sheep (the same "
                                    "deal and random streams). value = the holder's win rate "
                                    "with the card minus with the sheep instead, with a 95% "
                                    "interval clustered by round, per player count and policy "
                                    "field; golden_value is the golden sheep's row; card_use "
                                    "says how each kind was played. A round costs 10-20 "
                                    "plain rounds. " + RANDOM_CHOOSES + ".")
    cv.add_argument("--players", type=_player_list, default=[4], metavar="N[,N...]",
                    help="player counts, 3 to 6 (default 4)")
    cv.add_argument("--field", default="counter", metavar="NAME[,NAME...]",
                    help="policy fields, each played by every seat: random, greedy, counter "
                         "or package.module:function (default counter)")
    _add_draft(cv)
    add_run_options(cv, games=10_000)
    add_table_option(cv, CARD_VALUE_TABLES)
    cv.set_defaults(func=cmd_card_value)


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
                       help=POLICY_HELP)
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


def balance_tables(rules, policy, games: int, seed: int, *, threads=None, progress=True,
                   backend=None):
    """Play tables for 3-6 players without and with the draft and for each policy field
    in ``policy`` (a name or a list of names, each played by every seat; concatenated,
    leading ``players``/``draft``/``field`` columns) and the luck-vs-skill table."""
    import pandas as pd

    from sheepsim import driver
    from sheepsim.games.awsheep.analysis import luck_vs_skill, play_tables
    from sheepsim.games.awsheep.jobs import PlayJob, SkillJob
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules(rules) if not hasattr(rules, "sha256") else rules
    fields = [policy] if isinstance(policy, str) else list(policy)
    frames, pairs = {}, []
    run = dict(seed=seed, games=games, threads=threads, progress=progress, backend=backend)
    for players in (3, 4, 5, 6):
        for draft in (False, True):
            for field in fields:
                job = PlayJob(rules, players, field, seed, draft)
                res = driver.run(job, **run, desc=f"aw sheep {players}p {field}")
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
    fields = [f.strip() for f in args.policy.split(",")]
    if not all(fields) or len(set(fields)) != len(fields):
        raise SheepsimError("balance takes policy names (each played by every seat), each once")
    from sheepsim.games.awsheep.policies import resolve_policies

    resolve_policies(fields)  # a bad name stops here, before any run
    rules, tables = balance_tables(args.rules, fields, args.games, args.seed,
                                   backend=backend_from_args(args), progress=not args.quiet)
    meta = base_meta(game=GAME, analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=[3, 4, 5, 6], draft=[False, True],
                     field_policies=fields, seed=args.seed, games=args.games,
                     luck_vs_skill=[f"{a} vs {b}" for a, b in SKILL_PAIRS],
                     random_policy=RANDOM_CHOOSES)
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


def card_value_tables(rules, players, fields, games: int, seed: int, draft=None, *,
                      threads=None, progress=True, backend=None):
    """``card_value``, ``golden_value`` and ``card_use`` for every player count and
    field (each a policy for every seat), concatenated with leading ``players``,
    ``draft`` (and ``field``) columns. Every setting is validated before any runs."""
    import pandas as pd

    from sheepsim import driver
    from sheepsim.games.awsheep.analysis import card_use, card_value, golden_value
    from sheepsim.games.awsheep.jobs import CardValueJob
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules(rules) if not hasattr(rules, "sha256") else rules
    jobs = [CardValueJob(rules, n, f, seed, draft) for n in players for f in fields]
    values, uses = [], []
    for job in jobs:
        res = driver.run(job, seed=seed, games=games, threads=threads, progress=progress,
                         backend=backend, desc=f"card value {job.players}p {job.policies[0]}")
        values.append(job.value_frame(res.counts, res.games))
        uses.append(job.frames(res.counts)["card_use"])
    cv = pd.concat(values, ignore_index=True)
    return rules, {"card_value": card_value(cv), "golden_value": golden_value(cv),
                   "card_use": card_use(pd.concat(uses, ignore_index=True))}


def cmd_card_value(args) -> int:
    from sheepsim.output import base_meta, emit, render

    _check(args)
    fields = [f.strip() for f in args.field.split(",")]
    if not all(fields):
        raise SheepsimError("give at least one field policy name (e.g. counter)")
    rules, tables = card_value_tables(args.rules, args.players, fields, args.games, args.seed,
                                      args.draft, backend=backend_from_args(args),
                                      progress=not args.quiet)
    meta = base_meta(game=GAME, analysis="card value (one card replaced by a plain sheep, "
                                         "common random numbers)",
                     rules=rules.source, rules_sha256=rules.sha256, players=args.players,
                     field_policies=fields,
                     draft=rules.draft if args.draft is None else args.draft,
                     seed=args.seed, games=args.games,
                     **({"random_policy": RANDOM_CHOOSES} if "random" in fields else {}))
    title = (f"Aw, Sheep! card value, {', '.join(map(str, args.players))} players, "
             f"{args.games:,} rounds per setting")
    emit(render(select_table(tables, args), args.format, meta, title), args.out, meta)
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
