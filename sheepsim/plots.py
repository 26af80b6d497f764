"""Charts drawn from the analysis tables (both games).

Every chart function takes a DataFrame (the columns documented on the table function
named in its docstring), an optional ``ax`` to draw into and an optional ``meta``
(the run's metadata, for the footnote), and returns the Figure. Nothing is shown:
:func:`save_figure` writes PNG or SVG by file extension. The Agg backend is selected
before pyplot is imported, so charts render without a display (CI, servers).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from sheepsim.errors import SheepsimError  # noqa: E402
from sheepsim.output import atomic_write_bytes  # noqa: E402

FORMATS = {".png": "png", ".svg": "svg"}
#: matplotlib draws random SVG ids unless ``svg.hashsalt`` is set: with it, the same chart
#: gives the same bytes (the report's files and ``--plot``; the value the report has used)
SVG_SALT = "sheepsim-report"
PLACE_LABELS = {"first": "1st", "second": "2nd", "third": "3rd"}


# ------------------------------------------------------------------ figure plumbing
def check_plot_path(path) -> str:
    """The chart format for ``path`` (``png``/``svg``); a one-line error for any other
    extension or a missing folder. Call it before simulating."""
    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise SheepsimError(f"--plot {path}: the file name must end in .png or .svg")
    from sheepsim.output import check_output_file

    check_output_file(path, "--plot")
    return fmt


def footnote_text(meta: dict | None) -> str:
    """``games N · seed S · rules FILE`` (plus the stopping rule when there was one;
    ``exact · rules FILE`` for exact results)."""
    if not meta:
        return ""
    bits = ["exact"] if meta.get("method") == "exact" else []
    if "games" in meta:
        bits.append(f"games {meta['games']:,}")
    if "seed" in meta:
        bits.append(f"seed {meta['seed']}")
    if meta.get("precision"):
        bits.append(f"precision ±{meta['precision']} ({meta.get('stopped_by', '')})")
    if "rules" in meta:
        bits.append(f"rules {meta['rules']}")
    return " · ".join(bits)


def add_footnote(fig, meta: dict | None) -> None:
    text = footnote_text(meta)
    if text:
        # constrained layout ignores fig.text: keep a strip of ~0.25 inch free for it
        engine = fig.get_layout_engine()
        if engine is not None and hasattr(engine, "set"):
            strip = min(0.2, 0.25 / fig.get_figheight())
            engine.set(rect=(0, strip, 1, 1 - strip))
        fig.text(0.01, 0.005, text, fontsize=7, color="0.35", ha="left", va="bottom")


def chart_axes(ax, meta, size=(7, 4.5)):
    """``(fig, ax, created)``; a new figure gets the footnote."""
    if ax is not None:
        return ax.figure, ax, False
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    add_footnote(fig, meta)
    return fig, ax, True


def legend_outside(ax, handles=None, labels=None, *, twin: bool = False, **kw) -> None:
    """A legend to the right of the axes, never on the data (constrained layout makes
    room for it). ``twin``: the axes has a second y axis on the right, whose label the
    legend must clear."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    kw.setdefault("fontsize", 7)
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.16 if twin else 1.01, 1.0),
              borderaxespad=0.0, frameon=False, **kw)


def save_figure(fig, path) -> None:
    """Write ``fig`` to ``path`` as PNG or SVG (by extension), atomically, and close it."""
    import matplotlib as mpl

    fmt = check_plot_path(path)
    buf = io.BytesIO()
    with mpl.rc_context({"svg.hashsalt": SVG_SALT}):
        fig.savefig(buf, format=fmt, dpi=120, metadata={"Date": None} if fmt == "svg" else None)
    plt.close(fig)
    try:
        atomic_write_bytes(path, buf.getvalue())
    except OSError as exc:
        raise SheepsimError(f"--plot {path}: cannot write it ({exc.strerror or exc})") from None


def panel_figure(panels: list[Callable], meta: dict | None = None, title: str = "", ncols: int = 2):
    """One figure with a panel per ``draw(ax)`` callable (each a chart function bound to
    its table), a suptitle and a single footnote."""
    n = len(panels)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.6 * nrows), layout="constrained",
                             squeeze=False)
    for draw, ax in zip(panels, axes.flat, strict=False):
        draw(ax)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    if title:  # wrapped to the figure's width (a long title is otherwise cut at both edges)
        import textwrap

        fig.suptitle("\n".join(textwrap.wrap(title, int(11 * 6.5 * ncols))))
    fig.get_layout_engine().set(h_pad=0.15)
    add_footnote(fig, meta)
    return fig


# ------------------------------------------------------------------ The Sheep Race
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


def interval_error(df: pd.DataFrame, col: str = "ev", lo: str | None = None,
                   hi: str | None = None) -> np.ndarray | None:
    """``(2, n)`` distances from ``df[col]`` down to column ``lo`` and up to ``hi``
    (default ``{col}_lo``, ``{col}_hi``; matplotlib's error-bar ``yerr``/``xerr``), or None
    when every interval has zero width: exact results have no interval to draw."""
    v = df[col].to_numpy(float)
    err = np.vstack([v - df[lo or f"{col}_lo"].to_numpy(float),
                     df[hi or f"{col}_hi"].to_numpy(float) - v])
    return err if np.nanmax(err, initial=0.0) > 0 else None


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


def _seat_policies(table: pd.DataFrame) -> list[str] | None:
    """The policy each row's seat plays (``policy``, or ``bet_policy``/``pace_policy``
    joined as ``ev,greedy``), or None if the table does not say."""
    if "policy" in table:
        return [str(p) for p in table["policy"]]
    if "bet_policy" in table and "pace_policy" in table:
        return [f"{b},{p}" for b, p in zip(table["bet_policy"], table["pace_policy"], strict=True)]
    return None


def _seat_labels(table: pd.DataFrame, x: str) -> list[str]:
    """Tick labels: the seat (or turn order), then its policy one part a line
    (``ev-approx,greedy`` is two lines, so four seats' labels do not run into each other)."""
    pols = _seat_policies(table)
    names = [str(v) for v in table[x]]
    if pols is None:
        return names
    return ["\n".join([n, *p.split(",")]) for n, p in zip(names, pols, strict=True)]


def win_rate_chart(table: pd.DataFrame, *, x: str = "seat", value: str = "win_rate", ax=None, meta=None,
                   title: str = "Win rate by seat"):
    """Win rate with 95% intervals against the fair share ``1/n`` (``seat_table`` with
    ``x="seat"``, ``value="win_rate"``; ``first_player_table`` with ``x="turn_order"``,
    ``value="p_win"``)."""
    fig, ax, _ = chart_axes(ax, meta)
    xs = table[x].to_numpy()
    v = table[value].to_numpy(float)
    err = np.vstack([v - table[f"{value}_lo"].to_numpy(float), table[f"{value}_hi"].to_numpy(float) - v])
    ax.bar(xs, v, color="tab:cyan", alpha=0.7)
    ax.errorbar(xs, v, yerr=err, fmt="none", ecolor="black", capsize=4)
    ax.axhline(1 / len(table), color="black", ls=":", lw=1, label=f"fair share 1/{len(table)}")
    ax.set_xticks(xs, _seat_labels(table, x))
    ax.set_xlabel(x.replace("_", " ") + (" (policy)" if _seat_policies(table) else ""))
    ax.set_ylabel("win rate (share of games)")
    ax.set_title(title)
    legend_outside(ax, fontsize=8)
    return fig


def convergence_chart(trace: pd.DataFrame, *, ax=None, meta=None):
    """Estimate and 95% interval against games simulated (``Estimate.trace`` columns
    ``games``, ``quantity``, ``estimate``, ``lo``, ``hi``)."""
    fig, ax, _ = chart_axes(ax, meta)
    for name, grp in trace.groupby("quantity", sort=False):
        line, = ax.plot(grp["games"], grp["estimate"], marker=".", label=name)
        if len(grp) > 1:
            ax.fill_between(grp["games"], grp["lo"], grp["hi"], color=line.get_color(), alpha=0.2)
        else:  # one check (the first block was precise enough): a band of one point is invisible
            ax.errorbar(grp["games"], grp["estimate"], fmt="none", ecolor=line.get_color(),
                        yerr=interval_error(grp, "estimate", "lo", "hi"), capsize=4)
    if trace["games"].nunique() > 1 and trace["games"].max() >= 10 * trace["games"].min():
        ax.set_xscale("log")
    elif trace["games"].nunique() == 1:  # one check: one tick (an automatic axis crowds it)
        ax.set_xticks(trace["games"].unique(), [f"{int(g):,}" for g in trace["games"].unique()])
    ax.set_xlabel("games simulated (count)")
    ax.set_ylabel("estimate with 95% interval (probability)")
    ax.set_title("Convergence")
    legend_outside(ax)
    return fig


# ------------------------------------------------------------------ Shear Panic
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
    ax.set_xticks(x, _seat_labels(fields.assign(seat=[f"{s} {c}" for s, c in zip(
        fields["seat"], fields["colour"], strict=True)]), "seat"))
    ax.set_xlabel("seat (colour, policy)" if _seat_policies(fields) else "seat (colour)")
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


# ------------------------------------------------------------------ designers (every game)
def variants_chart(metrics: pd.DataFrame, metric: str, *, ax=None, meta=None):
    """One metric per rules variant with its 95% interval (the ``metrics`` table of
    ``variants``: ``variant``, ``metric``, ``value``, ``value_lo``, ``value_hi``,
    ``unit``); the base (first row) is drawn as a dotted line."""
    fig, ax, _ = chart_axes(ax, meta)
    rows = metrics[metrics["metric"] == metric]
    xs = np.arange(len(rows))
    ax.errorbar(xs, rows["value"], yerr=interval_error(rows, "value", "value_lo", "value_hi"),
                fmt="o", color="tab:blue", capsize=4)
    ax.axhline(rows["value"].iloc[0], color="black", ls=":", lw=1, label="base")
    ax.set_xticks(xs, [textwrap_label(v) for v in rows["variant"]], fontsize=7)
    ax.set_ylabel(f"{metric} ({rows['unit'].iloc[0]})")
    ax.set_title(metric)
    legend_outside(ax, fontsize=8)
    return fig


def textwrap_label(text: str, width: int = 18) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(str(text), width, break_on_hyphens=False)[:4])


def sweep_chart(sweep: pd.DataFrame, metric: str, keys: list[str], *, base: float | None = None,
                ax=None, meta=None):
    """One metric against the swept value with its 95% interval (the ``sweep`` table),
    ``base`` (the base rules' value) as a dotted line; for a grid of two keys a heatmap
    of the metric (values printed in the cells; no intervals)."""
    fig, ax, _ = chart_axes(ax, meta)
    rows = sweep[sweep["metric"] == metric]
    unit = rows["unit"].iloc[0]
    if len(keys) == 1:
        labels = [str(v) for v in rows[keys[0]]]
        xs = np.arange(len(rows))
        ax.errorbar(xs, rows["value"], yerr=interval_error(rows, "value", "value_lo", "value_hi"),
                    fmt="o-", color="tab:blue", capsize=4)
        ax.set_xticks(xs, labels)
        ax.set_xlabel(keys[0])
        ax.set_ylabel(f"{metric} ({unit})")
        if base is not None:
            ax.axhline(base, color="black", ls=":", lw=1, label="base rules")
            legend_outside(ax, fontsize=8)
    else:
        grid = rows.pivot_table(index=keys[0], columns=keys[1], values="value", sort=False)
        im = ax.imshow(grid.to_numpy(float), cmap="viridis", aspect="auto")
        ax.set_yticks(range(len(grid.index)), [str(v) for v in grid.index])
        ax.set_xticks(range(len(grid.columns)), [str(v) for v in grid.columns])
        ax.set_ylabel(keys[0])
        ax.set_xlabel(keys[1])
        values = grid.to_numpy(float)
        middle = np.nanmin(values) + (np.nanmax(values) - np.nanmin(values)) / 2
        for (i, j), v in np.ndenumerate(values):  # dark text on the light (high) cells
            ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=8,
                    color="black" if v > middle else "white")
        ax.figure.colorbar(im, ax=ax, label=f"{metric} ({unit})")
    ax.set_title(metric)
    return fig


def tune_chart(trials: pd.DataFrame, metric: str, *, base: float | None = None, ax=None, meta=None):
    """A balance search: one metric of every trial in the order the search proposed
    them (the ``trials`` table of ``tune``), the best so far as a line, ``base`` (the
    base rules' value) dotted."""
    from matplotlib.ticker import MaxNLocator

    fig, ax, _ = chart_axes(ax, meta)
    ax.plot(trials["trial"], trials[metric], "o", color="tab:blue", label="trial")
    obj = trials[f"objective_{metric}"].to_numpy(float)
    best = np.minimum.accumulate(np.where(np.isnan(obj), np.inf, obj))
    idx = [int(np.flatnonzero(obj == b)[0]) for b in best]
    ax.plot(trials["trial"], trials[metric].to_numpy(float)[idx], "-", color="tab:orange",
            label="best so far")
    if base is not None:
        ax.axhline(base, color="black", ls=":", lw=1, label="base rules")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trial (in the order proposed)")
    ax.set_ylabel(metric)
    ax.set_title(f"Search: {metric}")
    legend_outside(ax, fontsize=8)
    return fig
