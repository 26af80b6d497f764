"""``sheepsim <game> metrics|variants|sweep|tune``: what designers ask, for every game.

Written once here from the game contract: each game only declares its balance metrics
(:mod:`sheepsim.balance_metrics`). Every variant of a command is validated by the game's own
rules loader before any game is played (a bad key or value is one line naming it), and
every variant plays the same games (:class:`sheepsim.variant_runs.VariantsJob`), so a
difference to the base is measured on common random numbers.
"""

from __future__ import annotations

import itertools
import sys
import tomllib

from sheepsim import balance_metrics as M
from sheepsim.balance_metrics import game_options
from sheepsim.commands import (
    DESIGNER_COMMANDS,
    CommandSpec,
    _add_policy,
    players_type,
    role_policies,
    runner,
)
from sheepsim.errors import SheepsimError
from sheepsim.game import Game
from sheepsim.options import (
    EXIT_NO_WINNER,
    add_backend_options,
    add_output_options,
    game_count,
    non_negative_int,
    positive_int,
    publish,
)

#: the designers' commands, in ``--help`` order
COMMANDS = DESIGNER_COMMANDS
#: a sweep plays every point on every game: more points than this is a mistake
MAX_POINTS = 400
VARIANT_TABLES = ("metrics", "differences")
SWEEP_TABLES = ("sweep", "metrics", "differences")
TUNE_TABLES = ("best", "confirm", "trials")


def register(sub, g: Game) -> None:
    """Add the designers' commands to ``sheepsim <g.command>`` (games with metrics)."""
    p = sub.add_parser("metrics", help="the balance metrics variants, sweeps and tune report",
                       description=f"{g.title}: every balance metric with its meaning, unit, "
                                   "which way is better and the games it is measured on.")
    add_output_options(p)
    p.set_defaults(func=cmd_metrics, game_entry=g)

    p = sub.add_parser(
        "variants", help="rules variants side by side on the same games",
        description="Every variant (rules files, and --set edits of the base) plays the same "
                    "games (same seed: the same deals and dice wherever the rules leave them "
                    "compatible). For every metric: its value per variant with a 95% interval, "
                    "and the paired difference to the base (the first file, or the standard "
                    "rules) with its interval and p-value (Holm-adjusted across the variants), "
                    "beside the standard error two independent runs would have given. "
                    "Tables: " + ", ".join(VARIANT_TABLES) + ".",
        epilog=f"example: sheepsim {g.command} variants my.toml --set "
               f"{_example(g, 'set')}")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="rules files; the first is the base (default base: the standard rules)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE[;KEY=VALUE]",
                   dest="edits", help="a variant: the base with these edits (dotted keys as in "
                                      "error messages, arrays from 0); repeat for more variants")
    _common(p, g)
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser(
        "sweep", help="a metric grid over one or two rules keys",
        description="Every point of the grid (one key, or every pair of two keys' values) plays "
                    "the same games as the base rules; one row per point and metric with its "
                    "interval and the paired difference to the base. Tables: "
                    + ", ".join(SWEEP_TABLES) + ".",
        epilog=f"example: sheepsim {g.command} sweep --set {_example(g, 'sweep')}")
    p.add_argument("--rules", metavar="FILE", help="the base rules (default: the standard rules)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...", dest="axes",
                   required=True, help="a key and its values; twice for a grid of two keys")
    _common(p, g)
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "tune", help="search the rules space for variants that meet balance targets",
        description="A balance search: optuna proposes variants (TPE for one target, NSGA-II "
                    "for several), each measured on the same games as every other; with one "
                    "target the best candidates are then raced: the rest of the budget goes to "
                    "them in rounds of more games, most to those whose ranking is least settled "
                    "(OCBA). Then the winner and the base rules are played again on fresh "
                    "games the search never saw (the same seed, game indices past every game "
                    "the search played), as many for both and the same ones (--confirm-games): "
                    "the verdict, its p-value and interval come from those games only (table "
                    "confirm); table best holds the search-time values, measured on the games "
                    "the winner was selected on. Prints the best variants (the Pareto front for "
                    "several targets) with intervals, a winner at the end of a --vary range "
                    "flagged (column at_range_edge); --subject-to bounds are checked in the "
                    "search (an infeasible candidate is no winner) and on the confirmation "
                    "games; --out-rules writes the winner as a rules file only if the "
                    "confirmation backs it. Needs sheepsim[tune]. Tables: "
                    + ", ".join(TUNE_TABLES) + ".",
        epilog=f"example: sheepsim {g.command} tune --vary '{_example(g, 'vary')}' --target "
               f"{_example(g, 'target')} --budget 200000. Exit status: 0 done; 2 bad input "
               f"(nothing run); {EXIT_NO_WINNER} --out-rules was given but the winner was not "
               "confirmed (it did not beat the base rules on the confirmation games, broke a "
               "--subject-to bound, or no candidate did better in the search), so no file was "
               "written (the tables are printed as usual).")
    p.add_argument("--rules", metavar="FILE", help="the base rules (default: the standard rules)")
    p.add_argument("--vary", action="append", default=[], required=True, metavar="KEY=LO..HI[:STEP]",
                   help="a key and its range (whole numbers unless LO, HI or STEP has a point)")
    p.add_argument("--target", action="append", default=[], required=True,
                   metavar="METRIC=VALUE|min|max", help="what to reach; repeat for several")
    p.add_argument("--budget", type=game_count, required=True, metavar="GAMES",
                   help=f"{g.unit} to simulate in all (search and racing, every candidate; at least "
                        f"1,000 per trial and the base run: 42,000 for the default 24 trials with "
                        f"one target)")
    p.add_argument("--trials", type=positive_int, default=24, metavar="N",
                   help="candidates the search proposes (default 24)")
    p.add_argument("--finalists", type=positive_int, default=4, metavar="K",
                   help="candidates raced at the end (default 4)")
    p.add_argument("--subject-to", action="append", default=[], metavar="METRIC<=X|METRIC>=X",
                   help="a bound the winner must meet (its measured value): candidates that "
                        "break it are not winners, and a winner that breaks it on the "
                        "confirmation games is not written; repeat for several")
    p.add_argument("--confirm-games", type=game_count, default=None, metavar="N",
                   help=f"fresh {g.unit} the winner and the base each play to confirm the "
                        f"winner (the same ones for both; at least 1,000, rounded up to a "
                        f"multiple of {M.BLOCKS}; default {search_defaults()} x a trial's "
                        f"{g.unit}); not part of --budget")
    p.add_argument("--out-rules", metavar="FILE",
                   help="write the winner as a rules file, only if the confirmation games back "
                        "it (one target: a lower objective than the base's, paired p < 0.05, or "
                        "exactly; several: lower in one target, Holm-adjusted p < 0.05, and "
                        "significantly higher in none; every --subject-to bound met); else exit "
                        f"status {EXIT_NO_WINNER}")
    _common(p, g, games=False, metric=False)
    p.set_defaults(func=cmd_tune, metric=None)


def search_defaults() -> int:
    return M.CONFIRM_FACTOR


#: what ``--help`` shows for a game whose metrics module declares no ``EXAMPLES``
GENERIC_EXAMPLES = {"set": "KEY=VALUE", "sweep": "KEY=V1,V2", "vary": "KEY=LO..HI",
                    "target": "METRIC=min"}


def _example(g: Game, kind: str) -> str:
    """The game's own example of ``kind`` (its metrics module's ``EXAMPLES``), or a generic one."""
    return getattr(M.module(g), "EXAMPLES", {}).get(kind, GENERIC_EXAMPLES[kind])


def _common(p, g: Game, games: bool = True, metric: bool = True) -> None:
    mod = M.module(g)
    p.add_argument("--players", type=players_type(g), default=g.default_players, metavar="N",
                   help=f"{g.players_text} (default {g.default_players})")
    spec = CommandSpec(help="", description="", policies=tuple(g.policies), per_seat=False)
    for role, default in g.policy_defaults.items():
        _add_policy(p, g, spec, role, default)
    if hasattr(mod, "add_options"):
        mod.add_options(p)
    if metric:
        p.add_argument("--metric", metavar="NAME[,NAME...]",
                       help=f"metrics to report (default all: {', '.join(M.declared(g))})")
    if games:
        p.add_argument("--games", type=game_count, default=mod.DEFAULT_GAMES, metavar="N",
                       help=f"{g.unit} every variant plays (default {mod.DEFAULT_GAMES:,}; rounded "
                            f"up to a multiple of {M.BLOCKS})")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)")
    add_backend_options(p)
    add_output_options(p)
    p.add_argument("--table", metavar="NAME",
                   help="print only this table (CSV with --out and no --table writes every "
                        "table, one file each: FILE.csv the first, FILE.NAME.csv the others)")
    p.add_argument("--plot", metavar="FILE", help="also draw the charts to FILE (.png or .svg)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(game_entry=g, precision=None, max_games=None, default_games=0)


# ------------------------------------------------------------------ variants
def variants_job(g: Game, args, variants):
    """The :class:`~sheepsim.variant_runs.VariantsJob` of ``variants`` (base first) with
    the command's metrics, games, seed, players and policies (validated now)."""
    from sheepsim import variant_runs as V

    metrics = M.pick(g, args.metric)
    policies = role_policies(g, args)
    left_out = ""
    if getattr(args, "metric", None) is None:  # the default: every metric the line-up can be measured under
        metrics, left_out = M.usable(g, metrics, policies)
    return V.build_job(g, variants, metrics, games=args.games, seed=args.seed,
                       players=args.players, policies=policies, options=game_options(g, args),
                       left_out=left_out)


def _run_variants(g: Game, args, variants, desc: str):
    job = variants_job(g, args, variants)
    run = runner(args)
    run.options["games"] = job.games
    return run(job, desc)


def cmd_metrics(args) -> int:
    from sheepsim import output
    from sheepsim.output import base_meta

    g: Game = args.game_entry
    meta = base_meta(game=g.name, analysis="balance metrics declared by the game")
    output.TABLE_OPTIONS["all_columns"] = True  # the meanings are what this command is for
    return publish(args, {"metrics": M.metrics_table(g)}, meta, f"{g.title}: balance metrics")


def cmd_variants(args) -> int:
    from sheepsim import variant_runs as V

    g: Game = args.game_entry
    _check_table(args, VARIANT_TABLES)
    M.pick(g, args.metric)
    base, variants = file_variants(g, args.files, args.players)
    variants += edit_variants(g, base, args.edits, args.players)
    check_variant_count(variants)
    res = _run_variants(g, args, variants, f"{g.name} variants")
    t = res.tables
    meta = exact_meta(res.meta(pairing=V.pairing_summary(t["differences"])), t)
    left_out_note(t, meta)
    title = variants_title(g, len(variants), meta["games"])

    def plot():
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(variants_panels(t), meta, title), args.plot)

    return publish(args, t, meta, title, plot, every_csv_table=True)


def left_out_note(t: dict, meta: dict) -> None:
    """The default metrics a run left out (``meta["metrics_left_out"]``), noted under
    its metrics table too."""
    if meta.get("metrics_left_out"):
        t["metrics"].attrs["notes"] = [*t["metrics"].attrs.get("notes", []),
                                       f"metrics {meta['metrics_left_out']}"]


def file_variants(g: Game, files, players=None) -> tuple:
    """``(base rules text, [variants])`` of rules files (the first is the base; none: the
    standard rules as the base), each validated by the game's loader and for ``players``
    (the run's player count; None: every count)."""
    from sheepsim import variant_runs as V
    from sheepsim.rulesedit import base_text

    variant_of = V.variant_of
    files = list(files)
    base = base_text(g, files[0] if files else None)
    variants = [variant_of(g, base, [], "base" if not files else files[0], players)[0]]
    for path in files[1:]:
        text = base_text(g, path)
        variants.append(V.Variant(path, g.check_rules(g.load_rules(text), players),
                                  tomllib.loads(text.text), "", text.text))
    return base, variants


def edit_variants(g: Game, base, specs, players=None) -> list:
    """One variant of ``base`` per ``--set KEY=VALUE[;KEY=VALUE]``, each validated (for
    ``players``, the run's player count; None: every count)."""
    from sheepsim.rulesedit import parse_edit, split_top
    from sheepsim.variant_runs import variant_of

    out = []
    for spec in specs:
        edits = [parse_edit(part) for part in split_top(spec, ";") if part]
        if not edits:
            raise SheepsimError(f"--set takes KEY=VALUE (e.g. {_example(g, 'set')}), got {spec!r}")
        out.append(variant_of(g, base, edits, players=players)[0])
    return out


def check_variant_count(variants) -> None:
    if len(variants) < 2:
        raise SheepsimError("give a variant to compare with the base: another rules file or --set KEY=VALUE")


def variants_title(g: Game, count: int, games: int) -> str:
    """``games`` 0: every metric exact (nothing played), and the title says so."""
    if not games:
        return f"{g.title}: {count} rules variants, every metric exact (no {g.unit} played)"
    return f"{g.title}: {count} rules variants on the same {games:,} {g.unit}"


def exact_meta(meta: dict, t: dict) -> dict:
    """``meta`` with ``games`` 0 when every metric of the ``metrics`` table is exact (no
    game was played, whatever ``--games`` said), and ``exact_metrics``: the metrics
    computed exactly (no interval, p-value or game count)."""
    m = t["metrics"]
    exact = m.loc[m["exact"].astype(bool), "metric"].unique().tolist() if len(m) else []
    meta = dict(meta, exact_metrics=exact)
    if len(m) and m["exact"].astype(bool).all():
        meta["games"] = 0
    return meta


def variants_panels(t: dict) -> list:
    """The ``variants`` chart's panels: per metric, each variant's paired difference to
    the base with its interval (:func:`sheepsim.plots.variants_difference_chart`; two
    variants' own intervals can overlap where their difference is clearly not 0)."""
    from sheepsim.plots import variants_difference_chart

    return [lambda ax, m=m: variants_difference_chart(t["differences"], m, ax=ax)
            for m in t["differences"]["metric"].unique()]


def _check_table(args, names) -> None:
    if args.table is not None and args.table not in names:
        raise SheepsimError(f"--table: choose from {', '.join(names)}, got {args.table!r}")
    for path in csv_files(args, names).values():  # before any game: each file can be written
        from sheepsim.output import check_output_file

        check_output_file(path, "--out")


def csv_files(args, names) -> dict:
    """Table -> file that ``--out`` writes when it writes CSV of every table (one file
    each, see :func:`sheepsim.options.publish`); empty otherwise."""
    from sheepsim.output import is_stream, table_files

    if (getattr(args, "sink", None) is not None or getattr(args, "format", None) != "csv"
            or args.out is None or args.table is not None or is_stream(args.out)):
        return {}
    return table_files(args.out, names)


# ------------------------------------------------------------------ sweep
def sweep_axes(specs) -> list[tuple[str, list]]:
    """``[(key, [values...]), ...]`` from ``KEY=V1,V2,...`` (one or two)."""
    from sheepsim.rulesedit import parse_assignment, parse_value, split_top

    if not 1 <= len(specs) <= 2:
        raise SheepsimError(f"a sweep takes one or two --set KEY=V1,V2,... (a grid of two), got {len(specs)}")
    axes = []
    for spec in specs:
        key, rest = parse_assignment(spec)
        values = [parse_value(v) for v in split_top(rest)]
        if len(set(map(repr, values))) != len(values):
            raise SheepsimError(f"--set {key}: a value is given twice")
        axes.append((key, values))
    if len(axes) == 2 and axes[0][0] == axes[1][0]:
        raise SheepsimError(f"--set {axes[0][0]} is given twice; a grid needs two keys")
    return axes


def cmd_sweep(args) -> int:
    from sheepsim import variant_runs as V
    from sheepsim.rulesedit import toml_value

    g: Game = args.game_entry
    _check_table(args, SWEEP_TABLES)
    M.pick(g, args.metric)
    axes = sweep_axes(args.axes)
    variants, points = sweep_variants(g, args.rules, axes, args.players)
    res = _run_variants(g, args, variants, f"{g.name} sweep")
    t = res.tables
    keys = [k for k, _ in axes]
    sweep = sweep_table(t, variants, keys, points)
    exact = set(t["metrics"].loc[t["metrics"]["exact"].astype(bool), "metric"])
    note = M.corrected_note([m for m in M.pick(g, args.metric) if m.name not in exact], "value")
    if note and len(sweep):  # under the table (the table format and the report)
        sweep.attrs["notes"] = [note, *sweep.attrs.get("notes", [])]
    tables = {"sweep": sweep, **t}
    meta = exact_meta(res.meta(pairing=V.pairing_summary(t["differences"]),
                               sweep={k: [toml_value(v) for v in vals] for k, vals in axes}), t)
    left_out_note(t, meta)
    title = sweep_title(g, keys, len(points), meta["games"])

    def plot():
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(sweep_panels(sweep, keys, base_values(t), base_key_values(variants, keys)),
                                 meta, title), args.plot)

    return publish(args, tables, meta, title, plot, every_csv_table=True)


def sweep_variants(g: Game, rules, axes, players=None) -> tuple[list, list[tuple]]:
    """``([base, one variant per point], points)`` of the grid of ``axes`` (see
    :func:`sweep_axes`) over the base rules file ``rules`` (None: the standard rules),
    every point validated by the game's loader and for ``players`` (the run's player
    count; None: every count)."""
    from sheepsim.rulesedit import Edit, base_text
    from sheepsim.variant_runs import variant_of

    points = list(itertools.product(*[vals for _, vals in axes]))
    if len(points) > MAX_POINTS:
        raise SheepsimError(f"the grid has {len(points)} points; a sweep takes at most {MAX_POINTS}")
    base = base_text(g, rules)
    variants = [variant_of(g, base, [], "base", players)[0]]
    for values in points:
        edits = [Edit(k, v) for (k, _), v in zip(axes, values, strict=True)]
        variants.append(variant_of(g, base, edits, players=players)[0])
    return variants, points


def sweep_title(g: Game, keys: list[str], points: int, games: int) -> str:
    """``games`` 0: every metric exact (nothing played), and the title says so."""
    what = f"{points} point{'s' if points != 1 else ''}"
    if not games:
        return f"{g.title}: sweep of {' x '.join(keys)} ({what}), every metric exact (no {g.unit} played)"
    return f"{g.title}: sweep of {' x '.join(keys)} ({what}) on the same {games:,} {g.unit}"


def sweep_panels(sweep, keys, base: dict | None = None, base_at=None) -> list:
    """The ``sweep`` chart's panels: one per metric (:func:`sheepsim.plots.sweep_chart`);
    ``base_at``: the base rules' values of ``keys`` (a heatmap outlines that cell)."""
    from sheepsim.plots import sweep_chart

    base = base or {}
    return [lambda ax, m=m: sweep_chart(sweep, m, keys, base=base.get(m), base_at=base_at, ax=ax)
            for m in sweep["metric"].unique()]


def base_key_values(variants, keys) -> tuple:
    """The base rules' value of each swept key (``variants[0]`` is the base)."""
    from sheepsim.search import _base_value

    return tuple(_base_value(variants[0].data, k) for k in keys)


def sweep_table(t: dict, variants, keys: list[str], points: list[tuple]):
    """One row per sweep point and metric: the key values, the metric with its interval
    and its paired difference to the base with interval and Holm-adjusted p-value; the
    ``differences`` table's ``no_game_moved`` column (and its note) where it has one:
    true on the points whose difference no game moved."""
    import pandas as pd

    from sheepsim.rulesedit import toml_value
    from sheepsim.variant_runs import NO_GAME_MOVED

    m = t["metrics"].set_index(["variant", "metric"])
    d = t["differences"].set_index(["variant", "metric"])
    unmoved = "no_game_moved" in d.columns
    rows = []
    for i, (variant, values) in enumerate(zip(variants[1:], points, strict=True), start=1):
        for metric in t["metrics"]["metric"].unique():
            mv, dv = m.loc[(variant.label, metric)], d.loc[(variant.label, metric)]
            row = {"point": i}
            for k, v in zip(keys, values, strict=True):
                row[k] = v if isinstance(v, int | float | str) and not isinstance(v, bool) else toml_value(v)
            row.update(metric=metric, value=mv["value"], value_lo=mv["value_lo"],
                       value_hi=mv["value_hi"], diff=dv["diff"], diff_lo=dv["diff_lo"],
                       diff_hi=dv["diff_hi"], pvalue_holm=dv["pvalue_holm"], se_ratio=dv["se_ratio"],
                       exact=bool(mv["exact"]), unit=mv["unit"], games=mv["games"])
            if unmoved:  # (empty on exact rows: nothing played)
                row["no_game_moved"] = bool(pd.notna(dv["no_game_moved"]) and dv["no_game_moved"])
            rows.append(row)
    out = pd.DataFrame(rows)
    if len(out):
        out["games"] = out["games"].astype("Int64")  # empty on exact rows: nothing played
    if unmoved:  # as the differences table says it
        out.attrs["must_show"] = ["metric", "diff", "no_game_moved"]
        out.attrs["notes"] = [NO_GAME_MOVED]
    return out


# ------------------------------------------------------------------ tune
def cmd_tune(args) -> int:
    from sheepsim import search as tune

    g: Game = args.game_entry
    _check_table(args, TUNE_TABLES)
    if args.out_rules:
        from sheepsim.output import check_output_file

        check_output_file(args.out_rules, "--out-rules")
        import os

        if args.out and os.path.realpath(args.out) == os.path.realpath(args.out_rules):
            raise SheepsimError("--out and --out-rules name the same file; give two files")
        for name, path in csv_files(args, TUNE_TABLES).items():
            if os.path.realpath(path) == os.path.realpath(args.out_rules):
                raise SheepsimError(f"--out-rules {args.out_rules}: --out writes the {name} table "
                                    "there; give another file")
    out = tune.run(g, args)
    write = bool(args.out_rules) and out.winner_text is not None and out.beat_base
    out.meta["out_rules_written"] = write
    if write:
        from sheepsim.output import atomic_write_text

        atomic_write_text(args.out_rules, out.winner_text)

    def plot():
        from sheepsim.plots import panel_figure, save_figure

        save_figure(panel_figure(tune_panels(out.tables["trials"], out.targets, out.tables["best"],
                                             [v["key"] for v in out.meta["vary"]]), out.meta,
                                 out.title), args.plot)

    code = publish(args, out.tables, out.meta, out.title, plot, every_csv_table=True)
    if args.out_rules and not write:
        # a rules file is a claim: none for a winner that did not beat the base
        if getattr(args, "sink", None) is None:
            sys.stderr.write(f"sheepsim: tune: {args.out_rules} not written: {out.verdict.split(';')[0]}\n")
        return EXIT_NO_WINNER
    return code


def base_values(t: dict) -> dict:
    """Metric -> the base rules' value, from a ``metrics`` table."""
    m = t["metrics"]
    return dict(zip(m.loc[m["variant"] == m["variant"].iloc[0], "metric"],
                    m.loc[m["variant"] == m["variant"].iloc[0], "value"], strict=True))


def tune_panels(trials, targets: list[str], best=None, keys: list[str] | None = None) -> list:
    """The ``tune`` chart's panels: per target metric, its value against each varied key
    in ``keys`` (:func:`sheepsim.plots.tune_chart`; without ``keys``: against the trial
    order), the base rules' value and key from ``best`` (its ``base`` row) when given;
    with two targets or more, a Pareto scatter of the first two
    (:func:`sheepsim.plots.pareto_chart`)."""
    from sheepsim.plots import pareto_chart, tune_chart

    base = best[best["rank"] == "base"].iloc[0] if best is not None else None
    panels = []
    for m in targets:
        for k in keys or [None]:
            panels.append(lambda ax, m=m, k=k: tune_chart(
                trials, m, key=k, base=None if base is None else float(base[m]),
                base_at=None if base is None or k is None else base.get(k), ax=ax))
    if len(targets) >= 2:
        panels.append(lambda ax: pareto_chart(trials, targets, best=best, ax=ax))
    return panels
