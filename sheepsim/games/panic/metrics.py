"""Shear Panic's balance metrics (:mod:`sheepsim.balance_metrics`), from whole games."""

from __future__ import annotations

from sheepsim.balance_metrics import Metric, spread

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


def metric_jobs(rules, players: int, seed: int, policies: dict, keys) -> dict:
    from sheepsim.games.panic.jobs import PlayJob

    return {"games": PlayJob(rules, players, policies["play"], seed)} if "games" in keys else {}


def invariant(key: str, policies: dict) -> tuple[str, ...]:
    return ()
