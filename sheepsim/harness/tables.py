"""The harness's play tables, the same for every game on it, from the kernel's
accumulator (:mod:`sheepsim.harness.layout`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sheepsim.harness import layout as H
from sheepsim.stats import mean_interval, pooled_rate_interval, symmetry_note, wilson_interval


def fields(acc, players: int, kinds: int) -> dict[str, np.ndarray]:
    """The accumulator cut into its named fields."""
    off = H.offsets(players, kinds)
    names = ("games", "wins", "slot_wins", "no_winner", "tied", "score", "score_sq",
             "decisions", "decisions_sq", "turns", "turns_sq", "asked", "kind_decisions",
             "kind_options", "kind_forced", "won", "lead_changes", "lead_changes_sq",
             "decided_at", "decided_at_sq", "deficit", "deficit_sq", "comeback")
    assert len(names) == H.N_FIELDS
    return {n: np.asarray(acc[off[i]:off[i + 1]]) for i, n in enumerate(names)}


def _sd(total, total_sq, n) -> float:
    return float(np.sqrt(max(total_sq / n - (total / n) ** 2, 0.0) * n / max(n - 1, 1)))


def play_tables(acc, players: int, policies, kinds, rotate: bool) -> dict[str, pd.DataFrame]:
    """``by_seat``, ``by_policy``, ``outcomes``, ``game_length`` and ``decisions``.

    Win rates have Wilson 95% intervals over games. ``by_policy`` pools the slots of a
    policy with the game as the unit: at most one seat wins a game, so the games a
    policy won are binomial over games; the rate per seat is that share over the slots
    the policy held (with ``rotate`` every policy sits at every seat in turn)."""
    f = fields(acc, players, len(kinds))
    n = int(f["games"][0])
    seats = np.arange(1, players + 1)
    lo, hi = wilson_interval(f["wins"], np.full(players, n))
    mean, mlo, mhi, _ = mean_interval(f["score"], f["score_sq"], np.full(players, n))
    by_seat = pd.DataFrame({"seat": seats, "policy": list(policies), "games": n,
                            "wins": f["wins"], "win_rate": f["wins"] / n, "win_rate_lo": lo,
                            "win_rate_hi": hi, "fair_share": 1.0 / players, "mean_score": mean,
                            "mean_score_lo": mlo, "mean_score_hi": mhi})
    rows = []
    for name in dict.fromkeys(policies):
        slots = [j for j, p in enumerate(policies) if p == name]
        wins = int(f["slot_wins"][slots].sum())
        k = len(slots)
        # one winner a game: the games the policy's seats won are 0/1 per game
        rate, plo, phi = pooled_rate_interval(wins, wins, n, k, players=players)
        rows.append({"policy": name, "seats": k, "games": n, "wins": wins,
                     "win_rate": float(rate), "win_rate_lo": float(plo),
                     "win_rate_hi": float(phi), "fair_share": 1.0 / players,
                     "rotated": rotate, "note": symmetry_note(k, players) if wins == n else ""})
    no_win, tied = int(f["no_winner"][0]), int(f["tied"][0])
    dlo, dhi = wilson_interval(no_win, n)
    tlo, thi = wilson_interval(tied, n)
    outcomes = pd.DataFrame([{"games": n, "draw_rate": no_win / n, "draw_rate_lo": float(dlo),
                              "draw_rate_hi": float(dhi), "tie_for_top_rate": tied / n,
                              "tie_for_top_rate_lo": float(tlo),
                              "tie_for_top_rate_hi": float(thi)}])
    length = {}
    for what in ("decisions", "turns"):
        total, sq = float(f[what][0]), float(f[f"{what}_sq"][0])
        m, mlo_, mhi_, _ = mean_interval(total, sq, n)
        length.update({f"mean_{what}": float(m), f"mean_{what}_lo": float(mlo_),
                       f"mean_{what}_hi": float(mhi_), f"sd_{what}": _sd(total, sq, n)})
    total_dec = max(int(f["decisions"][0]), 1)
    length["asked_share"] = int(f["asked"][0]) / total_dec
    game_length = pd.DataFrame([{"games": n, **length}])
    kd, ko, kf = f["kind_decisions"], f["kind_options"], f["kind_forced"]
    with np.errstate(invalid="ignore", divide="ignore"):
        decisions = pd.DataFrame({"kind": [k.lower() for k in kinds], "per_game": kd / n,
                                  "mean_options": ko / kd, "forced_share": kf / kd})
    return {"by_seat": by_seat, "by_policy": pd.DataFrame(rows), "outcomes": outcomes,
            "game_length": game_length, "decisions": decisions, "course": course_table(f)}


def course_table(f: dict) -> pd.DataFrame:
    """The course of the games somebody won, from every seat's score at the end of each
    turn (:func:`sheepsim.harness.loop.course`): mean lead changes, the mean share of the
    turns played when the winner became the sole leader for good (0: led from the first
    turn), the winner's mean largest deficit to the top score, and the comeback rate (the
    winner was behind at the middle turn); normal intervals for the means, Wilson for the
    rate, over the won games."""
    won = int(f["won"][0])
    row = {"won_games": won}
    scale = {"lead_changes": 1, "decided_at": H.COURSE_SCALE, "deficit": 1}
    names = {"lead_changes": "mean_lead_changes", "decided_at": "mean_decided_at",
             "deficit": "mean_winner_deficit"}
    for key, name in names.items():
        m, lo, hi, _ = mean_interval(float(f[key][0]), float(f[f"{key}_sq"][0]), won)
        k = scale[key]
        row.update({name: float(m) / k, f"{name}_lo": float(lo) / k, f"{name}_hi": float(hi) / k})
    c = int(f["comeback"][0])
    clo, chi = wilson_interval(c, won)
    row.update({"comeback_rate": c / won if won else float("nan"),
                "comeback_rate_lo": float(clo), "comeback_rate_hi": float(chi)})
    return pd.DataFrame([row])

