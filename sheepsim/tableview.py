"""How a table is shown to people: the report's pages and the CLI's ``table`` format.

One rule for both, so a number reads the same everywhere (CSV and JSON files keep every
column and every digit):

* an estimate ``x`` with its 95% interval ``x_lo``/``x_hi`` (or a ``lo``/``hi`` pair
  right after it) becomes one column ``x (95% CI)`` reading ``0.2632 [0.2605, 0.2660]``.
  Its decimals come from the column's intervals: two significant digits of the typical
  half-width, at least one of the narrowest, and more if rounding would still merge
  ``lo``, ``x`` or ``hi``, so an interval never looks empty. An interval of zero width
  everywhere (an exact result) is not shown;
* p-values (column names containing ``pvalue``): 3 significant digits, scientific below
  0.001 (``2.0e-102``), and ``< 1e-300`` where the computation underflowed to 0;
* whole numbers without decimals; probabilities and shares (``p_*``, ``*rate``,
  ``*share*``) 4 decimals; anything else 2 significant digits of its smallest value,
  with 2 to 4 decimals; one format per column, so cells line up;
* a ``x_raw`` column (the plain value beside a corrected ``x``) takes ``x``'s decimals,
  and so does a column a table names in ``df.attrs["decimals_of"]`` (``{column: x}``:
  a value in ``x``'s units, such as ``tune``'s objectives); estimates a table names
  together in ``df.attrs["same_decimals"]`` (groups: ``compare``'s ``a`` and ``b``) take
  one decimals, the rule's over all their values, so they read side by side;
* standard errors (``*_se``), constant ``games``/``seed`` columns (the header says them)
  and columns with no value at all are left out; a ``note`` column that says the same on
  every row is shown once under the table;
* a table wider than the page loses columns from the right, never the ones the caller
  must show, and says how many it hides; a column of sentences the table names in
  ``df.attrs["wrap"]`` (``metrics``' ``meaning``) is wrapped onto more lines instead,
  in the CLI's text table.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: p-values that underflowed to 0 are at least this small (doubles end near 1e-308)
PVALUE_FLOOR_TEXT = "< 1e-300"
MAX_DECIMALS = 8
HIDE_IF_CONSTANT = ("games", "seed")  # the study header / CLI meta line says them
PROBABILITY_PREFIXES = ("p_", "win_rate", "fair_share", "chosen_per")
#: the narrowest a wrapped column (``df.attrs["wrap"]``) gets, whatever the width
MIN_WRAP = 24


def is_pvalue(name: str) -> bool:
    return "pvalue" in str(name).lower()


def is_probability(name: str) -> bool:
    name = str(name)
    return (name == "p" or name.startswith(PROBABILITY_PREFIXES) or name.endswith("rate")
            or "share" in name) and not is_pvalue(name)


def fmt_pvalue(p) -> str:
    """``0.339``, ``0.00167``, ``2.0e-102``; ``< 1e-300`` for a p that underflowed to 0."""
    if p is None or pd.isna(p):
        return ""
    p = float(p)
    if p <= 0.0:
        return PVALUE_FLOOR_TEXT
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.1e}"


def p_is(p) -> str:
    """``p`` for a sentence: ``p = 0.0016``, ``p = 3.0e-22``, ``p < 1e-300``."""
    text = fmt_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, never ``-0.00``."""
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and float(text) == 0.0:
        text = text[1:]
    return text


def _decimals_for(half: float, sig: int) -> int:
    """Decimals that show ``sig`` significant digits of the half-width ``half`` > 0."""
    return min(MAX_DECIMALS, max(0, sig - 1 - math.floor(math.log10(half))))


def interval_decimals(x, lo, hi, *, sig: int = 2, scale: float = 1.0) -> int | None:
    """Decimals for estimates ``x`` with intervals ``[lo, hi]`` (arrays, shown times
    ``scale``, e.g. 100 for percentages): ``sig`` significant digits of the typical
    (median) positive half-width and at least one of the narrowest, raised until
    rounding keeps every ``lo < x < hi`` apart. None if no interval has any width."""
    x, lo, hi = (np.asarray(a, dtype=float).ravel() * scale for a in (x, lo, hi))
    half = (hi - lo) / 2.0
    ok = np.isfinite(half) & (half > 0) & np.isfinite(x)
    if not ok.any():
        return None
    d = max(_decimals_for(float(np.median(half[ok])), sig), _decimals_for(float(half[ok].min()), 1))
    x, lo, hi = x[ok], lo[ok], hi[ok]
    while d < MAX_DECIMALS and (np.any((lo < x) & (np.round(lo, d) == np.round(x, d)))
                                or np.any((x < hi) & (np.round(x, d) == np.round(hi, d)))):
        d += 1
    return d


def fmt_estimate(x: float, lo: float, hi: float, *, percent: bool = False,
                 sig: int = 1) -> tuple[str, str, str]:
    """An estimate and its interval for a sentence, with the same decimals (``sig``
    significant digits of the half-width, at least 1 decimal for percentages):
    ``("26.3%", "25.8%", "26.9%")``."""
    scale, unit = (100.0, "%") if percent else (1.0, "")
    d = interval_decimals([x], [lo], [hi], sig=sig, scale=scale)
    if d is None:
        d = 1 if percent else 2
    if percent:
        d = max(d, 1)
    return tuple(fmt_fixed(v * scale, d) + unit for v in (x, lo, hi))


def fmt_points(x: float, lo: float, hi: float, *, signed: bool = False) -> tuple[str, str, str]:
    """A difference of two rates and its interval in percentage points, for a sentence
    that ends the first with " percentage points": ``("+19.3", "17.1", "21.5")``
    (``signed``: a ``+`` on a positive estimate). Never "%": 20% to 25% is +5 points,
    not +5% (which would be 21%)."""
    x, lo, hi = (v.rstrip("%") for v in fmt_estimate(x, lo, hi, percent=True))
    if signed and not x.startswith("-") and float(x) != 0:
        x = "+" + x
    return x, lo, hi


def paired_change(row, what: str, *, rate: bool = False, test: str = "") -> str:
    """``"its win rate by -4.2 percentage points (95% -4.8 to -3.6; McNemar p = 6e-38)"``
    from a head-to-head ``comparison`` row (``diff``, ``diff_lo``, ``diff_hi``,
    ``pvalue``): a difference of two rates is in percentage points, not percent."""
    if rate:
        x, lo, hi = fmt_points(row["diff"], row["diff_lo"], row["diff_hi"])
    else:
        x, lo, hi = fmt_estimate(row["diff"], row["diff_lo"], row["diff_hi"])
    unit = " percentage points" if rate else ""
    tested = f"; {test} {p_is(row['pvalue'])}" if test else ""
    return f"its {what} by {x}{unit} (95% {lo} to {hi}{tested})"


def intervals(names: list[str]) -> dict[str, tuple[str, str]]:
    """Which columns hold the 95% interval of which: ``x_lo``/``x_hi`` belong to ``x``;
    a pair whose prefix is not a column (``lo``/``hi``, ``points_lo``/``points_hi``)
    belongs to the column just before it (``win_rate``, ``mean_points``)."""
    out = {}
    for i, c in enumerate(names):
        if not (c == "lo" or c.endswith("_lo")) or i == 0:
            continue
        prefix = c[:-2]  # "" or "x_"
        if i + 1 >= len(names) or names[i + 1] != prefix + "hi":
            continue
        base = prefix[:-1] if prefix[:-1] in names else names[i - 1]
        if base not in out and base not in (c, prefix + "hi"):
            out[base] = (c, prefix + "hi")
    return out


def _floats(s: pd.Series) -> np.ndarray:
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _is_num(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _plain_format(s: pd.Series):
    """The cell formatter of a column without an interval."""
    name = str(s.name)
    if pd.api.types.is_bool_dtype(s) or not _is_num(s):
        return fmt_cell
    if is_pvalue(name):
        return fmt_pvalue
    v = _floats(s)
    v = v[np.isfinite(v)]
    if pd.api.types.is_integer_dtype(s) or (v.size and np.all(v == np.round(v))):
        return lambda x: fmt_cell(x, 0)
    if is_probability(name):
        return lambda x: fmt_cell(x, 4)
    nonzero = np.abs(v[v != 0])
    d = 2 if not nonzero.size else min(4, max(2, _decimals_for(float(nonzero.min()), 2)))
    return lambda x: fmt_cell(x, d)


def fmt_cell(value, decimals: int | None = None) -> str:
    """One cell: blank for missing, yes/no for booleans, whole numbers as such, floats
    with ``decimals`` (default 4)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        if not math.isfinite(value):
            return str(float(value))
        return fmt_fixed(float(value), 4 if decimals is None else decimals)
    return str(value)


@dataclass
class Column:
    """A shown column: its header, the frame column(s) behind it and how to format them."""

    header: str
    name: str
    cells: list[str]
    numeric: bool
    must: bool = False

    @property
    def width(self) -> int:
        return max([len(self.header)] + [len(c) for c in self.cells])


@dataclass
class TableView:
    """A table as people see it: ``headers``, ``rows`` of cell text, ``numeric`` per
    column, ``total`` columns there were to show as columns, ``hidden`` the ones left out
    for width; said once under the table instead of on every row: ``notes`` (a note
    column's one value) and ``constant`` columns (of a table too wide for them);
    ``wrap`` the headers of columns :func:`text_table` may wrap onto more lines."""

    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    total: int
    hidden: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a note column's one value
    constant: list[tuple[str, str]] = field(default_factory=list)  # (column, its one cell)
    wrap: list[str] = field(default_factory=list)  # headers of columns that may wrap

    @property
    def footer(self) -> list[str]:
        """The lines under the table: ``Note: ...`` and ``Every row: name = value, ...``."""
        lines = [f"Note: {n}" for n in self.notes]
        if self.constant:
            lines.append("Every row: " + ", ".join(f"{k} = {v}" for k, v in self.constant))
        return lines


def _empty(s: pd.Series) -> bool:
    return bool(s.isna().all() or (s.dtype == object and s.fillna("").astype(str).eq("").all()))


def reader_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``df`` without standard errors, constant ``games``/``seed``, empty columns and a
    constant ``note`` (returned as footer lines)."""
    drop = [c for c in HIDE_IF_CONSTANT if c in df and df[c].nunique(dropna=False) <= 1]
    drop += [c for c in df.columns if str(c).endswith("_se") or _empty(df[c])]
    footer = []
    for c in df.columns:
        if str(c) == "note" or str(c).endswith("_note"):
            values = df[c].fillna("").astype(str).unique()
            if len(values) == 1:
                drop.append(c)
                if values[0]:
                    footer.append(values[0])
    return df.drop(columns=list(dict.fromkeys(drop))), footer


def _columns(df: pd.DataFrame, fold: bool, decimals_of=None, together=()) -> list[Column]:
    """Every column of ``df`` as shown: intervals folded into their estimate (``fold``)
    or kept as their own columns with the estimate's decimals; ``decimals_of``
    ``{column: estimate}``: plain columns shown with an estimate's decimals;
    ``together``: groups of estimates shown with one decimals (over all their values)."""
    names = [str(c) for c in df.columns]
    df = df.set_axis(names, axis=1)
    ci = intervals(names)
    fmt = {c: _plain_format(df[c]) for c in names}
    folded = {}
    group_of = {str(c): [str(m) for m in g] for g in together for c in g}
    for base, (lo, hi) in ci.items():
        if not _is_num(df[base]):
            continue
        group = [c for c in group_of.get(base, [base]) if c in ci and _is_num(df[c])]
        d = interval_decimals(*(np.concatenate([_floats(df[k]) for k in cols])
                                for cols in (group, [ci[c][0] for c in group],
                                             [ci[c][1] for c in group])))
        if d is None:  # no width anywhere: an exact result, shown as the estimate alone
            fmt[lo] = fmt[hi] = None
            continue
        if any(is_probability(c) for c in group):
            d = max(d, 4)
        for c in (base, lo, hi, f"{base}_se"):
            fmt[c] = (lambda dd: lambda x: fmt_cell(x, dd))(d)
        folded[base] = (lo, hi)
        if f"{base}_raw" in fmt and _is_num(df[f"{base}_raw"]):  # the plain value beside it
            fmt[f"{base}_raw"] = fmt[base]
    for c, base in (decimals_of or {}).items():  # values in an estimate's units
        if c in fmt and base in folded and _is_num(df[c]):
            fmt[c] = fmt[base]
    recs = df.to_dict("records")
    inside = {c for pair in folded.values() for c in pair} if fold else set()
    cols = []
    for c in names:
        if c in inside or (fmt[c] is None and fold):
            continue
        f = fmt[c] or _plain_format(df[c])
        cells = [f(r[c]) for r in recs]
        header = c
        if fold and c in folded:
            lo, hi = folded[c]
            flo, fhi = fmt[lo], fmt[hi]
            # a row without an interval (an exact value beside sampled ones) shows the
            # value alone, never an empty "[, ]"
            cells = [t + f" [{flo(r[lo])}, {fhi(r[hi])}]" if t and flo(r[lo]) and fhi(r[hi]) else t
                     for t, r in zip(cells, recs, strict=True)]
            header = f"{c} (95% CI)"
        cols.append(Column(header, c, cells, _is_num(df[c])))
    return cols


def table_view(df: pd.DataFrame, *, wanted: list[str] | None = None, must_show=(),
               width: int | None = None, all_columns: bool = False) -> TableView:
    """``df`` for people. ``all_columns``: every column as it is (formatted, nothing
    folded or left out). Otherwise the reader's view (see the module docstring): only
    ``wanted`` (in that order; all if None) plus ``must_show``; then, while the text is
    wider than ``width`` characters (two between columns; None: no limit), columns that
    say the same on every row go to one line under the table, and then columns are left
    out from the right (never ``wanted``, ``must_show`` or ``pvalue``, never the first). A one-row
    table keeps every column (:func:`text_table` prints it as name-value lines). A table
    names its own must-show columns in ``df.attrs["must_show"]`` and its own notes (lines
    under it, in the table format and the report only) in ``df.attrs["notes"]`` (the CLI
    and the report both honour them), and the columns the text table may wrap in
    ``df.attrs["wrap"]``."""
    said = [str(n) for n in df.attrs.get("notes", ()) if n]  # the table's own notes
    like = dict(df.attrs.get("decimals_of", {}))
    together = df.attrs.get("same_decimals", ())
    wrap = [str(c) for c in df.attrs.get("wrap", ())]
    if all_columns:
        cols = _columns(df, fold=False, decimals_of=like, together=together)
        return TableView([c.header for c in cols], _rows(cols, len(df)),
                         [c.numeric for c in cols], len(cols), notes=said,
                         wrap=[c.header for c in cols if c.name in wrap])
    frame, notes = reader_frame(df)
    notes += said
    cols = _columns(frame, fold=True, decimals_of=like, together=together)
    # the caller's columns and the table's own test stay whatever the width
    must_show = [*must_show, *df.attrs.get("must_show", ())]
    must = set(map(str, must_show)) | set(map(str, wanted or ())) | {
        c.name for c in cols if c.name == "pvalue"}
    if wanted:
        chosen = [c for name in wanted for c in cols if c.name in (name, str(name))]
        chosen += [c for c in cols if c.name in must and c not in chosen]
    else:
        chosen = list(cols)
    for c in chosen:
        c.must = c.name in must

    def too_wide() -> bool:
        return width is not None and len(frame) > 1 and sum(c.width + 2 for c in chosen) - 2 > width

    same = [c for c in chosen[1:] if not c.must and len(set(c.cells)) == 1] if too_wide() else []
    chosen = [c for c in chosen if c not in same]
    while too_wide():
        droppable = [c for c in chosen[1:] if not c.must]
        if not droppable:
            break
        chosen.remove(droppable[-1])
    hidden = [c.name for c in cols if c not in chosen and c not in same]
    return TableView([c.header for c in chosen], _rows(chosen, len(frame)),
                     [c.numeric for c in chosen], len(cols) - len(same), hidden, notes,
                     [(c.name, c.cells[0]) for c in same],
                     [c.header for c in chosen if c.name in wrap])


def _rows(cols: list[Column], n: int) -> list[list[str]]:
    return [[c.cells[i] for c in cols] for i in range(n)]


def text_table(view: TableView, width: int | None = None, *, wrap_to: int | None = None) -> str:
    """The view as aligned plain text: numbers right-aligned, text left-aligned; a
    one-row table wider than ``width`` as one ``name  value`` line per column. A table
    wider than ``wrap_to`` (default ``width``) wraps its ``view.wrap`` columns onto more
    lines to fit (each at least :data:`MIN_WRAP` characters wide)."""
    if len(view.rows) == 1 and width is not None and \
            sum(max(len(h), len(v)) + 2 for h, v in zip(view.headers, view.rows[0], strict=True)) > width:
        w = max(len(h) for h in view.headers)
        return "\n".join(f"{h.ljust(w)}  {v}".rstrip()
                         for h, v in zip(view.headers, view.rows[0], strict=True))
    widths = [max([len(h)] + [len(r[i]) for r in view.rows])
              for i, h in enumerate(view.headers)]
    rows = [[[c] for c in r] for r in view.rows]  # each cell as its lines
    wrap_to = width if wrap_to is None else wrap_to
    wrap = [i for i, h in enumerate(view.headers) if h in view.wrap]
    if wrap and wrap_to is not None and sum(widths) + 2 * (len(widths) - 1) > wrap_to:
        rest = sum(w for i, w in enumerate(widths) if i not in wrap) + 2 * (len(widths) - 1)
        room = max(MIN_WRAP, (wrap_to - rest) // len(wrap))
        for i in wrap:
            for r in rows:
                r[i] = textwrap.wrap(r[i][0], room, break_on_hyphens=False) or [""]
            widths[i] = max([len(view.headers[i])] + [len(t) for r in rows for t in r[i]])

    def line(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w)
                         for c, w, num in zip(cells, widths, view.numeric, strict=True)).rstrip()

    out = [line(view.headers)]
    for r in rows:
        out += [line([c[k] if k < len(c) else "" for c in r]) for k in range(max(map(len, r)))]
    return "\n".join(out)


def fair_share_finding(df: pd.DataFrame, name, *, value: str, fair, pvalue: str, test: str,
                       what: str) -> str:
    """The key-finding sentence every game uses for a fairness table: the row furthest
    from its fair share (never a fixed row such as position 1), with its 95% interval
    and adjusted p-value. ``name(row)`` names the row; ``value`` a rate column with
    ``_lo``/``_hi``; ``fair`` a column or a number; ``pvalue`` the adjusted p-value
    column, described by ``test``; ``what`` the rate's words ("wins", "places in the top
    3")."""
    fair_values = df[fair] if isinstance(fair, str) else pd.Series(float(fair), index=df.index)
    row = df.loc[(df[value] - fair_values).abs().idxmax()]
    share = float(fair_values.loc[row.name])
    x, lo, hi = fmt_estimate(row[value], row[f"{value}_lo"], row[f"{value}_hi"], percent=True)
    return (f"{name(row)} is furthest from a fair share: {what} {x} (95% {lo} to {hi}; fair "
            f"share {share:.1%}; {test} {p_is(row[pvalue])}).")
