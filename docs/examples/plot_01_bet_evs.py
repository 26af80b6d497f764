"""
Bet EVs on a dealt semifinal
============================

The expected value of one bet on each lane of a dealt Sheep Race semifinal, with its
95% interval and the payoff that would make the bet fair, then the best sets of three
bets (one open, two hidden) when lane 6 is taken openly by a rival. ``sheepsim race ev``
prints the same tables.
"""

import matplotlib.pyplot as plt

from sheepsim.games import race
from sheepsim.games.race import plots as race_plots

lanes = ["Feta", "Karoo", "Jumbuck", "Crowdie", "Stilton", "Limburger"]
counts = race.race_counts(lanes=lanes, games=20_000, seed=1)  # 20,000 simulated races
ev = race.lane_ev_table(counts)
best = race.bet_sets_table(counts, taken=[6])

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
race_plots.lane_ev_chart(ev, ax=left)
race_plots.bet_sets_chart(best, top=8, ax=right)

# %%
# The three best sets, with their EV and its interval:
best.head(3)[["lanes", "cards", "ev", "ev_lo", "ev_hi"]]
