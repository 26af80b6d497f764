"""Aw, Sheep!'s balance metrics (:mod:`sheepsim.balance_metrics`): rounds of the chosen policy
field, and a skill field (one ``counter`` player, the others ``random``); and the harness's
metrics of every game (:mod:`sheepsim.harness.metrics`) measured on the same rounds."""

from __future__ import annotations

from dataclasses import replace

from sheepsim.balance_metrics import Metric
from sheepsim.harness import metrics as harness_metrics

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

#: the harness's metrics (declared in :mod:`sheepsim.harness.metrics`) Aw, Sheep! adds,
#: measured on the ``rounds`` job's harness tables (``game_length``, ``decisions``,
#: ``course``; ``by_seat`` is the game's own, with the same ``wins``/``win_rate``): all
#: but those named like one of its own (its ``first_player_edge`` is the player drawn to
#: play first, not seat 1; its ``mean_turns`` counts its own turns), those of the
#: harness's ``outcomes`` table, which it lacks, and ``sd_turns``: the harness's turn is a
#: run of one seat's decisions (a target's response is a turn of its own), not the game's
#: turn that ``mean_turns`` counts, so the two would disagree
_OWN = {m.name for m in METRICS}
_HARNESS_SKIPPED = {"draw_rate", "tie_rate", "sd_turns"}
METRICS = METRICS + tuple(replace(m, job="rounds") for m in harness_metrics.METRICS
                          if m.name not in _OWN and m.name not in _HARNESS_SKIPPED)


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
