"""``sheepsim report``: batch reports of several studies from a TOML config.

``sheepsim report [CONFIG.toml] --out DIR [--resume] [--quiet] [--no-charts] [--threads K]
[--scheduler ADDRESS | --workers N]`` writes
``index.html`` (self-contained), ``report.md``, every table as CSV, every chart as PNG
and SVG (none with ``--no-charts``), and ``manifest.json`` into DIR. Without a config
it runs the shipped default study of all three games (``default.toml``). See
:mod:`.config` for the config schema, :mod:`.outdir` for when an out folder may be
(re)written, and :mod:`.execute` for checkpoints and ``--resume``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sheepsim.options import add_backend_options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the top-level ``report`` command."""
    p = subparsers.add_parser(
        "report", help="run a batch of studies into an HTML/Markdown/CSV report folder",
        description="Run the studies listed in CONFIG (default: the shipped study of all three "
                    "games) and write a self-contained report folder.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_epilog)
    p.add_argument("config", nargs="?", metavar="CONFIG.toml",
                   help="report config (default: the shipped default study)")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder to write")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted report in DIR from its checkpoints")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars or study lines (the last line, with the time, stays)")
    p.add_argument("--no-charts", dest="charts", action="store_false",
                   help="tables (CSV) and documents only, no PNG/SVG charts: a faster batch "
                        "run with the same numbers")
    add_backend_options(p)
    p.set_defaults(func=cmd_report)


def _epilog() -> str:
    lines = ["study types (the config's `type`; every study also takes name, title, rules,",
             "seed, and games or precision + max_games [+ block]; a race-odds study solved",
             "exactly takes no seed or games; variants, sweep and tune take the game they",
             "study as game = \"race\"|\"panic\"|\"awsheep\", a fixed games count (variants,",
             "sweep) or a budget (tune), and the options of `sheepsim GAME variants|sweep|tune`):"]
    lines += [f"  {t:<18} {cls.summary}" for t, cls in _types().items()]
    lines += ["", "An out folder holding this config's report is restarted (or continued with",
              "--resume); one holding anything else is refused.",
              "", "A config's [run] table (scheduler, workers, threads) says where the games run;",
              "--threads/--scheduler/--workers override it. Results never depend on it."]
    return "\n".join(lines)


def _types() -> dict:
    from sheepsim.report import studies  # noqa: F401 - fills the registry
    from sheepsim.report.registry import STUDY_TYPES

    return dict(sorted(STUDY_TYPES.items()))


def cmd_report(args) -> int:
    import sys
    import time

    started = time.perf_counter()
    if args.charts:
        import matplotlib

        matplotlib.use("Agg")  # charts go to files; never needs a display

    from sheepsim.report.build import run_report
    from sheepsim.report.render import duration_text

    doc = run_report(args.config, args.out, resume=args.resume, quiet=args.quiet,
                     threads=args.threads, scheduler=args.scheduler, workers=args.workers,
                     charts=args.charts, worker_timeout=args.worker_timeout, started=started)
    # the one line a run ends with, --quiet or not: where the report is and how long it
    # took, the figure report.md's header gives (a report finished earlier: its own)
    took = doc.get("total_seconds", time.perf_counter() - started)
    print(f"report written to {Path(args.out) / 'index.html'} ({len(doc.get('files', []))} files) "
          f"in {duration_text(took)}", file=sys.stderr)
    return 0
