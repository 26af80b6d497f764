"""Statistics shared by every game and analysis: intervals, paired differences,
multiple-comparison corrections. Plain numpy/scipy, vectorised over arrays.
"""

import numpy as np
from scipy import stats as _st

#: z for a two-sided 95% interval.
Z95 = float(_st.norm.ppf(0.975))


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval for binomial proportions.

    ``successes`` and ``trials`` are scalars or arrays of equal shape (counts).
    Returns ``(lo, hi)`` as float arrays; where ``trials == 0`` both are NaN.
    Matches ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = float(_st.norm.ppf(0.5 + confidence / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
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
    z = float(_st.norm.ppf(0.5 + confidence / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = np.maximum(total_sq - n * mean * mean, 0.0) / (n - 1.0)
        se = np.sqrt(var / n)
    return mean, mean - z * se, mean + z * se, se


def paired_difference(a, b, confidence: float = 0.95):
    """Mean paired difference ``a - b`` (same games, common random numbers).

    Returns a dict with ``diff``, ``lo``, ``hi``, ``stderr`` and ``n``. Pairing removes
    the variance the two runs share (same dice), so the interval is much narrower
    than comparing two independent means.
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    mean = float(d.mean()) if n else float("nan")
    se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    z = float(_st.norm.ppf(0.5 + confidence / 2.0))
    return {"diff": mean, "lo": mean - z * se, "hi": mean + z * se, "stderr": se, "n": n}


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
    """Exact two-sided binomial test p-values (vectorised over arrays)."""
    k = np.atleast_1d(np.asarray(successes, dtype=np.int64))
    n = np.atleast_1d(np.asarray(trials, dtype=np.int64))
    p0 = np.broadcast_to(np.asarray(p0, dtype=np.float64), k.shape)
    out = np.array(
        [_st.binomtest(int(ki), int(ni), float(pi)).pvalue for ki, ni, pi in zip(k, n, p0, strict=True)]
    )
    return out
