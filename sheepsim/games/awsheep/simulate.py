"""Python entry points: validated runs of the kernels and their raw count tables.

:func:`round_counts` runs many rounds and returns integer counts (the jobs in
:mod:`.jobs` do the same for the driver); :func:`count_frames` turns counts into raw-count DataFrames that
:mod:`.analysis` turns into rates with intervals. Input is validated here; the kernels
trust it. Totals depend only on the inputs and the seed (never on chunks or threads).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import layout as L
from sheepsim.games.awsheep.rules import AwSheepRules, load_rules


def as_rules(rules) -> AwSheepRules:
    return rules if isinstance(rules, AwSheepRules) else load_rules(rules)


def seat_policies(policies, players: int) -> list:
    """One policy per seat: names, ``package.module:function`` specs or njit functions;
    a comma-separated string works too; one policy is repeated for every seat."""
    if isinstance(policies, str) or hasattr(policies, "py_func"):
        policies = policies.split(",") if isinstance(policies, str) else [policies]
    out = [p if hasattr(p, "py_func") else str(p).strip() for p in policies]
    if not out or any(isinstance(p, str) and not p for p in out):
        raise SheepsimError("give at least one policy name (e.g. random, greedy or counter)")
    if len(out) == 1:
        out = out * players
    if len(out) != players:
        raise SheepsimError(f"give 1 policy or one per player ({players}), got {len(out)}")
    return out


def check_draft(draft):
    if draft is not None and not isinstance(draft, bool):
        raise SheepsimError(f"draft must be true, false or None (the rules file), got {draft!r}")
    return draft


@dataclass
class Setting:
    """A validated run setting: rules vector, policy ids per slot, kernels."""

    rules: AwSheepRules
    players: int
    draft: bool
    names: list[str]
    pids: np.ndarray
    kernels: object
    R: np.ndarray


def setting(rules, players, policies, draft=None) -> Setting:
    from sheepsim.games.awsheep.kernels import kernels_for
    from sheepsim.games.awsheep.policies import policy_name, resolve_policies

    rules = as_rules(rules)
    players = rules.check_players(players)
    draft = check_draft(draft)
    chosen = seat_policies(policies, players)
    ids, users = resolve_policies(chosen)
    R = rules.kernel_array(players, draft=draft)
    return Setting(rules, players, bool(R[L.R_DRAFT]), [policy_name(p) for p in chosen],
                   np.array(ids, dtype=np.int64), kernels_for(users), R)


def round_counts(rules=None, players: int = 4, policies=("random",), games: int = 10_000,
                 seed: int = 0, draft=None, rotate: bool = True, chunk_size=None,
                 progress=None, threads=None) -> tuple[Setting, np.ndarray]:
    """``(setting, acc)``: the summed accumulator (``layout.A_*``) of rounds
    ``0 .. games-1``. ``rotate`` moves the policies one seat per round (seat-fair
    per-policy counts)."""
    from sheepsim import driver
    from sheepsim.games.awsheep.jobs import PlayJob

    job = PlayJob(rules, players, policies, seed, draft, bool(rotate))
    res = driver.run(job, seed=seed, games=games, chunk_games=chunk_size, threads=threads,
                     progress=progress, desc="aw sheep")
    return job._s(), res.counts["acc"]


def count_frames(acc, players: int, names: list[str], draft: bool) -> dict[str, pd.DataFrame]:
    """Raw integer counts as DataFrames, each with leading ``players`` and ``draft``
    columns so that runs of several settings concatenate:

    * ``seats``: ``seat, games, wins, rounds_out``;
    * ``slots``: ``slot, policy, games, wins`` (policy slots; seat-fair when rotated);
    * ``order``: ``position`` (1 = first player), ``games, wins``;
    * ``ends``: ``end, games``; ``turns``: ``turns, games`` (histogram);
    * ``start_hands``: ``slot, policy, kind, count, players_with, wins`` (starting hands
      after the draft);
    * ``golden``: ``games, held_at_end, holder_wins``.
    """
    n = int(acc[L.A_GAMES])
    head = {"players": players, "draft": draft}
    seats = pd.DataFrame({**head, "seat": np.arange(1, players + 1), "games": n,
                          "wins": acc[L.A_WINS:L.A_WINS + players],
                          "rounds_out": acc[L.A_OUT:L.A_OUT + players]})
    slots = pd.DataFrame({**head, "slot": np.arange(1, players + 1), "policy": names,
                          "games": n, "wins": acc[L.A_WINS_BY_SLOT:L.A_WINS_BY_SLOT + players]})
    order = pd.DataFrame({**head, "position": np.arange(1, players + 1), "games": n,
                          "wins": acc[L.A_WINS_BY_ORDER:L.A_WINS_BY_ORDER + players]})
    ends = pd.DataFrame({**head, "end": list(L.END_NAMES), "games": acc[L.A_END:L.A_END + 4]})
    hist = acc[L.A_TURN_HIST:L.A_TURN_HIST + L.MAX_TURNS + 1]
    present = np.nonzero(hist)[0]
    turns = pd.DataFrame({**head, "turns": present, "games": hist[present]})
    shape = (L.MAX_PLAYERS, L.N_KINDS, L.START_STRIDE)
    size = L.MAX_PLAYERS * L.N_KINDS * L.START_STRIDE
    start_n = acc[L.A_START_N:L.A_START_N + size].reshape(shape)
    start_w = acc[L.A_START_WINS:L.A_START_WINS + size].reshape(shape)
    slot, kind, count = np.nonzero(start_n[:players])
    start = pd.DataFrame({**head, "slot": slot + 1, "policy": [names[i] for i in slot],
                          "kind": [L.KIND_NAMES[k] for k in kind], "count": count,
                          "players_with": start_n[slot, kind, count],
                          "wins": start_w[slot, kind, count]})
    golden = pd.DataFrame({**head, "games": [n], "held_at_end": [acc[L.A_GOLDEN_END_HELD]],
                           "holder_wins": [acc[L.A_GOLDEN_END_WINS]]})
    return {"seats": seats, "slots": slots, "order": order, "ends": ends, "turns": turns,
            "start_hands": start, "golden": golden}


def pair_frame(pairs, players: int, names_a, names_b, draft: bool, games: int) -> pd.DataFrame:
    """Paired outcomes per slot: ``slot, policy_a, policy_b, games, both, a_only,
    b_only`` (win indicators of that slot's player in the A and B plays of a round)."""
    return pd.DataFrame({"players": players, "draft": draft,
                         "slot": np.arange(1, players + 1), "policy_a": names_a,
                         "policy_b": names_b, "games": games, "both": pairs[:, 0],
                         "a_only": pairs[:, 1], "b_only": pairs[:, 2]})


__all__ = ["round_counts", "count_frames", "pair_frame", "setting",
           "seat_policies"]
