"""The report documents: a self-contained ``index.html`` and a ``report.md``.

The HTML has its CSS inline and every chart embedded as a base64 PNG (no ``src`` points
at a file or URL), a viewport meta tag and horizontally scrolling tables so it reads on
a phone; links to the CSV/SVG files next to it are plain relative ``href`` s. Neither
document carries a timestamp (the manifest records when); the header says how long the
simulations took, as the manifest does.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.game import get
from sheepsim.report.registry import Study, StudyResult
from sheepsim.tableview import table_view

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
th { text-align: left; white-space: normal; vertical-align: bottom; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td:not(.num) { white-space: normal; overflow-wrap: break-word; }
h1, h2, h3, p, li, figcaption, .meta, .caption { overflow-wrap: anywhere; }
img { max-width: 100%; height: auto; } figure { margin: 1rem 0; }
@media (max-width: 48rem) { .chart img { max-width: none; width: var(--narrow-width, 100%); } }
nav ul { padding-left: 1.2rem; } a { color: #2a6fb0; }
"""


#: on a screen narrower than 48rem a chart is drawn at this share of its pixel width at
#: least (its 8-point text about 8 px high), scrolling sideways in its own box
CHART_MIN_SCALE = 0.6


def _png_width(data: bytes) -> int:
    """A PNG's width in pixels (its IHDR chunk)."""
    return int.from_bytes(data[16:20], "big") if data[:8] == b"\x89PNG\r\n\x1a\n" else 0


@dataclass
class RenderedStudy:
    """A finished study as the documents show it: files are paths relative to the
    report folder (``tables``/``charts`` keyed by name)."""

    study: Study
    games: int
    result: StudyResult
    tables: dict[str, str] = field(default_factory=dict)  # name -> csv path
    charts: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # name -> (png, svg, png bytes)
    #: chart name -> caption when the study gives none (the chart's own title)
    chart_titles: dict[str, str] = field(default_factory=dict)

    def chart_caption(self, name: str) -> str:
        """The study's caption for chart ``name``, else the chart's title as a sentence."""
        caption = self.result.captions.get(name) or self.chart_titles.get(name, "")
        if not caption:
            caption = name.replace("_", " ").capitalize()
        return _full_stop(caption)


#: the page is at most 75rem wide, 1,168 px of text at 1,280 px; at the table's .85rem
#: font a digit (tabular figures) is about 8 px and a column's padding another 1.1rem
#: (18 px): a table wider than this many characters (2 per column for padding) would be
#: cut at the right edge of a 1,280 px window, so it loses columns from the right
PAGE_CHARACTERS = 125


@dataclass
class DisplayTable:
    """A table as the page shows it: ``headers``, ``rows`` of cell text, ``numeric`` per
    column, ``total`` columns the full table (the CSV) has after merging intervals, and
    ``footer`` lines said once under the table (``Note: ...``: a note that is the same on
    every row, of which ``notes`` are the texts; ``Every row: ...`` for columns that are)."""

    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    total: int
    footer: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the notes among the footer lines

    @property
    def note(self) -> str:
        if len(self.headers) < self.total:
            return (f"Showing {len(self.headers)} of {self.total} columns; the CSV has them all.")
        return ""


def quoted_columns(df: pd.DataFrame, texts) -> list[str]:
    """Columns of ``df`` whose name (one with an underscore, so it reads as a column
    name rather than a word) appears as a whole word in any of ``texts`` (a caption, a
    study's findings): what the page says must stay in view."""
    blob = "\n".join(t for t in texts if t)
    return [str(c) for c in df.columns
            if "_" in str(c) and re.search(rf"(?<![\w]){re.escape(str(c))}(?![\w])", blob)]


def display_table(df: pd.DataFrame, wanted: list[str] | None = None, must_show=(),
                  width: int | None = PAGE_CHARACTERS) -> DisplayTable:
    """``df`` for the page (:func:`sheepsim.tableview.table_view`): each ``x`` with
    ``x_lo``/``x_hi`` becomes one column ``x (95% CI)`` reading ``0.5525 [0.5504,
    0.5547]``; only the ``wanted`` columns (all if None) and the ``must_show`` ones;
    columns beyond the page width (never these) are left out and the note says so."""
    v = table_view(df, wanted=wanted, must_show=must_show, width=width)
    return DisplayTable(v.headers, v.rows, v.numeric, v.total, v.footer, v.notes)


def _full_stop(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def html_table(t: DisplayTable) -> str:
    e = html.escape
    if not t.headers:  # a table shown only as its CSV link
        return "".join(f'<p class="caption">{e(_full_stop(line))}</p>' for line in t.footer)
    # a header may wrap at its underscores and spaces (<wbr>), so a column is as wide as
    # its values, not its name: the widest tables (race cards) then fit 1280 px
    head = "".join(f"<th>{e(h).replace('_', '_<wbr>')}</th>" for h in t.headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{e(v)}</td>' if num else f"<td>{e(v)}</td>"
                         for v, num in zip(row, t.numeric, strict=True)) + "</tr>"
        for row in t.rows)
    below = "".join(f'<p class="caption">{e(_full_stop(line))}</p>' for line in t.footer)
    note = f'<p class="caption">{e(t.note)}</p>' if t.note else ""
    return (f'<div class="scroll" tabindex="0" role="region" aria-label="table (scrolls '
            f'sideways when wider than the page)"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{below}{note}")


def md_table(t: DisplayTable) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    if not t.headers:  # a table shown only as its CSV link
        return "\n".join(_full_stop(line) for line in t.footer)

    lines = ["| " + " | ".join(esc(h) for h in t.headers) + " |",
             "|" + "|".join("---:" if num else "---" for num in t.numeric) + "|"]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in t.rows]
    lines += [f"\n{_full_stop(line)}" for line in t.footer]
    if t.note:
        lines += ["", f"*{t.note}*"]
    return "\n".join(lines)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text.strip()) if s]


def _dedupe(lines: list[str]) -> list[str]:
    """``lines`` without sentences said already by an earlier line (a line left empty
    goes)."""
    seen: set[str] = set()
    out = []
    for line in lines:
        kept = [s for s in _sentences(line) if s.lower() not in seen]
        seen.update(s.lower() for s in kept)
        if kept:
            out.append(" ".join(kept))
    return out


class StudyView:
    """What the documents show of one study: its tables as :class:`DisplayTable`, its
    notes without repeats and without the table notes shown under their tables, and
    its key findings."""

    def __init__(self, r: RenderedStudy):
        res = r.result
        texts = list(res.notes) + list(res.key_findings or [])
        self.tables: dict[str, DisplayTable] = {}
        shown: list[str] = []  # table notes said under their tables
        for name, df in res.tables.items():
            if name in res.page_omit:
                continue
            must = list(res.must_show.get(name, []))
            must += quoted_columns(df, [res.captions.get(name, "")] + texts)
            rows = res.page_rows.get(name)
            if rows == 0:  # no rows on the page: the caption and a link to the CSV
                t = DisplayTable([], [], [], 0, [f"{len(df)} rows, in the CSV"])
            else:
                t = display_table(df if rows is None else df.head(rows), res.columns.get(name),
                                  must)
                if rows is not None and len(df) > rows:
                    t.footer.append(f"Showing the first {rows} of {len(df)} rows; the CSV has "
                                    "them all")
            self.tables[name] = t
            shown += t.notes
        # a bullet that only repeats a note now shown under its table goes
        self.notes = [n for n in _dedupe(res.notes) if not any(f in n for f in shown)]
        found = res.notes[:2] if res.key_findings is None else res.key_findings
        self.key_findings = _dedupe(found)


def key_findings(studies: list[RenderedStudy]) -> list[tuple[str, RenderedStudy]]:
    """The report's opening: each study's key findings (see
    :attr:`StudyResult.key_findings`; a sentence said twice in one study only once),
    with the study they link to, grouped by game (in the order games first appear) and
    never a method note (:attr:`StudyResult.methods`)."""
    out = [(line, r) for r in studies for line in StudyView(r).key_findings
           if line not in r.result.methods]
    order = list(dict.fromkeys(r.study.game for r in studies))
    return sorted(out, key=lambda pair: order.index(pair[1].study.game))


def game_title(game: str) -> str:
    """``"The Sheep Race"`` for ``"sheep-race"`` (the registry's titles)."""
    try:
        return get(game).title
    except SheepsimError:  # a study of a game outside the registry: its own name
        return game


def by_game(findings: list[tuple[str, RenderedStudy]]) -> list[tuple[str, list]]:
    """``[(game title, [(line, study), ...]), ...]`` in order."""
    groups: dict[str, list] = {}
    for line, r in findings:
        groups.setdefault(r.study.game, []).append((line, r))
    return [(game_title(g), lines) for g, lines in groups.items()]


def methods_notes(studies: list[RenderedStudy]) -> list[str]:
    """Every study's method notes, each said once for the report."""
    return list(dict.fromkeys(m for r in studies for m in r.result.methods))


def _param(value) -> str:
    """A study parameter as its config spells it (``false``, not ``False``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(map(_param, value))
    return str(value)


def study_meta_line(s: Study, games: int) -> str:
    """One line saying what produced a study's numbers."""
    bits = [s.type_name, f"rules {s.rules_label()} (SHA-256 {s.rules.sha256[:12]})"]
    if not s.exact:  # an exact study simulates nothing; its "method: exact" says so
        bits += [f"seed {s.seed}", f"{games:,} games"]
    if s.sampling.precision is not None:
        bits.append(f"precision target ±{s.sampling.precision:g} (max {s.sampling.max_games:,})")
    for key, value in s.params().items():
        if value in ([], None, ""):
            continue
        bits.append(f"{key.replace('_', ' ')}: {_param(value)}")
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
        out.append('<section id="key-findings">\n<h2>Key findings</h2>\n')
        for game, lines in by_game(findings):
            out.append(f"<h3>{e(game)}</h3>\n<ul>\n" + "".join(
                f'<li>{e(line)} <a href="#{e(r.study.name)}">({e(r.study.title)})</a></li>\n'
                for line, r in lines) + "</ul>\n")
        out.append("</section>\n")
    methods = methods_notes(studies)
    if methods:
        out.append('<section id="methods">\n<h2>Methods</h2>\n<ul>\n' + "".join(
            f"<li>{e(m)}</li>\n" for m in methods) + "</ul>\n</section>\n")
    out.append("<nav><h2>Studies</h2><ul>\n" + "".join(
        f'<li><a href="#{e(r.study.name)}">{e(r.study.title)}</a></li>\n' for r in studies)
        + "</ul></nav>\n")
    for r in studies:
        s, view = r.study, StudyView(r)
        out.append(f'<section id="{e(s.name)}">\n<h2>{e(s.title)}</h2>\n'
                   f'<p class="meta">{e(study_meta_line(s, r.games))}</p>\n')
        if view.notes:
            out.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in view.notes) + "</ul>\n")
        for name, t in view.tables.items():
            caption = r.result.captions.get(name, "")
            out.append(f"<h3>{e(name.replace('_', ' '))}</h3>\n")
            if caption:
                out.append(f'<p class="caption">{e(caption)}</p>\n')
            out.append(html_table(t) + "\n")
            out.append(f'<p class="meta"><a href="{e(r.tables[name])}">CSV</a></p>\n')
        omitted = [n for n in r.result.page_omit if n in r.tables]
        if omitted:  # left off the page, never out of the report
            out.append('<p class="meta">CSV only: ' + ", ".join(
                f'<a href="{e(r.tables[n])}">{e(n.replace("_", " "))}</a>' for n in omitted)
                + "</p>\n")
        for name, (png, svg, data) in r.charts.items():
            caption = r.chart_caption(name)
            b64 = base64.b64encode(data).decode("ascii")
            # on a narrow screen a chart keeps at least CHART_MIN_SCALE of its size (its
            # text readable) and scrolls sideways in its own box, not the page
            wide = round(_png_width(data) * CHART_MIN_SCALE)
            out.append(f'<figure><div class="scroll chart" tabindex="0" role="region" '
                       f'aria-label="chart (scrolls sideways on a narrow screen)">'
                       f'<img src="data:image/png;base64,{b64}" alt="{e(caption)}"'
                       + (f' style="--narrow-width: {wide}px"' if wide else "") + '></div>'
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
        for game, lines in by_game(findings):
            out += [f"### {game}", ""]
            out += [f"- {line} ([{r.study.title}](#{r.study.name}))" for line, r in lines] + [""]
    methods = methods_notes(studies)
    if methods:
        out += ["## Methods", ""] + [f"- {m}" for m in methods] + [""]
    for r in studies:
        s, view = r.study, StudyView(r)
        out += [f'<a id="{s.name}"></a>', "", f"## {s.title}", "",
                f"*{study_meta_line(s, r.games)}*", ""]
        out += [f"- {n}" for n in view.notes] + ([""] if view.notes else [])
        for name, t in view.tables.items():
            out += [f"### {name.replace('_', ' ')}", ""]
            if name in r.result.captions:
                out += [r.result.captions[name], ""]
            out += [md_table(t), "", f"[CSV]({r.tables[name]})", ""]
        omitted = [n for n in r.result.page_omit if n in r.tables]
        if omitted:  # left off the page, never out of the report
            out += ["CSV only: " + ", ".join(f"[{n.replace('_', ' ')}]({r.tables[n]})"
                                            for n in omitted), ""]
        for name, (png, svg, _) in r.charts.items():
            out += [f"![{r.chart_caption(name)}]({png})", "", f"[SVG]({svg})", ""]
    return "\n".join(out).rstrip() + "\n"


def duration_text(seconds: float) -> str:
    """``"42.3 s"``, ``"3 min 12 s"`` or ``"1 h 05 min"``."""
    if seconds < 59.95:  # what would print as 60.0 s is 1 min 0 s
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
