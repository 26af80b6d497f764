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
       margin: 0 auto; padding: 0 1rem 3rem; max-width: 62rem; }
h1 { font-size: 1.6rem; margin-top: 1.5rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem;
  border-bottom: 1px solid #8884; } h3 { font-size: 1.05rem; margin-bottom: .3rem; }
.meta, .caption, figcaption { color: #777; font-size: .88rem; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .4rem 0; }
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


def _decimals(series: pd.Series) -> int:
    """Decimals for a float column, chosen once per column so its cells line up:
    probabilities 4, whole numbers 0, otherwise by magnitude."""
    name = str(series.name)
    v = series.to_numpy(dtype=float, na_value=np.nan)
    v = v[np.isfinite(v)]
    if name.startswith(("p_", "win_rate", "share", "fair_share")) or name in ("lo", "hi"):
        return 4
    if v.size and np.all(v == np.round(v)):
        return 0
    big = float(np.abs(v).max()) if v.size else 0.0
    return 1 if big >= 100 else 2 if big >= 10 else 4


def fmt_cell(value, decimals: int | None) -> str:
    """A table cell for people (CSV files keep every digit)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):.{4 if decimals is None else decimals}f}"
    return str(value)


def _formats(df: pd.DataFrame) -> dict[str, int | None]:
    return {c: _decimals(df[c]) if pd.api.types.is_float_dtype(df[c]) else None for c in df.columns}


def display_frame(df: pd.DataFrame) -> pd.DataFrame:
    drop = [c for c in HIDE_IF_CONSTANT if c in df and df[c].nunique(dropna=False) <= 1]
    return df.drop(columns=drop)


def _is_num(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def html_table(df: pd.DataFrame) -> str:
    df = display_frame(df)
    num = {c: _is_num(df[c]) for c in df.columns}
    dec = _formats(df)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = []
    for rec in df.itertuples(index=False):
        cells = "".join(
            f'<td class="num">{html.escape(fmt_cell(v, dec[c]))}</td>' if num[c]
            else f"<td>{html.escape(fmt_cell(v, dec[c]))}</td>"
            for c, v in zip(df.columns, rec, strict=True))
        rows.append(f"<tr>{cells}</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def md_table(df: pd.DataFrame) -> str:
    df = display_frame(df)
    num = {c: _is_num(df[c]) for c in df.columns}
    dec = _formats(df)

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(str(c)) for c in df.columns) + " |",
             "|" + "|".join("---:" if num[c] else "---" for c in df.columns) + "|"]
    for rec in df.itertuples(index=False):
        lines.append("| " + " | ".join(esc(fmt_cell(v, dec[c])) for c, v in zip(df.columns, rec, strict=True))
                     + " |")
    return "\n".join(lines)


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
    out.append("<nav><ul>\n" + "".join(
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
            out.append(html_table(df) + "\n")
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
    for r in studies:
        s = r.study
        out += [f"## {s.title}", "", f"*{study_meta_line(s, r.games)}*", ""]
        out += [f"- {n}" for n in r.result.notes] + ([""] if r.result.notes else [])
        for name, df in r.result.tables.items():
            out += [f"### {name.replace('_', ' ')}", ""]
            if name in r.result.captions:
                out += [r.result.captions[name], ""]
            out += [md_table(df), "", f"[CSV]({r.tables[name]})", ""]
        for name, (png, svg, _) in r.charts.items():
            caption = r.result.captions.get(name, name.replace("_", " "))
            out += [f"![{caption}]({png})", "", f"[SVG]({svg})", ""]
    return "\n".join(out).rstrip() + "\n"
