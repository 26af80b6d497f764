"""Coverage of the spread metrics' intervals (issue 49, item 0): values and paired
differences, on a true spread of 0 (interchangeable items) and on real spreads.

Two parts:

* ``--part model``: a fast multinomial model of the rates (four seats, one winner per
  game; two variants coupled game by game, as common random numbers couple them), at
  2,000 and 20,000 games, ``--reps`` replications each;
* ``--part sim``: the real simulator at 2,000 games: The Sheep Race's ``seat_win_spread``
  of whole games (every seat plays the same policies and the turn order rotates, so
  the true spread is 0, for the base and for ``race.payoffs.bonus_three=2``: a paired
  difference of 0) and its ``lane_win_spread`` on the dealt lanes of
  ``tests/test_designers.py`` (simulated single races, the truth from the exact solver,
  for the base and for Stilton's gallop 4 -> 5: a real paired difference).

Two more for maxima (the race's ``card_win_max``; :func:`sheepsim.stats.extreme_interval`
and :func:`sheepsim.stats.extreme_difference`):

* ``--part maxmodel``: normal items with given means and covariance (six items, se
  0.01 or 0.003, equicorrelation -0.15 between items, 0.7 between an item of a and the
  same item of b), block by block; one minimum row;
* ``--part maxsim``: the real simulator: ``card_win_max`` of random-deal semifinals
  (base and Stilton's gallop 4 -> 5), the truth from 4,000,000 semifinals on a seed no
  replication uses, at 2,000 and 20,000 semifinals.

Each replication measures the way ``variants`` does: 20 blocks of games, the items'
jackknife covariance, :func:`sheepsim.stats.spread_interval` and
:func:`sheepsim.stats.spread_difference` (maxima: ``extreme_interval`` and
``extreme_difference``, through :func:`sheepsim.variant_runs.spread_value` and
:func:`~sheepsim.variant_runs.spread_diff` as ``variants`` calls them). Printed:
coverage (share of replications whose 95% interval holds the truth; at a true spread
of 0 an interval [0, hi] holds it, since the spread cannot be negative), the share of
lower bounds at 0, the mean of the bias-corrected value and of the plain max - min (or
max, min) minus the truth, and the rejection rate of the difference's p < 0.05.

    python benchmarks/spread_coverage.py --part model --reps 400
    python benchmarks/spread_coverage.py --part sim --reps 200
    python benchmarks/spread_coverage.py --part maxmodel --reps 400
    python benchmarks/spread_coverage.py --part maxsim --reps 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sheepsim.stats import spread_difference, spread_interval

BLOCKS = 20


def _loo(per_block: np.ndarray, block_games: int) -> tuple[np.ndarray, np.ndarray]:
    """Rates on all blocks and leaving each block out, from per-block counts ``(B, k)``."""
    total = per_block.sum(axis=0)
    games = block_games * len(per_block)
    return total / games, (total - per_block) / (games - block_games)


def _model_case(pa, pb, couple: float, games: int, reps: int, seed: int) -> dict:
    """Variant a's seat win probabilities ``pa``, b's ``pb``; a game's winner is the
    same seat in both with probability ``couple`` (common random numbers), else b's is
    drawn afresh so that b's rates are ``pb``."""
    pa, pb = np.asarray(pa, float), np.asarray(pb, float)
    k = len(pa)
    fresh = (pb - couple * pa) / (1 - couple)
    assert (fresh >= 0).all()
    joint = (couple * np.diag(pa) + (1 - couple) * np.outer(pa, fresh)).ravel()
    rng = np.random.default_rng(seed)
    bg = games // BLOCKS
    ta, tb = float(np.ptp(pa)), float(np.ptp(pb))
    out = _Tally()
    for _ in range(reps):
        cells = rng.multinomial(bg, joint, size=BLOCKS).reshape(BLOCKS, k, k)
        fa, la = _loo(cells.sum(axis=2), bg)
        fb, lb = _loo(cells.sum(axis=1), bg)
        out.add(spread_interval(fa, la), spread_interval(fb, lb),
                spread_difference(fa, la, fb, lb), ta, tb)
    return out.summary()


class _Tally:
    def __init__(self):
        self.rows = []

    def add(self, va, vb, d, ta, tb):
        self.rows.append((va["lo"] <= ta <= va["hi"], vb["lo"] <= tb <= vb["hi"],
                          d["lo"] <= tb - ta <= d["hi"], va["lo"] == 0, va["value"] - ta,
                          va["raw"] - ta, d["diff"] - (tb - ta), d["raw"] - (tb - ta),
                          d["pvalue"] < 0.05, va["hi"] - va["lo"], d["hi"] - d["lo"]))

    def summary(self) -> dict:
        a = np.array(self.rows, dtype=float)
        n = len(a)
        keys = ("cover_a", "cover_b", "cover_diff", "lo_at_0_a", "bias_a", "raw_bias_a",
                "bias_diff", "raw_bias_diff", "reject_diff", "width_a", "width_diff")
        out = dict(zip(keys, a.mean(axis=0), strict=True))
        out["reps"] = n
        return out


def _print(label: str, truth: str, s: dict, secs: float) -> None:
    se = np.sqrt(0.95 * 0.05 / s["reps"])
    print(f"| {label} | {truth} | {s['reps']} | {s['cover_a']:.3f} | {s['cover_b']:.3f} | "
          f"{s['cover_diff']:.3f} | {s['lo_at_0_a']:.2f} | {s['bias_a']:+.4f} / {s['raw_bias_a']:+.4f} | "
          f"{s['bias_diff']:+.4f} / {s['raw_bias_diff']:+.4f} | {s['reject_diff']:.2f} | "
          f"{s['width_a']:.4f} | {s['width_diff']:.4f} | {secs:.0f} s |  (coverage se {se:.3f})",
          flush=True)


HEADER = ("| case | true spread a / b | reps | cover a | cover b | cover b-a | lo = 0 (a) | "
          "bias a: corrected / raw | bias b-a: corrected / raw | p<0.05 (b-a) | width a | "
          "width b-a | time |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def model(reps: int) -> None:
    even, real, wider = [0.25] * 4, [0.28, 0.26, 0.24, 0.22], [0.31, 0.25, 0.24, 0.20]
    print(HEADER)
    for games in (2_000, 20_000):
        for label, pa, pb in (("null / null", even, even), ("real / null", real, even),
                              ("real / real", real, wider)):
            t0 = time.perf_counter()
            s = _model_case(pa, pb, 0.5, games, reps, seed=games + len(label))
            _print(f"model {games:,} games, {label}", f"{np.ptp(pa):.2f} / {np.ptp(pb):.2f}", s,
                   time.perf_counter() - t0)


def _blocks(job, seed: int, block_games: int) -> dict:
    by = {}
    job.seed = seed  # a job plays its own seed: one replication, one seed
    for b in range(BLOCKS):
        for name, arr in job.chunk(b * block_games, block_games).items():
            by.setdefault(name, []).append(np.asarray(arr, dtype=np.int64))
    return {k: np.stack(v) for k, v in by.items()}


def _items(job, rules, metric, seed: int, block_games: int, players: int) -> np.ndarray:
    from sheepsim.variant_runs import jackknife_values

    items = {}
    jackknife_values(job, rules, [metric], _blocks(job, seed, block_games), block_games, players,
                     items=items)
    return items[metric.name]


def sim(reps: int, games: int = 2_000) -> None:
    from sheepsim.balance_metrics import declared
    from sheepsim.game import get
    from sheepsim.games.race.exact import exact_odds
    from sheepsim.games.race.jobs import GamesJob, RacesJob
    from sheepsim.rulesedit import base_text, edited, parse_edit

    g = get("race")
    metrics = declared(g)
    bg = games // BLOCKS
    print(HEADER)

    def measure(label, truth, jobs_rules, metric, t_a, t_b):
        t0 = time.perf_counter()
        tally = _Tally()
        for r in range(reps):
            (ja, ra), (jb, rb) = jobs_rules
            ia = _items(ja, ra, metric, r, bg, 4)
            ib = _items(jb, rb, metric, r, bg, 4)
            tally.add(spread_interval(ia[0], ia[1:]), spread_interval(ib[0], ib[1:]),
                      spread_difference(ia[0], ia[1:], ib[0], ib[1:]), t_a, t_b)
        _print(label, truth, tally.summary(), time.perf_counter() - t0)

    base = g.load_rules(None)
    bonus = g.load_rules(edited(base_text(g), [parse_edit("race.payoffs.bonus_three=2")]))
    jobs = [(GamesJob(r, 4, "ev-approx", "greedy"), r) for r in (base, bonus)]
    for j, _ in jobs:
        j.prepare()
    measure(f"race seat_win_spread, {games:,} games, base / bonus_three=2", "0 / 0", jobs,
            metrics["seat_win_spread"], 0.0, 0.0)

    lanes = "Requeijao,Pecorino,Feta,Manchego,Roquefort,Stilton"
    fast = g.load_rules(edited(base_text(g), [parse_edit("race.cards.Stilton.gallop=5")]))
    truth = [float(np.ptp(exact_odds(r, lanes.split(","), "semifinal", "greedy").p_place[:, 0]))
             for r in (base, fast)]
    jobs = [(RacesJob(base, lanes, "semifinal", "greedy"), base),
            (RacesJob(fast, lanes, "semifinal", "greedy"), fast)]
    for j, _ in jobs:
        j.prepare()
    measure(f"race lane_win_spread (dealt lanes), {games:,} races, base / Stilton gallop 5",
            f"{truth[0]:.4f} / {truth[1]:.4f}", jobs, metrics["lane_win_spread"], *truth)


MAX_HEADER = ("| case | true a / b | reps | cover a | cover b | cover b-a | cover a, jackknife of "
              "the plain max | bias a: corrected / raw | bias b-a: corrected / raw | "
              "p<0.05 (b-a) | width a | width b-a | time |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def _jackknife_covers(full, loo, truth: float, f=np.max) -> bool:
    """Whether the interval ``variants`` gave before (the plain max's jackknife: its
    leave-one-out values, Student t with 19 degrees of freedom) holds ``truth``."""
    from sheepsim.variant_runs import _t, jackknife_se

    vals = np.concatenate([[f(full)], f(loo, axis=1)])
    half = _t(len(loo) - 1) * jackknife_se(vals)
    return bool(vals[0] - half <= truth <= vals[0] + half)


def _print_max(label: str, truth: str, s: dict, secs: float) -> None:
    se = np.sqrt(0.95 * 0.05 / s["reps"])
    print(f"| {label} | {truth} | {s['reps']} | {s['cover_a']:.3f} | {s['cover_b']:.3f} | "
          f"{s['cover_diff']:.3f} | {s['cover_old_a']:.3f} | "
          f"{s['bias_a']:+.4f} / {s['raw_bias_a']:+.4f} | "
          f"{s['bias_diff']:+.4f} / {s['raw_bias_diff']:+.4f} | {s['reject_diff']:.2f} | "
          f"{s['width_a']:.4f} | {s['width_diff']:.4f} | {secs:.0f} s |  (coverage se {se:.3f})",
          flush=True)


def _normal_case(mu_a, mu_b, se: float, reps: int, seed: int, kind: str = "max") -> dict:
    """Items ``x_a``, ``x_b`` normal with means ``mu_a``/``mu_b``; each item's standard
    error ``se``, equicorrelation -0.15 between the items of a variant and 0.7 between
    an item of a and the same item of b; drawn block by block (20 blocks, each with
    20 times the covariance: their mean has the covariance above)."""
    from sheepsim.stats import extreme_difference, extreme_interval

    mu_a, mu_b = np.asarray(mu_a, float), np.asarray(mu_b, float)
    k = len(mu_a)
    items = se**2 * (1.15 * np.eye(k) - 0.15 * np.ones((k, k)))
    joint = np.kron(np.array([[1.0, 0.7], [0.7, 1.0]]), items) * BLOCKS
    chol = np.linalg.cholesky(joint)
    rng = np.random.default_rng(seed)
    f = np.max if kind == "max" else np.min
    ta, tb = float(f(mu_a)), float(f(mu_b))
    out, old = _Tally(), 0
    for _ in range(reps):
        blk = np.concatenate([mu_a, mu_b]) + rng.standard_normal((BLOCKS, 2 * k)) @ chol.T
        full = blk.mean(axis=0)
        loo = (blk.sum(axis=0) - blk) / (BLOCKS - 1)
        fa, fb, la, lb = full[:k], full[k:], loo[:, :k], loo[:, k:]
        out.add(extreme_interval(fa, la, kind=kind), extreme_interval(fb, lb, kind=kind),
                extreme_difference(fa, la, fb, lb, kind=kind), ta, tb)
        old += _jackknife_covers(fa, la, ta, f)
    return out.summary() | {"cover_old_a": old / reps}


def maxmodel(reps: int) -> None:
    even = [1 / 6] * 6
    tied = [0.20, 0.20, 0.17, 0.15, 0.14, 0.14]
    clear = [0.30, 0.20, 0.15, 0.13, 0.12, 0.10]
    raised = [0.33, 0.20, 0.15, 0.13, 0.12, 0.10]
    print(MAX_HEADER)
    for se in (0.01, 0.003):
        for label, pa, pb, kind in (("equal / equal", even, even, "max"),
                                    ("two tied on top / equal", tied, even, "max"),
                                    ("clear top / top +0.03", clear, raised, "max"),
                                    ("min: equal / clear bottom", even, clear, "min")):
            t0 = time.perf_counter()
            s = _normal_case(pa, pb, se, reps, seed=int(se * 1e4) + len(label), kind=kind)
            f = max if kind == "max" else min
            _print_max(f"normal, se {se}, {label}", f"{f(pa):.4f} / {f(pb):.4f}", s,
                       time.perf_counter() - t0)


def maxsim(reps: int) -> None:
    from sheepsim.balance_metrics import declared
    from sheepsim.game import get
    from sheepsim.games.race.jobs import CardsJob
    from sheepsim.rulesedit import base_text, edited, parse_edit
    from sheepsim.variant_runs import spread_diff, spread_value

    g = get("race")
    metric = declared(g)["card_win_max"]
    base = g.load_rules(None)
    fast = g.load_rules(edited(base_text(g), [parse_edit("race.cards.Stilton.gallop=5")]))
    jobs = [CardsJob(r, None, "semifinal", "greedy", 0, random_deal=True) for r in (base, fast)]
    truth = []
    for j in jobs:
        j.prepare()
        j.seed = 10**6  # no replication plays this seed
        n = 4_000_000
        truth.append(float(j.tables(j.chunk(0, n), n)["cards"]["p_win"].max()))
    print(MAX_HEADER)
    for games in (2_000, 20_000):
        bg = games // BLOCKS
        t0 = time.perf_counter()
        tally, old = _Tally(), 0
        for r in range(reps):
            ia = _items(jobs[0], base, metric, r, bg, 4)
            ib = _items(jobs[1], fast, metric, r, bg, 4)
            tally.add(spread_value(ia, metric), spread_value(ib, metric),
                      spread_diff(ia, ib, metric), *truth)
            old += _jackknife_covers(ia[0], ia[1:], truth[0])
        _print_max(f"race `card_win_max`, {games:,} semifinals, base / Stilton gallop 5",
                   f"{truth[0]:.4f} / {truth[1]:.4f}", tally.summary() | {"cover_old_a": old / reps},
                   time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("model", "sim", "maxmodel", "maxsim", "all"), default="all")
    ap.add_argument("--reps", type=int, default=None,
                    help="replications (model parts 400, simulator parts 200)")
    a = ap.parse_args()
    if a.part in ("model", "all"):
        model(a.reps or 400)
    if a.part in ("sim", "all"):
        sim(a.reps or 200)
    if a.part in ("maxmodel", "all"):
        maxmodel(a.reps or 400)
    if a.part in ("maxsim", "all"):
        maxsim(a.reps or 200)


if __name__ == "__main__":
    main()
