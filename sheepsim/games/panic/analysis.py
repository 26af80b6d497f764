"""Shear Panic results as DataFrames (counts in, tables out): :class:`PanicResult`
holds the merged accumulator of a batch of games and :func:`build_tables` turns it into
the ``play`` command's tables (by_seat, by_policy, points_by_field, ...).

Below the jobs (:mod:`.jobs` builds its tables here) and the Python entry points
(:mod:`.simulate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.rules import PanicRules
from sheepsim.games.panic.trace import TIE_NAMES
from sheepsim.output import base_meta
from sheepsim.stats import (
    mean_interval,
    pooled_mean_interval,
    pooled_rate_interval,
    symmetry_note,
    tie_breaks_table,
    ties_note,
    wilson_interval,
)


def policy_groups(policies: list[str]) -> tuple[np.ndarray, list[str]]:
    """The group index of each seat ``(players,)`` and the distinct policies in order of
    first appearance."""
    names = list(dict.fromkeys(policies))
    return np.array([names.index(p) for p in policies], dtype=np.int64), names


END_NAMES = ("final_pen", "menus_ran_out")


@dataclass
class PanicResult:
    """Totals of a batch of games: ``acc`` is the summed accumulator vector
    (``layout.A_*``); ``sums`` the sums from per-game rows (:func:`.jobs.outcome_sums`);
    ``tables`` the DataFrames built from them."""

    rules: PanicRules
    players: int
    policies: list[str]
    seed: int
    games: int
    acc: np.ndarray
    sums: dict[str, np.ndarray]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    def meta(self, **extra) -> dict:
        return base_meta(game="shear-panic", rules=self.rules.source,
                         rules_sha256=self.rules.sha256, players=self.players,
                         policy=",".join(self.policies), seed=self.seed, games=self.games,
                         **extra)


def _seat_block(acc, offset, players, width):
    return acc[offset:offset + players * width].reshape(players, width)


def policy_table(res: PanicResult, wins, points) -> pd.DataFrame:
    """Per policy, pooled over the seats that played it with the game as the unit (the
    per-game totals of those seats; :func:`sheepsim.stats.pooled_rate_interval`,
    :func:`~sheepsim.stats.pooled_mean_interval`): ``policy``, ``seats``, ``seat_games``,
    ``wins``, ``win_rate`` (per seat-game) with ``_lo``/``_hi``, ``fair_share`` (1 /
    players, the per-seat-game rate of equal players), ``mean_points`` with
    ``_lo``/``_hi``, ``win_rate_note`` (why a rate is exact: every seat plays the policy).
    ``wins``/``points`` ``(players,)`` totals per seat."""
    groups, names = policy_groups(res.policies)
    n, rows = res.games, []
    for k, pol in enumerate(names):
        seats = np.flatnonzero(groups == k)
        w = int(wins[seats].sum())
        rate, lo, hi = pooled_rate_interval(w, res.sums["policy_win_sq"][k], n, len(seats),
                                            players=res.players)
        m, mlo, mhi, _ = pooled_mean_interval(points[seats].sum(), res.sums["policy_points_sq"][k],
                                              n, len(seats))
        rows.append({"policy": pol, "seats": len(seats), "seat_games": n * len(seats), "wins": w,
                     "win_rate": float(rate), "win_rate_lo": float(lo), "win_rate_hi": float(hi),
                     "fair_share": 1 / res.players, "mean_points": float(m),
                     "mean_points_lo": float(mlo), "mean_points_hi": float(mhi),
                     "win_rate_note": symmetry_note(len(seats), res.players)})
    return pd.DataFrame(rows)


def _seat_tables(res: PanicResult, colours: list[str]) -> dict[str, pd.DataFrame]:
    """``by_seat``, ``by_policy`` and ``points_by_field``."""
    acc, P, n = res.acc, res.players, res.games
    wins = acc[L.A_WINS:L.A_WINS + P]
    pts = acc[L.A_POINTS:L.A_POINTS + P]
    pts_sq = acc[L.A_POINTS_SQ:L.A_POINTS_SQ + P]
    lo, hi = wilson_interval(wins, np.full(P, n))
    mean, plo, phi, _ = mean_interval(pts, pts_sq, np.full(P, n))
    ties = acc[L.A_TIE_BREAK:L.A_TIE_BREAK + 3]
    tie_rate = float(ties[1:].sum() / n)
    by_seat = pd.DataFrame({
        "seat": np.arange(1, P + 1), "colour": colours, "policy": res.policies,
        "games": n, "wins": wins, "win_rate": wins / n, "win_rate_lo": lo, "win_rate_hi": hi,
        "mean_points": mean, "mean_points_lo": plo, "mean_points_hi": phi,
        "mean_sheep_left": acc[L.A_SHEEP_LEFT:L.A_SHEEP_LEFT + P] / n,
        "wins_on_tie": res.sums["tie_wins"], "tie_rate": tie_rate,
        "note": ties_note(tie_rate, "sheep left, then turn order", len(set(res.policies)) == 1),
    })
    fp = _seat_block(acc, L.A_FIELD_PTS, P, L.MAX_FIELDS)
    fields = pd.DataFrame({"seat": np.arange(1, P + 1), "colour": colours,
                           "policy": res.policies})
    track = res.rules.tracks[P]
    for i, f in enumerate(track.fields):
        fields[f"{L.FIELD_KINDS[f.kind]}_{i + 1}"] = fp[:, i] / n
    fields["total"] = fp[:, :len(track.fields)].sum(axis=1) / n
    return {"by_seat": by_seat, "by_policy": policy_table(res, wins, pts),
            "points_by_field": fields}


def _game_tables(res: PanicResult) -> dict[str, pd.DataFrame]:
    """``sheep_shorn``, ``turns``, ``turn_histogram``, ``game_end`` and ``tie_breaks``."""
    acc, n = res.acc, res.games
    shorn = acc[L.A_SHORN:L.A_SHORN + L.N_COLOURS]
    shorn_df = pd.DataFrame({"colour": list(L.COLOUR_NAMES), "shorn": shorn,
                             "per_game": shorn / n})
    t_mean, t_lo, t_hi, _ = mean_interval(acc[L.A_TURNS], acc[L.A_TURNS_SQ], n)
    hist = acc[L.A_TURN_HIST:L.A_TURN_HIST + L.MAX_TURN_HIST]
    present = np.nonzero(hist)[0]
    turns = pd.DataFrame({"mean_turns": [float(t_mean)], "mean_turns_lo": [float(t_lo)],
                          "mean_turns_hi": [float(t_hi)], "min_turns": [int(present.min())],
                          "max_turns": [int(present.max())]})
    turn_hist = pd.DataFrame({"turns": present, "games": hist[present],
                              "share": hist[present] / n})
    ends = acc[L.A_END:L.A_END + 2]
    elo, ehi = wilson_interval(ends, np.full(2, n))
    ends_df = pd.DataFrame({"end": list(END_NAMES), "games": ends, "share": ends / n,
                            "share_lo": elo, "share_hi": ehi})
    ties = acc[L.A_TIE_BREAK:L.A_TIE_BREAK + 3]
    ties_df = tie_breaks_table(TIE_NAMES, ties, [False, True, True], n)
    return {"sheep_shorn": shorn_df, "turns": turns, "turn_histogram": turn_hist,
            "game_end": ends_df, "tie_breaks": ties_df}


def _tile_table(res: PanicResult, colours: list[str]) -> pd.DataFrame:
    """``tiles``: per seat and menu tile, how often it was chosen, where, and its gain."""
    acc, P, n = res.acc, res.players, res.games
    tile_rows = []
    tn = _seat_block(acc, L.A_TILE_N, P, L.MAX_TILES)
    tc = _seat_block(acc, L.A_TILE_COUNTER, P, L.MAX_TILES)
    tg = _seat_block(acc, L.A_TILE_GAIN, P, L.MAX_TILES)
    for seat in range(P):
        for t, tile in enumerate(res.rules.menu):
            k = int(tn[seat, t])
            tile_rows.append({
                "seat": seat + 1, "colour": colours[seat], "policy": res.policies[seat],
                "tile": t + 1, "action": L.ACTION_NAMES[tile.action], "time": tile.time,
                "restriction": L.RESTRICTION_NAMES[tile.restriction], "chosen": k,
                "chosen_per_game": k / n, "counter_sum": int(tc[seat, t]),
                "gain_sum": int(tg[seat, t]),
                "mean_counter": tc[seat, t] / k if k else np.nan,
                "mean_gain": tg[seat, t] / k if k else np.nan})
    df = pd.DataFrame(tile_rows)
    # the means are what a reader wants (CLI and report); the sums are there for pooling
    df.attrs["must_show"] = ["chosen_per_game", "mean_counter", "mean_gain"]
    return df


def build_tables(res: PanicResult) -> dict[str, pd.DataFrame]:
    """The result tables (column names are part of the public API), in print order."""
    colours = [L.COLOUR_NAMES[c] for c in res.rules.seat_colour_list(res.players)]
    return {**_seat_tables(res, colours), **_game_tables(res),
            "tiles": _tile_table(res, colours)}
