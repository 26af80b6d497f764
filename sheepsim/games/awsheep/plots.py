"""Aw, Sheep! charts. Each takes a table from :mod:`.analysis`, an optional ``ax`` to draw
into and an optional ``meta`` (the run's metadata: a new figure gets the shared
``games · seed · rules`` footnote, as the other games' charts), and returns the figure."""

from __future__ import annotations

import numpy as np

from sheepsim.plots import chart_axes, legend_outside


def _errorbar(ax, x, df, col, **kw):
    y = df[col].to_numpy(float)
    err = np.vstack([y - df[f"{col}_lo"].to_numpy(float), df[f"{col}_hi"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, **kw)


def _setting_label(keys, values) -> str:
    """``4p, draft off`` for the setting columns of a group."""
    return ", ".join(f"{v}p" if k == "players" else
                     (f"draft {'on' if v else 'off'}" if k == "draft" else str(v))
                     for k, v in zip(keys, values, strict=True))


def _integer_ticks(ax, values) -> None:
    ax.set_xticks(sorted({int(v) for v in values}))


def win_rate_by_position_chart(first_player, ax=None, meta=None):
    """Win rate by position in turn order with 95% intervals, one series per setting
    (players, draft, policy field), the fair share 1/n dashed (``first_player_test``)."""
    fig, ax, _ = chart_axes(ax, meta, (6.5, 4.6))
    keys = [c for c in ("players", "draft", "field") if c in first_player.columns]
    groups = first_player.groupby(keys, sort=False) if keys else [((), first_player)]
    for i, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        _errorbar(ax, g["position"].to_numpy() + 0.06 * i, g, "win_rate",
                  label=_setting_label(keys, key) or "win rate")
        ax.hlines(g["fair_share"].iloc[0], 0.7, g["position"].max() + 0.3, linestyles="dashed",
                  colors="grey", linewidth=0.8, label="fair share 1/n" if i == 0 else None)
    _integer_ticks(ax, first_player["position"])
    ax.set_xlabel("position in turn order (1 = first player)")
    ax.set_ylabel("win rate (share of rounds, 95% interval)")
    ax.set_title("Aw, Sheep!: win rate by position in turn order")
    legend_outside(ax)
    return fig


def card_power_chart(card_power, kind: str = "sheep", ax=None, meta=None):
    """Win rate by how many ``kind`` cards the starting hand holds (starting-hand
    composition, not card value), per setting and policy, with 95% intervals and the
    fair share dotted (``card_power``)."""
    fig, ax, _ = chart_axes(ax, meta, (6.5, 4.6))
    t = card_power[card_power["kind"] == kind]
    keys = [c for c in ("players", "draft", "policy") if c in t.columns]
    for key, g in t.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        _errorbar(ax, g["count"].to_numpy(), g, "win_rate", label=_setting_label(keys, key))
    for share in sorted(set(t["fair_share"])):
        ax.axhline(share, color="grey", ls=":", lw=1)
    _integer_ticks(ax, t["count"])
    ax.set_xlabel(f"{kind} cards in the starting hand (count)")
    ax.set_ylabel("win rate (share of rounds, 95% interval)")
    ax.set_title(f"Aw, Sheep!: win rate by {kind} cards in the starting hand\n"
                 "(starting-hand composition, not card value)")
    legend_outside(ax)
    return fig


def card_value_chart(card_value, ax=None, meta=None):
    """Card value per kind: the holder's win rate with the card minus with a plain sheep
    in its place (percentage points), one series per setting and field, with 95%
    intervals, 0 dashed (``card_value``)."""
    fig, ax, _ = chart_axes(ax, meta, (6.5, 4.6))
    kinds = list(dict.fromkeys(card_value["kind"]))
    keys = [c for c in ("players", "draft", "field") if c in card_value.columns]
    groups = list(card_value.groupby(keys, sort=False)) if keys else [((), card_value)]
    for i, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        x = np.array([kinds.index(k) for k in g["kind"]]) + 0.08 * (i - (len(groups) - 1) / 2)
        pts = g.assign(**{c: 100 * g[c] for c in ("value", "value_lo", "value_hi")})
        _errorbar(ax, x, pts, "value", label=_setting_label(keys, key) or "card value")
    ax.axhline(0, color="grey", ls="--", lw=0.8)
    ax.set_xticks(np.arange(len(kinds)), kinds)
    ax.set_xlabel("card kind (one in the starting hand, against a plain sheep)")
    ax.set_ylabel("change in the holder's win rate\n(percentage points, 95% interval)")
    ax.set_title("Aw, Sheep!: card value on common random numbers")
    legend_outside(ax)
    return fig


def luck_vs_skill_chart(luck, ax=None, meta=None):
    """Per setting and tested policy: its win rate against the baseline field and the
    baseline's own win rate in the same seat of the same rounds, both with 95%
    intervals, next to 1/n (what pure luck gives every policy) (``luck_vs_skill``)."""
    fig, ax, _ = chart_axes(ax, meta, (6.5, 4.6))
    labels = [f"{r.policy}, {r.players}p" + (", draft" if getattr(r, "draft", False) else "")
              for r in luck.itertuples(index=False)]
    x = np.arange(len(luck))
    _errorbar(ax, x - 0.12, luck, "win_rate", label="tested policy", color="tab:blue")
    _errorbar(ax, x + 0.12, luck, "baseline_win_rate", color="tab:orange",
              label=f"{', '.join(dict.fromkeys(luck['baseline']))} in the same seat")
    ax.hlines(luck["fair_share"], x - 0.35, x + 0.35, linestyles="dashed", colors="grey",
              linewidth=0.8, label="1/n (pure luck)")
    ax.set_xticks(x, labels, fontsize="small")
    ax.set_xlim(-0.6, len(luck) - 0.4)
    ax.set_ylim(0, max(1.1 * float(luck["win_rate_hi"].max()), 0.05))
    ax.set_xlabel("tested policy, players")
    ax.set_ylabel("win rate (share of rounds, 95% interval)")
    ax.set_title(f"Aw, Sheep!: luck vs skill against "
                 f"{', '.join(dict.fromkeys(luck['baseline']))} players")
    legend_outside(ax)
    return fig
