"""Shear Panic's balance metrics (:mod:`sheepsim.balance_metrics`), from whole games, and
the harness's metrics of every game (:mod:`sheepsim.harness.metrics`) measured on the
same games."""

from __future__ import annotations

from dataclasses import replace

from sheepsim.balance_metrics import Metric, spread
from sheepsim.harness import metrics as harness_metrics

#: games (rounds) every variant plays by default
DEFAULT_GAMES = 2_000


#: the examples the designers' commands' ``--help`` shows (:mod:`sheepsim.designer`):
#: a ``variants --set`` edit, a ``sweep --set`` axis, a ``tune --vary`` range and target
EXAMPLES = {"set": "scoring.ram_row_points=[5,3,2,1]", "sweep": "menu[11].time=1,2,3",
            "vary": "menu[11].time=1..3", "target": "seat_win_spread=min"}


def seat_win_rates(t, rules, players):
    return t["by_seat"]["win_rate"].to_numpy()


def tie_rate(t, rules, players) -> float:
    return float(t["tie_breaks"]["tie_rate"].iloc[0])


def mean_turns(t, rules, players) -> float:
    return float(t["turns"]["mean_turns"].iloc[0])


def tile_picks(t, rules, players):
    return t["tiles"].groupby("tile")["chosen_per_game"].sum().to_numpy()


METRICS = (
    spread("seat_win_spread", "largest minus smallest win rate over the seats (bias-corrected)",
           "probability", "lower", "games", seat_win_rates),
    Metric("tie_rate", "share of games with a tie for the most points", "probability", "lower",
           "games", tie_rate),
    Metric("mean_turns", "turns per game", "turns", "none", "games", mean_turns),
    spread("tile_pick_spread", "most minus least picked command tile, in picks per game "
           "(all seats together; bias-corrected)", "picks per game", "lower", "games", tile_picks),
)

#: the harness's metrics Shear Panic adds, measured on the ``games`` job's harness tables
#: (``game_length``, ``decisions``, ``course``: :class:`.jobs.MetricsJob`; ``by_seat``
#: is the game's own, with the same ``wins``/``win_rate``, and its fair share 1/players):
#: all but those named like one of its own (``seat_win_spread`` the same definition;
#: ``tie_rate`` and ``mean_turns`` are the game's: its tie-break counts, and its turns
#: without the opening pushes, which the harness counts as turns) and ``draw_rate`` (a
#: game always has a winner: 0)
_OWN = {m.name for m in METRICS}
_HARNESS_SKIPPED = {"draw_rate"}


def _fair_share(compute):
    """``compute`` on the tables with the game's ``by_seat`` given its ``fair_share``."""

    def with_share(t, rules, players):
        return compute({**t, "by_seat": t["by_seat"].assign(fair_share=1.0 / players)},
                       rules, players)

    with_share.__name__ = compute.__name__
    return with_share


METRICS = METRICS + tuple(replace(m, job="games", compute=_fair_share(m.compute))
                          for m in harness_metrics.METRICS
                          if m.name not in _OWN and m.name not in _HARNESS_SKIPPED)


def metric_jobs(rules, players: int, seed: int, policies: dict, keys) -> dict:
    from sheepsim.games.panic.jobs import MetricsJob

    return {"games": MetricsJob(rules, players, policies["play"], seed)} if "games" in keys else {}


def invariant(key: str, policies: dict) -> tuple[str, ...]:
    return ()
