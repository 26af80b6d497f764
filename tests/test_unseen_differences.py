"""A paired difference that no block of games moved, of a metric that is noisy, is a
change the run did not see, not an exact 0 (as a spread's and an extreme's since 0.5.0):
plain jackknife metrics (``variants``, ``sweep``, ``tune``'s confirmation) read it as
[0, 0] before 0.7.0; now pairing bounds nothing there, the interval is the two values'
intervals' difference, and the pairing's gain is not claimed (``se_ratio`` empty)."""

import math

import numpy as np
import pytest
from test_designers_49 import _two_variant_job

from sheepsim.variant_runs import _t, jackknife_se, metric_tables, paired_jackknife

BLOCKS = 20


def _values(rng, centre: float, se: float) -> np.ndarray:
    """A metric's ``(blocks + 1,)`` values: all games, then all but block 0, 1, ... with
    leave-one-out scatter of about ``se / sqrt(blocks - 1)`` (jackknife se about ``se``)."""
    loo = centre + se / math.sqrt(BLOCKS - 1) * rng.standard_normal(BLOCKS)
    return np.concatenate([[centre], loo])


def test_an_unseen_change_of_a_noisy_metric_bounds_nothing():
    """The variant's values equal the base's in every block (a change no game showed):
    the interval is [lo_v - hi_b, hi_v - lo_b] of the two values' own intervals, its se
    se_b + se_v (the most the difference's can be whatever the pairing), p = 1, and not
    [0, 0]."""
    base = _values(np.random.default_rng(3), 20.0, 0.1)
    se = jackknife_se(base)
    d = paired_jackknife(base, base.copy())
    t = _t(BLOCKS - 1)
    assert d["unseen"] and d["diff"] == 0 and d["pvalue"] == 1.0
    assert d["se"] == pytest.approx(2 * se)
    lo_b, hi_b = base[0] - t * se, base[0] + t * se
    assert (d["lo"], d["hi"]) == pytest.approx((lo_b - hi_b, hi_b - lo_b))
    assert d["lo"] < -0.3 and d["hi"] > 0.3  # 2 t se = 2 * 2.09 * 0.1
    # a shift the same in every block (moved by no block) is unseen too, and its p honest
    shifted = paired_jackknife(base, base + 0.05)
    assert shifted["unseen"] and shifted["lo"] < 0 < shifted["hi"] and shifted["pvalue"] > 0.5


def test_shared_counts_and_exact_metrics_and_seen_changes_are_as_before():
    """Shared counts (an edit the job ignores) differ by exactly 0; a metric no block
    moves in either variant is known exactly; a change the blocks do move keeps the plain
    jackknife of the difference (the pairing's gain)."""
    rng = np.random.default_rng(4)
    base = _values(rng, 20.0, 0.1)
    same = paired_jackknife(base, base.copy(), same_counts=True)
    assert not same["unseen"] and same["lo"] == same["hi"] == same["diff"] == 0
    assert same["pvalue"] == 1.0
    flat = paired_jackknife(np.full(BLOCKS + 1, 3.0), np.full(BLOCKS + 1, 3.5))
    assert not flat["unseen"] and flat["lo"] == flat["hi"] == 0.5 and flat["pvalue"] == 0.0
    other = base + _values(rng, 0.2, 0.02)
    seen = paired_jackknife(base, other)
    se = jackknife_se(other - base)
    assert not seen["unseen"] and seen["se"] == se
    assert (seen["lo"], seen["hi"]) == (seen["diff"] - _t(BLOCKS - 1) * se,
                                        seen["diff"] + _t(BLOCKS - 1) * se)


def test_the_differences_table_does_not_read_an_unseen_change_as_exact():
    """``variants``' differences table (``metric_tables``): the unseen row's interval is
    the two values', its se_ratio empty (the pairing's gain unmeasured, left out of the
    pairing note); with the counts shared it is exactly 0, as before."""
    base = _values(np.random.default_rng(5), 20.0, 0.1)
    job = _two_variant_job()
    d = metric_tables(job, {(0, "m"): base, (1, "m"): base.copy()})["differences"].iloc[0]
    se = jackknife_se(base)
    assert d["diff"] == 0 and d["diff_lo"] < 0 < d["diff_hi"]
    assert d["diff_se"] == pytest.approx(2 * se) and d["unpaired_se"] == pytest.approx(math.sqrt(2) * se)
    assert math.isnan(d["se_ratio"]) and d["pvalue"] == 1.0
    assert d["pairing_note"] == "no metric changed between the variants"
    job.source[1]["games"] = 0  # the variant reads the base's counts
    d = metric_tables(job, {(0, "m"): base, (1, "m"): base.copy()})["differences"].iloc[0]
    assert d["diff_lo"] == d["diff_hi"] == 0 and d["diff_se"] == 0 and d["se_ratio"] == 0


def test_an_unseen_spread_change_has_the_standard_error_its_interval_uses():
    """A spread's unseen pair change (its interval already the two spreads', 0.5.0) had
    the bootstrap's se 0, read as exact beside that interval: now se_a + se_b, flagged."""
    from sheepsim.stats import spread_difference
    from tests.test_designers_49c import _null_blocks

    full, loo = _null_blocks(np.random.default_rng(2), 2_000)
    d = spread_difference(full, loo, full, loo)
    assert d["unseen"] and d["se"] == pytest.approx(d["se_a"] + d["se_b"]) and d["se"] > 0
    seen = spread_difference(full, loo, full, loo, same_counts=True)
    assert not seen["unseen"] and seen["se"] == 0
