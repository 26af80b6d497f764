"""Balance metrics of rules variants on common random numbers, for every game.

A game declares its balance metrics in its metrics module (``Game.metrics``):

* ``METRICS``: :class:`Metric` entries (name, meaning, unit, which way is better, the
  metric job it reads and how it is computed from that job's tables);
* ``metric_jobs(rules, players, seed, policies) -> {job key: Job}``: the whole-game or
  single-race jobs one variant needs (only the keys the chosen metrics read are built);
* ``EXAMPLES`` (optional): the rules edits and target the designers' commands' ``--help``
  shows (keys ``set``, ``sweep``, ``vary``, ``target``);
* ``invariant(job key, policies) -> (rules key prefixes, ...)``: the edits that do not
  change that job's counts (The Sheep Race's payoffs do not move a single race paced by a
  policy that ignores bets), so a variant differing from the base only there reuses the
  base's counts: no simulation.

:class:`sheepsim.variant_runs.VariantsJob` plays every variant on the *same* games (the same seed and game
indices: the same deals and dice wherever the variants leave them compatible) through
the one driver, keeping the counts of each of ``BLOCKS`` equal blocks of games apart.
:func:`sheepsim.variant_runs.metric_tables` computes every metric on all the games, its standard error by the
jackknife over the blocks (delete one block; the games are independent, so the blocks
are), and for every variant the paired difference to the base: the same jackknife
applied to the difference block by block, so what the two variants share cancels. A
spread (largest minus smallest of noisy rates, declared with :func:`spread`) is biased
up by the noise and its jackknife interval misses; its value, interval and paired
difference come from :func:`sheepsim.stats.spread_interval` and
:func:`sheepsim.stats.spread_difference` instead, on the jackknife covariance of its
items. A maximum or minimum of noisy rates (declared with :func:`maximum` or
:func:`minimum`) is biased the same way (up for a maximum): its value, interval and paired
difference come from :func:`sheepsim.stats.extreme_interval` and
:func:`sheepsim.stats.extreme_difference`. The unpaired
standard error (what two independent runs would give) is reported beside it, measured.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from sheepsim.errors import SheepsimError
from sheepsim.game import Game

#: blocks of games the jackknife deletes one at a time (intervals use Student's t with
#: BLOCKS - 1 degrees of freedom); a run's game count is rounded up to a multiple of it
BLOCKS = 20

#: ``tune``'s confirmation games by default: this many times a trial's games, for the
#: winner and the base each (4x: a difference a trial's games show at about 2 standard
#: errors shows at about 4 on the confirmation games; 2x the search's block noise would
#: be too few). Here, not in :mod:`sheepsim.search`, so ``tune --help`` loads no numpy.
CONFIRM_FACTOR = 4

BETTER = {"lower": "lower is better", "higher": "higher is better",
          "zero": "closer to 0 is better", "none": "neither way is better in itself"}


@dataclass(frozen=True)
class Metric:
    """One balance metric of a game: ``compute(tables, rules, players) -> float`` from
    the tables of the metric job ``job``."""

    name: str
    meaning: str
    unit: str
    better: str  # a key of BETTER
    job: str
    compute: Callable[[dict, object, int], float]
    #: a spread (largest minus smallest of noisy item rates or means): the items
    #: ``(tables, rules, players) -> array``; its value, interval and differences come
    #: from :func:`sheepsim.stats.spread_interval` and
    #: :func:`sheepsim.stats.spread_difference` (bias-corrected), not the jackknife
    items: Callable | None = None
    #: what the items reduce to: "spread" (max - min), "max" or "min" (of the items,
    #: :func:`sheepsim.stats.extreme_interval`)
    kind: str = "spread"
    #: the metric's range its interval is clipped to (a probability's ``(0, 1)``)
    bounds: tuple[float, float] | None = None


def spread(name: str, meaning: str, unit: str, better: str, job: str, items: Callable) -> Metric:
    """A spread metric: ``max - min`` of ``items(tables, rules, players)`` (an array),
    measured with its bias taken out (see :attr:`Metric.items`)."""

    def compute(t, rules, players) -> float:
        import numpy as np  # here, not at declaration: the parser (`--help`) reads metrics

        x = np.asarray(items(t, rules, players), dtype=np.float64)
        x = x[np.isfinite(x)]  # an item with no data (NaN) is left out, as pandas' max/min did
        return float(x.max() - x.min())

    compute.__name__ = name
    return Metric(name, meaning, unit, better, job, compute, items)


def maximum(name: str, meaning: str, unit: str, better: str, job: str, items: Callable) -> Metric:
    """A maximum metric: the largest of ``items(tables, rules, players)`` (an array),
    measured with its bias taken out (:func:`sheepsim.stats.extreme_interval`); a
    probability's interval stays within [0, 1]."""
    return _extreme(name, meaning, unit, better, job, items, "max")


def minimum(name: str, meaning: str, unit: str, better: str, job: str, items: Callable) -> Metric:
    """A minimum metric: the smallest of ``items(tables, rules, players)``, as
    :func:`maximum`."""
    return _extreme(name, meaning, unit, better, job, items, "min")


def _extreme(name, meaning, unit, better, job, items, kind: str) -> Metric:
    def compute(t, rules, players) -> float:
        import numpy as np

        x = np.asarray(items(t, rules, players), dtype=np.float64)
        x = x[np.isfinite(x)]  # an item with no data (NaN) is left out, as pandas' max/min did
        return float(x.max() if kind == "max" else x.min())

    compute.__name__ = name
    return Metric(name, meaning, unit, better, job, compute, items, kind,
                  (0.0, 1.0) if unit == "probability" else None)


#: what a spread, maximum or minimum metric's plain value is, for the tables' notes
PLAIN = {"spread": "max - min", "max": "maximum", "min": "minimum"}


def corrected_note(metrics, column: str | None = None, raw: str | None = None) -> str:
    """The tables' note naming the ``metrics`` whose value is bias-corrected (spreads,
    maxima, minima: :attr:`Metric.items`), "" if none is: ``column`` the column that holds
    their values (None: each metric's own), ``raw`` the column of the plain value, if any."""
    ms = [m for m in metrics if m.items is not None]
    if not ms:
        return ""
    kinds = " or ".join(dict.fromkeys(PLAIN[m.kind] for m in ms))
    names = ", ".join(f"{m.name} (a {PLAIN[m.kind]})" for m in ms)
    return (f"{column + ' of ' if column else ''}{names} {'is' if len(ms) == 1 else 'are'} "
            f"bias-corrected: the bias noise gives the plain {kinds} taken out by moment matching"
            + (f"; {raw} is the plain {kinds}" if raw else ""))


def module(g: Game):
    """The game's metrics module, with the metrics every game with a skill ladder gets
    (:data:`SKILL_GRADIENT`) added to its own."""
    if not g.metrics:
        raise SheepsimError(f"{g.title} declares no balance metrics")
    mod = importlib.import_module(g.metrics)
    return _WithLadder(g, mod) if len(g.ladder) >= 2 else mod


#: the metric job of :data:`SKILL_GRADIENT`: the top rung against the bottom one
LADDER_JOB = "ladder"


def _skill_gradient(tables, rules, players) -> float:
    return float(tables["comparison"].iloc[0]["diff"])


#: how much the game rewards its best known play (:mod:`sheepsim.skill_ladder`): every
#: game with a ladder has it, computed on the same games as its other metrics
SKILL_GRADIENT = Metric(
    "skill_gradient", "seat 1's win rate with the ladder's top rung minus with its bottom one, "
    "the others at the bottom, same games", "probability", "higher", LADDER_JOB, _skill_gradient)


class _WithLadder:
    """A game's metrics module plus :data:`SKILL_GRADIENT`: its metric job is the
    game's own ``head-to-head`` of the ladder's ends (the game adds nothing)."""

    def __init__(self, g: Game, mod):
        self._g, self._mod = g, mod
        own = tuple(mod.METRICS)
        self.METRICS = own + ((SKILL_GRADIENT,) if all(m.name != SKILL_GRADIENT.name for m in own)
                              else ())

    def __getattr__(self, name):
        return getattr(self._mod, name)

    def metric_jobs(self, rules, players: int, seed: int, policies: dict, keys, **options) -> dict:
        own = [k for k in keys if k != LADDER_JOB]
        out = self._mod.metric_jobs(rules, players, seed, policies, own, **options) if own else {}
        if LADDER_JOB in keys:
            top, bottom = self._g.ladder[-1], self._g.ladder[0]
            out[LADDER_JOB] = self._g.job("head-to-head", rules=rules, players=players, a=top,
                                          b=bottom, field=bottom, seat=1, seed=seed)
        return out

    def invariant(self, key: str, policies: dict) -> tuple[str, ...]:
        return () if key == LADDER_JOB else self._mod.invariant(key, policies)


def declared(g: Game) -> dict[str, Metric]:
    return {m.name: m for m in module(g).METRICS}


def pick(g: Game, names) -> list[Metric]:
    """The metrics ``names`` (a comma list or a list; None: all), one line if unknown."""
    known = declared(g)
    if names is None:
        return list(known.values())
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    out = []
    for n in names:
        if any(m.name == n for m in out):
            raise SheepsimError(f"metric {n!r} is named twice")
        if n not in known:
            raise SheepsimError(f"{g.title} has no metric {n!r}; it has: {', '.join(known)}")
        out.append(known[n])
    if not out:
        raise SheepsimError("name at least one metric")
    return out


def usable(g: Game, metrics: list[Metric], policies: dict) -> tuple[list[Metric], str]:
    """Of the default metrics (none named), those the line-up ``policies`` can be measured
    under, and a note naming the others and why ("" if none is left out): a game whose
    metrics module declares ``unavailable(policies) -> (names, why) | None`` (The Sheep
    Race: the harness's metrics, where its race machine does not play the line-up). A
    metric named explicitly is not left out: its job says in one line why it cannot run."""
    fn = getattr(module(g), "unavailable", None)
    found = fn(policies) if fn is not None else None
    if not found:
        return metrics, ""
    names, why = found
    out = [m for m in metrics if m.name not in names]
    left = [m.name for m in metrics if m.name in names]
    if not left:
        return metrics, ""
    return out, f"left out ({why}): {', '.join(left)}"


def metrics_table(g: Game):
    """``sheepsim <game> metrics``: name, meaning, unit, better, job (a DataFrame; its
    text table wraps ``meaning`` to fit the width)."""
    import pandas as pd

    df = pd.DataFrame([{"metric": m.name, "meaning": m.meaning, "unit": m.unit,
                        "better": BETTER[m.better], "from": m.job} for m in module(g).METRICS])
    df.attrs["wrap"] = ["meaning"]
    return df


def game_options(g: Game, args) -> dict:
    """The game's own options of its metric jobs (the race's ``--lanes``)."""
    mod = module(g)
    return mod.job_options(args) if hasattr(mod, "job_options") else {}
