"""Aw, Sheep! charts. Each takes a table from :mod:`.analysis` and an optional ``ax``
and returns the figure."""

from __future__ import annotations

import numpy as np


def _axes(ax):
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.5, 4.6), layout="constrained")
        return fig, ax
    return ax.figure, ax


def _errorbar(ax, x, df, col, **kw):
    y = df[col].to_numpy(float)
    err = np.vstack([y - df[f"{col}_lo"].to_numpy(float), df[f"{col}_hi"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, **kw)


def win_rate_by_position_chart(first_player, ax=None):
    """Win rate by position in turn order, one series per setting, 1/n dashed."""
    fig, ax = _axes(ax)
    keys = [c for c in ("players", "draft") if c in first_player.columns]
    for i, (key, g) in enumerate(first_player.groupby(keys, sort=False)):
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{v}p" if k == "players" else f"draft {'on' if v else 'off'}"
                          for k, v in zip(keys, key, strict=True))
        _errorbar(ax, g["position"].to_numpy() + 0.06 * i, g, "win_rate", label=label)
        ax.hlines(g["fair_share"].iloc[0], 0.7, g["position"].max() + 0.3, linestyles="dashed",
                  colors="grey", linewidth=0.8)
    ax.set_xlabel("position in turn order (1 = first player)")
    ax.set_ylabel("win rate (95% interval)")
    ax.legend(fontsize="small")
    return fig


def card_power_chart(card_power, kind: str = "sheep", ax=None):
    """Win rate by how many ``kind`` cards the starting hand holds, per setting."""
    fig, ax = _axes(ax)
    t = card_power[card_power["kind"] == kind]
    keys = [c for c in ("players", "draft", "policy") if c in t.columns]
    for key, g in t.groupby(keys, sort=False):
        key = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        label = ", ".join(f"{key['players']}p" if k == "players" else
                          (f"draft {'on' if v else 'off'}" if k == "draft" else str(v))
                          for k, v in key.items())
        _errorbar(ax, g["count"].to_numpy(), g, "win_rate", label=label)
    ax.set_xlabel(f"{kind} cards in the starting hand")
    ax.set_ylabel("win rate (95% interval)")
    ax.legend(fontsize="small")
    return fig


def luck_vs_skill_chart(luck, ax=None):
    """Win rate of each tested policy against the baseline field, next to 1/n."""
    fig, ax = _axes(ax)
    labels = [f"{r.policy} {r.players}p" + (" draft" if getattr(r, "draft", False) else "")
              for r in luck.itertuples(index=False)]
    x = np.arange(len(luck))
    _errorbar(ax, x, luck, "win_rate", label="tested policy")
    ax.scatter(x, luck["fair_share"], marker="_", s=400, color="grey", label="1/n (pure luck)")
    ax.set_xticks(x, labels, fontsize="x-small", rotation=60, ha="right")
    ax.set_title(f"against {', '.join(dict.fromkeys(luck['baseline']))} players", fontsize="small")
    ax.set_ylabel("win rate (95% interval)")
    ax.legend(fontsize="small")
    return fig
