"""Pig's declaration: what sheepsim's registry reads (light: no numba)."""

from sheepsim.harness.declare import game

GAME = game(name="pig", command="pig", title="Pig", min_players=2, max_players=6,
            policies=("random", "hold-20"), machine="sheepsim_pig.machine")
