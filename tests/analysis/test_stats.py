"""The shared statistics against scipy and numpy."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from sheepsim import stats


@given(n=hs.integers(1, 10_000), frac=hs.floats(0, 1))
@settings(max_examples=200, deadline=None)
def test_wilson_equals_scipy(n, frac):
    k = int(round(frac * n))
    lo, hi = stats.wilson_interval(k, n)
    ref = st.binomtest(k, n).proportion_ci(method="wilson")
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


def test_wilson_vectorised_and_empty():
    lo, hi = stats.wilson_interval(np.array([0, 5, 10]), np.array([10, 10, 0]))
    assert np.isnan(lo[2]) and np.isnan(hi[2])
    assert float(stats.wilson_halfwidth(5, 10)) == pytest.approx((hi[1] - lo[1]) / 2)


def test_paired_difference_from_sums_equals_arrays():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 50, 300), rng.integers(0, 50, 300)
    d = a - b
    ref = stats.paired_difference(a, b)
    got = stats.paired_difference_from_sums(d.sum(), (d * d).sum(), d.size)
    for key in ("diff", "lo", "hi", "stderr", "n"):
        assert got[key] == pytest.approx(ref[key])


def test_hist_quantiles_and_moments():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 30, 999)
    hist = np.bincount(x)
    qs = [0.0, 0.1, 0.5, 0.9, 1.0]
    assert stats.hist_quantiles(hist, qs).tolist() == np.quantile(x, qs, method="inverted_cdf").tolist()
    mean, sd = stats.hist_mean_sd(hist)
    assert mean == pytest.approx(x.mean()) and sd == pytest.approx(x.std(ddof=1))


def test_mcnemar_and_chisquare():
    assert stats.mcnemar_p(0, 0) == 1.0
    assert stats.mcnemar_p(30, 12) == pytest.approx(st.binomtest(30, 42, 0.5).pvalue)
    assert stats.chi_square_uniform_p([10, 20, 30]) == pytest.approx(st.chisquare([10, 20, 30]).pvalue)


def test_binomial_test_equals_scipy_exactly():
    # every k of small n, and tails/centre of large n, at the p0 the games use (1/n for
    # n players, 1/2 for McNemar) and edge values: identical floats, not approximately
    cases = [(k, n, p) for n in (1, 2, 3, 7, 12, 40) for k in range(n + 1)
             for p in (0.0, 0.25, 1 / 3, 0.5, 0.6, 1.0)]
    cases += [(k, n, p) for n in (1_000, 100_000) for p in (0.25, 1 / 3, 0.5)
              for k in (0, 1, int(n * p) - 50, int(n * p) - 1, int(n * p), int(n * p) + 7, n - 1, n)]
    k, n, p = (np.array(c) for c in zip(*cases, strict=True))
    got = stats.binomial_two_sided_p(k, n, p)
    want = [st.binomtest(int(a), int(b), float(c)).pvalue for a, b, c in cases]
    assert got.tolist() == want


def test_chi_square_equals_scipy_exactly():
    rng = np.random.default_rng(4)
    for counts in ([10, 20, 30], [0, 0, 5], [7, 7], [3, 0, 1, 9], *rng.integers(0, 10**6, (20, 5))):
        assert stats.chi_square_uniform_p(counts) == float(st.chisquare(counts).pvalue)


def test_stats_never_imports_scipy_stats():
    import subprocess
    import sys

    code = ("import sys; from sheepsim import stats; stats.mcnemar_p(30, 12);"
            "stats.chi_square_uniform_p([1, 2, 3]); print('scipy.stats' in sys.modules)")
    # a new interpreter: whether scipy.stats is imported, none loaded before
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_max_probability_halfwidth_reads_probability_columns_only():
    df = pd.DataFrame(
        {
            "p_first": [0.5, np.nan],
            "p_first_lo": [0.4, np.nan],
            "p_first_hi": [0.62, np.nan],
            "ev": [3.0, 1.0],
            "ev_lo": [0.0, 0.0],
            "ev_hi": [9.0, 9.0],
            "win_rate": [0.3, 0.2],
            "win_rate_lo": [0.29, 0.1],
            "win_rate_hi": [0.31, 0.3],
        }
    )
    assert stats.max_probability_halfwidth(df) == pytest.approx(0.11)
    assert stats.max_probability_halfwidth({"a": df[["ev", "ev_lo", "ev_hi"]]}) == 0.0


def test_normal_interval():
    lo, hi = stats.normal_interval(1.0, 0.5)
    assert float(lo) == pytest.approx(1 - 0.5 * st.norm.ppf(0.975))
    assert float(hi) == pytest.approx(1 + 0.5 * st.norm.ppf(0.975))


def test_holm_adjusted_p_values_match_the_step_down_rule():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    adj = stats.holm_adjusted(p)
    # by hand: sorted 0.005*5, 0.01*4, 0.03*3, 0.04*2, 0.5*1, made monotone
    assert adj.tolist() == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.5])
    for alpha in (0.01, 0.03, 0.05, 0.1):
        assert ((adj <= alpha) == stats.holm_reject(p, alpha)).all()
    assert stats.holm_adjusted([0.6, 0.7]).tolist() == [1.0, 1.0]  # capped at 1
