"""The report documents: a self-contained ``index.html`` and a ``report.md``.

The HTML has its CSS inline and every chart embedded as a base64 PNG (no ``src`` points
at a file or URL), a viewport meta tag and horizontally scrolling tables so it reads on
a phone; links to the CSV/SVG files next to it are plain relative ``href`` s. Neither
document carries a timestamp (the manifest records when and how long).
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sheepsim.report.registry import Study, StudyResult

CSS = """
:root { color-scheme: light dark; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; line-height: 1.45;
       margin: 0 auto; padding: 0 1rem 3rem; max-width: 75rem; }
h1 { font-size: 1.6rem; margin-top: 1.5rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem;
  border-bottom: 1px solid #8884; } h3 { font-size: 1.05rem; margin-bottom: .3rem; }
.meta, .caption, figcaption { color: #777; font-size: .88rem; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .4rem 0;
  background: linear-gradient(to right, Canvas 30%, #0000),
    linear-gradient(to left, Canvas 30%, #0000) right,
    radial-gradient(farthest-side at 0 50%, #0003, #0000),
    radial-gradient(farthest-side at 100% 50%, #0003, #0000) right;
  background-repeat: no-repeat; background-size: 2rem 100%, 2rem 100%, .8rem 100%, .8rem 100%;
  background-attachment: local, local, scroll, scroll; }
#key-findings li { margin: .25rem 0; }
table { border-collapse: collapse; font-size: .85rem; white-space: nowrap; }
th, td { padding: .25rem .55rem; border-bottom: 1px solid #8883; }
th { text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; height: auto; } figure { margin: 1rem 0; }
nav ul { padding-left: 1.2rem; } a { color: #2a6fb0; }
"""

HIDE_IF_CONSTANT = ("games", "seed")  # shown once in the study's header instead


@dataclass
class RenderedStudy:
    """A finished study as the documents show it: files are paths relative to the
    report folder (``tables``/``charts`` keyed by name)."""

    study: Study
    games: int
    result: StudyResult
    tables: dict[str, str] = field(default_factory=dict)  # name -> csv path
    charts: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # name -> (png, svg, png bytes)


#: more display columns than this: the page shows the first ones and says so
MAX_SHOWN_COLUMNS = 10
PROBABILITY_PREFIXES = ("p_", "win_rate", "share", "fair_share", "chosen_per")


def _decimals(series: pd.Series) -> int | str:
    """How a float column is shown, one rule for the whole report so cells line up and
    tables agree: probabilities and shares 4 decimals, p-values 3 significant digits
    (``"g"``), whole numbers 0, everything else 2 (the CSV files keep every digit)."""
    name = str(series.name)
    v = series.to_numpy(dtype=float, na_value=np.nan)
    v = v[np.isfinite(v)]
    if name.startswith("pvalue") or name in ("p", "pvalue"):
        return "g"
    if name.startswith(PROBABILITY_PREFIXES) or name in ("lo", "hi"):
        return 4
    if v.size and np.all(v == np.round(v)):
        return 0
    return 2


def fmt_cell(value, decimals: int | str | None) -> str:
    """A table cell for people (CSV files keep every digit)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        if decimals == "g":
            return f"{float(value):.3g}"
        return f"{float(value):.{4 if decimals is None else decimals}f}"
    return str(value)


def display_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Columns worth a reader's eye: no constant ``games``/``seed`` (the study header
    says them) and no standard errors (the interval is shown)."""
    drop = [c for c in HIDE_IF_CONSTANT if c in df and df[c].nunique(dropna=False) <= 1]
    drop += [c for c in df.columns if str(c).endswith("_se")]
    return df.drop(columns=drop)


def _is_num(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


@dataclass
class DisplayTable:
    """A table as the page shows it: ``headers``, ``rows`` of cell text, ``numeric`` per
    column, and ``total`` columns the full table (the CSV) has after merging intervals."""

    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    total: int

    @property
    def note(self) -> str:
        if len(self.headers) < self.total:
            return (f"Showing {len(self.headers)} of {self.total} columns; the CSV has them all.")
        return ""


def _intervals(names: list[str]) -> dict[str, tuple[str, str]]:
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


def display_table(df: pd.DataFrame, wanted: list[str] | None = None) -> DisplayTable:
    """``df`` for the page: each ``x`` with ``x_lo``/``x_hi`` becomes one column
    ``x (95% CI)`` reading ``0.5525 [0.5504, 0.5547]``; only the ``wanted`` columns (all if
    None), at most :data:`MAX_SHOWN_COLUMNS`."""
    df = display_frame(df)
    dec = {c: _decimals(df[c]) if pd.api.types.is_float_dtype(df[c]) else None for c in df.columns}
    ci = _intervals([str(c) for c in df.columns])
    inside = {b for pair in ci.values() for b in pair}
    columns = [(f"{c} (95% CI)" if c in ci else c, c) for c in map(str, df.columns)
               if c not in inside]
    total = len(columns)
    if wanted:
        columns = [col for name in wanted for col in columns if col[1] == name]
    columns = columns[:MAX_SHOWN_COLUMNS]

    def cell(rec, c):
        text = fmt_cell(rec[c], dec[c])
        if c in ci and text:
            lo, hi = ci[c]
            text += f" [{fmt_cell(rec[lo], dec[c])}, {fmt_cell(rec[hi], dec[c])}]"
        return text

    rows = [[cell(rec, c) for _, c in columns] for rec in df.to_dict("records")]
    numeric = [_is_num(df[c]) for _, c in columns]
    return DisplayTable([h for h, _ in columns], rows, numeric, total)


def html_table(df: pd.DataFrame, wanted: list[str] | None = None) -> str:
    t = display_table(df, wanted)
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in t.headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{e(v)}</td>' if num else f"<td>{e(v)}</td>"
                         for v, num in zip(row, t.numeric, strict=True)) + "</tr>"
        for row in t.rows)
    note = f'<p class="caption">{e(t.note)}</p>' if t.note else ""
    return (f'<div class="scroll" tabindex="0" role="region" aria-label="table (scrolls '
            f'sideways when wider than the page)"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{note}")


def md_table(df: pd.DataFrame, wanted: list[str] | None = None) -> str:
    t = display_table(df, wanted)

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in t.headers) + " |",
             "|" + "|".join("---:" if num else "---" for num in t.numeric) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"*{t.note}*"]
    return "\n".join(lines)


def key_findings(studies: list[RenderedStudy]) -> list[tuple[str, RenderedStudy]]:
    """The report's opening: each study's key findings (see
    :attr:`StudyResult.key_findings`), with the study they link to."""
    out = []
    for r in studies:
        found = r.result.key_findings
        out += [(line, r) for line in (r.result.notes[:2] if found is None else found)]
    return out


def study_meta_line(s: Study, games: int) -> str:
    """One line saying what produced a study's numbers."""
    bits = [s.type_name, f"rules {s.rules_label()} (SHA-256 {s.rules.sha256[:12]})",
            f"seed {s.seed}", f"{games:,} games"]
    if s.sampling.precision is not None:
        bits.append(f"precision target ±{s.sampling.precision:g} (max {s.sampling.max_games:,})")
    for key, value in s.params().items():
        if value in ([], None, ""):
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        bits.append(f"{key.replace('_', ' ')}: {shown}")
    return " · ".join(bits)


def render_html(title: str, header: list[str], studies: list[RenderedStudy]) -> str:
    e = html.escape
    out = ['<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
           '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
           f"<title>{e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
           f"<h1>{e(title)}</h1>\n"]
    out += [f'<p class="meta">{e(line)}</p>\n' for line in header]
    findings = key_findings(studies)
    if findings:
        out.append('<section id="key-findings">\n<h2>Key findings</h2>\n<ul>\n' + "".join(
            f'<li>{e(line)} <a href="#{e(r.study.name)}">({e(r.study.title)})</a></li>\n'
            for line, r in findings) + "</ul>\n</section>\n")
    out.append("<nav><h2>Studies</h2><ul>\n" + "".join(
        f'<li><a href="#{e(r.study.name)}">{e(r.study.title)}</a></li>\n' for r in studies)
        + "</ul></nav>\n")
    for r in studies:
        s = r.study
        out.append(f'<section id="{e(s.name)}">\n<h2>{e(s.title)}</h2>\n'
                   f'<p class="meta">{e(study_meta_line(s, r.games))}</p>\n')
        if r.result.notes:
            out.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in r.result.notes) + "</ul>\n")
        for name, df in r.result.tables.items():
            caption = r.result.captions.get(name, "")
            out.append(f"<h3>{e(name.replace('_', ' '))}</h3>\n")
            if caption:
                out.append(f'<p class="caption">{e(caption)}</p>\n')
            out.append(html_table(df, r.result.columns.get(name)) + "\n")
            out.append(f'<p class="meta"><a href="{e(r.tables[name])}">CSV</a></p>\n')
        for name, (png, svg, data) in r.charts.items():
            caption = r.result.captions.get(name, name.replace("_", " "))
            b64 = base64.b64encode(data).decode("ascii")
            out.append(f'<figure><img src="data:image/png;base64,{b64}" alt="{e(caption)}">'
                       f'<figcaption>{e(caption)} (<a href="{e(png)}">PNG</a>, '
                       f'<a href="{e(svg)}">SVG</a>)</figcaption></figure>\n')
        out.append("</section>\n")
    out.append("</main>\n</body>\n</html>\n")
    return "".join(out)


def render_markdown(title: str, header: list[str], studies: list[RenderedStudy]) -> str:
    out = [f"# {title}", ""]
    out += [f"{line}  " for line in header] + [""]
    findings = key_findings(studies)
    if findings:
        out += ["## Key findings", ""]
        out += [f"- {line} ([{r.study.title}](#{r.study.name}))" for line, r in findings] + [""]
    for r in studies:
        s = r.study
        out += [f'<a id="{s.name}"></a>', "", f"## {s.title}", "",
                f"*{study_meta_line(s, r.games)}*", ""]
        out += [f"- {n}" for n in r.result.notes] + ([""] if r.result.notes else [])
        for name, df in r.result.tables.items():
            out += [f"### {name.replace('_', ' ')}", ""]
            if name in r.result.captions:
                out += [r.result.captions[name], ""]
            out += [md_table(df, r.result.columns.get(name)), "", f"[CSV]({r.tables[name]})", ""]
        for name, (png, svg, _) in r.charts.items():
            caption = r.result.captions.get(name, name.replace("_", " "))
            out += [f"![{caption}]({png})", "", f"[SVG]({svg})", ""]
    return "\n".join(out).rstrip() + "\n"
