"""Head-to-heads on common random numbers, for every game.

Two configurations that differ only in one seat's policy play the *same* games (the
same seed and game index, hence the same dice, deals and draws of every purpose but the
policies' own); per game the focal seat's win and score are paired, so the difference
has a much smaller variance than two independent runs. :class:`HeadToHeadJob` wraps
any game's whole-game job that provides ``outcomes(seed, first_game, n_games) ->
(winner (n,), score (n, seats))``; :func:`compare_table` reads its counts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job
from sheepsim.stats import mean_interval, wilson_interval

#: the paired integer sums, in the order of the ``paired`` count vector
PAIRED_SUMS = ("wins_a", "wins_b", "a_only", "b_only", "sum_a", "sq_a", "sum_b", "sq_b",
               "sum_d", "sq_d")


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
        self.seed = self.job_a.seed
        self.chunk_games = self.job_a.chunk_games
        self.block = self.job_a.block
        seats = self.job_a.seats
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 1 <= self.seat <= seats:
            raise SheepsimError(f"seat must be between 1 and {seats}, got {self.seat!r}")

    def prepare(self) -> None:
        self.job_a.prepare()
        self.job_b.prepare()

    def chunk(self, seed: int, first_game: int, n_games: int) -> Counts:
        s = self.seat - 1
        win_a, score_a = self.job_a.outcomes(seed, first_game, n_games)
        win_b, score_b = self.job_b.outcomes(seed, first_game, n_games)
        return {"paired": paired_sums(win_a == s, win_b == s, score_a[:, s], score_b[:, s])}

    def tables(self, counts: Counts, games: int) -> dict[str, pd.DataFrame]:
        return {"comparison": compare_table(counts["paired"], games, *self.labels, self.seat)}

    def halfwidth(self, tables) -> float:
        row = tables["comparison"].iloc[0]  # the win-rate row
        return float(max(row[f"{k}_hi"] - row[f"{k}_lo"] for k in ("a", "b", "diff"))) / 2

    def trace(self, tables) -> list[dict]:
        row = tables["comparison"].iloc[0]
        return [{"quantity": f"win rate {label}", "estimate": row[k], "lo": row[f"{k}_lo"],
                 "hi": row[f"{k}_hi"]} for k, label in (("a", "a"), ("b", "b"), ("diff", "a - b"))]

    def meta(self) -> dict:
        a, b, field = self.labels
        return {**self.job_a.meta_common(), "analysis": "head-to-head on common random numbers",
                "players": self.job_a.seats, "policy_a": a, "policy_b": b, "field": field,
                "seat": self.seat, **self.extra_meta}


def compare_table(acc, games: int, a: str, b: str, field: str, seat: int) -> pd.DataFrame:
    """Head-to-head of two policies for one seat on common random numbers.

    ``acc`` the merged integer totals of :meth:`HeadToHeadJob.chunk` (wins of a, wins of b,
    games only a won, games only b won, score sum and sum of squares of a and of b, sum
    and sum of squares of the paired score difference); ``a``/``b`` the focal seat's
    policies (labels), ``field`` the other seats'. Two rows, ``metric`` =
    ``win_rate`` and ``mean_score``; columns ``a``,
    ``a_lo``, ``a_hi``, ``b``, ``b_lo``, ``b_hi`` (Wilson for win rates, normal for
    scores), ``diff`` = a - b with its paired normal interval ``diff_lo``/``diff_hi`` and
    ``diff_se``, ``pvalue`` (win rate: exact McNemar test on the games only one of the two
    won; score: paired z test), ``policy_a``, ``policy_b``, ``field``, ``seat``, ``games``.
    """
    from scipy.special import ndtr  # scipy.stats.norm.sf(z) is ndtr(-z); scipy.stats is slow to import

    from sheepsim.stats import mcnemar_p, paired_difference_from_sums

    (wins_a, wins_b, a_only, b_only, sum_a, sq_a, sum_b, sq_b, sum_d, sq_d) = (int(x) for x in acc)
    n = games
    rows = []
    wlo_a, whi_a = wilson_interval(wins_a, n)
    wlo_b, whi_b = wilson_interval(wins_b, n)
    # per game the win difference is +1 (a_only), -1 (b_only) or 0
    dw = paired_difference_from_sums(a_only - b_only, a_only + b_only, n)
    rows.append({"metric": "win_rate", "a": wins_a / n, "a_lo": float(wlo_a), "a_hi": float(whi_a),
                 "b": wins_b / n, "b_lo": float(wlo_b), "b_hi": float(whi_b), "diff": dw["diff"],
                 # a difference of two rates lies in [-1, 1]; the normal interval can
                 # cross that on a handful of games
                 "diff_lo": max(-1.0, dw["lo"]), "diff_hi": min(1.0, dw["hi"]),
                 "diff_se": dw["stderr"], "pvalue": mcnemar_p(a_only, b_only)})
    ma, mlo_a, mhi_a, _ = mean_interval(sum_a, sq_a, n)
    mb, mlo_b, mhi_b, _ = mean_interval(sum_b, sq_b, n)
    ds = paired_difference_from_sums(sum_d, sq_d, n)
    if ds["stderr"] > 0:
        p_score = float(2 * ndtr(-(abs(ds["diff"]) / ds["stderr"])))
    else:
        p_score = 1.0 if ds["diff"] == 0 else 0.0
    rows.append({"metric": "mean_score", "a": float(ma), "a_lo": float(mlo_a), "a_hi": float(mhi_a),
                 "b": float(mb), "b_lo": float(mlo_b), "b_hi": float(mhi_b), "diff": ds["diff"],
                 "diff_lo": ds["lo"], "diff_hi": ds["hi"], "diff_se": ds["stderr"], "pvalue": p_score})
    df = pd.DataFrame(rows)
    df["policy_a"], df["policy_b"], df["field"], df["seat"], df["games"] = a, b, field, seat, n
    return df
