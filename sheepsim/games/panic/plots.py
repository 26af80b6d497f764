"""Shear Panic's charts: points by field, tile usage.

Each takes a table of :mod:`.analysis` (the columns named in its docstring), an
optional ``ax`` to draw into and an optional ``meta`` (for the shared footnote), and
returns the figure; the helpers and the charts every game shares (win rate by seat) are
in :mod:`sheepsim.plots`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sheepsim.plots import chart_axes, legend_outside, seat_labels, seat_policies

PANIC_ID_COLUMNS = ("seat", "colour", "policy", "total")


def points_by_field_chart(fields: pd.DataFrame, *, ax=None, meta=None):
    """Mean points per game by scoring field, stacked per seat (Shear Panic
    ``points_by_field`` table: ``seat``, ``colour``, ``policy``, one column per field,
    ``total``)."""
    fig, ax, _ = chart_axes(ax, meta)
    field_cols = [c for c in fields.columns if c not in PANIC_ID_COLUMNS]
    x = np.arange(len(fields))
    bottom = np.zeros(len(fields))
    for col in field_cols:
        v = fields[col].to_numpy(float)
        ax.bar(x, v, bottom=bottom, label=col.replace("_", " "))
        bottom += v
    ax.set_xticks(x, seat_labels(fields.assign(seat=[f"{s} {c}" for s, c in zip(
        fields["seat"], fields["colour"], strict=True)]), "seat"))
    ax.set_xlabel("seat (colour, policy)" if seat_policies(fields) else "seat (colour)")
    ax.set_ylabel("mean points per game (points)")
    ax.set_title("Shear Panic: points by field")
    legend_outside(ax)
    return fig


def tile_usage_chart(tiles: pd.DataFrame, *, ax=None, meta=None):
    """How often each menu tile is chosen (per seat per game, bars; one quantity, one
    axis: where on the time track it is chosen is in the table); Shear Panic ``tiles``
    table (``tile``, ``action``, ``time``, ``chosen``, ``counter_sum``, ``games`` or
    ``chosen_per_game``), pooled over seats."""
    fig, ax, _ = chart_axes(ax, meta)
    g = tiles.groupby("tile", sort=True).agg(action=("action", "first"), time=("time", "first"),
                                              chosen=("chosen", "sum"), counter_sum=("counter_sum", "sum"),
                                              per_game=("chosen_per_game", "mean"))
    x = g.index.to_numpy()
    ax.bar(x, g["per_game"], color="tab:olive", alpha=0.8, label="chosen per seat per game")
    ax.set_xticks(x, [f"{t} {str(a).replace('_', ' ')} ({tm})"
                      for t, a, tm in zip(x, g["action"], g["time"], strict=True)],
                  fontsize=7, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_xlabel("menu tile (number, action, time cost)")
    ax.set_ylabel("times chosen per seat per game (count)")
    ax.set_title("Shear Panic: tile usage")
    return fig
