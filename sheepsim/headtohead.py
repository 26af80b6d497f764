"""Head-to-heads on common random numbers, for every game.

Two configurations that differ only in one seat's policy play the *same* games (the
same seed and game index, hence the same dice, deals and draws of every purpose but the
policies' own); per game the focal seat's win and score are paired, so the difference
is measured without the variance the two line-ups share. How much that gains depends on
the game and the policies (measured paired / unpaired standard error: 0.62-0.74 in The
Sheep Race, 0.81-0.99 in Aw, Sheep!, 1.00 in Shear Panic), so every run states its own
gain (:func:`pairing_gain`, ``meta["pairing"]``). :class:`HeadToHeadJob` wraps any
game's whole-game job that provides ``outcomes(seed, first_game, n_games) -> (winner
(n,), score (n, seats))``; :func:`compare_table` reads its counts.

All three games break a tie for the most points (or the best flock) by a rule, so a
win can be a tie-break win: the table reports, for each side, how often the focal seat
tied for the top score and how often it won by the tie-break.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job, shared_seed
from sheepsim.stats import mean_interval, wilson_interval

#: the paired integer sums, in the order of the ``paired`` count vector
PAIRED_SUMS = ("wins_a", "wins_b", "a_only", "b_only", "sum_a", "sq_a", "sum_b", "sq_b",
               "sum_d", "sq_d")


#: the report caption of a ``comparison`` table (``{score}``: what the game scores)
COMPARISON_CAPTION = (
    "Policy a versus b for one seat on the same dice: win rate (wins decided by a tie-break "
    "included) and {score} of each, paired difference a - b with its interval (a difference "
    "of two rates is in percentage points); tie_rate: games where the seat tied for the top "
    "score, tiebreak_win_rate: games it won by the tie-break; p-values are raw (one test "
    "per row). unpaired_se: the difference's standard error had the two run apart.")


def lineups(a, b, field, players: int, seat) -> tuple[list, list]:
    """The two line-ups of a head-to-head: every seat plays ``field`` except ``seat``
    (1-based), which plays ``a`` in the first and ``b`` in the second. A seat out of range
    is left as ``field`` everywhere: :class:`HeadToHeadJob` refuses it with one line."""
    out = []
    for focal in (a, b):
        names = [field] * players
        if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= players:
            names[seat - 1] = focal
        out.append(names)
    return out[0], out[1]


#: the paired tie counts, in the order of the ``ties`` count vector: games where the
#: focal seat tied for the top score (before the tie-break) with a, with b, with a only,
#: with b only; then the same for games it won by the tie-break
TIE_SUMS = ("tied_a", "tied_b", "tied_a_only", "tied_b_only",
            "tiebreak_a", "tiebreak_b", "tiebreak_a_only", "tiebreak_b_only")


def tied_for_top(score, seat: int) -> np.ndarray:
    """``(n,)`` bool: per game, ``seat`` shares the top score of ``score`` ``(n, seats)``
    with at least one other seat (so a tie-break decides between them)."""
    score = np.asarray(score)
    top = score.max(axis=1)
    return (score[:, seat] == top) & ((score == top[:, None]).sum(axis=1) > 1)


def tie_sums(tied_a, tied_b, win_a, win_b) -> np.ndarray:
    """The ``(8,)`` int64 :data:`TIE_SUMS` from per-game booleans."""
    tb_a, tb_b = tied_a & win_a, tied_b & win_b
    return np.array([tied_a.sum(), tied_b.sum(), (tied_a & ~tied_b).sum(), (tied_b & ~tied_a).sum(),
                     tb_a.sum(), tb_b.sum(), (tb_a & ~tb_b).sum(), (tb_b & ~tb_a).sum()],
                    dtype=np.int64)


def paired_sums(win_a, win_b, score_a, score_b) -> np.ndarray:
    """The ``(10,)`` int64 sums :func:`compare_table` reads, from per-game booleans
    ``win_a``/``win_b`` and integer scores of the focal seat."""
    d = score_a - score_b
    return np.array([win_a.sum(), win_b.sum(), (win_a & ~win_b).sum(), (win_b & ~win_a).sum(),
                     score_a.sum(), (score_a * score_a).sum(), score_b.sum(),
                     (score_b * score_b).sum(), d.sum(), (d * d).sum()], dtype=np.int64)


@dataclass
class HeadToHeadJob(Job):
    """Seat ``seat`` (1-based) plays ``job_a``'s policy, then ``job_b``'s, in the same
    games; ``labels`` = (a, b, field) name the policies in the table."""

    job_a: Job
    job_b: Job
    seat: int
    labels: tuple[str, str, str]
    #: the game's own metadata fields (e.g. which odds the race's bet policies read)
    extra_meta: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.game = self.job_a.game
        self.seed = shared_seed([self.job_a, self.job_b], "a head-to-head")
        self.chunk_games = self.job_a.chunk_games
        self.block = self.job_a.block
        seats = self.job_a.seats
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 1 <= self.seat <= seats:
            raise SheepsimError(f"seat must be between 1 and {seats}, got {self.seat!r}")

    def prepare(self) -> None:
        self.job_a.prepare()
        self.job_b.prepare()

    def chunk(self, first_game: int, n_games: int) -> Counts:
        s = self.seat - 1
        win_a, score_a = self.job_a.outcomes(first_game, n_games)
        win_b, score_b = self.job_b.outcomes(first_game, n_games)
        return {"paired": paired_sums(win_a == s, win_b == s, score_a[:, s], score_b[:, s]),
                "ties": tie_sums(tied_for_top(score_a, s), tied_for_top(score_b, s),
                                 win_a == s, win_b == s)}

    def tables(self, counts: Counts, games: int) -> dict[str, pd.DataFrame]:
        return {"comparison": compare_table(counts["paired"], games, *self.labels, self.seat,
                                            ties=counts.get("ties"))}

    def result_meta(self, tables) -> dict:
        """Meta fields measured by the run: the pairing gain (:func:`pairing_gain`)."""
        return {"pairing": pairing_gain(tables["comparison"])}

    def halfwidth(self, tables) -> float:
        row = tables["comparison"].iloc[0]  # the win-rate row
        return float(max(row[f"{k}_hi"] - row[f"{k}_lo"] for k in ("a", "b", "diff"))) / 2

    def convergence(self, tables) -> list[dict]:
        row = tables["comparison"].iloc[0]
        return [{"quantity": f"win rate {label}", "estimate": row[k], "lo": row[f"{k}_lo"],
                 "hi": row[f"{k}_hi"]} for k, label in (("a", "a"), ("b", "b"), ("diff", "a - b"))]

    def meta(self) -> dict:
        a, b, field = self.labels
        return {**self.job_a.meta_common(), "analysis": "head-to-head on common random numbers",
                "players": self.job_a.seats, "policy_a": a, "policy_b": b, "field": field,
                "seat": self.seat, **self.extra_meta}


def _rate_row(metric: str, hits_a: int, hits_b: int, a_only: int, b_only: int, n: int,
              same: bool = False) -> dict:
    """A row of two paired rates: Wilson intervals for each, the paired difference (per
    game +1, -1 or 0) with its normal interval, and the exact McNemar p-value.

    No game where the two differ (no discordant pair) is a difference the run did not
    see, not one it knows to be 0, as in :func:`sheepsim.variant_runs.paired_jackknife`:
    pairing then bounds nothing, the interval is the two Wilson intervals' difference
    (``a_lo - b_hi`` to ``a_hi - b_lo``) and ``diff_se`` is empty (not seen). Only the
    same line-up (``same``: A and B one policy) differs by exactly 0: every game is the
    same game."""
    from sheepsim.stats import mcnemar_p, paired_difference_from_sums

    lo_a, hi_a = wilson_interval(hits_a, n)
    lo_b, hi_b = wilson_interval(hits_b, n)
    dw = paired_difference_from_sums(a_only - b_only, a_only + b_only, n)
    if a_only + b_only == 0 and not same:
        dw.update(lo=float(lo_a - hi_b), hi=float(hi_a - lo_b), stderr=float("nan"))
    pa, pb = hits_a / n, hits_b / n
    return {"metric": metric, "a": pa, "a_lo": float(lo_a), "a_hi": float(hi_a),
            "b": pb, "b_lo": float(lo_b), "b_hi": float(hi_b), "diff": dw["diff"],
            # a difference of two rates lies in [-1, 1]; the normal interval can
            # cross that on a handful of games
            "diff_lo": max(-1.0, dw["lo"]), "diff_hi": min(1.0, dw["hi"]),
            "diff_se": dw["stderr"], "pvalue": mcnemar_p(a_only, b_only),
            "unpaired_se": float(np.sqrt((pa * (1 - pa) + pb * (1 - pb)) / (n - 1))) if n > 1
            else float("nan")}


def compare_table(acc, games: int, a: str, b: str, field: str, seat: int, ties=None) -> pd.DataFrame:
    """Head-to-head of two policies for one seat on common random numbers.

    ``acc`` the merged integer totals of :meth:`HeadToHeadJob.chunk` (wins of a, wins of b,
    games only a won, games only b won, score sum and sum of squares of a and of b, sum
    and sum of squares of the paired score difference); ``ties`` its :data:`TIE_SUMS`
    (None: a run counted before ties were, and the tie rows are left out); ``a``/``b``
    the focal seat's policies (labels), ``field`` the other seats'. Rows ``metric`` =
    ``win_rate`` (tie-break wins included), ``mean_score``, then ``tie_rate`` (games
    where the seat tied for the top score, so the tie-break decided whether it won) and
    ``tiebreak_win_rate`` (games it won by the tie-break). Columns ``a``, ``a_lo``,
    ``a_hi``, ``b``, ``b_lo``, ``b_hi`` (Wilson for rates, normal for scores), ``diff``
    = a - b with its paired normal interval ``diff_lo``/``diff_hi`` and ``diff_se``,
    ``unpaired_se`` the standard error the difference would have from two independent
    runs of as many games, ``pvalue`` (rates: exact McNemar test on the games where the
    two differ; score: paired z test), ``policy_a``, ``policy_b``, ``field``, ``seat``,
    ``games``. A difference of two rates is in percentage points (times 100), never
    percent.

    A difference no game moved (no game where the two rates differ; the same score
    difference in every game) was not seen rather than known, as in
    :func:`sheepsim.variant_runs.paired_jackknife`: its interval is the two values'
    (rates: the Wilson intervals' difference; scores: ``diff ± z (se_a + se_b)``) and
    ``diff_se`` is empty. Exactly 0 ([0, 0]) only when A and B are the same policy: the
    same line-up plays the same games.
    """
    from scipy.special import ndtr  # scipy.stats.norm.sf(z) is ndtr(-z); scipy.stats is slow to import

    from sheepsim.stats import normal_interval, paired_difference_from_sums

    (wins_a, wins_b, a_only, b_only, sum_a, sq_a, sum_b, sq_b, sum_d, sq_d) = (int(x) for x in acc)
    n = games
    same = a == b  # one line-up: every game the same game, each difference exactly 0
    rows = [_rate_row("win_rate", wins_a, wins_b, a_only, b_only, n, same)]
    ma, mlo_a, mhi_a, se_a = mean_interval(sum_a, sq_a, n)
    mb, mlo_b, mhi_b, se_b = mean_interval(sum_b, sq_b, n)
    ds = paired_difference_from_sums(sum_d, sq_d, n)
    if ds["stderr"] == 0 and not same and (se_a > 0 or se_b > 0):
        # no game moved the difference: not seen (as _rate_row), the two values' interval
        lo, hi = normal_interval(ds["diff"], se_a + se_b)
        ds.update(lo=float(lo), hi=float(hi), stderr=float("nan"))
        p_score = 1.0 if ds["diff"] == 0 else float(2 * ndtr(-abs(ds["diff"]) / (se_a + se_b)))
    elif ds["stderr"] > 0:
        p_score = float(2 * ndtr(-(abs(ds["diff"]) / ds["stderr"])))
    else:
        p_score = 1.0 if ds["diff"] == 0 else 0.0
    rows.append({"metric": "mean_score", "a": float(ma), "a_lo": float(mlo_a), "a_hi": float(mhi_a),
                 "b": float(mb), "b_lo": float(mlo_b), "b_hi": float(mhi_b), "diff": ds["diff"],
                 "diff_lo": ds["lo"], "diff_hi": ds["hi"], "diff_se": ds["stderr"], "pvalue": p_score,
                 "unpaired_se": float(np.hypot(se_a, se_b))})
    if ties is not None:
        t = [int(x) for x in ties]
        rows.append(_rate_row("tie_rate", *t[:4], n, same))
        rows.append(_rate_row("tiebreak_win_rate", *t[4:], n, same))
    df = pd.DataFrame(rows)
    df["policy_a"], df["policy_b"], df["field"], df["seat"], df["games"] = a, b, field, seat, n
    df.attrs["same_decimals"] = [["a", "b"]]  # read side by side: one decimals for both
    return df


def pairing_gain(comparison: pd.DataFrame) -> dict:
    """What pairing gained in this run: per metric of a :func:`compare_table`, the
    paired standard error of the difference over the standard error two independent
    runs of as many games would give (below 1: pairing narrowed the interval; 1: no
    gain), measured from the run itself."""
    out = {"meaning": "paired standard error / standard error of two independent runs of "
                      "as many games, measured in this run (below 1: pairing narrowed the "
                      "interval by that factor)"}
    for _, row in comparison.iterrows():
        if row["metric"] in ("win_rate", "mean_score"):  # NaN (null): nothing varied
            out[f"{row['metric']}_se_ratio"] = (float(row["diff_se"] / row["unpaired_se"])
                                                if row["unpaired_se"] > 0 else float("nan"))
    return out


def tie_sentence(comparison: pd.DataFrame, seat: int) -> str:
    """One sentence on ties from a :func:`compare_table` (empty without tie rows):
    how often the seat tied for the top score and won by the tie-break, each side, each
    named by its line-up (``policy_a``, ``policy_b``; the table's columns ``a``, ``b``)."""
    rows = comparison.set_index("metric")
    if "tie_rate" not in rows.index:
        return ""
    tie, tb = rows.loc["tie_rate"], rows.loc["tiebreak_win_rate"]
    a, b = tie["policy_a"], tie["policy_b"]
    return (f"Seat {seat} tied for the top score in {tie['a']:.1%} of games playing {a} (a) "
            f"and {tie['b']:.1%} playing {b} (b), and the tie-break gave it {tb['a']:.1%} and "
            f"{tb['b']:.1%} of games as wins (included in the win rates).")
