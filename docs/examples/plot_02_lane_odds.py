"""
Lane odds, exact, from the start and mid-race
==============================================

P(1st), P(2nd) and P(3rd) per lane of the standard semifinal (the rules file's first
six cards), solved exactly for the ``greedy`` pace policy (no games played), then the
same for a race in progress: lane 6 has finished first and the others are spread over
the board. ``sheepsim race odds`` and ``sheepsim race odds --position ...`` print them.
"""

import matplotlib.pyplot as plt

from sheepsim.games import race
from sheepsim.games.race import plots as race_plots
from sheepsim.games.race.exact import exact_odds, position_odds
from sheepsim.games.race.exact.from_position import as_counts

start = race.odds_table(as_counts(exact_odds()))
mid = race.odds_table(as_counts(position_odds("semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1")))

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
race_plots.lane_place_heatmap(start, ax=left)
left.set_title("From the starting line")
race_plots.lane_place_heatmap(mid, ax=right)
right.set_title("Mid-race: lane 6 finished first")

# %%
# The exact table from the starting line:
start[["lane", "card", "p_first", "p_second", "p_third", "ev"]]
