"""Charts every game shares, and the helpers of every chart.

Every chart function takes a DataFrame (the columns documented on the table function
named in its docstring), an optional ``ax`` to draw into and an optional ``meta``
(the run's metadata, for the footnote), and returns the Figure. Nothing is shown:
:func:`save_figure` writes PNG or SVG by file extension. The Agg backend is selected
before pyplot is imported, so charts render without a display (CI, servers).

Here: the shared helpers (axes, footnote, legend, saving, panels), the charts of the
shared commands (win rate by seat, convergence) and the designers' charts (variants,
sweep, tune). Each game's own charts are in its folder: :mod:`sheepsim.games.race.plots`,
:mod:`sheepsim.games.panic.plots`, :mod:`sheepsim.games.awsheep.plots`.
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


def interval_error(df: pd.DataFrame, col: str = "ev", lo: str | None = None,
                   hi: str | None = None) -> np.ndarray | None:
    """``(2, n)`` distances from ``df[col]`` down to column ``lo`` and up to ``hi``
    (default ``{col}_lo``, ``{col}_hi``; matplotlib's error-bar ``yerr``/``xerr``), or None
    when every interval has zero width: exact results have no interval to draw."""
    v = df[col].to_numpy(float)
    err = np.vstack([v - df[lo or f"{col}_lo"].to_numpy(float),
                     df[hi or f"{col}_hi"].to_numpy(float) - v])
    return err if np.nanmax(err, initial=0.0) > 0 else None


def seat_policies(table: pd.DataFrame) -> list[str] | None:
    """The policy each row's seat plays (``policy``, or ``bet_policy``/``pace_policy``
    joined as ``ev,greedy``), or None if the table does not say."""
    if "policy" in table:
        return [str(p) for p in table["policy"]]
    if "bet_policy" in table and "pace_policy" in table:
        return [f"{b},{p}" for b, p in zip(table["bet_policy"], table["pace_policy"], strict=True)]
    return None


def seat_labels(table: pd.DataFrame, x: str) -> list[str]:
    """Tick labels: the seat (or turn order), then its policy one part a line
    (``ev-approx,greedy`` is two lines, so four seats' labels do not run into each other)."""
    pols = seat_policies(table)
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
    ax.set_xticks(xs, seat_labels(table, x))
    ax.set_xlabel(x.replace("_", " ") + (" (policy)" if seat_policies(table) else ""))
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


def ladder_chart(ladder: pd.DataFrame, *, ax=None, meta=None):
    """The skill ladder (``sheepsim <game> ladder``): each step's win-rate gain of a rung
    over the rung below with its 95% interval, and the top rung's over the bottom one
    (``skill_gradient``, hatched); a zero line."""
    fig, ax, _ = chart_axes(ax, meta)
    xs = np.arange(len(ladder))
    gain = ladder["gain"].to_numpy(float)
    top = (ladder["step"] == "skill_gradient").to_numpy()
    ax.bar(xs, gain, color=np.where(top, "tab:orange", "tab:cyan"), alpha=0.7,
           hatch=None)
    ax.errorbar(xs, gain, yerr=interval_error(ladder, "gain", "gain_lo", "gain_hi"), fmt="none",
                ecolor="black", capsize=4)
    ax.axhline(0, color="black", lw=0.8)
    labels = [("top over bottom\n" if t else "") + textwrap_label(f"{r} over {b}", 16)
              for r, b, t in zip(ladder["rung"], ladder["below"], top, strict=True)]
    ax.set_xticks(xs, labels, fontsize=7)
    ax.set_ylabel(f"win-rate gain at seat {int(ladder['seat'].iloc[0])}")
    ax.set_title("Skill ladder: each rung against the one below")
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


def variant_labels(variants, width: int = 16, longest: int = 40) -> tuple[list[str], str]:
    """Tick labels for rules variants: each wrapped, or ``V1, V2...`` when one is longer
    than ``longest`` characters; the second item is the key (``V1: ...``) to show beside
    the chart ("" when the labels are the variants themselves)."""
    variants = [str(v) for v in variants]
    if max((len(v) for v in variants), default=0) <= longest:
        return [textwrap_label(v, width) for v in variants], ""
    return ([f"V{k}" for k in range(1, len(variants) + 1)],
            "\n".join(f"V{k}: {v}" for k, v in enumerate(variants, 1)))


def variants_difference_chart(differences: pd.DataFrame, metric: str, *, ax=None, meta=None):
    """Each variant's paired difference to the base in one metric, with its 95% interval
    and a zero line (the ``differences`` table of ``variants``: ``variant``, ``metric``,
    ``diff``, ``diff_lo``, ``diff_hi``, ``exact``, ``unit``). The interval is the paired
    one, so it shows what the two variants do not share; an exact difference is drawn
    as a diamond without an interval. Long variant labels become V1, V2... with their key
    under the chart."""
    fig, ax, _ = chart_axes(ax, meta)
    rows = differences[differences["metric"] == metric].reset_index(drop=True)
    xs = np.arange(len(rows))
    exact = rows["exact"].astype(bool).to_numpy() if "exact" in rows else np.zeros(len(rows), bool)
    sim = ~exact
    if sim.any():
        part = rows[sim]
        ax.errorbar(xs[sim], part["diff"], yerr=interval_error(part, "diff", "diff_lo", "diff_hi"),
                    fmt="o", color="tab:blue", capsize=4, label="variant - base, 95% CI")
    if exact.any():
        ax.plot(xs[exact], rows["diff"][exact], "D", color="tab:green", label="exact")
    ax.axhline(0, color="black", lw=0.8, label="no change")
    labels, key = variant_labels(rows["variant"])
    ax.set_xticks(xs, labels, fontsize=7)
    if key:
        ax.set_xlabel(key, fontsize=7, loc="left")
    unit = rows["unit"].iloc[0] if len(rows) else ""
    ax.set_ylabel(f"difference to the base ({unit})")
    ax.set_title(f"{metric}: variant minus base")
    legend_outside(ax, fontsize=8)
    return fig


def textwrap_label(text: str, width: int = 18) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(str(text), width, break_on_hyphens=False)[:4])


def sweep_chart(sweep: pd.DataFrame, metric: str, keys: list[str], *, base: float | None = None,
                base_at=None, ax=None, meta=None):
    """One metric against the swept value with its 95% interval (the ``sweep`` table),
    ``base`` (the base rules' value) as a dotted line; for a grid of two keys a heatmap
    of the metric, each cell printed with its 95% half-width (``value ±h``; an exact
    value without it), the base rules' cell (``base_at``: the base's values of the two
    keys) outlined, or named under the chart when the grid does not hold it."""
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
        half = rows.assign(_h=(rows["value_hi"] - rows["value_lo"]) / 2).pivot_table(
            index=keys[0], columns=keys[1], values="_h", sort=False, dropna=False)
        half = half.reindex(index=grid.index, columns=grid.columns)
        im = ax.imshow(grid.to_numpy(float), cmap="viridis", aspect="auto")
        ax.set_yticks(range(len(grid.index)), [str(v) for v in grid.index])
        ax.set_xticks(range(len(grid.columns)), [str(v) for v in grid.columns])
        ax.set_ylabel(keys[0])
        ax.set_xlabel(keys[1])
        values = grid.to_numpy(float)
        halves = half.to_numpy(float)
        middle = np.nanmin(values) + (np.nanmax(values) - np.nanmin(values)) / 2
        for (i, j), v in np.ndenumerate(values):  # dark text on the light (high) cells
            h = halves[i, j]
            text = f"{v:.3g}" if not np.isfinite(h) or h == 0 else f"{v:.3g}\n±{h:.2g}"
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="black" if v > middle else "white")
        ax.figure.colorbar(im, ax=ax, label=f"{metric} ({unit})")
        if base_at is not None:
            rows_at = [i for i, v in enumerate(grid.index) if str(v) == str(base_at[0])]
            cols_at = [j for j, v in enumerate(grid.columns) if str(v) == str(base_at[1])]
            if rows_at and cols_at:
                from matplotlib.patches import Rectangle

                ax.add_patch(Rectangle((cols_at[0] - 0.5, rows_at[0] - 0.5), 1, 1, fill=False,
                                       edgecolor="red", lw=2.5, label="base rules"))
                legend_outside(ax, fontsize=8)
            else:
                shown = "" if base is None else f" = {base:.3g}"
                ax.annotate(f"base rules ({keys[0]}={base_at[0]}, {keys[1]}={base_at[1]}){shown}: "
                            "not in the grid", (0, -0.18), xycoords="axes fraction", fontsize=8,
                            va="top")
    ax.set_title(metric)
    return fig


def tune_chart(trials: pd.DataFrame, metric: str, *, key: str | None = None, base: float | None = None,
               base_at=None, ax=None, meta=None):
    """A balance search (the ``trials`` table of ``tune``). With ``key`` (a ``--vary``
    key): the metric of every candidate against its value of that key, with its 95%
    interval, so a plateau or a slope shows; the best candidate ringed; ``base`` (the
    base rules' value) a dotted line and ``base_at`` (the base's value of the key) a
    dotted mark. Without ``key``: the metric in the order the search proposed the
    trials, the best so far as a line."""
    from matplotlib.ticker import MaxNLocator

    fig, ax, _ = chart_axes(ax, meta)
    if key is not None:
        own = trials[trials["repeat_of"].isna()] if "repeat_of" in trials else trials
        own = own.sort_values(key)
        x = own[key].to_numpy(float)
        y = own[metric].to_numpy(float)
        lo, hi = (own[f"{metric}_lo"].to_numpy(float), own[f"{metric}_hi"].to_numpy(float)) \
            if f"{metric}_lo" in own else (y, y)
        err = np.vstack([np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)])
        ax.errorbar(x, y, yerr=np.where(np.isnan(err), 0, err), fmt="o", ms=4, color="tab:blue",
                    ecolor="tab:blue", elinewidth=1, capsize=2, label="candidate (95% interval)")
        obj = own[f"objective_{metric}"].to_numpy(float)
        if np.isfinite(obj).any():
            b = int(np.nanargmin(obj))
            ax.plot([x[b]], [y[b]], "o", ms=11, mfc="none", mec="tab:orange", mew=2,
                    label="best in the search")
        if base is not None:
            ax.axhline(base, color="black", ls=":", lw=1, label="base rules")
        if base_at is not None:
            try:
                ax.axvline(float(base_at), color="gray", ls=":", lw=1, label=f"base {key}")
            except (TypeError, ValueError):
                pass
        ax.set_xlabel(key)
        ax.set_ylabel(metric)
        ax.set_title(f"Search: {metric} against {key}")
        legend_outside(ax, fontsize=8)
        return fig
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


def pareto_chart(trials: pd.DataFrame, metrics: list[str], *, best: pd.DataFrame | None = None,
                 ax=None, meta=None):
    """Two targets of a balance search: every candidate (the ``trials`` table of
    ``tune``) at its two values, the Pareto front (the ``best`` table's ranked rows)
    joined in order, and the base rules (``best``'s ``base`` row) marked. Each axis is the
    metric itself; its objective (which way is better) is in the table."""
    fig, ax, _ = chart_axes(ax, meta)
    mx, my = metrics[:2]
    own = trials[trials["repeat_of"].isna()] if "repeat_of" in trials else trials
    ax.plot(own[mx].to_numpy(float), own[my].to_numpy(float), "o", ms=4, color="tab:blue", alpha=0.6,
            label="candidate")
    if best is not None:
        front = best[best["rank"] != "base"].sort_values(f"objective_{mx}")
        ax.plot(front[mx].to_numpy(float), front[my].to_numpy(float), "-o", ms=6, color="tab:orange",
                label="Pareto front")
        base = best[best["rank"] == "base"]
        if len(base):
            ax.plot(base[mx].to_numpy(float), base[my].to_numpy(float), "s", ms=8, color="black",
                    label="base rules")
    ax.set_xlabel(mx)
    ax.set_ylabel(my)
    ax.set_title(f"Search: {mx} against {my}")
    legend_outside(ax, fontsize=8)
    return fig


#: charts that moved to their game's folder, still importable from here (0.1.0 and the
#: README's first examples named them ``sheepsim.plots.lane_ev_chart``...)
_MOVED = {**dict.fromkeys(("lane_place_heatmap", "lane_ev_chart", "bet_sets_chart",
                           "fair_payoff_chart", "card_strength_chart", "PLACE_LABELS"),
                          "sheepsim.games.race.plots"),
          **dict.fromkeys(("points_by_field_chart", "tile_usage_chart", "PANIC_ID_COLUMNS"),
                          "sheepsim.games.panic.plots")}


def __getattr__(name: str):
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
