"""The designers' report studies of every game: ``variants``, ``sweep`` and ``tune``.

Written once for every game with balance metrics (:mod:`sheepsim.balance_metrics`): the
study's ``game`` key (``"race"``, ``"panic"``, ``"awsheep"``, or the registry names)
binds it to a game (:meth:`Study.for_config`), and its other keys mirror the command's
options (``sheepsim <game> variants|sweep|tune --help``):

* every type: ``game`` (required), ``players``, the game's policy options (``policy``;
  The Sheep Race: ``bet_policy``, ``pace_policy``; one name played by every seat) and
  the common ``seed``;
* ``variants``: ``files`` (rules files relative to the config, the first is the base;
  none: the standard rules), ``set`` (a list of edits of the base, one variant each:
  ``"KEY=VALUE"``, several edits of one variant joined by ``;``), ``metric`` (names;
  default all) and ``games`` (rounded up to a multiple of the jackknife's blocks, as the
  command does); the common ``rules`` is refused (the base is ``files[0]``);
* ``sweep``: ``set`` (one or two ``"KEY=V1,V2,..."``: a grid of two), ``rules`` (the
  base), ``metric``, ``games``;
* ``tune``: ``vary`` (``"KEY=LO..HI[:STEP]"``, one or a list), ``target``
  (``"METRIC=VALUE|min|max"``), ``budget`` (games in all), ``trials`` (default 24),
  ``finalists`` (default 4), ``rules`` (the base); no ``games``: the budget sizes it.

The config's keys become the command's own argv, parsed by the command's parser, and
the study runs the command's code: ``variants`` and ``sweep`` build the command's
:class:`~sheepsim.variant_runs.VariantsJob` (:func:`sheepsim.designer.variants_job`),
which the report runs checkpointed and resumable like every simulated study, and whose
tables are the command's (:meth:`VariantsJob.tables`, :func:`sheepsim.designer.sweep_table`);
``tune`` is :func:`sheepsim.search.run` itself (a search deciding as it goes what to play:
a :attr:`~sheepsim.report.registry.Study.direct` study, run again from the start by
``--resume``, to the same numbers). Every key is checked as the command checks it (the
rules edits through the game's loader) before anything is simulated; a problem is one
line naming the study and key. Charts are the command's ``--plot`` panels.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import ClassVar

from sheepsim import balance_metrics as M
from sheepsim.balance_metrics import BLOCKS
from sheepsim.commands import one_policy_each, policy_dest, role_policies
from sheepsim.errors import SheepsimError
from sheepsim.game import games
from sheepsim.options import ArgumentsError, options_from_keywords, running, subcommand_parser
from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Sampling, Study, StudyResult, bind, register_study, study_game

#: the Holm-adjusted p-value below which a difference is called significant
ALPHA = 0.05


@contextlib.contextmanager
def _charged(r: StudyReader, key: str):
    """Any problem raised inside (a rules file's or an edit's too) is ``key``'s."""
    try:
        yield
    except ArgumentsError as exc:
        r.fail(key, _key_named(exc.message))
    except SheepsimError as exc:
        r.fail(key, str(exc))


def _key_named(message: str) -> str:
    """An argparse message without its ``argument --players: `` (the key says it)."""
    return re.sub(r"^argument --[\w/-]+: ", "", message)


def _strings(r: StudyReader, key: str, *, required: bool = False) -> list[str]:
    """A string or a list of strings (each one option of the command, never split)."""
    value = r.raw(key, required=required, default=[])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        from sheepsim.rulesfile import toml_text

        r.fail(key, f"must be a string or a list of non-empty strings, got {toml_text(value)}")
    if required and not value:
        r.fail(key, "must not be empty")
    return [v.strip() for v in value]


class _DesignerStudy(Study):
    """A designer's command as a study; subclasses name the ``command`` and read its
    own keys in :meth:`own_options`."""

    command: ClassVar[str] = ""
    #: the game this class is bound to (see :meth:`for_config`)
    game_entry: ClassVar[object] = None
    default_block = 1 << 62  # a fixed game count, never a precision target
    default_chunk = 1 << 12  # what VariantsJob runs per chunk (every variant)

    # -- config --------------------------------------------------------------------
    @classmethod
    def for_config(cls, r: StudyReader) -> type[Study]:
        g = study_game(r, [g for g in games() if g.metrics],
                       note=" (or one without balance metrics)")
        if "rules" in r.table and cls.command == "variants":
            r.fail("rules", "a variants study takes files = [...] (the first is the base)")
        return bind(cls, g)

    @classmethod
    def load_rules(cls, path: Path | None):
        return cls.game_entry.load_rules(path)

    @classmethod
    def _parser(cls):
        from sheepsim.cli import build_parser

        parser = build_parser()
        return parser, subcommand_parser(parser, cls.game_entry.command, cls.command)

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        g = cls.game_entry
        params: dict = {"game": g.command}
        options: dict = {}  # CLI option (as the Python API spells it) -> value
        keys: dict = {}  # CLI option -> the config key it came from
        if "players" in r.table:
            options["players"] = r.int_("players")
            keys["players"] = "players"
        for role in g.policies:
            dest = policy_dest(g, role)
            if dest in r.table:
                options[dest] = r.str_(dest).strip()
                keys[dest] = dest
        positional = cls.own_options(r, options, keys)
        options["seed"] = r.table.get("seed", 0)  # checked by the config already
        keys["seed"] = "seed"
        if cls.direct:
            for key in ("games", "precision"):
                if key in r.table:
                    r.fail(key, f"a {cls.type_name} study's size is its budget")
        else:
            if "precision" in r.table:
                r.fail("precision", f"a {cls.type_name} study plays a fixed number of games: "
                                    "give games")
            options["games"] = r.table.get("games")
            keys["games"] = "games"
        if "rules" in r.table:
            options["rules"] = str(_path(r, r.table["rules"]))
        _, sub = cls._parser()
        try:
            args = options_from_keywords(sub, f"{g.command} {cls.command}", options, positional)
        except ArgumentsError as exc:
            message = exc.message
            m = re.search(r"argument (--[\w-]+)", message)
            option = m.group(1)[2:].replace("-", "_") if m else ""
            r.fail(keys.get(option, "game"), _key_named(message))
        params["players"] = args.players
        for role in g.policies:
            dest = policy_dest(g, role)
            params[dest] = getattr(args, dest)
            if "," in params[dest] or not params[dest].strip():
                with _charged(r, dest):  # the command's rule: one name for every seat
                    one_policy_each(g, args)
        params.update(cls.check(r, args))
        params["_options"] = (options, positional)
        return params

    @classmethod
    def own_options(cls, r: StudyReader, options: dict, keys: dict) -> list[str]:
        """Read the command's own keys into ``options`` (return positional words)."""
        return []

    @classmethod
    def check(cls, r: StudyReader, args) -> dict:
        """The command's checks before any game, each charged to its key; the normalised
        parameters."""
        return {}

    @classmethod
    def _check_policies(cls, r: StudyReader, build) -> None:
        """Build the jobs now (policies are resolved there): a bad policy's line is
        charged to the policy key it names."""
        g = cls.game_entry
        dests = [policy_dest(g, role) for role in g.policies]
        try:
            build()
        except SheepsimError as exc:
            named = [d for d in dests if d in r.table and str(r.table[d]).strip() in str(exc)]
            r.fail(named[0] if named else dests[0], str(exc))

    def params(self) -> dict:
        # keys starting with "_" (the command's options) are for running, never shown
        return {k: v for k, v in self._params.items() if not k.startswith("_")}

    def args(self):
        """The command's parsed options (as ``sheepsim <game> <command>`` would have them)."""
        _, sub = self._parser()
        g = self.game_entry
        options, positional = self._params["_options"]
        return options_from_keywords(sub, f"{g.command} {self.command}", options,
                                     positional).replace(quiet=True)

    def plot_meta(self, games: int) -> dict:
        return {"games": games, "seed": self.seed, "rules": self.rules_label()}

    @staticmethod
    def _figure(panels, meta: dict, title: str):
        from sheepsim.plots import panel_figure

        return panel_figure(panels, meta, title)


def _path(r: StudyReader, rel, key: str = "rules") -> Path:
    """A rules file's path, relative to the config (as the common ``rules`` key's)."""
    if not isinstance(rel, str) or not rel.strip():
        r.fail(key, "must be a non-empty string")
    if r.base_dir is None and not Path(rel).is_absolute():
        r.fail(key, "the shipped default config uses the shipped rules only")
    return Path(rel) if Path(rel).is_absolute() else r.base_dir / rel


class _VariantRuns(_DesignerStudy):
    """``variants`` and ``sweep``: a :class:`~sheepsim.variant_runs.VariantsJob`."""

    def __init__(self, name, title, seed, sampling, rules, params):
        from sheepsim.variant_runs import round_games

        # the command rounds the game count up to a multiple of the jackknife's blocks
        sampling = Sampling(games=round_games(sampling.games))
        super().__init__(name, title, seed, sampling, rules, params)

    @classmethod
    def _metric_key(cls, r, options, keys) -> None:
        if "metric" in r.table:
            options["metric"] = r.names("metric")
            keys["metric"] = "metric"

    @classmethod
    def _metrics(cls, r, args) -> list[str]:
        with _charged(r, "metric"):
            return [m.name for m in M.pick(cls.game_entry, args.metric)]

    def variants(self, args) -> list:
        raise NotImplementedError

    def job(self):
        from sheepsim.designer import variants_job

        def build():
            args = self.args()
            job = variants_job(self.game_entry, args, self.variants(args))
            if job.games != self.sampling.games:
                raise RuntimeError(f"{self.name}: {job.games} games, sampling {self.sampling.games}")
            return job

        return self._cached_job(build)

    def tables(self, counts, games) -> dict:
        job = self.job()
        job.check(counts, games)
        return job.tables(counts, games)

    def methods_note(self) -> str:
        return (f"Rules variants, sweeps and searches play every variant on the same games "
                f"(common random numbers); a metric's 95% interval is the jackknife over "
                f"{BLOCKS} blocks of games (Student t, {BLOCKS - 1} degrees of freedom), and so "
                f"is the paired difference to the base, whose p-values are Holm-adjusted "
                f"across the variants of each metric; se_ratio is the paired standard error "
                f"over the one two independent runs would give.")


@register_study
class VariantsStudy(_VariantRuns):
    """``sheepsim <game> variants``: rules variants side by side on the same games.

    Keys: ``game``, ``files``, ``set``, ``metric``, ``players``, the game's policy
    options, ``games``, ``seed`` (see the module docstring). Tables ``metrics`` and
    ``differences`` (the command's); chart ``variants`` (one panel per metric); key
    findings: per metric the largest difference to the base significant after Holm,
    or that none is."""

    type_name = "variants"
    command = "variants"
    summary = ("rules variants of any game on the same games, paired differences to the base "
               "(keys: game, files, set, metric, players, policy or bet_policy/pace_policy)")

    @classmethod
    def own_options(cls, r, options, keys) -> list[str]:
        files = _strings(r, "files")
        sets = _strings(r, "set")
        if sets:
            options["set"] = sets
            keys["set"] = "set"
        cls._metric_key(r, options, keys)
        return [str(_path(r, f, "files")) for f in files]

    @classmethod
    def check(cls, r, args) -> dict:
        from sheepsim.designer import check_variant_count, edit_variants, variants_job

        g = cls.game_entry
        metrics = cls._metrics(r, args)
        given = _strings(r, "files")  # as the config spells them (the labels)
        with _charged(r, "files"):
            base, variants = _file_variants(g, args.files, given, args.players)
        with _charged(r, "set"):
            variants += edit_variants(g, base, args.edits, args.players)
            check_variant_count(variants)
        cls._check_policies(r, lambda: variants_job(g, args, variants))
        return {"files": given, "set": list(args.edits), "metric": metrics,
                "_files_sha256": [v.rules.sha256 for v in variants[:len(given)]]}

    def __init__(self, name, title, seed, sampling, rules, params):
        super().__init__(name, title, seed, sampling, rules, params)
        if params["files"]:  # the base is the first file
            self.rules = self.variants(self.args())[0].rules

    def identity(self) -> dict:
        d = super().identity()
        d["files_sha256"] = self._params["_files_sha256"]  # the files, not their paths
        return d

    def variants(self, args) -> list:
        if getattr(self, "_variants", None) is None:
            from sheepsim.designer import edit_variants

            g = self.game_entry
            base, variants = _file_variants(g, args.files, self._params["files"], args.players)
            self._variants = variants + edit_variants(g, base, args.edits, args.players)
        return self._variants

    def results(self, counts, games) -> StudyResult:
        from sheepsim.designer import variants_panels, variants_title

        t = self.tables(counts, games)
        notes = variants_findings(t)
        title = variants_title(self.game_entry, t["metrics"]["variant"].nunique(), games)
        meta = self.plot_meta(games)
        figures = {"by_variant": lambda: self._figure(variants_panels(t), meta, title)}
        captions = {
            "metrics": "Every metric of every variant (the base first) with its 95% interval, "
                       "all measured on the same games.",
            "differences": "Each variant minus the base, per metric: the paired difference with "
                           "its 95% interval, p-value Holm-adjusted across the variants "
                           "(pvalue_holm), and se_ratio, the paired standard error over the "
                           "unpaired one.",
            "by_variant": "Each variant minus the base, per metric: the paired difference "
                          "with its 95% interval; the line is no change (V1, V2... name long "
                          "variants, their key under the chart).",
        }
        m = t["metrics"]
        # the edits say again what the label says for a --set variant: shown only when
        # some variant is labelled otherwise (a rules file)
        edits = [] if ((m["edits"] == "") | (m["edits"] == m["variant"])).all() else ["edits"]
        columns = {"metrics": ["variant", "metric", "value", "unit", "better", "exact", *edits],
                   "differences": ["variant", "metric", "diff", "pvalue_holm", "se_ratio", "unit", "exact"]}
        return StudyResult(dict(t), figures, notes, captions, key_findings=list(notes),
                           columns=columns, methods=[self.methods_note()])


def _file_variants(g, resolved, given, players=None):
    """The command's file variants, labelled as the config spells the files."""
    from sheepsim.designer import file_variants

    base, variants = file_variants(g, resolved, players)
    for v, label in zip(variants, given, strict=False):
        v.label = label
    return base, variants


@register_study
class SweepStudy(_VariantRuns):
    """``sheepsim <game> sweep``: a metric grid over one or two rules keys.

    Keys: ``game``, ``set`` (one or two ``"KEY=V1,V2,..."``), ``rules``, ``metric``,
    ``players``, the game's policy options, ``games``, ``seed``. Tables ``sweep``,
    ``metrics`` and ``differences`` (the command's); chart ``sweep``; key findings: per
    metric with a better direction, the point with its best value."""

    type_name = "sweep"
    command = "sweep"
    summary = ("a metric grid over one or two rules keys of any game on the same games "
               "(keys: game, set, rules, metric, players, policy or bet_policy/pace_policy)")

    @classmethod
    def own_options(cls, r, options, keys) -> list[str]:
        options["set"] = _strings(r, "set", required=True)
        keys["set"] = "set"
        cls._metric_key(r, options, keys)
        return []

    @classmethod
    def check(cls, r, args) -> dict:
        from sheepsim.designer import sweep_axes, sweep_variants, variants_job

        g = cls.game_entry
        metrics = cls._metrics(r, args)
        with _charged(r, "set"):
            variants, _ = sweep_variants(g, args.rules, sweep_axes(args.axes), args.players)
        cls._check_policies(r, lambda: variants_job(g, args, variants))
        return {"set": list(args.axes), "metric": metrics}

    def grid(self, args):
        from sheepsim.designer import sweep_axes, sweep_variants

        if getattr(self, "_grid", None) is None:
            axes = sweep_axes(args.axes)
            variants, points = sweep_variants(self.game_entry, args.rules, axes, args.players)
            self._grid = ([k for k, _ in axes], variants, points)
        return self._grid

    def variants(self, args) -> list:
        return self.grid(args)[1]

    def results(self, counts, games) -> StudyResult:
        from sheepsim.designer import base_key_values, base_values, sweep_panels, sweep_table, sweep_title

        t = self.tables(counts, games)
        keys, variants, points = self.grid(self.args())
        sweep = sweep_table(t, variants, keys, points)
        findings, ranges = sweep_findings(sweep, t["metrics"], keys)
        title = sweep_title(self.game_entry, keys, len(points), games)
        meta = self.plot_meta(games)
        at = base_key_values(variants, keys)
        figures = {"by_point": lambda: self._figure(sweep_panels(sweep, keys, base_values(t), at), meta,
                                                    title)}
        captions = {
            "sweep": "One row per grid point and metric: the metric with its 95% interval and "
                     "its paired difference to the base rules (pvalue_holm: Holm across the "
                     "points).",
            "metrics": "Every metric of the base and of every point with its 95% interval.",
            "differences": "Each point minus the base, per metric, with the paired 95% interval "
                           "and p-values (pvalue_holm: Holm across the points).",
            "by_point": "Each metric against the swept values with its 95% interval, the base "
                        "rules dotted (two keys: a heatmap of the values with their 95% "
                        "half-widths, the base rules' cell outlined in red).",
        }
        columns = {"sweep": ["point", *keys, "metric", "value", "diff", "pvalue_holm", "unit", "exact"],
                   "metrics": ["variant", "metric", "value", "unit", "better", "exact"],
                   "differences": ["variant", "metric", "diff", "pvalue_holm", "se_ratio", "unit", "exact"]}
        tables = {"sweep": sweep, **t}
        notes = findings + ranges
        return StudyResult(tables, figures, notes, captions, key_findings=findings or notes[:1],
                           columns=columns, methods=[self.methods_note()],
                           page_omit=["metrics", "differences"])


@register_study
class TuneStudy(_DesignerStudy):
    """``sheepsim <game> tune``: a balance search over the rules space.

    Keys: ``game``, ``vary``, ``target``, ``budget``, ``trials``, ``finalists``,
    ``subject_to``, ``confirm_games``, ``rules``, ``players``, the game's policy options, ``seed``. Runs
    :func:`sheepsim.search.run` (needs sheepsim[tune]). Tables ``best``, ``confirm`` and ``trials``
    (the command's); chart ``search``; key finding: the winner with its interval beside
    the base's value."""

    type_name = "tune"
    command = "tune"
    direct = True
    summary = ("a balance search over rules keys of any game (keys: game, vary, target, "
               "budget, trials, finalists, rules, players, policy; no games)")

    @classmethod
    def own_options(cls, r, options, keys) -> list[str]:
        options["vary"] = _strings(r, "vary", required=True)
        options["target"] = _strings(r, "target", required=True)
        options["budget"] = r.int_("budget", min_value=1)
        keys.update(vary="vary", target="target", budget="budget")
        for key in ("trials", "finalists", "confirm_games"):
            if key in r.table:
                options[key] = r.int_(key, min_value=1)
                keys[key] = key
        if "subject_to" in r.table:
            options["subject_to"] = _strings(r, "subject_to", required=True)
            keys["subject_to"] = "subject_to"
        return []

    @classmethod
    def check(cls, r, args) -> dict:
        from sheepsim import search
        from sheepsim.rulesedit import base_text
        from sheepsim.variant_runs import build_job, variant_of

        g = cls.game_entry
        with _charged(r, "type"):
            search._optuna()
        with _charged(r, "vary"):
            varies = search.parse_varies(args.vary)
        with _charged(r, "target"):
            targets = search.parse_targets(g, args.target)
        with _charged(r, "subject_to"):
            search.parse_constraints(g, args.subject_to)
        base = base_text(g, args.rules)
        base_variant, _ = variant_of(g, base, [], "base", args.players)
        with _charged(r, "vary"):
            search.check_vary_ends(g, base, varies, args.players)
        with _charged(r, "budget"):
            trial_games = search.trial_games_of(g, args.budget, args.trials, len(targets) == 1)
        with _charged(r, "confirm_games"):
            search.confirm_games_of(g, args.confirm_games, trial_games)
        metrics = M.pick(g, [t.metric for t in targets])
        cls._check_policies(r, lambda: build_job(
            g, [base_variant], metrics, games=trial_games, seed=args.seed, players=args.players,
            policies=role_policies(g, args)))
        out = {"vary": list(args.vary), "target": list(args.target), "budget": args.budget,
               "trials": args.trials, "finalists": args.finalists}
        if args.subject_to:
            out["subject_to"] = list(args.subject_to)
        if args.confirm_games is not None:
            out["confirm_games"] = args.confirm_games
        return out

    def job(self):
        raise NotImplementedError("a tune study runs the search directly (see run)")

    def run(self, backend, progress: bool) -> int:
        from sheepsim import search

        args = self.args().replace(quiet=not progress)
        with running(backend=backend):  # the report's, left open for the next study
            self._out = search.run(self.game_entry, args)
        return int(self._out.meta["games"])

    def results(self, counts, games) -> StudyResult:
        from sheepsim.designer import tune_panels

        out = self._out
        notes = tune_findings(out, self.game_entry)
        meta = self.plot_meta(games)
        trials = out.tables["trials"]
        keys = [v["key"] for v in out.meta["vary"]]
        figures = {"search": lambda: self._figure(tune_panels(trials, out.targets, out.tables["best"], keys),
                                                  meta, out.title)}
        single = len(out.targets) == 1
        captions = {
            "best": ("The finalists after racing, best first, and the base rules (rank base): "
                     "each target metric with its 95% interval on the games it played "
                     "(search-time: the games the winner was selected on)."
                     if single else
                     "The Pareto front of the search, and the base rules (rank base): each "
                     "target metric with its 95% interval (search-time)."),
            "confirm": ("The winner and the base rules on fresh games the search never saw, "
                        "the same ones for both: each target (and --subject-to) metric with "
                        "its 95% interval, the paired difference and its p-value; the "
                        "verdict comes from these games (empty: no candidate measured better "
                        "than the base in the search, nothing to confirm)."),
            "trials": "Every candidate the search proposed, in order, measured on the same "
                      "games (repeat_of: a candidate proposed again; simulated: false where it "
                      "reused the base's counts, its edits not changing them).",
            "search": "Each target metric of every candidate against each varied key, with "
                      "its 95% interval (search-time), the best ringed, the base rules dotted; "
                      "with two targets, the candidates and the Pareto front on both.",
        }
        from sheepsim.search import RACING_ROUNDS

        methods = [f"A tune study searches with optuna (TPE for one target, NSGA-II for "
                   f"several; seeded), every candidate on the same games, then races the best "
                   f"finalists on more games by OCBA in up to {RACING_ROUNDS} rounds (one "
                   f"target); intervals are the jackknife's over blocks of games. The "
                   f"winner and the base are then played again on fresh games (the same seed, "
                   f"game indices past every game of the search), and the verdict comes from "
                   f"those games alone."]
        return StudyResult(dict(out.tables), figures, notes, captions, key_findings=notes[:1],
                           methods=methods, page_rows={"trials": 12})


# ------------------------------------------------------------------ key findings
def _est(x, lo, hi, signed: bool = False) -> tuple[str, str, str]:
    from sheepsim.tableview import fmt_estimate

    out = fmt_estimate(float(x), float(lo), float(hi))
    if signed:
        out = tuple(s if s.startswith("-") else f"+{s}" for s in out)
    return out


def _unit(unit: str) -> str:
    return "" if unit in ("", "probability") else f" {unit}"


def variants_findings(t: dict) -> list[str]:
    """Per metric, the largest difference to the base significant after Holm (or that
    none is), one sentence each; the metrics with none share one sentence."""
    from sheepsim.tableview import p_is

    m, d = t["metrics"], t["differences"]
    base = m.groupby("metric", sort=False).first()
    out, none = [], []
    for metric, grp in d.groupby("metric", sort=False):
        sig = grp[grp["pvalue_holm"] < ALPHA]
        if not len(sig):
            none.append(metric)
            continue
        row = sig.loc[sig["diff"].abs().idxmax()]
        x, lo, hi = _est(row["diff"], row["diff_lo"], row["diff_hi"], signed=True)
        b = base.loc[metric]
        bx = _est(b["value"], b["value_lo"], b["value_hi"])[0]
        unit = _unit(row["unit"])
        out.append(f"{metric}: the largest significant difference to the base ({bx}{unit}) is "
                   f"{row['variant']}, {x}{unit} (95% {lo} to {hi}; Holm-adjusted "
                   f"{p_is(row['pvalue_holm'])}).")
    k = d["variant"].nunique()
    if none:
        which = "any metric" if not out else ", ".join(none)
        out.append(f"No difference to the base is significant for {which} (Holm-adjusted "
                   f"p ≥ {ALPHA:g} across the {k} variant{'s' if k != 1 else ''}).")
    return out


_BEST = {"lower": ("lowest", "idxmin", False), "higher": ("highest", "idxmax", False),
         "zero": ("closest to 0", "idxmin", True)}


def sweep_findings(sweep, metrics, keys: list[str]) -> tuple[list[str], list[str]]:
    """``(findings, ranges)``: per metric with a better direction, the point where it is
    best, with its interval, the base's value and the paired difference; per metric with
    none (a note, not a key finding), its range over the grid."""
    from sheepsim.tableview import p_is

    better = metrics.groupby("metric", sort=False)["better"].first()
    base = metrics.groupby("metric", sort=False).first()
    out, ranges = [], []
    for metric, rows in sweep.groupby("metric", sort=False):
        unit = _unit(rows["unit"].iloc[0])
        if better[metric] not in _BEST:
            ranges.append(f"{metric} (neither way is better in itself) goes from "
                          f"{rows['value'].min():.4g} to {rows['value'].max():.4g}{unit} over "
                          f"the grid.")
            continue
        word, pick, absolute = _BEST[better[metric]]
        values = rows["value"].abs() if absolute else rows["value"]
        row = rows.loc[getattr(values, pick)()]
        at = ", ".join(f"{k}={row[k]}" for k in keys)
        x, lo, hi = _est(row["value"], row["value_lo"], row["value_hi"])
        b = base.loc[metric]
        bx = _est(b["value"], b["value_lo"], b["value_hi"])[0]
        dx = _est(row["diff"], row["diff_lo"], row["diff_hi"], signed=True)[0]
        out.append(f"{metric} is {word} at {at}: {x}{unit} (95% {lo} to {hi}), against {bx} on "
                   f"the base rules (difference {dx}, Holm-adjusted {p_is(row['pvalue_holm'])}).")
    return out, ranges


def tune_findings(out, g) -> list[str]:
    """The winner with its interval(s) and the base's value(s)."""
    best = out.tables["best"]
    winner = best.iloc[0]
    base = best[best["rank"] == "base"].iloc[0]
    keys = [v["key"] for v in out.meta["vary"]]
    at = ", ".join(f"{k}={winner[k]}" for k in keys)
    bits = []
    for metric in out.targets:
        x, lo, hi = _est(winner[metric], winner[f"{metric}_lo"], winner[f"{metric}_hi"])
        bx, blo, bhi = _est(base[metric], base[f"{metric}_lo"], base[f"{metric}_hi"])
        bits.append(f"{metric} {x} (95% {lo} to {hi}) against {bx} (95% {blo} to {bhi}) on "
                    f"the base rules (search-time)")
    goal = ", ".join(out.meta["targets"])
    how = ("after racing the finalists" if len(out.targets) == 1
           else "first of the Pareto front")
    return [f"Best variant for {goal} ({how}): {at} (trial {int(winner['trial'])}), "
            f"{'; '.join(bits)}: {out.meta['verdict']}; {out.meta['trials']} trials, "
            f"{out.meta['games']:,} {g.unit} played in all."]
