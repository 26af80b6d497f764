"""Shear Panic balance tables for 3 and 4 players, built on :func:`play_games`' tables.

``balance_tables`` runs both player counts and stacks each table with a ``players``
column; ``neutral_colour_table`` replays 3-player games with each colour as the neutral
one; ``compare`` plays two policies for one seat on common random numbers;
``balance_figure`` draws points by field and tile usage. Column names of the
underlying tables are the panic simulator's (see ``analysis.build_tables``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from sheepsim import driver
from sheepsim.games.panic import layout as L
from sheepsim.games.panic.game import GAME
from sheepsim.games.panic.jobs import head_to_head
from sheepsim.games.panic.rules import load_rules
from sheepsim.games.panic.simulate import play_games

#: Tables stacked over player counts (the panic simulator's names).
STACKED = ("by_seat", "by_policy", "points_by_field", "sheep_shorn", "turns", "game_end",
           "tie_breaks")


def tile_usage_table(tiles: pd.DataFrame, games: int) -> pd.DataFrame:
    """Menu tile usage pooled over seats, from the simulator's ``tiles`` table: ``tile``,
    ``action``, ``time``, ``chosen_per_seat_game`` (times chosen per seat per game),
    ``mean_counter`` (mean time-track space when chosen), ``mean_gain`` (mean points its
    user gains that turn), ``chosen``."""
    g = tiles.groupby("tile", sort=True).agg(action=("action", "first"), time=("time", "first"),
                                              chosen=("chosen", "sum"), counter_sum=("counter_sum", "sum"),
                                              gain_sum=("gain_sum", "sum"), seats=("seat", "nunique"))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = pd.DataFrame({
            "tile": g.index, "action": g["action"].to_numpy(), "time": g["time"].to_numpy(),
            "chosen_per_seat_game": (g["chosen"] / (g["seats"] * games)).to_numpy(),
            "mean_counter": np.where(g["chosen"] > 0, g["counter_sum"] / g["chosen"], np.nan),
            "mean_gain": np.where(g["chosen"] > 0, g["gain_sum"] / g["chosen"], np.nan),
            "chosen": g["chosen"].to_numpy()})
    return out


def balance_tables(rules=None, policies="greedy", games: int = 10_000, seed: int = 0,
                   players=GAME.player_counts, **run) -> dict[str, pd.DataFrame]:
    """Balance tables for each player count of ``players`` (default: every count the game
    takes): the simulator's :data:`STACKED` tables with a leading ``players`` column, plus
    ``tile_usage`` (:func:`tile_usage_table`).
    ``run``: ``threads``, ``chunk_size``, ``progress``, ``playouts``, ``backend``,
    ``precision``/``max_games`` for play_games (the ``games`` column of ``by_seat`` says
    how many games each player count played)."""
    rules = load_rules(rules) if rules is None or isinstance(rules, str) else rules
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in (*STACKED, "tile_usage")}
    for n in players:
        res = play_games(rules, players=n, policies=policies, games=games, seed=seed, **run)
        for name in STACKED:
            parts[name].append(res.tables[name].assign(players=n))
        parts["tile_usage"].append(tile_usage_table(res.tables["tiles"], res.games).assign(players=n))
    out = {}
    for name, frames in parts.items():
        df = pd.concat(frames, ignore_index=True)
        out[name] = df[["players", *[c for c in df.columns if c != "players"]]]
    return out


def neutral_colour_table(rules=None, policies="greedy", games: int = 10_000, seed: int = 0,
                         **run) -> pd.DataFrame:
    """The neutral colour's effect with 3 players: the same seeds replayed with each of
    blue, green, red and yellow as the neutral colour. One row per (neutral colour,
    seat): ``neutral``, ``seat``, ``colour``, ``win_rate``/``lo``/``hi``, ``mean_points``,
    ``neutral_shorn_per_game`` (the neutral colour's sheep shorn per game), ``games``."""
    rules = load_rules(rules) if rules is None or isinstance(rules, str) else rules
    rows = []
    for code in (L.COLOUR_NAMES.index(c) for c in ("blue", "green", "red", "yellow")):
        variant = dataclasses.replace(rules, neutral_3p=code)
        res = play_games(variant, players=3, policies=policies, games=games, seed=seed, **run)
        seats = res.tables["by_seat"]
        shorn = res.tables["sheep_shorn"].set_index("colour")["per_game"]
        neutral = L.COLOUR_NAMES[code]
        for _, s in seats.iterrows():
            rows.append({"neutral": neutral, "seat": s["seat"], "colour": s["colour"],
                         "win_rate": s["win_rate"], "win_rate_lo": s["win_rate_lo"],
                         "win_rate_hi": s["win_rate_hi"],
                         "mean_points": s["mean_points"], "neutral_shorn_per_game": shorn[neutral],
                         "games": res.games})
    return pd.DataFrame(rows)


def balance_figure(tables: dict[str, pd.DataFrame], players: int, meta: dict | None = None):
    """Points by field (stacked per seat) and tile usage for one player count."""
    from sheepsim import plots

    fields = tables["points_by_field"]
    fields = fields[fields["players"] == players].drop(columns="players")
    tiles = tables["tile_usage"]
    tiles = tiles[tiles["players"] == players].rename(columns={"chosen_per_seat_game": "chosen_per_game"})
    tiles = tiles.assign(seat=1, counter_sum=tiles["mean_counter"].fillna(0) * tiles["chosen"])
    return plots.panel_figure([lambda ax: plots.points_by_field_chart(fields, ax=ax),
                               lambda ax: plots.tile_usage_chart(tiles, ax=ax)],
                              meta, f"Shear Panic balance, {players} players")


def compare(rules=None, players: int = 4, a: str = "greedy", b: str = "random",
            field: str = "greedy", seat: int = 1, games: int = 2_000, seed: int = 0, *,
            playouts: int = 4, threads=None, chunk_size=None, progress=None, backend=None):
    """Head-to-head of policies ``a`` and ``b`` for one seat on common random numbers
    (:func:`.jobs.head_to_head` run by the driver): the driver's result, whose table
    ``comparison`` (:func:`sheepsim.headtohead.compare_table`; ``mean_score`` is the
    seat's points) has both win rates and mean points with intervals, the paired
    difference and p-values."""
    job = head_to_head(rules, players, a, b, field, seat, seed, playouts)
    return driver.run(job, games=games, chunk_games=chunk_size, threads=threads,
                      progress=progress, desc="head-to-head", backend=backend)
