"""Aw, Sheep!'s balance metrics (:mod:`sheepsim.balance_metrics`): rounds of the chosen policy
field, and a skill field (one ``counter`` player, the others ``random``)."""

from __future__ import annotations

from sheepsim.balance_metrics import Metric

#: games (rounds) every variant plays by default
DEFAULT_GAMES = 20_000


#: the examples the designers' commands' ``--help`` shows (:mod:`sheepsim.designer`):
#: a ``variants --set`` edit, a ``sweep --set`` axis, a ``tune --vary`` range and target
EXAMPLES = {"set": "scoring.golden_worth=4", "sweep": "scoring.golden_worth=1,2,3,4,5",
            "vary": "scoring.golden_worth=1..6", "target": "skill_edge=max"}


def first_player_edge(t, rules, players) -> float:
    row = t["first_player"].set_index("position").loc[1]
    return float(row["win_rate"] - row["fair_share"])


def skill_edge(t, rules, players) -> float:
    row = t["by_policy"].set_index("policy").loc["counter"]
    return float(row["win_rate"] - row["fair_share"])


def flock_off_share(t, rules, players) -> float:
    return float(t["round_ends"].set_index("end").loc["flock_off", "share"])


def mean_turns(t, rules, players) -> float:
    return float(t["round_length"]["mean_turns"].iloc[0])


METRICS = (
    Metric("first_player_edge", "win rate of the player who plays first minus 1/players",
           "probability", "zero", "rounds", first_player_edge),
    Metric("skill_edge", "win rate of one counter player against random players (seats "
           "rotating round by round) minus 1/players", "probability", "higher", "skill",
           skill_edge),
    Metric("flock_off_share", "share of rounds decided by a Flock Off", "probability", "none",
           "rounds", flock_off_share),
    Metric("mean_turns", "turns per round", "turns", "none", "rounds", mean_turns),
)


def metric_jobs(rules, players: int, seed: int, policies: dict, keys) -> dict:
    from sheepsim.games.awsheep.jobs import PlayJob

    out = {}
    if "rounds" in keys:
        out["rounds"] = PlayJob(rules, players, policies["play"], seed)
    if "skill" in keys:
        out["skill"] = PlayJob(rules, players, ",".join(["counter"] + ["random"] * (players - 1)),
                               seed, rotate=True)
    return out


def invariant(key: str, policies: dict) -> tuple[str, ...]:
    return ()
