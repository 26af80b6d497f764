"""
The skill ladder
================

How much does Aw, Sheep! reward better play? Each rung of the game's ladder (``random``
< ``greedy`` < ``counter``) plays seat 1 against the rung below on the same rounds, and
the top rung against the bottom one (``skill_gradient``). ``sheepsim awsheep ladder``
prints the table.
"""

import matplotlib.pyplot as plt

import sheepsim
from sheepsim import plots

ladder = sheepsim.ladder("awsheep", players=4, games=2_000, seed=0)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
plots.ladder_chart(ladder.tables["ladder"], ax=ax)

# %%
ladder.tables["ladder"]
