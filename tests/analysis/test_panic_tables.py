"""Shear Panic balance tables (small runs: shape and consistency, not balance itself)."""

import numpy as np
import pytest

from sheepsim.plots import save_figure

at = pytest.importorskip("sheepsim.games.panic.balance")

GAMES = 20


@pytest.fixture(scope="module")
def tables():
    return at.balance_tables(policies="random", games=GAMES, seed=1, progress=False)


def test_balance_tables_stack_player_counts(tables):
    seats = tables["by_seat"]
    assert seats["players"].tolist() == [3, 3, 3, 4, 4, 4, 4]
    for n in (3, 4):
        assert seats[seats["players"] == n]["wins"].sum() == GAMES
    usage = tables["tile_usage"]
    assert len(usage) == 2 * 12
    assert usage.columns.tolist()[:4] == ["players", "tile", "action", "time"]
    assert ((usage["mean_counter"] >= 1) | usage["mean_counter"].isna()).all()


def test_tile_usage_pools_seats():
    import pandas as pd

    tiles = pd.DataFrame(
        {
            "seat": [1, 2, 1, 2],
            "tile": [1, 1, 2, 2],
            "action": ["a", "a", "b", "b"],
            "time": [1, 1, 2, 2],
            "chosen": [3, 1, 0, 0],
            "counter_sum": [30, 14, 0, 0],
            "gain_sum": [6, 2, 0, 0],
        }
    )
    usage = at.tile_usage_table(tiles, games=2)
    assert usage["chosen_per_seat_game"].tolist() == [1.0, 0.0]
    assert usage.loc[0, "mean_counter"] == 11 and usage.loc[0, "mean_gain"] == 2
    assert np.isnan(usage.loc[1, "mean_counter"])


def test_neutral_colour_table():
    table = at.neutral_colour_table(policies="random", games=GAMES, seed=1, progress=False)
    assert table["neutral"].unique().tolist() == ["blue", "green", "red", "yellow"]
    for neutral, grp in table.groupby("neutral"):
        assert neutral not in grp["colour"].tolist() and len(grp) == 3


def test_balance_figure(tables, tmp_path):
    fig = at.balance_figure(tables, 4, {"games": GAMES, "seed": 1, "rules": "standard"})
    titles = [ax.get_title() for ax in fig.axes]
    assert "Shear Panic: points by field" in titles and "Shear Panic: tile usage" in titles
    save_figure(fig, tmp_path / "panic.png")
    assert (tmp_path / "panic.png").stat().st_size > 0
