"""The designers' metrics of every game on the harness (:mod:`sheepsim.balance_metrics`),
computed from the harness's play tables, so a game declares none of its own."""

from __future__ import annotations

from sheepsim.balance_metrics import Metric, spread

#: games every variant plays by default
DEFAULT_GAMES = 20_000


def first_player_edge(t, rules, players) -> float:
    row = t["by_seat"].iloc[0]
    return float(row["win_rate"] - row["fair_share"])


def seat_win_rates(t, rules, players):
    return t["by_seat"]["win_rate"].to_numpy()


def draw_rate(t, rules, players) -> float:
    return float(t["outcomes"]["draw_rate"].iloc[0])


def tie_rate(t, rules, players) -> float:
    return float(t["outcomes"]["tie_for_top_rate"].iloc[0])


def mean_turns(t, rules, players) -> float:
    return float(t["game_length"]["mean_turns"].iloc[0])


def mean_decisions(t, rules, players) -> float:
    return float(t["game_length"]["mean_decisions"].iloc[0])


def sd_turns(t, rules, players) -> float:
    return float(t["game_length"]["sd_turns"].iloc[0])


def sd_decisions(t, rules, players) -> float:
    return float(t["game_length"]["sd_decisions"].iloc[0])


def _all_kinds(t) -> tuple[float, float, float]:
    """Decisions, legal options and forced decisions per game, over every kind."""
    d = t["decisions"]
    return (float(d["per_game"].sum()), float((d["per_game"] * d["mean_options"]).sum()),
            float((d["per_game"] * d["forced_share"]).sum()))


def branching(t, rules, players) -> float:
    per_game, options, _ = _all_kinds(t)
    return options / per_game


def forced_share(t, rules, players) -> float:
    per_game, _, forced = _all_kinds(t)
    return forced / per_game


def outcome_uniformity(t, rules, players) -> float:
    """Entropy of the winning seat over the won games, divided by its largest value
    ``log(players)``: 1 when every seat wins equally often, 0 when one seat always wins."""
    import numpy as np  # here: the parser (`--help`) reads this module

    wins = t["by_seat"]["wins"].to_numpy(dtype=float)
    if wins.sum() == 0:
        return float("nan")
    p = wins[wins > 0] / wins.sum()
    return float(-(p * np.log(p)).sum() / np.log(players))


def _course(column: str):
    def compute(t, rules, players) -> float:
        return float(t["course"][column].iloc[0])

    compute.__name__ = column
    return compute


METRICS = (
    Metric("first_player_edge", "win rate of the first seat minus 1/players", "probability",
           "zero", "games", first_player_edge),
    spread("seat_win_spread", "largest minus smallest win rate over the seats (bias-corrected)",
           "probability", "lower", "games", seat_win_rates),
    Metric("draw_rate", "share of games nobody wins", "probability", "none", "games", draw_rate),
    Metric("tie_rate", "share of games in which two or more seats tie for the top score",
           "probability", "none", "games", tie_rate),
    Metric("mean_turns", "turns per game (a turn: one seat's decisions in a row)", "turns",
           "none", "games", mean_turns),
    Metric("mean_decisions", "decisions per game, lone options included", "decisions", "none",
           "games", mean_decisions),
    Metric("lead_changes", "times per won game the sole leader (by score at a turn's end) "
           "became another seat", "changes", "none", "games", _course("mean_lead_changes")),
    Metric("decided_at", "share of a won game's turns played when its winner became the sole "
           "leader for good (0: led throughout)", "share", "none", "games",
           _course("mean_decided_at")),
    Metric("winner_deficit", "the winner's largest deficit to the top score at a turn's end",
           "points", "none", "games", _course("mean_winner_deficit")),
    Metric("comeback_rate", "share of won games whose winner was behind the top score at the "
           "middle turn", "probability", "none", "games", _course("comeback_rate")),
    Metric("sd_turns", "standard deviation of the turns per game", "turns", "none", "games",
           sd_turns),
    Metric("sd_decisions", "standard deviation of the decisions per game", "decisions", "none",
           "games", sd_decisions),
    Metric("branching", "mean legal options per decision, every kind of decision and lone "
           "options included", "options", "none", "games", branching),
    Metric("forced_share", "share of decisions with one legal option (taken without asking)",
           "probability", "lower", "games", forced_share),
    Metric("outcome_uniformity", "entropy of the winning seat over won games divided by "
           "log(players): 1 every seat wins equally often, 0 one seat always wins", "share",
           "higher", "games", outcome_uniformity),
)


def metric_jobs(rules, players: int, seed: int, policies: dict, keys) -> dict:
    from sheepsim.harness.jobs import PlayJob

    return {"games": PlayJob(rules.game, rules, players, policies["play"], seed)} if "games" in keys else {}


def invariant(key: str, policies: dict) -> tuple[str, ...]:
    return ()
