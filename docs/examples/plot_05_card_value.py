"""
Card values in Aw, Sheep!
=========================

What holding each kind of card at the start of a round is worth: every round is played
as dealt and again with one card of a kind replaced by a plain sheep (same deal, same
random streams), and ``card_value`` is the holder's win rate with the card minus with
the sheep instead, with a 95% interval clustered by round. ``sheepsim awsheep
card-value`` prints it.
"""

import matplotlib.pyplot as plt

from sheepsim.games import awsheep
from sheepsim.games.awsheep import plots as aw_plots

rules, tables = awsheep.card_value_tables(None, players=[4], fields=["counter"], games=1_000, seed=0,
                                   progress=False)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
aw_plots.card_value_chart(tables["card_value"], ax=ax)

# %%
tables["card_value"]
