"""
A sweep: one card's gallop against the spread of lane EVs
=========================================================

``sheepsim.sweep`` plays the same games for every value of a rules key (common random
numbers), so the differences between points hold only the luck the points do not share.
Here Stilton's gallop (4 in the standard set) from 4 to 8, against ``lane_ev_spread``,
the spread of the six lanes' single-bet EVs over random-deal semifinals (lower is more
even). ``sheepsim race sweep --set race.cards.Stilton.gallop=4,5,6,7,8`` prints it.
"""

import matplotlib.pyplot as plt

import sheepsim
from sheepsim import plots

key = "race.cards.Stilton.gallop"
s = sheepsim.sweep("race", set=f"{key}=4,5,6,7,8", metric="lane_ev_spread", games=2_000, seed=0)
table = s.tables["sweep"]
base = table.loc[table[key] == 4, "value"].iloc[0]

fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
plots.sweep_chart(table, "lane_ev_spread", [key], base=base, ax=ax)

# %%
table[[key, "value", "value_lo", "value_hi", "diff", "diff_lo", "diff_hi"]]
