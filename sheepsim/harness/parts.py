"""What the shared commands (:mod:`sheepsim.commands`) need of a game on the harness:
``play``, ``compare``, ``balance`` and ``trace``, the same for every such game
(``Game.parts`` of :func:`sheepsim.harness.declare.game`)."""

from __future__ import annotations

from sheepsim.commands import CommandSpec, Output
from sheepsim.errors import SheepsimError

#: the play tables (:func:`sheepsim.harness.tables.play_tables`), in print order
PLAY_TABLES = ("by_seat", "by_policy", "outcomes", "game_length", "decisions", "course")
BALANCE_TABLES = ("by_seat", "outcomes", "game_length", "course")

COMMANDS = {
    "play": CommandSpec(
        help="win rates by seat and policy, draws and ties, game length, decisions",
        description="Simulate many games: win rate and mean score by seat and by policy "
                    "(Wilson 95% intervals over games), draws and ties for the top score, "
                    "decisions and turns per game, legal options per decision by kind, and "
                    "the course of the games (lead changes, when the winner led for good, "
                    "the winner's largest deficit, comebacks). "
                    "Tables: " + ", ".join(PLAY_TABLES) + ".",
        games=100_000, tables=PLAY_TABLES, policies=("play",)),
    "compare": CommandSpec(
        help="head-to-head of two policies on the same games",
        description="Every game is played twice with the same seed (the same chance draws), "
                    "once with seat --seat playing A and once B, the other seats playing "
                    "--field: both win rates with 95% intervals, the paired difference and an "
                    "exact McNemar p-value. Table: comparison.",
        games=20_000, tables=("comparison",), a=None, b="random"),
    "balance": CommandSpec(
        help="seat balance for every player count",
        description="For every player count the game takes, on the same seed: win rate by "
                    "seat, draws and ties, game length. Several --policy names give one field "
                    "each (every seat plays the field's policy). Tables: "
                    + ", ".join(BALANCE_TABLES) + ".",
        games=20_000, tables=BALANCE_TABLES, policies=("play",), per_seat=False,
        fields=True, players=False),
    "trace": CommandSpec(
        help="one game, decision by decision",
        description="Play one game and print every decision: the seat, the kind of decision, "
                    "the option taken and every seat's score after it. Table decisions "
                    "(--table decisions): one row per decision a policy was asked.",
        tables=("decisions",), policies=("play",)),
}


def add_options(command: str, p) -> None:
    if command == "play":
        p.add_argument("--rotate", action="store_true",
                       help="move the policies one seat per game (seat-fair policy rates)")


def job_options(command: str, args) -> dict:
    return {"rotate": args.rotate} if command == "play" else {}


def play_charts(res) -> list:
    from sheepsim import plots

    return [lambda ax: plots.win_rate_chart(res.tables["by_seat"], ax=ax)]


def balance(args, run) -> Output:
    import pandas as pd

    from sheepsim.harness.jobs import PlayJob
    from sheepsim.output import base_meta

    g = args.game_entry
    fields = [f.strip() for f in args.policy.split(",")]
    if not all(fields) or len(set(fields)) != len(fields):
        raise SheepsimError("balance takes policy names (each played by every seat), each once")
    counts = list(g.player_counts)
    jobs = [(p, f, PlayJob(g.name, args.rules, p, f, args.seed)) for p in counts for f in fields]
    frames: dict[str, list] = {}
    games = []
    for players, field, job in jobs:  # every job is built (and checked) before any runs
        res = run(job, f"{g.command} {players}p {field}")
        games.append(res.games)
        for name in BALANCE_TABLES:
            frames.setdefault(name, []).append(
                res.tables[name].assign(players=players, field=field))
    tables = {}
    for name, parts_ in frames.items():
        df = pd.concat(parts_, ignore_index=True)
        tables[name] = df[["players", "field", *[c for c in df.columns if c not in ("players", "field")]]]
    rules = jobs[0][2].rules
    meta = base_meta(game=g.name, analysis="balance", rules=rules.source,
                     rules_sha256=rules.sha256, players=counts, field_policies=fields,
                     seed=args.seed, games=games[0] if len(set(games)) == 1 else games)
    title = f"{g.title} balance, {g.players_text} players, {games[0]:,} {g.unit} per setting"

    def charts():
        from sheepsim import plots

        return [lambda ax, p=p: plots.win_rate_chart(
            tables["by_seat"][(tables["by_seat"].players == p)
                              & (tables["by_seat"].field == fields[0])],
            ax=ax, title=f"Win rate by seat, {p} players ({fields[0]})") for p in counts]

    return Output(meta, title, tables, charts)


def trace(args) -> Output:
    from sheepsim.harness.jobs import trace_game
    from sheepsim.output import base_meta

    g = args.game_entry
    tr = trace_game(g.name, args.rules, args.players, args.policy, args.seed, args.game)
    rules = g.load_rules(args.rules)
    meta = base_meta(game=g.name, rules=rules.source, rules_sha256=rules.sha256,
                     players=args.players, policy=args.policy, seed=args.seed,
                     game_index=args.game)
    title = f"{g.title} game {args.game} of seed {args.seed}: the policies' decisions"
    return Output(meta, title, {"decisions": tr.decisions}, lines=tr.lines,
                  outcome={"winner_seat": tr.winner + 1 if tr.winner >= 0 else None,
                           "scores": tr.scores})
