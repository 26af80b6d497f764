"""
A head-to-head on common random numbers
=======================================

``sheepsim.compare`` plays seat 1 with policy A and again with policy B on the same
games (the same deals and draws; every seat draws from its own random stream), so the
paired difference of their win rates is measured without the luck both runs share. Here
Aw, Sheep!'s ``counter`` against ``random`` in seat 1 of 4, among ``random`` players:
both win rates with their 95% intervals, and the paired difference with its interval.
"""

import matplotlib.pyplot as plt

import sheepsim

aw = sheepsim.compare("aw-sheep", a="counter", b="random", field="random", players=4, games=4_000)
row = aw.tables["comparison"].set_index("metric").loc["win_rate"]

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
for x, side in enumerate(["a", "b"]):
    left.errorbar(x, row[side], yerr=[[row[side] - row[f"{side}_lo"]], [row[f"{side}_hi"] - row[side]]],
                  fmt="o", capsize=4)
left.axhline(1 / 4, color="black", ls=":", lw=1, label="fair share 1/4")
left.set_xticks([0, 1], [f"A: {row['policy_a']}", f"B: {row['policy_b']}"])
left.set_xlim(-0.5, 1.5)
left.set_ylabel("seat 1 win rate")
left.legend(fontsize=8)
right.errorbar(0, row["diff"], yerr=[[row["diff"] - row["diff_lo"]], [row["diff_hi"] - row["diff"]]],
               fmt="o", capsize=4, color="tab:orange")
right.axhline(0, color="black", lw=0.8)
right.set_xticks([0], ["A minus B, paired"])
right.set_ylabel("win-rate difference")
fig.suptitle(f"counter against random, {int(row['games']):,} rounds on the same deals")

# %%
# Paired standard error against the one two independent runs would give:
aw.tables["comparison"][["metric", "diff", "diff_lo", "diff_hi", "diff_se", "unpaired_se", "pvalue"]]
