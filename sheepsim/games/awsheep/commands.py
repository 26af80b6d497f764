"""What the shared commands (:mod:`sheepsim.commands`) need of Aw, Sheep!: ``play``,
``compare``, ``balance`` and ``trace`` (Aw, Sheep! has no commands of its own)."""

from __future__ import annotations

import argparse

from sheepsim.commands import CommandSpec, Output
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep.game import GAME as ENTRY
from sheepsim.games.awsheep.layout import HARNESS_TABLES, RANDOM_CHOOSES

GAME = ENTRY.name
#: the player counts ``balance`` plays: every count the declaration (game.py) allows
PLAYERS = ENTRY.player_counts
_RANGE = f"{ENTRY.min_players}-{ENTRY.max_players}"
SKILL_PAIRS = (("counter", "random"), ("greedy", "random"))
#: Tables of each command in print order (``--table`` picks one; CSV prints one table).
OWN_TABLES = ("by_seat", "by_policy", "first_player", "round_ends", "ties",
              "flock_off_triggers", "margins", "knockouts", "round_length", "card_power",
              "golden", "card_use")
PLAY_TABLES = OWN_TABLES + HARNESS_TABLES
BALANCE_TABLES = OWN_TABLES + ("luck_vs_skill",)

COMMANDS = {
    "play": CommandSpec(
        help="win rates, how rounds end, ties, card use",
        description="Simulate many rounds: win rate by seat, by policy and by position in "
                    "turn order (Wilson 95% intervals, Holm-adjusted p-values), how rounds end, "
                    "ties and how they were broken, how each Flock Off started, winning "
                    "margins, knock-outs, round length, card power (starting-hand composition: "
                    "win rate by the cards of each kind in the starting hand, not card value; "
                    "see card-value), the golden sheep in the starting hand and how each card "
                    "kind is used. " + RANDOM_CHOOSES + ". Tables: " + ", ".join(PLAY_TABLES) + ".",
        games=100_000, tables=PLAY_TABLES, policies=("play",)),
    "compare": CommandSpec(
        help="head-to-head of two policies on the same rounds",
        description="Every round is played twice with the same seed (the same deal and draws), "
                    "once with seat --seat playing A and once B, the other seats playing "
                    "--field: both win rates with 95% intervals, the paired difference and an "
                    "exact McNemar p-value. Table: comparison.",
        games=20_000, tables=("comparison",), a="counter", b="random"),
    "balance": CommandSpec(
        help=f"balance for {_RANGE} players, with and without the draft",
        description=f"For {ENTRY.players_listed()} players, without and with the draft, on the "
                    "same seed: "
                    "the play tables with leading players and draft columns, and luck vs skill: "
                    "counter and greedy against random players (paired on the same rounds, the "
                    "tested seat rotating) next to the 1/n of a pure-luck game. Several "
                    "--policy names give one field each (field column). Tables: "
                    + ", ".join(BALANCE_TABLES) + ".",
        games=20_000, tables=BALANCE_TABLES, policies=("play",), per_seat=False,
        fields=True, players=False),
    "trace": CommandSpec(
        help="one round, turn by turn, hands shown",
        description="Play one round and print every turn: the card played, its target, the "
                    "cards moved, hand sizes, the run of sheep and every hand. Table "
                    "decisions (--table decisions): one row per decision a policy was asked "
                    "(decision, seat and phase from 0, kind, n_options, choice).",
        tables=("decisions",), policies=("play",)),
}


def add_options(command: str, p) -> None:
    """``--draft`` (every command that plays rounds; balance plays both), ``--rotate``."""
    if command != "balance":  # balance plays both
        p.add_argument("--draft", action=argparse.BooleanOptionalAction, default=None,
                       help="play the Animal Auction draft (default: as the rules file says, off)")
    if command == "play":
        p.add_argument("--rotate", action="store_true",
                       help="move the policies one seat per round (seat-fair policy rates)")


def job_options(command: str, args) -> dict:
    return {"draft": args.draft, **({"rotate": args.rotate} if command == "play" else {})}


def title_extra(job) -> str:
    return f", draft {'on' if job.draft else 'off'}"


def _panels(tables: dict) -> list:
    from sheepsim.games.awsheep import plots as aw

    panels = [lambda ax: aw.win_rate_by_position_chart(tables["first_player"], ax=ax),
              lambda ax: aw.card_power_chart(tables["card_power"], "sheep", ax=ax)]
    if "luck_vs_skill" in tables:
        panels.append(lambda ax: aw.luck_vs_skill_chart(tables["luck_vs_skill"], ax=ax))
    return panels


def play_charts(res) -> list:
    return _panels(res.tables)


#: appended to every policy option's help: what ``random`` means in this game
POLICY_NOTE = RANDOM_CHOOSES


def balance_tables(rules, policy, seed: int, run) -> tuple:
    """Play tables for every player count (3-6) without and with the draft and for each policy field
    in ``policy`` (a name or a list of names, each played by every seat; concatenated,
    leading ``players``/``draft``/``field`` columns) and the luck-vs-skill table;
    ``run(job, desc)`` runs each job (:func:`sheepsim.commands.runner`). Returns
    ``(rules, tables, games)``, ``games`` the rounds of each play setting in order."""
    import pandas as pd

    from sheepsim.games.awsheep.analysis import luck_vs_skill, play_tables
    from sheepsim.games.awsheep.jobs import PlayJob, SkillJob
    from sheepsim.games.awsheep.rules import load_rules

    rules = load_rules(rules) if not hasattr(rules, "sha256") else rules
    ENTRY.check_rules(rules, PLAYERS)  # every count balance plays, before any round
    fields = [policy] if isinstance(policy, str) else list(policy)
    frames, pairs, games = {}, [], []
    for players in PLAYERS:
        for draft in (False, True):
            for field in fields:
                job = PlayJob(rules, players, field, seed, draft)
                res = run(job, f"aw sheep {players}p {field}")
                games.append(res.games)
                for name, df in job.frames(res.counts).items():
                    frames.setdefault(name, []).append(df)
            for tested, baseline in SKILL_PAIRS:
                sk = SkillJob(rules, players, tested, baseline, seed, draft)
                r = run(sk, f"{tested} vs {baseline} {players}p")
                pairs.append(sk.pair_frame(r.counts, r.games))
    tables = play_tables({k: pd.concat(v, ignore_index=True) for k, v in frames.items()})
    tables["luck_vs_skill"] = luck_vs_skill(pd.concat(pairs, ignore_index=True))
    return rules, tables, games


def balance(args, run) -> Output:
    from sheepsim.games.awsheep.policies import resolve_policies
    from sheepsim.output import base_meta

    fields = [f.strip() for f in args.policy.split(",")]
    if not all(fields) or len(set(fields)) != len(fields):
        raise SheepsimError("balance takes policy names (each played by every seat), each once")
    resolve_policies(fields)  # a bad name stops here, before any run
    rules, tables, games = balance_tables(args.rules, fields, args.seed, run)
    meta = base_meta(game=GAME, analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=list(PLAYERS), draft=[False, True],
                     field_policies=fields, seed=args.seed,
                     games=games[0] if len(set(games)) == 1 else games,
                     luck_vs_skill=[f"{a} vs {b}" for a, b in SKILL_PAIRS],
                     random_policy=RANDOM_CHOOSES)
    rounds = f"{games[0]:,} rounds" if len(set(games)) == 1 else f"{min(games):,}-{max(games):,} rounds"
    title = f"{ENTRY.title} balance, {_RANGE} players with and without the draft, {rounds} per setting"
    return Output(meta, title, tables, lambda: _panels(tables))


def trace(args) -> Output:
    from sheepsim.games.awsheep.rules import load_rules
    from sheepsim.games.awsheep.trace import trace_round
    from sheepsim.output import base_meta

    rules = load_rules(args.rules)
    tr = trace_round(rules, players=args.players, policies=args.policy, seed=args.seed,
                     game=args.game, draft=args.draft)
    meta = base_meta(game=GAME, rules=rules.source, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy,
                     draft=rules.draft if args.draft is None else args.draft,
                     seed=args.seed, game_index=args.game)
    title = f"Aw, Sheep! round {args.game} of seed {args.seed}: the policies' decisions"
    return Output(meta, title, {"decisions": tr.decisions}, lines=tr.lines,
                  outcome={"winner_seat": tr.winner + 1, "end": tr.end})
