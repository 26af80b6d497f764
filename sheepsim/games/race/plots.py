"""The Sheep Race's charts: lane odds and EV, bet sets, fair payoffs, card strength.

Each takes a table of :mod:`.analysis` (the columns named in its docstring), an
optional ``ax`` to draw into and an optional ``meta`` (the run's metadata, for the
shared ``games · seed · rules`` footnote), and returns the figure; the helpers and the
charts every game shares are in :mod:`sheepsim.plots`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sheepsim.plots import chart_axes, interval_error, legend_outside

PLACE_LABELS = {"first": "1st", "second": "2nd", "third": "3rd"}


def lane_place_heatmap(lanes: pd.DataFrame, *, ax=None, meta=None):
    """Lane-by-place heatmap of P(place) (``odds_table``/``lane_ev_table`` columns
    ``lane``, ``card``, ``p_first``, ``p_second``, ``p_third``; NaN places are left blank).
    Simulated probabilities (``p_*_lo``/``p_*_hi`` of some width) show their 95%
    interval half-width under each value; exact ones show the value alone."""
    fig, ax, _ = chart_axes(ax, meta, (6, 4.5))
    cols = [c for c in ("p_first", "p_second", "p_third") if lanes[c].notna().any()]
    grid = lanes[cols].to_numpy(float)
    half = np.zeros_like(grid)
    if all(f"{c}_lo" in lanes and f"{c}_hi" in lanes for c in cols):
        half = (lanes[[f"{c}_hi" for c in cols]].to_numpy(float)
                - lanes[[f"{c}_lo" for c in cols]].to_numpy(float)) / 2
    simulated = np.nanmax(half, initial=0.0) > 0
    im = ax.imshow(grid, cmap="viridis", aspect="auto", vmin=0.0)
    for (i, j), v in np.ndenumerate(grid):
        text = f"{v:.3f}" + (f"\n±{half[i, j]:.3f}" if simulated and np.isfinite(v) else "")
        ax.text(j, i, text, ha="center", va="center",
                color="white" if v < 0.6 * np.nanmax(grid) else "black", fontsize=8)
    ax.set_xticks(range(len(cols)), [PLACE_LABELS[c[2:]] for c in cols])
    dealt = lanes["card"] != "(random deal)"
    labels = [f"{lane} {card}" if d else str(lane)
              for lane, card, d in zip(lanes["lane"], lanes["card"], dealt, strict=True)]
    ax.set_yticks(range(len(lanes)), labels)
    ax.set_xlabel("place")
    ax.set_ylabel("lane (card)" if dealt.any() else "lane (cards dealt at random)")
    ax.set_title("P(place) by lane" + (" (± 95% interval half-width)" if simulated else ""))
    fig.colorbar(im, ax=ax, label="probability")
    return fig


def lane_ev_chart(lanes: pd.DataFrame, *, ax=None, meta=None):
    """Single-bet EV per lane with 95% error bars (none for exact odds), printed payoffs
    overlaid on a second axis (``lane_ev_table`` columns ``lane``, ``ev``, ``ev_lo``,
    ``ev_hi``, ``payoff_*``)."""
    fig, ax, _ = chart_axes(ax, meta)
    x = lanes["lane"].to_numpy()
    ev = lanes["ev"].to_numpy(float)
    ax.bar(x, ev, color="tab:blue", alpha=0.7, label="EV of one bet")
    err = interval_error(lanes)
    if err is not None:
        ax.errorbar(x, ev, yerr=err, fmt="none", ecolor="black", capsize=4, label="95% interval")
    if "mean_ev" in lanes:
        ax.axhline(float(lanes["mean_ev"].iloc[0]), color="tab:blue", ls=":", lw=1, label="mean EV")
    ax.set_ylabel("expected points per bet (points)")
    if "card" in lanes and (lanes["card"] != "(random deal)").all():
        ax.set_xticks(x, [f"{lane}\n{card}" for lane, card in zip(x, lanes["card"], strict=True)],
                      fontsize=8)
        ax.set_xlabel("lane (card)")
    else:
        ax.set_xticks(x)
        ax.set_xlabel("lane")
    ax.set_title("Single-bet EV by lane")
    pay = ax.twinx()
    for col, marker in (("payoff_first", "o"), ("payoff_second", "s"), ("payoff_third", "^")):
        if col in lanes and lanes[col].notna().any():
            pay.plot(x, lanes[col], marker=marker, ls="--", color="tab:red", alpha=0.7,
                     label=f"payoff {PLACE_LABELS[col[7:]]}")
    pay.set_ylabel("printed payoff (points)", color="tab:red")
    pay.set_ylim(bottom=0)
    handles = ax.get_legend_handles_labels()
    handles2 = pay.get_legend_handles_labels()
    legend_outside(ax, handles[0] + handles2[0], handles[1] + handles2[1], twin=True)
    return fig


def bet_sets_chart(sets: pd.DataFrame, *, top: int = 10, ax=None, meta=None):
    """The ``top`` sets of bets by EV with 95% intervals (none for exact odds)
    (``bet_sets_table`` columns ``lanes``, ``ev``, ``ev_lo``, ``ev_hi``, ``bonus_ev``: the
    axis says "bonus included" only when some set earns a bonus)."""
    fig, ax, _ = chart_axes(ax, meta)
    df = sets.head(top).iloc[::-1]
    ev = df["ev"].to_numpy(float)
    y = np.arange(len(df))
    ax.barh(y, ev, color="tab:green", alpha=0.7)
    err = interval_error(df)
    if err is not None:
        ax.errorbar(ev, y, xerr=err, fmt="none", ecolor="black", capsize=3)
    ax.set_yticks(y, [f"lanes {s}" for s in df["lanes"]])
    bonus = "bonus_ev" in sets and bool((sets["bonus_ev"].to_numpy(float) != 0).any())
    ax.set_xlabel(f"expected points per race{', bonus included' if bonus else ''} (points)")
    ax.set_ylabel("set of bets")
    ax.set_title(f"Best {len(df)} sets of bets by EV")
    return fig


def fair_payoff_chart(fair: pd.DataFrame, *, ax=None, meta=None):
    """Fair versus printed payoffs per lane (``fair_payoff_table`` columns ``stage``,
    ``place``, ``lane``, ``printed``, ``fair``): solid = printed, dashed = fair."""
    fig, ax, _ = chart_axes(ax, meta)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, ((stage, place), grp) in enumerate(fair.groupby(["stage", "place"], sort=False)):
        c = colours[i % len(colours)]
        label = f"{stage} {PLACE_LABELS.get(place, place)}"
        ax.plot(grp["lane"], grp["printed"], marker="o", color=c, label=f"{label} printed")
        ax.plot(grp["lane"], grp["fair"], marker="x", ls="--", color=c, label=f"{label} fair")
    ax.set_yscale("log")
    ax.set_xlabel("lane")
    ax.set_ylabel("payoff (points, log scale)")
    ax.set_xticks(sorted(fair["lane"].unique()))
    ax.set_title("Fair (same mean EV) vs printed payoffs")
    legend_outside(ax)
    return fig


def card_strength_chart(cards: pd.DataFrame, *, ax=None, meta=None):
    """P(win) and P(top 3) per card with 95% intervals and the equal-card reference
    (``card_strength_table``); cards flagged over/under-powered are marked ▲/▼."""
    fig, ax, _ = chart_axes(ax, meta, (7, 5))
    y = np.arange(len(cards))
    for col, colour, ref, off in (("p_win", "tab:orange", 1 / 6, -0.15), ("p_top3", "tab:purple", 0.5, 0.15)):
        v = cards[col].to_numpy(float)
        err = np.vstack([v - cards[f"{col}_lo"].to_numpy(float), cards[f"{col}_hi"].to_numpy(float) - v])
        label = "P(win)" if col == "p_win" else "P(top 3)"
        ax.errorbar(v, y + off, xerr=err, fmt="o", color=colour, capsize=3, label=label)
        ax.axvline(ref, color=colour, ls=":", lw=1)
    marks = {"over": "▲", "under": "▼", "": "·"}
    labels = [f"{c} {marks[fw]}{marks[ft]}"
              for c, fw, ft in zip(cards["card"], cards["flag_win"], cards["flag_top3"], strict=True)]
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("probability per race the card runs in (dotted: equal cards)")
    ax.set_ylabel("card (win, top-3 flags: ▲ over, ▼ under; Holm + effect size)")
    ax.set_title("Card strength over random deals")
    legend_outside(ax, fontsize=8)
    return fig
