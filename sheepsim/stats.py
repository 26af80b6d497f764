"""Statistics shared by every game and analysis: intervals, paired differences,
multiple-comparison corrections. Plain numpy, vectorised over arrays; the exact tests
use scipy.special's kernels (scipy.stats itself is never imported: about 0.6 s of CLI
start-up), and the tests check them against scipy.stats.
"""

from statistics import NormalDist

import numpy as np

#: z for a two-sided 95% interval.
Z95 = NormalDist().inv_cdf(0.975)


def _z(confidence: float) -> float:
    # stdlib normal quantile: importing scipy.stats costs ~0.5 s of CLI start-up
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval for binomial proportions.

    ``successes`` and ``trials`` are scalars or arrays of equal shape (counts).
    Returns ``(lo, hi)`` as float arrays; where ``trials == 0`` both are NaN.
    Matches ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
        # the bounds at k = 0 and k = n are exactly 0 and 1 (rounding can miss them)
        lo = np.where(k == 0, 0.0, lo)
        hi = np.where(k == n, 1.0, hi)
    return lo, hi


def wilson_halfwidth(successes, trials, confidence: float = 0.95):
    """Half the width of the Wilson interval (used for sequential stopping)."""
    lo, hi = wilson_interval(successes, trials, confidence)
    return (hi - lo) / 2.0


def mean_interval(total, total_sq, n, confidence: float = 0.95):
    """Normal interval for a mean from running sums.

    ``total`` = sum of x, ``total_sq`` = sum of x**2, ``n`` = count (arrays or
    scalars). Returns ``(mean, lo, hi, stderr)``; the sample variance uses ``n - 1``.
    """
    total = np.asarray(total, dtype=np.float64)
    total_sq = np.asarray(total_sq, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = np.maximum(total_sq - n * mean * mean, 0.0) / (n - 1.0)
        se = np.sqrt(var / n)
    return mean, mean - z * se, mean + z * se, se


def paired_difference(a, b, confidence: float = 0.95):
    """Mean paired difference ``a - b`` (same games, common random numbers).

    Returns a dict with ``diff``, ``lo``, ``hi``, ``stderr`` and ``n``. Pairing removes
    the variance the two runs share (same dice); how much that is depends on the game
    and the policies (measured paired / unpaired standard error: 0.62-0.74 in The Sheep
    Race, 0.81-0.99 in Aw, Sheep!, 1.00 in Shear Panic), so a head-to-head reports its
    own measured ratio (:func:`sheepsim.headtohead.pairing_gain`).
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    mean = float(d.mean()) if n else float("nan")
    se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    z = _z(confidence)
    return {"diff": mean, "lo": mean - z * se, "hi": mean + z * se, "stderr": se, "n": n}


def holm_adjusted(pvalues) -> np.ndarray:
    """Holm-adjusted p-values over one family (the hypotheses of ``pvalues``, and only
    those): ``p_(i) * (m - i + 1)`` in ascending order, made monotone and capped at 1. A
    hypothesis is rejected at family-wise ``alpha`` by :func:`holm_reject` exactly when
    its adjusted p-value is at most ``alpha``."""
    p = np.asarray(pvalues, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    m = p.size
    steps = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(steps, 1.0)
    return out


def holm_reject(pvalues, alpha: float = 0.05):
    """Holm-Bonferroni step-down: which hypotheses to reject at family-wise ``alpha``."""
    p = np.asarray(pvalues, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    m = p.size
    reject = np.zeros(m, dtype=bool)
    for rank, idx in enumerate(order):
        if p[idx] <= alpha / (m - rank):
            reject[idx] = True
        else:
            break
    return reject


def binomial_two_sided_p(successes, trials, p0):
    """Exact two-sided binomial test p-values (vectorised over arrays): the p-values of
    ``scipy.stats.binomtest(k, n, p).pvalue``, computed with the same scipy.special
    kernels but without importing scipy.stats (about 0.6 s of CLI start-up)."""
    k = np.atleast_1d(np.asarray(successes, dtype=np.int64))
    n = np.atleast_1d(np.asarray(trials, dtype=np.int64))
    p0 = np.broadcast_to(np.asarray(p0, dtype=np.float64), k.shape)
    test = _binomtest_p()
    return np.array([test(int(ki), int(ni), float(pi)) for ki, ni, pi in zip(k, n, p0, strict=True)])


def _binomtest_p():
    """``(k, n, p) -> p-value`` of ``scipy.stats.binomtest``'s two-sided test: a copy of
    its algorithm (scipy 1.11-1.17, ``stats/_binomtest.py``) on the binomial ufuncs that
    ``scipy.stats.binom`` itself calls; scipy.stats' own function if they are missing.
    tests/analysis/test_stats.py checks it equals binomtest exactly on a grid of cases."""
    try:
        from scipy.special import _ufuncs as scu

        pmf_, cdf_, sf_ = scu._binom_pmf, scu._binom_cdf, scu._binom_sf
    except (ImportError, AttributeError):  # pragma: no cover - other scipy versions
        from scipy import stats as _st

        return lambda k, n, p: float(_st.binomtest(k, n, p).pvalue)

    def pmf(x, n, p):  # scipy.stats.binom.pmf: 0 outside 0..n
        return pmf_(x, n, p) if 0 <= x <= n else 0.0

    def cdf(x, n, p):  # binom.cdf of an integer x: 0 below 0, 1 from n on
        return 0.0 if x < 0 else (1.0 if x >= n else cdf_(x, n, p))

    def sf(x, n, p):  # binom.sf of an integer x: 1 below 0, 0 from n on
        return 1.0 if x < 0 else (0.0 if x >= n else sf_(x, n, p))

    def test(k, n, p):
        if not (0 <= k <= n and n >= 1 and 0 <= p <= 1):
            raise ValueError(f"binomial test needs 0 <= k <= n, n >= 1, 0 <= p <= 1: {k}, {n}, {p}")
        d = pmf(k, n, p)
        rerr = 1 + 1e-7
        if k == p * n:
            return 1.0
        if k < p * n:
            ix = _search(lambda x: -pmf(x, n, p), -d * rerr, int(np.ceil(p * n)), n)
            y = n - ix + int(d * rerr == pmf(ix, n, p))
            pval = cdf(k, n, p) + sf(n - y, n, p)
        else:
            ix = _search(lambda x: pmf(x, n, p), d * rerr, 0, int(np.floor(p * n)))
            pval = cdf(ix, n, p) + sf(k - 1, n, p)
        return float(min(1.0, pval))

    return test


def _search(a, d, lo, hi):
    """The ``i`` in ``lo..hi`` with ``a(i) <= d < a(i + 1)`` (``a`` ascending there):
    scipy.stats' ``_binary_search_for_binom_tst``."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        midval = a(mid)
        if midval < d:
            lo = mid + 1
        elif midval > d:
            hi = mid - 1
        else:
            return mid
    return lo if a(lo) <= d else lo - 1


def normal_interval(mean, stderr, confidence: float = 0.95):
    """``(lo, hi)`` of the normal interval ``mean ± z * stderr`` (arrays or scalars)."""
    z = _z(confidence)
    mean = np.asarray(mean, dtype=np.float64)
    stderr = np.asarray(stderr, dtype=np.float64)
    return mean - z * stderr, mean + z * stderr


def paired_difference_from_sums(sum_d, sum_d2, n, confidence: float = 0.95):
    """:func:`paired_difference` from running integer sums of the per-game differences
    ``d`` (``sum_d`` = sum of d, ``sum_d2`` = sum of d**2) so memory stays flat.

    Returns the same dict: ``diff``, ``lo``, ``hi``, ``stderr``, ``n``.
    """
    n = int(n)
    if n < 1:
        nan = float("nan")
        return {"diff": nan, "lo": nan, "hi": nan, "stderr": nan, "n": n}
    mean = float(sum_d) / n
    if n > 1:
        var = max(float(sum_d2) - n * mean * mean, 0.0) / (n - 1)
        se = float(np.sqrt(var / n))
    else:
        se = float("nan")
    lo, hi = normal_interval(mean, se, confidence)
    return {"diff": mean, "lo": float(lo), "hi": float(hi), "stderr": se, "n": n}


def mcnemar_p(a_only: int, b_only: int) -> float:
    """Exact McNemar test p-value for paired binary outcomes (e.g. "won with policy A but
    not B" versus the reverse): a two-sided binomial test of the discordant pairs at 1/2.
    1.0 when there are no discordant pairs."""
    total = int(a_only) + int(b_only)
    if total == 0:
        return 1.0
    return float(binomial_two_sided_p(int(a_only), total, 0.5)[0])


def chi_square_uniform_p(counts) -> float:
    """Chi-square goodness-of-fit p-value of ``counts`` against equal expected counts:
    ``scipy.stats.chisquare(counts).pvalue`` (the same statistic and the chi-square
    survival function it calls, ``scipy.special.chdtrc``) without importing scipy.stats."""
    from scipy.special import chdtrc

    counts = np.asarray(counts, dtype=np.float64)
    expected = np.mean(counts, axis=0, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.sum((counts - expected) ** 2 / expected, axis=0)
    return float(chdtrc(counts.shape[0] - 1, stat))


def hist_quantiles(hist, quantiles):
    """Quantiles of an integer-valued variable from its histogram ``hist[v]`` = count of
    value ``v``: the smallest ``v`` whose cumulative share reaches each quantile (the
    inverse of the empirical CDF; matches ``numpy.quantile(..., method="inverted_cdf")``)."""
    hist = np.asarray(hist, dtype=np.float64)
    cdf = np.cumsum(hist) / hist.sum()
    q = np.asarray(quantiles, dtype=np.float64)
    # tiny tolerance so a quantile that equals a cumulative share exactly is not pushed
    # to the next value by rounding in the cumulative sum
    return np.searchsorted(cdf, q - 1e-12, side="left").astype(np.int64)


def hist_mean_sd(hist):
    """Mean and sample standard deviation (``n - 1``) of an integer variable from its
    histogram ``hist[v]`` = count of value ``v``."""
    hist = np.asarray(hist, dtype=np.float64)
    v = np.arange(hist.size, dtype=np.float64)
    n = hist.sum()
    mean = float((hist * v).sum() / n)
    var = float((hist * (v - mean) ** 2).sum() / (n - 1)) if n > 1 else float("nan")
    return mean, float(np.sqrt(var))


def max_probability_halfwidth(tables) -> float:
    """Largest 95% interval half-width over every reported probability in ``tables``
    (a DataFrame, a dict of them or an iterable of them): each column named ``p_X`` or
    ``..win_rate`` that has ``_lo`` and ``_hi`` columns next to it. NaN cells
    (probabilities a table does not report) are skipped. Used by ``--precision``: it
    stops when this is at most the requested precision."""
    import pandas as pd

    if isinstance(tables, pd.DataFrame):
        tables = [tables]
    elif isinstance(tables, dict):
        tables = tables.values()
    worst = 0.0
    for df in tables:
        for col in df.columns:
            is_probability = col.startswith("p_") or col.endswith("win_rate")
            if is_probability and f"{col}_lo" in df and f"{col}_hi" in df:
                half = (df[f"{col}_hi"].to_numpy(float) - df[f"{col}_lo"].to_numpy(float)) / 2.0
                half = half[~np.isnan(half)]
                if half.size:
                    worst = max(worst, float(half.max()))
    return worst


# ------------------------------------------------------------------ the game as the unit
def group_sums(per_seat, groups, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer sums over games of the per-game totals of the seats in each group.

    ``per_seat`` ``(n_games, seats)`` integers (a seat's wins or score in each game);
    ``groups`` ``(seats,)`` the group (e.g. policy) index of each seat. With
    ``T[g, k]`` = the sum of ``per_seat[g, s]`` over the seats ``s`` of group ``k``,
    returns ``(sum_g T[g, k], sum_g T[g, k]**2)``, each ``(n_groups,)`` int64: what
    :func:`pooled_mean_interval` and :func:`pooled_rate_interval` need, mergeable by
    addition across chunks.
    """
    per_seat = np.asarray(per_seat, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    totals = np.zeros((per_seat.shape[0], n_groups), dtype=np.int64)
    for k in range(n_groups):
        totals[:, k] = per_seat[:, groups == k].sum(axis=1)
    return totals.sum(axis=0), (totals * totals).sum(axis=0)


def pooled_mean_interval(total, total_sq, games, seats, confidence: float = 0.95):
    """Mean per seat-game of a quantity pooled over the ``seats`` seats that share a
    policy, with the game as the unit (cluster-robust).

    Seats in one game are not independent (their scores share the dice and the deal), so
    the per-game total ``T`` of those seats is the independent observation: ``total`` =
    sum of ``T`` over games, ``total_sq`` = sum of ``T**2``. The mean is
    ``total / (games * seats)`` (the ratio estimator with a fixed cluster size) and its
    standard error ``sd(T) / sqrt(games) / seats``. Arrays or scalars; returns
    ``(mean, lo, hi, stderr)`` (normal interval).
    """
    seats = np.asarray(seats, dtype=np.float64)
    mean, lo, hi, se = mean_interval(total, total_sq, games, confidence)
    return mean / seats, lo / seats, hi / seats, se / seats


def pooled_rate_interval(successes, successes_sq, games, seats, confidence: float = 0.95,
                         players=None):
    """Rate per seat-game (e.g. win rate) pooled over ``seats`` seats sharing a policy,
    with the game as the unit: ``successes`` = sum over games of ``T`` (successes of those
    seats in the game), ``successes_sq`` = sum of ``T**2``.

    Where at most one of the seats can succeed in a game (one winner per game), every
    ``T`` is 0 or 1, which shows as ``successes == successes_sq``; then the number of
    games the group won is binomial over games and the interval is the Wilson interval of
    ``successes / games`` divided by ``seats`` (exact model, sensible near 0 and 1: when
    every seat plays the policy the rate is exactly ``1 / seats``). Otherwise the normal
    cluster interval of :func:`pooled_mean_interval`. ``players``: the game's seats;
    where ``seats == players`` (every seat plays the policy and one of them wins every
    game) the rate is exactly ``1 / players`` by symmetry and so is its interval (see
    :func:`symmetry_note`). Returns ``(rate, lo, hi)``.
    """
    k = np.asarray(successes, dtype=np.float64)
    k2 = np.asarray(successes_sq, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    s = np.asarray(seats, dtype=np.float64)
    wlo, whi = wilson_interval(k, n, confidence)
    rate, nlo, nhi, _ = pooled_mean_interval(k, k2, n, s, confidence)
    binary = k == k2
    lo = np.where(binary, wlo / s, np.clip(nlo, 0.0, 1.0))
    hi = np.where(binary, whi / s, np.clip(nhi, 0.0, 1.0))
    if players is not None:
        every = (s == players) & (k == n)  # every seat, and so every game won by the group
        rate, lo, hi = (np.where(every, 1.0 / s, v) for v in (rate, lo, hi))
    return rate, lo, hi


def symmetry_note(seats: int, players: int, what: str = "policy") -> str:
    """Why a pooled win rate is exact (empty when it is not): every seat plays the
    ``what`` and one seat wins every game, so the pooled rate is exactly 1/players."""
    if seats != players:
        return ""
    return (f"exact by symmetry: every seat plays this {what} and one seat wins every "
            f"game, so its win rate per seat-game is exactly 1/{players}")


# ------------------------------------------------------------------ ties for first
#: a tie rate at or above this is worth a note next to seat-advantage tables
TIE_NOTE_RATE = 0.10


def tie_breaks_table(ways, games_by_way, ties, games: int, confidence: float = 0.95):
    """How each game's winner was decided, one row per way (the ways partition the games).

    ``ways`` names (the first is usually "the top score alone", then the tie-breaks in
    order), ``games_by_way`` integer counts, ``ties`` one bool per way: True where the way
    is a tie-break (a tie for first). Columns: ``decided_by``, ``tie_for_first``,
    ``games``, ``share`` with Wilson ``share_lo``/``share_hi``, and ``tie_rate`` with
    ``tie_rate_lo``/``tie_rate_hi`` (games with a tie for first / all games; the same on
    every row).
    """
    import pandas as pd

    counts = np.asarray(games_by_way, dtype=np.int64)
    ties = np.asarray(ties, dtype=bool)
    lo, hi = wilson_interval(counts, np.full(counts.shape, games), confidence)
    tied = int(counts[ties].sum())
    tlo, thi = wilson_interval(tied, games, confidence)
    return pd.DataFrame({"decided_by": list(ways), "tie_for_first": ties, "games": counts,
                         "share": counts / games, "share_lo": lo, "share_hi": hi,
                         "tie_rate": tied / games, "tie_rate_lo": float(tlo),
                         "tie_rate_hi": float(thi)})


def ties_note(tie_rate: float, decided_by: str, identical_policies: bool) -> str:
    """A one-line warning for seat-advantage tables when ties for first are common
    (``tie_rate`` >= :data:`TIE_NOTE_RATE`), else "". ``decided_by`` names the tie-break
    (e.g. "the token stack"); ``identical_policies``: every seat plays the same policies,
    so any seat gap comes from the seat itself, in play or through the tie-break; the note
    says where to read which (``wins_on_tie`` against ``wins``), not which it is."""
    if not tie_rate >= TIE_NOTE_RATE:
        return ""
    note = f"{tie_rate:.1%} of games tie for first (decided by {decided_by})"
    if identical_policies:
        note += ("; same policies at every seat: a seat gap comes from the seat, in play or "
                 "through the tie-break (compare wins_on_tie with wins)")
    return note


# ------------------------------------------------------------------ spreads (max - min)
#: Monte Carlo draws behind a spread's bias correction and bootstrap standard deviation
#: (fixed seed: the same counts give the same figures)
SPREAD_DRAWS = 2_000
SPREAD_SEED = 20_491


def jackknife_cov(loo) -> np.ndarray:
    """Delete-one jackknife covariance ``(k, k)`` of the all-blocks estimate of a vector
    from its leave-one-block-out values ``loo`` ``(blocks, k)``."""
    loo = np.asarray(loo, dtype=np.float64)
    b = loo.shape[0]
    dev = loo - loo.mean(axis=0)
    return (b - 1) / b * dev.T @ dev


def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(k, 1)
    return np.concatenate([i, j]), np.concatenate([j, i])  # ordered pairs, both ways


def _draws(loo, n: int) -> np.ndarray:
    """``(n, k)`` normal draws with the jackknife covariance of ``loo`` (through the
    blocks' deviations, so a rank-deficient covariance needs no factorising)."""
    loo = np.asarray(loo, dtype=np.float64)
    b = loo.shape[0]
    dev = (loo - loo.mean(axis=0)) * np.sqrt((b - 1) / b)
    g = np.random.default_rng(SPREAD_SEED).standard_normal((n, b))
    return g @ dev


def _bonferroni_t(ses: list[np.ndarray], df: int, confidence: float) -> tuple[float, int]:
    """``(c, m)``: Student's t quantile (``df`` degrees of freedom) that makes ``m``
    two-sided intervals ``estimate ± c se`` cover all at once with probability at least
    ``confidence`` (Bonferroni), ``m`` the contrasts (each pair once) in ``ses`` whose
    standard error is above 0 (the others are known exactly)."""
    from scipy.special import stdtrit

    m = sum(int(np.count_nonzero(s > 0)) for s in ses) // 2  # ordered pairs: each twice
    if m == 0:
        return 0.0, 0
    return float(stdtrit(df, 1 - (1 - confidence) / (2 * m))), m


def _bonferroni_p(c: float, m: int, df: int) -> float:
    from scipy.special import stdtr

    return float(min(1.0, 2 * m * stdtr(df, -c)))


def _tiny(loo) -> float:
    """Standard errors at or below this are rounding, not noise (an exact contrast)."""
    return 1e-12 * max(1.0, float(np.abs(loo).max()))


def _contrast_se(c: np.ndarray, cov: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum(np.einsum("km,kl,lm->m", c, cov, c), 0.0))


def _pair_matrix(k: int, offset: int, size: int) -> np.ndarray:
    """``(size, 2 k(k-1)/2)`` contrasts ``x[i] - x[j]`` over ordered pairs of the ``k``
    items starting at ``offset`` of a vector of ``size``."""
    i, j = _pairs(k)
    c = np.zeros((size, len(i)))
    c[offset + i, np.arange(len(i))] += 1.0
    c[offset + j, np.arange(len(i))] -= 1.0
    return c


def spread_interval(full, loo, confidence: float = 0.95) -> dict:
    """The spread ``max(x) - min(x)`` of noisy item rates (or means) ``x``: a
    bias-corrected estimate and an interval with at least ``confidence`` coverage.

    ``full`` ``(k,)``: the items on all the games; ``loo`` ``(blocks, k)``: on all the
    games but block 0, 1, ... (their jackknife covariance ``S``, ``blocks - 1`` degrees of
    freedom). The plain max - min is biased up (noise widens the range: with every item
    equal, its expectation is about 2 standard errors for 4 items), and an interval
    centred on it misses the truth.

    * Interval: simultaneous intervals ``d_ij ± c se_ij`` on every pairwise difference
      (``se_ij`` from ``S``; ``c`` Student's t quantile with ``blocks - 1`` degrees of
      freedom at ``1 - (1 - confidence) / (2 m)`` for the ``m`` pairs: Bonferroni).
      Whenever they all cover, the spread (the largest true pairwise difference) lies in
      ``[max(0, max(|d_ij| - c se_ij)), max(|d_ij| + c se_ij)]``, so the coverage is at
      least ``confidence``. Where every item is equal (true spread 0) the interval holds 0
      exactly when no pair differs significantly: it reads ``[0, hi]``, and covers the
      boundary value 0 with at least ``confidence``; it never goes below 0.
    * Estimate: moment matching (:func:`_matched_spread`: the noise's widening taken
      out, by Monte Carlo under ``N(0, S)`` with a fixed seed), kept within the interval,
      so never below 0 nor above the plain max - min.

    Returns ``value``, ``lo``, ``hi``, ``raw`` (plain max - min) and ``se`` (standard
    deviation of ``s*``)."""
    x = np.asarray(full, dtype=np.float64)
    k = x.size
    raw = float(x.max() - x.min()) if k else float("nan")
    loo = np.asarray(loo, dtype=np.float64)
    if k < 2 or not np.ptp(loo, axis=0).any():  # one item, or nothing the blocks move
        return {"value": raw, "lo": raw, "hi": raw, "raw": raw, "se": 0.0}
    cov = jackknife_cov(loo)
    pm = _pair_matrix(k, 0, k)
    z = _draws(loo, SPREAD_DRAWS)
    d, se = x @ pm, _contrast_se(pm, cov)
    se = np.where(se > _tiny(loo), se, 0.0)
    c, _ = _bonferroni_t([se], loo.shape[0] - 1, confidence)
    lo = max(0.0, float((d - c * se).max()))
    hi = float((d + c * se).max())
    value = min(max(_matched_spread(x, z, raw), lo), hi)
    return {"value": value, "lo": lo, "hi": hi, "raw": raw,
            "se": float(np.ptp(x + z, axis=1).std(ddof=1))}


def _matched_spread(x: np.ndarray, z: np.ndarray, raw: float) -> float:
    """The bias-corrected spread: ``lam * raw`` for the ``lam`` in [0, 1] at which items
    ``mean + lam (x - mean)`` (the measured ones shrunk towards their mean) measured
    with the noise ``z`` give on average the measured spread ``raw`` (moment matching:
    the noise's widening taken out; 0 where even equal items would measure wider)."""
    xm = x.mean()

    def expected(lam: float) -> float:
        return float(np.ptp(xm + lam * (x - xm) + z, axis=1).mean())

    if raw <= 0 or expected(0.0) >= raw:
        return 0.0
    if expected(1.0) <= raw:
        return raw
    lo, hi = 0.0, 1.0
    for _ in range(24):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected(mid) < raw else (lo, mid)
    return (lo + hi) / 2 * raw


def spread_difference(full_a, loo_a, full_b, loo_b, confidence: float = 0.95,
                      same_counts: bool = False) -> dict:
    """The paired difference of two spreads, ``spread(b) - spread(a)``, measured on the
    same games (blocks ``loo_a``/``loo_b`` of the same games: their joint jackknife
    covariance keeps what the two share, so it cancels).

    With ``t_ij`` the pairwise difference ``x_i - x_j`` and ``e_ij = t_ij(b) - t_ij(a)``
    (the paired change of a pair), simultaneous studentised intervals (as in
    :func:`spread_interval`, Bonferroni over all three families) give, whenever
    they all cover: the spread difference lies between ``e`` of the pair that is the
    largest in ``a`` and ``e`` of the pair that is the largest in ``b`` (the largest pair
    of ``a`` is no larger in ``b`` than ``b``'s own, and the reverse); so between the
    smallest lower bound of ``e`` over the pairs that may be ``a``'s largest and the
    largest upper bound over the pairs that may be ``b``'s largest, and within
    ``[lo_b - hi_a, hi_b - lo_a]`` of the two spreads' intervals. Coverage at least
    ``confidence``; where one pair is clearly the largest in both it is that pair's
    paired interval. The p-value inverts the interval (the smallest ``c`` whose interval
    holds 0, Bonferroni-adjusted); the estimate is the difference of the two
    bias-corrected spreads, kept within the interval.

    A pair's change that no block moves, of a pair that is noisy, was not seen rather
    than known (as in :func:`extreme_difference`): no game of the run changed it (a rare
    event), and the jackknife would call it exact, reading [0, 0]. It bounds nothing:
    where it may be the largest pair's the interval is the two spreads'. Items identical
    in ``a`` and ``b`` are such changes, unless ``same_counts`` says both variants read the
    same counts (an edit that cannot change them): then the difference is exactly 0.
    Returns ``diff``, ``lo``, ``hi``, ``raw``, ``se`` (standard deviation of the
    bootstrap's differences; where an unseen change bounded nothing, ``se_a + se_b``, the
    largest the difference's can be whatever the pairing), ``se_a``/``se_b`` (of each
    spread's), ``pvalue`` and ``unseen`` (whether an unseen change bounded nothing)."""
    xa, xb = np.asarray(full_a, dtype=np.float64), np.asarray(full_b, dtype=np.float64)
    la, lb = np.asarray(loo_a, dtype=np.float64), np.asarray(loo_b, dtype=np.float64)
    ka, kb = xa.size, xb.size
    raw = float(np.ptp(xb) - np.ptp(xa))
    x = np.concatenate([xa, xb])
    loo = np.concatenate([la, lb], axis=1)
    if not np.ptp(loo, axis=0).any():
        return {"diff": raw, "lo": raw, "hi": raw, "raw": raw, "se": 0.0, "se_a": 0.0,
                "se_b": 0.0, "pvalue": 1.0 if raw == 0 else 0.0, "unseen": False}
    if same_counts and np.array_equal(xa, xb) and np.array_equal(la, lb):  # exactly 0
        own = float(np.ptp(xa + _draws(la, SPREAD_DRAWS), axis=1).std(ddof=1))
        return {"diff": 0.0, "lo": 0.0, "hi": 0.0, "raw": 0.0, "se": 0.0, "se_a": own,
                "se_b": own, "pvalue": 1.0, "unseen": False}
    size = ka + kb
    cov = jackknife_cov(loo)
    pa, pb = _pair_matrix(ka, 0, size), _pair_matrix(kb, ka, size)
    fams = [pa, pb]
    pe = pb - pa if ka == kb else None  # a pair's change needs the same items in both
    if pe is not None:
        fams.append(pe)
    z = _draws(loo, SPREAD_DRAWS)
    tiny = _tiny(loo)
    ta, sa = x @ pa, _contrast_se(pa, cov)
    tb, sb = x @ pb, _contrast_se(pb, cov)
    te, se_e = (x @ pe, _contrast_se(pe, cov)) if pe is not None else (None, np.zeros(0))
    sa, sb, se_e = (np.where(s > tiny, s, 0.0) for s in (sa, sb, se_e))
    if te is not None:
        # a pair's change no block moved, of a pair that is noisy, was not seen (a rare
        # event: no game in the run changed it), not known to be exact: it bounds nothing
        te = np.where((se_e == 0) & ((sa > 0) | (sb > 0)), np.nan, te)
    df = loo.shape[0] - 1
    c95, m = _bonferroni_t([sa, sb, se_e], df, confidence)

    def bounds_unseen(c: float) -> tuple[float, float, bool]:
        lo_a, hi_a = max(0.0, float((ta - c * sa).max())), float((ta + c * sa).max())
        lo_b, hi_b = max(0.0, float((tb - c * sb).max())), float((tb + c * sb).max())
        lo, hi = lo_b - hi_a, hi_b - lo_a
        unseen = False
        if te is not None:
            may_a = ta + c * sa >= float((ta - c * sa).max())  # may be a's largest pair
            may_b = tb + c * sb >= float((tb - c * sb).max())
            lo_e, hi_e = (te - c * se_e)[may_a], (te + c * se_e)[may_b]
            if not np.isnan(lo_e).any():  # else an unseen change may be a's largest pair's
                lo = max(lo, float(lo_e.min()))
            if not np.isnan(hi_e).any():
                hi = min(hi, float(hi_e.max()))
            unseen = bool(np.isnan(lo_e).any() or np.isnan(hi_e).any())
        if lo > hi:  # the two constructions disagree (their simultaneous cover failed)
            lo, hi = lo_b - hi_a, hi_b - lo_a
        return lo, hi, unseen

    lo, hi, unseen = bounds_unseen(c95)
    p = _zero_crossing_p(lambda c: bounds_unseen(c)[:2], c95, m, df)
    xs = x + z
    sa_star, sb_star = np.ptp(xs[:, :ka], axis=1), np.ptp(xs[:, ka:], axis=1)
    dstar = sb_star - sa_star
    est = (_matched_spread(xb, z[:, ka:], float(np.ptp(xb)))
           - _matched_spread(xa, z[:, :ka], float(np.ptp(xa))))
    diff = min(max(est, lo), hi)
    se_a, se_b = float(sa_star.std(ddof=1)), float(sb_star.std(ddof=1))
    return {"diff": diff, "lo": lo, "hi": hi, "raw": raw,
            "se": se_a + se_b if unseen else float(dstar.std(ddof=1)), "se_a": se_a,
            "se_b": se_b, "pvalue": p, "unseen": unseen}


def _zero_crossing_p(bounds, c95: float, m: int, df: int) -> float:
    """The p-value of "difference 0" for an interval family ``bounds(c) -> (lo, hi)`` that
    widens as the multiplier ``c`` grows: the Bonferroni p of the smallest ``c`` whose
    interval holds 0 (found by doubling, then 50 bisections); 1 if even ``c = 0`` holds it,
    0 if no contrast is noisy (``m == 0``)."""
    l0, h0 = bounds(0.0)
    if l0 <= 0 <= h0 or m == 0:
        return 1.0 if l0 <= 0 <= h0 else 0.0
    c_lo, c_hi = 0.0, max(c95, 1.0)
    while not (lambda q: q[0] <= 0 <= q[1])(bounds(c_hi)) and c_hi < 1e6:
        c_lo, c_hi = c_hi, c_hi * 2
    for _ in range(50):
        mid = (c_lo + c_hi) / 2
        q = bounds(mid)
        c_lo, c_hi = (c_lo, mid) if q[0] <= 0 <= q[1] else (mid, c_hi)
    return _bonferroni_p(c_hi, m, df)


# ------------------------------------------------------------------ extremes (max or min)
def _signed(kind: str, bounds) -> tuple[float, tuple[float, float]]:
    """``(s, bounds of s x)``: a minimum is minus the maximum of ``-x``."""
    if kind not in ("max", "min"):
        raise ValueError(f"kind must be 'max' or 'min', got {kind!r}")
    lo, hi = (-np.inf, np.inf) if bounds is None else (float(bounds[0]), float(bounds[1]))
    return (1.0, (lo, hi)) if kind == "max" else (-1.0, (-hi, -lo))


def _clip(v: float, bounds: tuple[float, float]) -> float:
    return float(min(max(v, bounds[0]), bounds[1]))


def _item_se(loo, cov: np.ndarray) -> np.ndarray:
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return np.where(se > _tiny(loo), se, 0.0)


def extreme_interval(full, loo, confidence: float = 0.95, kind: str = "max",
                     bounds=None) -> dict:
    """The largest (``kind="max"``) or smallest (``"min"``) of noisy item rates (or
    means) ``x``: a bias-corrected estimate and an interval with at least ``confidence``
    coverage, inside ``bounds`` (the metric's range, e.g. ``(0, 1)`` for probabilities).

    ``full`` ``(k,)``: the items on all the games; ``loo`` ``(blocks, k)``: on all the
    games but block 0, 1, ... (their jackknife covariance ``S``: standard errors ``se_i``,
    ``blocks - 1`` degrees of freedom). The plain max is biased up (noise lifts the
    largest of several equal items by about one standard error for 4 items, more for
    more), and an interval centred on it misses the truth. For a maximum:

    * Interval ``[max_i(x_i - c_lo se_i), max_i(x_i + c_hi se_i)]``: the lower bound
      fails only if some item's one-sided lower bound ``x_i - c_lo se_i`` is above its
      truth (``c_lo`` Student's t at ``1 - (1 - confidence) / (2 m)`` for the ``m``
      items with ``se_i > 0``: Bonferroni), since the true maximum is at least every true
      item; the upper bound fails only if the one-sided upper bound of the item whose
      truth is largest (one fixed, unknown item: no adjustment) is below it (``c_hi`` at
      ``1 - (1 - confidence) / 2``). So the coverage is at least ``confidence``. Clipped
      to ``bounds``.
    * Estimate: moment matching (:func:`_matched_max`, by Monte Carlo under ``N(0, S)``
      with a fixed seed, as :func:`spread_interval`), kept within the interval, so never
      above the plain max nor below the items' mean.

    A minimum is minus the maximum of ``-x``. Returns ``value``, ``lo``, ``hi``, ``raw``
    (the plain max or min) and ``se`` (standard deviation of the bootstrap's max or
    min)."""
    s, b = _signed(kind, bounds)
    y = s * np.asarray(full, dtype=np.float64)
    loo = s * np.asarray(loo, dtype=np.float64)
    if y.size == 0:
        nan = float("nan")
        return {"value": nan, "lo": nan, "hi": nan, "raw": nan, "se": 0.0}
    raw = float(y.max())
    out = {"value": raw, "lo": raw, "hi": raw, "raw": raw, "se": 0.0}
    if np.ptp(loo, axis=0).any():  # else nothing the blocks move: known exactly
        from scipy.special import stdtrit

        se = _item_se(loo, jackknife_cov(loo))
        m = int(np.count_nonzero(se > 0))
        df = loo.shape[0] - 1
        alpha = 1 - confidence
        c_lo = float(stdtrit(df, 1 - alpha / (2 * m)))
        c_hi = float(stdtrit(df, 1 - alpha / 2))
        lo, hi = _clip(float((y - c_lo * se).max()), b), _clip(float((y + c_hi * se).max()), b)
        z = _draws(loo, SPREAD_DRAWS)
        value = _matched_max(y, z, raw) if y.size > 1 else raw
        out = {"value": min(max(value, lo), hi), "lo": lo, "hi": hi, "raw": raw,
               "se": float((y + z).max(axis=1).std(ddof=1))}
    if s < 0:
        out.update(value=-out["value"], lo=-out["hi"], hi=-out["lo"], raw=-out["raw"])
    return out


def _matched_max(y: np.ndarray, z: np.ndarray, raw: float) -> float:
    """The bias-corrected maximum: the largest of the items ``mean + lam (y - mean)``
    (the measured ones shrunk towards their mean) for the ``lam`` in [0, 1] at which
    those items measured with the noise ``z`` give on average the measured maximum
    ``raw`` (moment matching: the noise's lift taken out; the items' mean where even
    equal items would measure higher)."""
    ym = float(y.mean())

    def expected(lam: float) -> float:
        return float((ym + lam * (y - ym) + z).max(axis=1).mean())

    if expected(0.0) >= raw:
        return ym
    if expected(1.0) <= raw:
        return raw
    lo, hi = 0.0, 1.0
    for _ in range(24):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected(mid) < raw else (lo, mid)
    return ym + (lo + hi) / 2 * (raw - ym)


def extreme_difference(full_a, loo_a, full_b, loo_b, confidence: float = 0.95,
                       kind: str = "max", bounds=None, same_counts: bool = False) -> dict:
    """The paired difference of two maxima (``kind="max"``) or minima (``"min"``) of item
    rates, ``max(b) - max(a)``, measured on the same games (blocks ``loo_a``/``loo_b`` of
    the same games: their joint jackknife covariance keeps what the two share).

    With ``e_i = x_i(b) - x_i(a)`` (the paired change of item ``i``; the same items in
    both), simultaneous two-sided studentised intervals on every item of ``a``, of ``b``
    and on every ``e_i`` (Bonferroni over all three families, Student's t with
    ``blocks - 1`` degrees of freedom) give, whenever they all cover: the difference lies
    between the change of the item that is truly largest in ``a`` and the change of the
    one truly largest in ``b`` (``a``'s largest is no larger in ``b`` than ``b``'s own,
    and the reverse); so between the smallest lower bound of ``e`` over the items that
    may be ``a``'s largest and the largest upper bound over those that may be ``b``'s
    largest, and within ``[lo_b - hi_a, hi_b - lo_a]`` of the two maxima's simultaneous
    intervals (clipped to ``bounds``). Coverage at least ``confidence``; where one item
    is clearly the largest in both it is that item's paired interval. The p-value
    inverts the interval (the smallest ``c`` whose interval holds 0,
    Bonferroni-adjusted); the estimate is the difference of the two bias-corrected
    maxima (:func:`extreme_interval`), kept within the interval. A minimum's is minus
    that of ``-x``.

    A change that no block moves, of an item that is noisy, was not seen rather than
    known: no game of the run changed it (a rare event), and the jackknife would call it
    exact, reading [0, 0]. It bounds nothing: where it may be the largest item's the
    interval is the two maxima's. Items identical in ``a`` and ``b`` are such changes,
    unless ``same_counts`` says both variants read the same counts (an edit that cannot
    change them): then the difference is exactly 0. Returns ``diff``, ``lo``, ``hi``,
    ``raw``, ``se`` (standard deviation of the bootstrap's differences; ``se_a + se_b``
    where an unseen change bounded nothing, as :func:`spread_difference`), ``se_a``/``se_b``
    (of each maximum's), ``pvalue`` and ``unseen``."""
    s, rng_ = _signed(kind, bounds)
    xa, xb = s * np.asarray(full_a, dtype=np.float64), s * np.asarray(full_b, dtype=np.float64)
    la, lb = s * np.asarray(loo_a, dtype=np.float64), s * np.asarray(loo_b, dtype=np.float64)
    out = _max_difference(xa, la, xb, lb, confidence, rng_, same_counts)
    if s < 0:
        out.update(diff=-out["diff"], lo=-out["hi"], hi=-out["lo"], raw=-out["raw"])
    return out


def _max_difference(xa, la, xb, lb, confidence: float, rng_: tuple[float, float],
                    same_counts: bool) -> dict:
    ka, kb = xa.size, xb.size
    raw = float(xb.max() - xa.max())
    x = np.concatenate([xa, xb])
    loo = np.concatenate([la, lb], axis=1)
    if not np.ptp(loo, axis=0).any():
        return {"diff": raw, "lo": raw, "hi": raw, "raw": raw, "se": 0.0, "se_a": 0.0,
                "se_b": 0.0, "pvalue": 1.0 if raw == 0 else 0.0, "unseen": False}
    if same_counts and np.array_equal(xa, xb) and np.array_equal(la, lb):  # exactly 0
        own = float((xa + _draws(la, SPREAD_DRAWS)).max(axis=1).std(ddof=1))
        return {"diff": 0.0, "lo": 0.0, "hi": 0.0, "raw": 0.0, "se": 0.0, "se_a": own,
                "se_b": own, "pvalue": 1.0, "unseen": False}
    from scipy.special import stdtrit

    cov = jackknife_cov(loo)
    se = _item_se(loo, cov)
    sa, sb = se[:ka], se[ka:]
    te = se_e = None
    if ka == kb:  # an item's change needs the same items in both
        ce = np.vstack([-np.eye(ka), np.eye(kb)])
        te = x @ ce
        se_e = _contrast_se(ce, cov)
        se_e = np.where(se_e > _tiny(loo), se_e, 0.0)
        # a change no block moved, of an item that is noisy, was not seen (a rare event:
        # no game in the run changed it), not known to be exact: it bounds nothing
        unseen = (se_e == 0) & ((sa > 0) | (sb > 0))
        te = np.where(unseen, np.nan, te)
    m = int(np.count_nonzero(se > 0)) + (int(np.count_nonzero(se_e > 0)) if te is not None else 0)
    df = loo.shape[0] - 1
    c95 = float(stdtrit(df, 1 - (1 - confidence) / (2 * m))) if m else 0.0

    def bounds_unseen(c: float) -> tuple[float, float, bool]:
        floor_a, floor_b = float((xa - c * sa).max()), float((xb - c * sb).max())
        lo_a, hi_a = _clip(floor_a, rng_), _clip(float((xa + c * sa).max()), rng_)
        lo_b, hi_b = _clip(floor_b, rng_), _clip(float((xb + c * sb).max()), rng_)
        lo, hi = lo_b - hi_a, hi_b - lo_a
        unseen = False
        if te is not None:
            may_a = xa + c * sa >= floor_a  # may be a's largest item
            may_b = xb + c * sb >= floor_b
            lo_e, hi_e = (te - c * se_e)[may_a], (te + c * se_e)[may_b]
            if not np.isnan(lo_e).any():  # else an unseen change may be a's largest item's
                lo = max(lo, float(lo_e.min()))
            if not np.isnan(hi_e).any():
                hi = min(hi, float(hi_e.max()))
            unseen = bool(np.isnan(lo_e).any() or np.isnan(hi_e).any())
            if lo > hi:  # the two constructions disagree (their simultaneous cover failed)
                lo, hi = lo_b - hi_a, hi_b - lo_a
        return lo, hi, unseen

    lo, hi, unseen = bounds_unseen(c95)
    p = _zero_crossing_p(lambda c: bounds_unseen(c)[:2], c95, m, df)
    z = _draws(loo, SPREAD_DRAWS)
    xs = x + z
    ma_star, mb_star = xs[:, :ka].max(axis=1), xs[:, ka:].max(axis=1)
    est_a = _matched_max(xa, z[:, :ka], float(xa.max())) if ka > 1 else float(xa[0])
    est_b = _matched_max(xb, z[:, ka:], float(xb.max())) if kb > 1 else float(xb[0])
    diff = min(max(est_b - est_a, lo), hi)
    se_a, se_b = float(ma_star.std(ddof=1)), float(mb_star.std(ddof=1))
    return {"diff": diff, "lo": lo, "hi": hi, "raw": raw,
            "se": se_a + se_b if unseen else float((mb_star - ma_star).std(ddof=1)),
            "se_a": se_a, "se_b": se_b, "pvalue": p, "unseen": unseen}
