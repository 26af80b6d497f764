"""``sheepsim awsheep card-value``: Aw, Sheep!'s own command (``play``, ``compare``,
``balance`` and ``trace`` are the shared ones of :mod:`sheepsim.commands`)."""

from __future__ import annotations

import argparse

from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep.commands import ENTRY, GAME, add_options
from sheepsim.games.awsheep.layout import RANDOM_CHOOSES
from sheepsim.options import (
    add_run_options,
    add_table_option,
    backend_from_args,
    progress_of,
    publish,
)

CARD_VALUE_TABLES = ("card_value", "golden_value", "card_use")


def _player_list(text: str) -> list[int]:
    from sheepsim.commands import players_type
    from sheepsim.game import get

    parse = players_type(get(GAME))
    return [parse(t.strip()) for t in text.split(",")]


def register(sub: argparse._SubParsersAction) -> None:
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
                                    "plain rounds. --set edits the rules as the designers' "
                                    "commands do (one rules set: every edit applied). "
                                    + RANDOM_CHOOSES + ".",
                        epilog="example: sheepsim awsheep card-value --set deck.horse=0 "
                               "--players 4 --plot cv.png")
    cv.add_argument("--players", type=_player_list, default=[4], metavar="N[,N...]",
                    help=f"player counts, {ENTRY.players_text} (default 4)")
    default = ENTRY.policy_defaults["play"]
    cv.add_argument("--field", default=default, metavar="NAME[,NAME...]",
                    help="policy fields, each played by every seat: random, greedy, counter "
                         f"or package.module:function (default {default}, the game's default)")
    cv.add_argument("--set", action="append", default=[], metavar="KEY=VALUE[;KEY=VALUE]",
                    dest="edits", help="edit the rules (--rules, else the standard rules) by "
                                       "dotted key, as variants --set does; repeat for more "
                                       "edits, all applied (e.g. deck.horse=0)")
    add_options("card-value", cv)  # --draft, as every Aw, Sheep! command that plays rounds
    add_run_options(cv, games=10_000)
    add_table_option(cv, CARD_VALUE_TABLES)
    cv.add_argument("--plot", metavar="FILE",
                    help="also draw the card value chart to FILE (.png or .svg)")
    cv.set_defaults(func=cmd_card_value)


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
        res = driver.run(job, games=games, threads=threads, progress=progress,
                         backend=backend, desc=f"card value {job.players}p {job.policies[0]}")
        values.append(job.value_frame(res.counts, res.games))
        uses.append(job.frames(res.counts)["card_use"])
    cv = pd.concat(values, ignore_index=True)
    return rules, {"card_value": card_value(cv), "golden_value": golden_value(cv),
                   "card_use": card_use(pd.concat(uses, ignore_index=True))}


def edited_rules(path, specs, players):
    """The rules of ``--rules`` (None: the standard rules) with every ``--set`` edit of
    ``specs`` applied (:mod:`sheepsim.rulesedit`, as the designers' commands take them),
    validated by the loader and for each of ``players``; ``(rules, edits text)``."""
    from sheepsim.game import get
    from sheepsim.rulesedit import base_text, parse_edit, split_top
    from sheepsim.variant_runs import variant_of

    g = get(GAME)
    edits = [parse_edit(part) for spec in specs for part in split_top(spec, ";") if part]
    if specs and not edits:
        raise SheepsimError(f"--set takes KEY=VALUE (e.g. deck.horse=0), got {specs[0]!r}")
    if not edits:
        return g.check_rules(g.load_rules(path), players), ""
    variant, _ = variant_of(g, base_text(g, path), edits, players=players)
    return variant.rules, variant.edits


def cmd_card_value(args) -> int:
    from sheepsim.output import base_meta

    fields = [f.strip() for f in args.field.split(",")]
    if not all(fields):
        raise SheepsimError("give at least one field policy name (e.g. counter)")
    rules, edits = edited_rules(args.rules, args.edits, args.players)
    rules, tables = card_value_tables(rules, args.players, fields, args.games, args.seed,
                                      args.draft, backend=backend_from_args(args),
                                      progress=progress_of(args))
    meta = base_meta(game=GAME, analysis="card value (one card replaced by a plain sheep, "
                                         "common random numbers)",
                     rules=rules.source, rules_sha256=rules.sha256,
                     **({"edits": edits} if edits else {}), players=args.players,
                     field_policies=fields,
                     draft=rules.draft if args.draft is None else args.draft,
                     seed=args.seed, games=args.games,
                     **({"random_policy": RANDOM_CHOOSES} if "random" in fields else {}))
    title = (f"Aw, Sheep! card value, {', '.join(map(str, args.players))} players, "
             f"{args.games:,} rounds per setting" + (f", rules with {edits}" if edits else ""))

    def plot():
        from sheepsim.games.awsheep.plots import card_value_chart
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure([lambda ax: card_value_chart(tables["card_value"], ax=ax)],
                                 meta, title), args.plot)

    return publish(args, tables, meta, title, plot)
