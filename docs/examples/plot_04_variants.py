"""
Rules variants side by side: the paired differences
===================================================

``sheepsim.variants`` plays the base rules and each variant on the same games and
reports each metric's difference to the base with a paired 95% interval. Two Aw, Sheep!
variants: the golden sheep worth 1 instead of 3, and the Doghouse cards drawn at random.
The chart shows each variant's difference in ``skill_edge`` (how much more often a
``counter`` player wins than a ``random`` one) and in ``mean_turns``.
``sheepsim awsheep variants --set ...`` prints the same tables.
"""

import matplotlib.pyplot as plt
import numpy as np

import sheepsim

v = sheepsim.variants("awsheep", set=["scoring.golden_worth=1", 'options.doghouse_cards="drawn_at_random"'],
                      metric="skill_edge,mean_turns", games=2_000, seed=0)
diffs = v.tables["differences"]

fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
for ax, (metric, rows) in zip(axes, diffs.groupby("metric", sort=False), strict=True):
    xs = np.arange(len(rows))
    err = [rows["diff"] - rows["diff_lo"], rows["diff_hi"] - rows["diff"]]
    ax.errorbar(xs, rows["diff"], yerr=err, fmt="o", capsize=4)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(xs, rows["variant"], fontsize=8)
    ax.set_ylabel(f"variant minus base ({rows['unit'].iloc[0]})")
    ax.set_title(metric)

# %%
diffs[["variant", "metric", "diff", "diff_lo", "diff_hi", "se_ratio", "pvalue_holm"]]
