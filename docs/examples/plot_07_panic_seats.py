"""
Shear Panic: win rate by seat
=============================

Four players, seat 1 playing ``greedy`` against three ``random`` players: the win rate
of each seat with its 95% interval against the fair share of 1/4, and the seat table
``sheepsim panic play`` prints.
"""

import matplotlib.pyplot as plt

import sheepsim
from sheepsim import plots

panic = sheepsim.play("shear-panic", players=4, policy="greedy,random,random,random", games=300, seed=1)
seats = panic.tables["by_seat"]
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
plots.win_rate_chart(seats, ax=ax)

# %%
seats.round(3)
