"""Rules variants on common random numbers: the job that plays them and the tables of
their balance metrics (see :mod:`sheepsim.balance_metrics` for the method)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sheepsim.balance_metrics import BLOCKS, Metric, corrected_note, module
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Game, Job, shared_seed
from sheepsim.rulesedit import edited

#: how a spread metric's value and intervals are measured (the metadata's words)
SPREAD_METHOD = ("spreads (largest minus smallest item): value bias-corrected by moment matching "
                 "under the items' jackknife covariance (value_raw: plain max - min); interval and "
                 "paired difference from simultaneous Bonferroni t intervals on every item pair, "
                 "coverage at least 95%, never below 0; p-value by inverting that interval")
#: how a maximum or minimum metric's value and intervals are measured (the metadata's words)
EXTREME_METHOD = ("maxima and minima of items: value bias-corrected by moment matching under the "
                  "items' jackknife covariance (value_raw: plain max or min); interval from "
                  "one-sided t bounds on every item (Bonferroni) and on the truly extreme one, "
                  "paired difference from simultaneous Bonferroni t intervals on every item and "
                  "item change, coverage at least 95%, within the metric's range; p-value by "
                  "inverting that interval")


def round_games(games: int) -> int:
    """The games a metrics run plays: ``games`` rounded up to a multiple of BLOCKS."""
    return -(-int(games) // BLOCKS) * BLOCKS


def changed_keys(a, b, path: str = "") -> list[str]:
    """Dotted paths where rules data ``a`` and ``b`` differ (arrays by index)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in dict.fromkeys([*a, *b]):
            sub = f"{path}.{k}" if path else str(k)
            out += changed_keys(a.get(k), b.get(k), sub) if k in a and k in b else [sub]
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += changed_keys(x, y, f"{path}[{i}]")
        return out
    return [] if a == b and type(a) is type(b) else [path]


def _under(key: str, prefixes) -> bool:
    return any(key == p or key.startswith(p + ".") or key.startswith(p + "[") for p in prefixes)


@dataclass
class Variant:
    """One rules variant: ``label``, the loaded ``rules`` and its TOML ``data``."""

    label: str
    rules: object
    data: dict
    edits: str = ""
    #: the rules file's TOML text (what ``tune --out-rules`` writes)
    text: str = ""


def variant_of(g: Game, base, edits, label: str | None = None, players=None):
    """A :class:`Variant` of rules text ``base`` with ``edits`` and that text
    (:func:`sheepsim.rulesedit.edited`), validated by the game's loader and for the
    player count(s) ``players`` of the run (None: every count the game takes;
    :meth:`Game.check_rules`): one line naming the key (and the count) if it is refused."""
    text = edited(base, list(edits))
    rules = g.check_rules(g.load_rules(text), players)
    shown = " ".join(e.text for e in edits)
    return Variant(label or shown or "base", rules, tomllib.loads(text.text), shown, text.text), text


@dataclass
class VariantsJob(Job):
    """Every variant's metric jobs on the same games, the counts of each of ``blocks``
    blocks of ``block_games`` games kept apart (``counts["v/job/name"]`` has a leading
    block axis). ``variants[0]`` is the base. The run's game ``g`` is game
    ``first_game + g`` of the seed (a balance search adds games to a candidate later)."""

    game: str = ""
    variants: list[Variant] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    jobs: list[dict[str, Job]] = field(default_factory=list)
    games: int = 0
    seed: int = 0
    #: per variant, per job key: the variant whose counts it uses (its own, or the base's
    #: where the variant differs from the base only in keys that job ignores)
    source: list[dict[str, int]] = field(default_factory=list)
    players: int = 4
    #: the policy of each role every seat plays (the metric jobs may fix their own)
    policies: dict = field(default_factory=dict)
    blocks: int = BLOCKS
    first_game: int = 0
    #: simulate the base only where another variant uses its counts (racing in a search)
    base_for_reuse_only: bool = False
    #: the game's own options of its metric jobs (the race's ``lanes``)
    options: dict = field(default_factory=dict)
    #: the driver's tables are skipped (a search reads the counts by block itself)
    counts_only: bool = False
    #: the default metrics left out, and why ("" none: :func:`~.balance_metrics.usable`)
    left_out: str = ""
    chunk_games: int = 1 << 12
    block: int = 1 << 62
    # the long-run notice's advice: variants and sweeps play a fixed number of games
    # (no --precision: every variant must play the same ones)
    shorten_hint = ("fewer --games (every variant plays them all), fewer variants or sweep "
                    "points, or fewer --metric")

    def __post_init__(self):
        shared_seed([self, *(job for jobs in self.jobs for job in jobs.values())], "a variants run")
        self.block_games = self.games // self.blocks
        if self.block_games * self.blocks != self.games or self.games < self.blocks:
            raise SheepsimError(f"a metrics run plays a multiple of {self.blocks} games, got {self.games}")
        self.max_games = self.games
        self.block = self.games  # no precision target: one segment

    def simulated(self, v: int, key: str) -> bool:
        """Whether variant ``v``'s job ``key`` is simulated in this run (an exact job,
        such as the race's solved lanes, never is)."""
        if self.source[v][key] != v or getattr(self.jobs[v][key], "exact", False):
            return False
        if v == 0 and self.base_for_reuse_only:
            return any(src.get(key) == 0 for src in self.source[1:])
        return True

    def variant_games(self) -> int:
        """Games simulated, counted once per variant that simulates anything."""
        return self.games * sum(any(self.simulated(v, k) for k in jobs) for v, jobs in enumerate(self.jobs))

    def prepare(self):
        for v, jobs in enumerate(self.jobs):
            for key, job in jobs.items():
                if self.simulated(v, key):
                    job.prepare()

    def chunk(self, first_game: int, n_games: int) -> Counts:
        out: Counts = {}
        stop = first_game + n_games
        for v, jobs in enumerate(self.jobs):
            for key, job in jobs.items():
                if not self.simulated(v, key):
                    continue
                g = first_game
                while g < stop:
                    blk = g // self.block_games
                    end = min(stop, (blk + 1) * self.block_games)
                    for name, arr in job.chunk(self.first_game + g, end - g).items():
                        arr = np.asarray(arr, dtype=np.int64)
                        slot = out.setdefault(f"{v}/{key}/{name}",
                                              np.zeros((self.blocks, *arr.shape), dtype=np.int64))
                        slot[blk] += arr
                    g = end
        return out

    def job_counts(self, counts: Counts, v: int, key: str) -> dict[str, np.ndarray]:
        """Variant ``v``'s counts of job ``key`` by block: name -> ``(blocks, ...)``."""
        prefix = f"{self.source[v][key]}/{key}/"
        return {k[len(prefix):]: a for k, a in counts.items() if k.startswith(prefix)}

    def check(self, counts: Counts, games: int) -> None:
        for v, jobs in enumerate(self.jobs):
            for key, job in jobs.items():
                if self.simulated(v, key):
                    job.check({k: a.sum(axis=0) for k, a in self.job_counts(counts, v, key).items()},
                              games)

    def values(self, counts: Counts) -> dict[tuple[int, str], np.ndarray]:
        """Per (variant, metric): ``(blocks + 1,)`` values, on all games, then on all
        games but block 0, 1, ...; per (variant, spread metric, "items"): its items the
        same way, ``(blocks + 1, k)``."""
        out = {}
        for v, (variant, jobs) in enumerate(zip(self.variants, self.jobs, strict=True)):
            for key, job in jobs.items():
                if v == 0 and self.base_for_reuse_only:
                    continue
                mine = [m for m in self.metrics if m.job == key]
                src = self.jobs[self.source[v][key]][key] if self.source[v][key] >= 0 else job
                if getattr(job, "exact", False):
                    job = src  # the base's solve where the variant's edits cannot change it
                items = {}
                vals = jackknife_values(job, variant.rules, mine, self.job_counts(counts, v, key),
                                        self.block_games, self.players, self.blocks, items=items)
                out.update({(v, m.name): vals[i] for i, m in enumerate(mine)})
                out.update({(v, name, "items"): arr for name, arr in items.items()})
        return out

    def tables(self, counts: Counts, games: int) -> dict[str, pd.DataFrame]:
        if self.counts_only:
            return {}
        return metric_tables(self, self.values(counts))

    def meta(self) -> dict:
        base = self.variants[0].rules
        return {"rules": base.source, "rules_sha256": base.sha256,
                "analysis": "rules variants on common random numbers",
                "variants": [{"label": v.label, "rules": v.rules.source, "rules_sha256": v.rules.sha256,
                              "edits": v.edits} for v in self.variants],
                "players": self.players, "policies": self.policies, **self.options,
                "exact": sorted({k for jobs in self.jobs for k, j in jobs.items()
                                 if getattr(j, "exact", False)}),
                "metrics": [m.name for m in self.metrics],
                **({"metrics_left_out": self.left_out} if self.left_out else {}),
                "blocks": self.blocks, "interval": f"jackknife over {self.blocks} blocks of games, "
                                                   f"Student t with {self.blocks - 1} degrees of freedom",
                **({"spread_interval": SPREAD_METHOD}
                   if any(m.items is not None and m.kind == "spread" for m in self.metrics) else {}),
                **({"extreme_interval": EXTREME_METHOD}
                   if any(m.items is not None and m.kind != "spread" for m in self.metrics) else {}),
                "simulated": [{k: ("simulated" if s == v else f"counts of {self.variants[s].label}")
                               for k, s in src.items()} for v, src in enumerate(self.source)],
                "variant_games": self.variant_games()}

    def halfwidth(self, tables) -> float:
        return 0.0


def jackknife_values(job: Job, rules, metrics: list[Metric], by_block: dict, block_games: int,
                     players: int, blocks: int | None = None, items: dict | None = None) -> np.ndarray:
    """``(len(metrics), blocks + 1)``: each metric on all the blocks' games, then on all
    but block 0, 1, ... (``by_block``: count name -> ``(blocks, ...)``; ``job.tables``,
    or :meth:`~sheepsim.game.Job.metric_tables`, builds the tables the metrics read). An
    exact job (``job.exact``) has no counts: its value repeats, so its standard error is 0.
    ``items``: filled with each spread metric's items (:attr:`Metric.items`) the same
    way, name -> ``(blocks + 1, k)``."""
    spreads = [m for m in metrics if m.items is not None] if items is not None else []
    if getattr(job, "exact", False):
        tables = job.exact_tables()
        vals = [_compute(m, tables, rules, players) for m in metrics]
        n = (blocks or BLOCKS) + 1
        for m in spreads:
            items[m.name] = np.repeat(_items(m, tables, rules, players)[None, :], n, axis=0)
        return np.repeat(np.array(vals)[:, None], n, axis=1)
    blocks = len(next(iter(by_block.values())))
    games = blocks * block_games
    total = {k: a.sum(axis=0) for k, a in by_block.items()}
    vals = np.empty((len(metrics), blocks + 1))
    rows = {m.name: [] for m in spreads}
    for s in range(blocks + 1):
        c = total if s == 0 else {k: total[k] - a[s - 1] for k, a in by_block.items()}
        # a job's metric_tables (sheepsim.game.Job) may build only the tables read
        tables = getattr(job, "metric_tables", job.tables)(c, games if s == 0 else games - block_games)
        for i, m in enumerate(metrics):
            vals[i, s] = _compute(m, tables, rules, players)
        for m in spreads:
            rows[m.name].append(_items(m, tables, rules, players))
    for m in spreads:
        items[m.name] = np.array(rows[m.name])
    return vals


def _items(m: Metric, tables: dict, rules, players: int) -> np.ndarray:
    try:
        return np.asarray(m.items(tables, rules, players), dtype=np.float64)
    except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise SheepsimError(f"metric {m.name} cannot be computed for the rules "
                            f"{getattr(rules, 'source', '?')}: {type(exc).__name__} {exc}") from None


def spread_value(items: np.ndarray, m: Metric | None = None) -> dict:
    """A spread metric's value, interval and raw max - min from its jackknife items
    ``(blocks + 1, k)`` (:func:`sheepsim.stats.spread_interval`); a maximum or minimum
    metric ``m`` (``m.kind``) the same from :func:`sheepsim.stats.extreme_interval`."""
    from sheepsim.stats import extreme_interval, spread_interval

    items = items[:, np.isfinite(items).all(axis=0)]  # items with no data left out
    if m is not None and m.kind != "spread":
        return extreme_interval(items[0], items[1:], kind=m.kind, bounds=m.bounds)
    return spread_interval(items[0], items[1:])


def spread_diff(items_base: np.ndarray, items_variant: np.ndarray, m: Metric | None = None,
                same_counts: bool = False) -> dict:
    """The paired difference variant - base of a spread metric from both variants' items
    on the same blocks (:func:`sheepsim.stats.spread_difference`; a maximum or minimum
    metric ``m``'s from :func:`sheepsim.stats.extreme_difference`; ``same_counts``: the
    two variants read the same counts, not only equal ones)."""
    from sheepsim.stats import extreme_difference, spread_difference

    if items_base.shape == items_variant.shape:  # the same items: keep those both have
        keep = np.isfinite(items_base).all(axis=0) & np.isfinite(items_variant).all(axis=0)
        items_base, items_variant = items_base[:, keep], items_variant[:, keep]
    else:
        items_base = items_base[:, np.isfinite(items_base).all(axis=0)]
        items_variant = items_variant[:, np.isfinite(items_variant).all(axis=0)]
    if m is not None and m.kind != "spread":
        return extreme_difference(items_base[0], items_base[1:], items_variant[0],
                                  items_variant[1:], kind=m.kind, bounds=m.bounds,
                                  same_counts=same_counts)
    return spread_difference(items_base[0], items_base[1:], items_variant[0], items_variant[1:],
                             same_counts=same_counts)


def _compute(m: Metric, tables: dict, rules, players: int) -> float:
    """One metric from its job's tables; a variant whose tables lack what the metric
    reads (a rules change that removes a lane, a tile...) is one line naming both."""
    try:
        return float(m.compute(tables, rules, players))
    except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise SheepsimError(f"metric {m.name} cannot be computed for the rules "
                            f"{getattr(rules, 'source', '?')}: {type(exc).__name__} {exc}") from None


def jackknife_se(vals: np.ndarray) -> float:
    """Standard error of the all-games value from the leave-one-block-out values
    ``vals[1:]`` (``vals[0]`` the all-games value)."""
    loo = vals[1:]
    if np.ptp(loo) == 0:  # an exact value, or a metric the blocks never move: exactly 0
        return 0.0
    b = len(loo)
    return float(math.sqrt((b - 1) / b * np.sum((loo - loo.mean()) ** 2)))


def paired_jackknife(base: np.ndarray, variant: np.ndarray, same_counts: bool = False) -> dict:
    """The paired difference ``variant - base`` of a plain metric measured on the same
    games, from each one's values on all the games, then on all but block 0, 1, ...
    (``(blocks + 1,)``): the jackknife of the difference (Student's t with ``blocks - 1``
    degrees of freedom, 95%).

    A change that no block moves (the difference the same without any one block), of a
    metric that is noisy, was not seen rather than known, as for spreads and extremes
    (:func:`sheepsim.stats.spread_difference`): no game of the run changed it (a rare
    event), and the jackknife would read it as exact, [d, d]. Pairing then bounds
    nothing: the interval is the two values' intervals' difference, ``d ± t (se_a +
    se_b)`` (``se_a + se_b`` the largest standard error the difference can have, whatever
    the pairing: its ``se``), and the pairing's gain is not measured (``unseen``). Only
    variants that share the counts (``same_counts``: an edit the job ignores) differ by
    exactly their values' difference (0). Returns ``diff``, ``lo``, ``hi``, ``se``,
    ``se_a``, ``se_b`` (each value's standard error), ``pvalue`` and ``unseen``."""
    d = variant - base
    se, se_a, se_b = jackknife_se(d), jackknife_se(base), jackknife_se(variant)
    df = len(d) - 2
    unseen = (not same_counts and se <= 1e-12 * max(1.0, float(np.abs(d).max()))
              and (se_a > 0 or se_b > 0))
    if unseen:
        se = se_a + se_b
    tq = _t(df)
    return {"diff": d[0], "lo": d[0] - tq * se, "hi": d[0] + tq * se, "se": se, "se_a": se_a,
            "se_b": se_b, "pvalue": _p(d[0], se, df), "unseen": unseen}


def _t(df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def _p(diff: float, se: float, df: int) -> float:
    from scipy.stats import t

    if se == 0:
        return 1.0 if diff == 0 else 0.0
    return float(2 * t.sf(abs(diff) / se, df))


def is_exact(job, m: Metric) -> bool:
    """Whether metric ``m`` is computed exactly for every variant of ``job`` (its job is
    an exact solve, such as the race's lanes on dealt lanes: no games, no sampling)."""
    jobs = getattr(job, "jobs", None)
    return bool(jobs) and all(getattr(js.get(m.job), "exact", False) for js in jobs)


#: under a ``differences`` table with rows no game moved (the same value on all the games
#: and without each block): what they mean
NO_GAME_MOVED = ("no_game_moved = yes: no game moved that difference (0), so its interval is "
                 "the two values', not the pairing's")


def metric_tables(job: VariantsJob, values: dict) -> dict[str, pd.DataFrame]:
    """``metrics``: a row per variant and metric (value with its 95% interval and
    standard error); ``differences``: a row per non-base variant and metric (the paired
    difference variant - base, its interval, standard error, the unpaired standard error
    two independent runs would give, their ratio, and the p-value, Holm-adjusted across
    the variants of each metric).

    ``exact`` says which rows are computed exactly (:func:`is_exact`): those have no
    interval, standard error, p-value or game count (empty), since nothing was sampled.
    A ``no_game_moved`` column (only if some row is one: true there) marks the rows whose
    metric no game moved: difference 0, interval the two values' (:data:`NO_GAME_MOVED`,
    said under the table).

    A spread, maximum or minimum metric (:attr:`Metric.items`) is measured by
    :func:`spread_value` and :func:`spread_diff`: its value is bias-corrected (the plain
    max - min, max or min in ``value_raw``), its interval and its difference's interval
    cover with at least 95% (Bonferroni over the item pairs or items), its ``se`` and
    ``diff_se`` the parametric bootstrap's standard deviations, its p-value the interval's inversion."""
    from sheepsim.stats import holm_adjusted

    tq = _t(job.blocks - 1)
    nan = float("nan")
    rows, diffs = [], []
    exact = {m.name: is_exact(job, m) for m in job.metrics}
    spread = {m.name: getattr(m, "items", None) is not None and not exact[m.name] for m in job.metrics}
    for v, variant in enumerate(job.variants):
        for m in job.metrics:
            vals = values[(v, m.name)]
            se = nan if exact[m.name] else jackknife_se(vals)
            value, lo, hi = vals[0], vals[0] - tq * se, vals[0] + tq * se
            if spread[m.name]:
                sv = spread_value(values[(v, m.name, "items")], m)
                value, lo, hi, se = sv["value"], sv["lo"], sv["hi"], sv["se"]
            rows.append({"variant": variant.label, "metric": m.name, "value": value,
                         "value_lo": lo, "value_hi": hi, "se": se,
                         "exact": exact[m.name], "unit": m.unit, "better": m.better,
                         "edits": variant.edits, "rules_sha256": variant.rules.sha256,
                         "games": None if exact[m.name] else job.games})
            if any(spread.values()):
                rows[-1]["value_raw"] = vals[0] if spread[m.name] else nan
    for m in job.metrics:
        base = values[(0, m.name)]
        block = []
        for v in range(1, len(job.variants)):
            d = values[(v, m.name)] - base
            if exact[m.name]:
                block.append({"variant": job.variants[v].label, "metric": m.name, "diff": d[0],
                              "diff_lo": nan, "diff_hi": nan, "diff_se": nan, "unpaired_se": nan,
                              "se_ratio": nan, "pvalue": nan, "pvalue_holm": nan, "exact": True,
                              "unit": m.unit, "better": m.better, "games": None})
                continue
            same = job.source[v][m.job] == job.source[0][m.job]
            pj = paired_jackknife(base, values[(v, m.name)], same_counts=same)
            unpaired = math.hypot(pj["se_a"], pj["se_b"])
            diff, lo, hi, se, p = pj["diff"], pj["lo"], pj["hi"], pj["se"], pj["pvalue"]
            ratio = float("nan") if pj["unseen"] else se / unpaired if unpaired > 0 else float("nan")
            if spread[m.name]:
                sd = spread_diff(values[(0, m.name, "items")], values[(v, m.name, "items")], m,
                                 same_counts=same)
                diff, lo, hi, se, p = sd["diff"], sd["lo"], sd["hi"], sd["se"], sd["pvalue"]
                unpaired = math.hypot(sd["se_a"], sd["se_b"])
                ratio = float("nan") if sd["unseen"] else se / unpaired if unpaired > 0 else float("nan")
            # the same value on all the games and without each block: no game moved it, so
            # its interval is the two values' (not the pairing's): said on the row
            moved_none = (not same and hi > lo
                          and np.array_equal(values[(v, m.name)], base, equal_nan=True)
                          and (not spread[m.name]
                               or np.array_equal(values[(v, m.name, "items")],
                                                 values[(0, m.name, "items")], equal_nan=True)))
            block.append({"variant": job.variants[v].label, "metric": m.name, "diff": diff,
                          "diff_lo": lo, "diff_hi": hi, "diff_se": se,
                          "unpaired_se": unpaired, "se_ratio": ratio,
                          "pvalue": p, "exact": False, "unit": m.unit,
                          "better": m.better, "games": job.games,
                          "no_game_moved": bool(moved_none)})
        tested = [r for r in block if not r["exact"]]
        if tested:
            for row, adj in zip(tested, holm_adjusted([r["pvalue"] for r in tested]), strict=True):
                row["pvalue_holm"] = float(adj)
        diffs += block
    metrics = pd.DataFrame(rows)
    metrics["games"] = metrics["games"].astype("Int64")
    note = corrected_note([m for m in job.metrics if spread[m.name]], "value", "value_raw")
    if note:  # said under the table (the JSON's meta says it as spread/extreme_interval)
        metrics.attrs["notes"] = [note]
    out = {"metrics": metrics}
    cols = ["variant", "metric", "diff", "diff_lo", "diff_hi", "diff_se", "unpaired_se", "se_ratio",
            "pvalue", "pvalue_holm", "exact", "unit", "better", "games"]
    unmoved = any(r.get("no_game_moved") for r in diffs)
    if unmoved:  # a row no game moved says so
        cols.append("no_game_moved")
    df = pd.DataFrame(diffs, columns=cols)
    df["games"] = df["games"].astype("Int64")
    if len(df):
        ratio = df.loc[~df["exact"].astype(bool), "se_ratio"].dropna()
        ratio = ratio[ratio > 0]  # 0: the metric did not change at all (nothing to pair)
        df["pairing_note"] = pairing_note(ratio, simulated=bool((~df["exact"].astype(bool)).any()),
                                          exact=bool(df["exact"].astype(bool).any()))
    # the metric and the difference with its interval are what the table is for: a narrow
    # terminal drops the other columns first (issue 49)
    df.attrs["must_show"] = ["metric", "diff"] + (["no_game_moved"] if unmoved else [])
    if unmoved:
        df.attrs["notes"] = [NO_GAME_MOVED]
    out["differences"] = df
    return out


def pairing_note(ratio: pd.Series, simulated: bool = True, exact: bool = False) -> str:
    """The ``differences`` table's note on what pairing did, from the ``se_ratio`` of the
    simulated rows where the metric changed (``ratio``, all above 0): below 1 pairing
    *narrowed* the difference's standard error, above 1 it *widened* it (the variants'
    luck ran against each other), exactly 1 left it as two independent runs would.
    ``simulated``/``exact``: whether the table has simulated rows, exact rows (exact
    differences have no standard error: nothing to pair)."""
    if not simulated:
        return ("every metric here is exact (computed, not simulated): the differences are "
                "exact, with no interval or p-value, and no games were played")
    if not len(ratio):
        return ("no simulated metric changed between the variants; the exact ones (exact = "
                "yes) have exact differences, with no interval or p-value"
                if exact else "no metric changed between the variants")
    med = float(ratio.median())
    rounded = round(med, 2)
    if rounded < 1:
        did = f"narrowed the difference's standard error to {med:.2f} of"
    elif rounded > 1:
        did = f"widened the difference's standard error to {med:.2f} times"
    else:
        did = "left the difference's standard error about as wide as"
    return (f"pairing (the same games for every variant) {did} two independent runs' "
            f"(median se_ratio over the rows where the metric changed; range "
            f"{ratio.min():.2f}-{ratio.max():.2f}; below 1 pairing helps, above 1 it hurts)")


def pairing_summary(differences: pd.DataFrame) -> dict:
    """Per metric, the median paired / unpaired standard error over the variants."""
    out = {"meaning": "paired standard error of the difference to the base / the standard "
                      "error two independent runs of as many games would give, measured in "
                      "this run (median over the variants; below 1: pairing narrowed the interval, "
                      "above 1: it widened it)"}
    for name, grp in differences.groupby("metric", sort=False):
        ratio = grp["se_ratio"].dropna()
        out[f"{name}_se_ratio"] = float(ratio.median()) if len(ratio) else float("nan")
    return out


def build_job(g: Game, variants: list[Variant], metrics: list[Metric], *, games: int,
              seed: int, players: int, policies: dict, options: dict | None = None,
              blocks: int | None = None, first_game: int = 0, search: bool = False,
              left_out: str = "") -> VariantsJob:
    """The job of ``variants`` (base first) on ``games`` games (rounded up to a multiple
    of :data:`BLOCKS`; with ``blocks``: exactly ``games`` in that many blocks, from game
    ``first_game``), building each variant's metric jobs (validated now, before any
    simulation) and sharing the base's counts where the game says an edit leaves a job's
    counts unchanged. ``search``: a balance search's run (counts only; the base is
    played only where a variant reuses its counts; see :mod:`sheepsim.search`).
    ``left_out``: the note of the default metrics left out (:attr:`VariantsJob.left_out`)."""
    mod = module(g)
    keys = list(dict.fromkeys(m.job for m in metrics))
    jobs, source = [], []
    for v, variant in enumerate(variants):
        built = mod.metric_jobs(variant.rules, players, seed, policies, keys, **(options or {}))
        jobs.append(built)
        src = {}
        for key in keys:
            src[key] = v
            prefixes = mod.invariant(key, policies)
            if v and prefixes:
                changed = changed_keys(variants[0].data, variant.data)
                if all(_under(c, prefixes) for c in changed):
                    src[key] = 0
        source.append(src)
    return VariantsJob(g.name, variants, metrics, jobs, games if blocks else round_games(games), seed,
                       source, players, dict(policies), blocks=blocks or BLOCKS, first_game=first_game,
                       base_for_reuse_only=search, options=dict(options or {}), counts_only=search,
                       left_out=left_out)
