"""``sheepsim <game> ladder``: how much better play is rewarded, for every game.

A game declares its skill ladder once (:attr:`sheepsim.game.Game.ladder`): rungs of
policies from ``random`` up to its strongest one, each named as ``compare``'s ``--a``
takes it (The Sheep Race: ``BET,PACE`` pairs). Each rung plays against the rung below
on common random numbers, as ``compare`` plays: seat ``--seat`` plays the rung, then
the rung below, in the same games, while every other seat plays the rung below. The
gain is the paired difference of that seat's win rate (an exact McNemar p-value,
Holm-adjusted over the steps). The last row, ``skill_gradient``, is the top rung
against the bottom one in a field of the bottom one: how much the best play the game
knows gains over chance.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheepsim.commands import parts, players_type, runner
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Game, Job, shared_seed
from sheepsim.options import (
    add_backend_options,
    add_output_options,
    game_count,
    non_negative_int,
    positive_int,
    publish,
)

#: the row comparing the top rung with the bottom one (also a designers' metric)
GRADIENT = "skill_gradient"


def rungs_of(g: Game, rungs=None) -> tuple[str, ...]:
    """The ladder's rungs: ``rungs`` (``;``-separated or a list) or the game's own."""
    if rungs is None:
        return tuple(g.ladder)
    if isinstance(rungs, str):
        out = tuple(r.strip() for r in rungs.split(";"))
    else:
        out = tuple(str(r).strip() for r in rungs)
    given, e_g = ";".join(out), f"e.g. {';'.join(g.ladder)!r}"
    empty = [k for k, r in enumerate(out, start=1) if not r]
    if len(empty) == len(out):
        raise SheepsimError(f"--rungs {given!r} names no rung: give two or more, separated by "
                            f"';', lowest first ({e_g})")
    if empty and len(out) > 1:  # ';;', a ';' at either end
        raise SheepsimError(f"--rungs {given!r}: rung {empty[0]} of {len(out)} is empty; rungs "
                            f"are separated by ';', lowest first ({e_g})")
    if len(out) < 2:
        raise SheepsimError(f"--rungs {given!r} is one rung: a ladder needs two or more, "
                            f"separated by ';', lowest first ({e_g})")
    twice = next(r for r in out if out.count(r) > 1) if len(set(out)) != len(out) else None
    if twice is not None:
        raise SheepsimError(f"--rungs {given!r}: rung {twice!r} is given twice; a ladder needs "
                            "two or more different rungs")
    return out


def steps(rungs: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """``(name, rung, below)`` of each step, then the top against the bottom."""
    out = [(f"{k}", rungs[k], rungs[k - 1]) for k in range(1, len(rungs))]
    return out + [(GRADIENT, rungs[-1], rungs[0])]


@dataclass
class LadderJob(Job):
    """Every step of a ladder on the same games: one head-to-head job per step
    (:func:`steps`), their counts kept apart under ``"<step index>.<count>"``."""

    steps: list  # [(step name, HeadToHeadJob)]
    rungs: tuple = ()

    def __post_init__(self):
        first = self.steps[0][1]
        self.game, self.seed = first.game, shared_seed([job for _, job in self.steps], "a ladder")
        self.chunk_games = min(job.chunk_games for _, job in self.steps)
        self.block = first.block

    def prepare(self) -> None:
        for _, job in self.steps:
            job.prepare()

    def chunk(self, first_game, n_games) -> Counts:
        return {f"{i}.{k}": v for i, (_, job) in enumerate(self.steps)
                for k, v in job.chunk(first_game, n_games).items()}

    def _part(self, counts: Counts, i: int) -> Counts:
        head = f"{i}."
        return {k[len(head):]: v for k, v in counts.items() if k.startswith(head)}

    def check(self, counts, games) -> None:
        for i, (_, job) in enumerate(self.steps):
            job.check(self._part(counts, i), games)

    def tables(self, counts, games) -> dict:
        return {"ladder": ladder_table([(name, job, job.tables(self._part(counts, i), games), games)
                                        for i, (name, job) in enumerate(self.steps)])}

    def halfwidth(self, tables) -> float:
        t = tables["ladder"]
        return float(((t["gain_hi"] - t["gain_lo"]) / 2).max())

    def meta(self) -> dict:
        first = self.steps[0][1]
        return {**first.job_a.meta_common(), "analysis": "skill ladder on common random numbers",
                "players": first.job_a.seats, "seat": first.seat, "rungs": list(self.rungs)}


def ladder_job(g: Game, rungs=None, *, rules=None, players=None, seat: int = 1, seed: int = 0,
               **options) -> LadderJob:
    """The ladder's job: one head-to-head per step (:func:`steps`), every one built and
    checked before any game is played; ``options`` the game's own ``compare`` options."""
    rungs = rungs_of(g, rungs)
    rules = g.load_rules(rules) if rules is None or isinstance(rules, str) else rules
    players = g.check_players(g.default_players if players is None else players)
    return LadderJob([(name, g.job("head-to-head", rules=rules, players=players, a=top, b=below,
                                   field=below, seat=seat, seed=seed, **options))
                      for name, top, below in steps(rungs)], rungs)


def ladder_table(results: list):
    """The ``ladder`` table from ``[(step, head-to-head job, its tables, games)]``."""
    import pandas as pd

    from sheepsim.stats import holm_adjusted

    rows = []
    for name, job, tables, games in results:
        c = tables["comparison"]
        win = c.iloc[0]  # the win-rate row
        ties = c[c["metric"] == "tie_rate"]
        a, b, _ = job.labels
        rows.append({"step": name, "rung": a, "below": b, "seat": job.seat, "games": games,
                     "win_rate": win["a"], "win_rate_lo": win["a_lo"], "win_rate_hi": win["a_hi"],
                     "below_win_rate": win["b"], "below_win_rate_lo": win["b_lo"],
                     "below_win_rate_hi": win["b_hi"], "gain": win["diff"],
                     "gain_lo": win["diff_lo"], "gain_hi": win["diff_hi"],
                     "pvalue": win["pvalue"],
                     "tie_rate": float(ties["a"].iloc[0]) if len(ties) else float("nan")})
    df = pd.DataFrame(rows)
    climb = df["step"] != GRADIENT
    df["pvalue_holm"] = float("nan")
    df.loc[climb, "pvalue_holm"] = holm_adjusted(df.loc[climb, "pvalue"].to_numpy())
    return df


def register(sub, g: Game) -> None:
    """``sheepsim <game> ladder``."""
    spec = parts(g).COMMANDS.get("compare")
    default_games = spec.games if spec is not None and spec.games else 20_000
    p = sub.add_parser(
        "ladder", help="the skill ladder: each rung of play against the one below",
        description=__doc__.split("\n\n", 1)[1].replace("``", "'") + f" {g.title}'s rungs: "
        + "; ".join(g.ladder) + ". Table: ladder.")
    p.add_argument("--rules", metavar="FILE", help="rules TOML file (default: the shipped standard rules)")
    p.add_argument("--players", type=players_type(g), default=g.default_players, metavar="N",
                   help=f"{g.players_text} (default {g.default_players})")
    p.add_argument("--seat", type=positive_int, default=1, metavar="S",
                   help="the seat that plays each rung (default 1)")
    p.add_argument("--rungs", metavar="R1;R2[;...]",
                   help=f"the rungs, lowest first, separated by ';' (default: {';'.join(g.ladder)})")
    parts(g).add_options("compare", p)
    p.add_argument("--games", type=game_count, default=default_games, metavar="N",
                   help=f"{g.unit} per step (default {default_games:,})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")
    add_backend_options(p)
    add_output_options(p)
    p.add_argument("--table", choices=("ladder",), metavar="NAME", help="print only this table (ladder)")
    p.add_argument("--plot", metavar="FILE", help="also draw the chart to FILE (.png or .svg)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ladder, game_entry=g, precision=None, max_games=None,
                   default_games=default_games)


def cmd_ladder(args) -> int:
    from sheepsim.output import base_meta

    g: Game = args.game_entry
    extras = parts(g).job_options("compare", args)
    job = ladder_job(g, args.rungs, rules=args.rules, players=args.players, seat=args.seat,
                     seed=args.seed, **extras)
    res = runner(args)(job, f"{g.command} ladder")
    table = res.tables["ladder"]
    meta = {**base_meta(game=g.name), **res.meta(),
            **{k: v for k, v in extras.items() if v is not None}}
    title = (f"{g.title}: skill ladder, {args.players} players, seat {args.seat}, "
             f"{res.games:,} {g.unit} per step")

    def plot():
        from sheepsim.plots import ladder_chart, save_figure

        save_figure(ladder_chart(table, meta=meta), args.plot)

    return publish(args, {"ladder": table}, meta, title, plot)
