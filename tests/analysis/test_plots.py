"""Every chart renders to PNG and SVG with its title, axis labels and footnote."""

import numpy as np
import pandas as pd
import pytest
from analysis_helpers import counts_from_outcomes, random_outcomes

from sheepsim import plots
from sheepsim.errors import SheepsimError
from sheepsim.games.awsheep import plots as aw_plots
from sheepsim.games.panic import plots as panic_plots
from sheepsim.games.race import analysis as an
from sheepsim.games.race import plots as race_plots

META = {"games": 500, "seed": 3, "rules": "standard.toml"}
AW_LUCK = pd.DataFrame({"players": [4], "draft": [False], "policy": ["counter"], "baseline": ["random"],
                        "win_rate": [0.44], "win_rate_lo": [0.43], "win_rate_hi": [0.45],
                        "baseline_win_rate": [0.2495], "baseline_win_rate_lo": [0.2458],
                        "baseline_win_rate_hi": [0.2534], "fair_share": [0.25]})


@pytest.fixture(scope="module")
def race_tables(rules):
    counts = counts_from_outcomes(rules, random_outcomes(4))
    lanes = an.lane_ev_table(counts)
    p = counts.place_counts / counts.games
    fair = pd.concat(
        [
            an.fair_payoff_table(p, rules.payoff_semifinal, "semifinal"),
            an.fair_payoff_table(p[:, :1], rules.payoff_final[None, :], "final"),
        ]
    )
    card_place = np.random.default_rng(0).integers(0, 50, (len(rules.cards), 6, 3))
    seats = pd.DataFrame(
        {
            "seat": [1, 2, 3],
            "win_rate": [0.3, 0.35, 0.35],
            "win_rate_lo": [0.25, 0.3, 0.3],
            "win_rate_hi": [0.35, 0.4, 0.4],
        }
    )
    trace = pd.DataFrame(
        {
            "games": [100, 200, 100, 200],
            "quantity": ["a", "a", "b", "b"],
            "estimate": [0.5, 0.45, 0.2, 0.25],
            "lo": [0.4, 0.4, 0.1, 0.2],
            "hi": [0.6, 0.5, 0.3, 0.3],
        }
    )
    fields = pd.DataFrame(
        {
            "seat": [1, 2, 3],
            "colour": ["blue", "green", "red"],
            "policy": ["random"] * 3,
            "teammates_1": [3.0, 2.5, 2.0],
            "ram_2": [4.0, 5.0, 3.0],
            "total": [7.0, 7.5, 5.0],
        }
    )
    tiles = pd.DataFrame(
        {
            "seat": [1, 1, 2, 2],
            "tile": [1, 2, 1, 2],
            "action": ["Lamb Push"] * 4,
            "time": [1, 2, 1, 2],
            "chosen": [10, 5, 8, 0],
            "chosen_per_game": [1.0, 0.5, 0.8, 0.0],
            "counter_sum": [100, 80, 60, 0],
        }
    )
    aw_first = pd.DataFrame({"players": 4, "draft": False, "position": [1, 2, 3, 4],
                             "win_rate": [0.24, 0.25, 0.25, 0.26], "win_rate_lo": [0.23, 0.24, 0.24, 0.25],
                             "win_rate_hi": [0.25, 0.26, 0.26, 0.27], "fair_share": 0.25})
    aw_power = pd.DataFrame({"players": 4, "draft": False, "policy": "counter", "kind": "sheep",
                             "count": [0, 1, 2], "win_rate": [0.2, 0.25, 0.3],
                             "win_rate_lo": [0.1, 0.2, 0.25], "win_rate_hi": [0.3, 0.3, 0.35],
                             "fair_share": 0.25})
    aw_value = pd.DataFrame({"players": 4, "draft": False, "field": "counter",
                             "kind": ["doghouse", "horse"], "value": [0.01, 0.03],
                             "value_lo": [0.0, 0.02], "value_hi": [0.02, 0.04]})
    return {
        "aw_turn_order": (
            lambda **kw: aw_plots.win_rate_by_position_chart(aw_first, **kw),
            "Aw, Sheep!: win rate by position in turn order",
            "position in turn order (1 = first player)",
            "win rate (share of rounds, 95% interval)",
        ),
        "aw_card_power": (
            lambda **kw: aw_plots.card_power_chart(aw_power, "sheep", **kw),
            "Aw, Sheep!: win rate by sheep cards in the starting hand\n"
            "(starting-hand composition, not card value)",
            "sheep cards in the starting hand (count)",
            "win rate (share of rounds, 95% interval)",
        ),
        "aw_card_value": (
            lambda **kw: aw_plots.card_value_chart(aw_value, **kw),
            "Aw, Sheep!: card value on common random numbers",
            "card kind (one in the starting hand, against a plain sheep)",
            "change in the holder's win rate\n(percentage points, 95% interval)",
        ),
        "aw_luck": (
            lambda **kw: aw_plots.luck_vs_skill_chart(AW_LUCK, **kw),
            "Aw, Sheep!: luck vs skill against random players",
            "tested policy, players",
            "win rate (share of rounds, 95% interval)",
        ),
        "heatmap": (
            lambda **kw: race_plots.lane_place_heatmap(lanes, **kw),
            "P(place) by lane (± 95% interval half-width)",
            "place",
            "lane (card)",
        ),
        "ev": (
            lambda **kw: race_plots.lane_ev_chart(lanes, **kw),
            "Single-bet EV by lane",
            "lane (card)",
            "expected points per bet (points)",
        ),
        "sets": (
            lambda **kw: race_plots.bet_sets_chart(an.bet_sets_table(counts), **kw),
            "Best 10 sets of bets by EV",
            "expected points per race, bonus included (points)",
            "set of bets",
        ),
        "fair": (
            lambda **kw: race_plots.fair_payoff_chart(fair, **kw),
            "Fair (same mean EV) vs printed payoffs",
            "lane",
            "payoff (points, log scale)",
        ),
        "cards": (
            lambda **kw: race_plots.card_strength_chart(
                an.card_strength_table(card_place, 10_000, rules), **kw),
            "Card strength over random deals",
            "probability per race the card runs in (dotted: equal cards)",
            "card (win, top-3 flags: ▲ over, ▼ under; Holm + effect size)",
        ),
        "seats": (
            lambda **kw: plots.win_rate_chart(seats, **kw),
            "Win rate by seat",
            "seat",
            "win rate (share of games)",
        ),
        "convergence": (
            lambda **kw: plots.convergence_chart(trace, **kw),
            "Convergence",
            "games simulated (count)",
            "estimate with 95% interval (probability)",
        ),
        "fields": (
            lambda **kw: panic_plots.points_by_field_chart(fields, **kw),
            "Shear Panic: points by field",
            "seat (colour, policy)",
            "mean points per game (points)",
        ),
        "tiles": (
            lambda **kw: panic_plots.tile_usage_chart(tiles, **kw),
            "Shear Panic: tile usage",
            "menu tile (number, action, time cost)",
            "times chosen per seat per game (count)",
        ),
    }


CHARTS = ["heatmap", "ev", "sets", "fair", "cards", "seats", "convergence", "fields", "tiles",
          "aw_turn_order", "aw_card_power", "aw_luck"]


@pytest.mark.parametrize("name", CHARTS)
def test_chart_renders_png_and_svg(race_tables, name, tmp_path):
    draw, title, xlabel, ylabel = race_tables[name]
    fig = draw(meta=META)
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == (title, xlabel, ylabel)
    assert any("games 500 · seed 3 · rules standard.toml" == t.get_text() for t in fig.texts)
    png, svg = tmp_path / "c.png", tmp_path / "c.svg"
    plots.save_figure(fig, png)
    fig = draw(meta=META)
    plots.save_figure(fig, svg)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    plots.save_figure(draw(meta=META), tmp_path / "again.svg")  # no random ids, no date
    assert (tmp_path / "again.svg").read_bytes() == svg.read_bytes()


@pytest.mark.parametrize("name", CHARTS)
def test_chart_draws_into_given_axes(race_tables, name):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    out = race_tables[name][0](ax=axes[1])
    assert out is fig and axes[1].get_title() == race_tables[name][1]
    plt.close(fig)


def test_panel_figure_has_one_footnote(race_tables, tmp_path):
    panels = [lambda ax, n=n: race_tables[n][0](ax=ax) for n in ("heatmap", "ev", "convergence")]
    fig = plots.panel_figure(panels, META, "title")
    assert sum("seed 3" in t.get_text() for t in fig.texts) == 1
    plots.save_figure(fig, tmp_path / "p.svg")


def test_bad_plot_path(tmp_path):
    with pytest.raises(SheepsimError, match="png or .svg"):
        plots.check_plot_path(tmp_path / "chart.pdf")
    with pytest.raises(SheepsimError, match="does not exist"):
        plots.check_plot_path(tmp_path / "missing" / "chart.png")


def test_aw_sheep_charts_have_whole_number_positions_and_the_baselines_interval(race_tables):
    fig = race_tables["aw_turn_order"][0](meta=META)
    assert [t for t in fig.axes[0].get_xticks()] == [1, 2, 3, 4]
    plots.plt.close(fig)
    fig = race_tables["aw_card_power"][0](meta=META)
    assert list(fig.axes[0].get_xticks()) == [0, 1, 2]
    plots.plt.close(fig)
    fig = race_tables["aw_luck"][0](meta=META)
    ax = fig.axes[0]
    bars = ax.containers  # one errorbar per series: the tested policy and the baseline
    assert len(bars) == 2
    baseline = bars[1]
    (y,) = baseline.lines[0].get_ydata()
    assert y == pytest.approx(0.2495)
    segment = baseline.lines[2][0].get_segments()[0]  # the interval's vertical line
    assert sorted(p[1] for p in segment) == pytest.approx([0.2458, 0.2534])
    assert "random in the same seat" in ax.get_legend_handles_labels()[1]
    plots.plt.close(fig)


def _legend_texts(fig) -> list[str]:
    import matplotlib.legend

    return [t.get_text() for leg in fig.findobj(matplotlib.legend.Legend) for t in leg.get_texts()]


def _has_error_bars(fig) -> bool:
    from matplotlib.container import ErrorbarContainer

    return any(isinstance(c, ErrorbarContainer) for ax in fig.axes for c in ax.containers)


def test_exact_ev_charts_draw_no_interval_and_the_final_no_bonus(rules):
    """Exact odds (``race ev --exact``: every ``ev_lo == ev == ev_hi``) have no interval
    to draw, and a final pays no bonus ("the winner only", Table 2), so its sets chart does
    not say "bonus included"; simulated semifinal odds keep both."""
    import matplotlib.pyplot as plt

    counts = counts_from_outcomes(rules, random_outcomes(4))
    lanes, sets = an.lane_ev_table(counts), an.bet_sets_table(counts)
    simulated = [race_plots.lane_ev_chart(lanes), race_plots.bet_sets_chart(sets)]
    assert all(_has_error_bars(f) for f in simulated)
    assert "95% interval" in _legend_texts(simulated[0])
    assert simulated[1].axes[0].get_xlabel() == "expected points per race, bonus included (points)"
    exact_lanes = lanes.assign(ev_lo=lanes["ev"], ev_hi=lanes["ev"])
    exact_sets = sets.assign(ev_lo=sets["ev"], ev_hi=sets["ev"], bonus_ev=0.0)
    exact = [race_plots.lane_ev_chart(exact_lanes), race_plots.bet_sets_chart(exact_sets)]
    assert not any(_has_error_bars(f) for f in exact)
    assert "95% interval" not in _legend_texts(exact[0])
    assert exact[1].axes[0].get_xlabel() == "expected points per race (points)"
    for f in simulated + exact:
        plt.close(f)


def test_a_convergence_trace_of_one_check_still_shows_its_interval():
    """``--precision`` met at the first check leaves one point per quantity: its interval
    is drawn as an error bar (a filled band of one point would be invisible)."""
    import matplotlib.pyplot as plt

    one = pd.DataFrame({"games": [1000, 1000], "quantity": ["a", "b"], "estimate": [0.5, 0.2],
                        "lo": [0.47, 0.18], "hi": [0.53, 0.22]})
    from matplotlib.collections import PolyCollection

    def bands(f):
        return sum(isinstance(c, PolyCollection) for c in f.axes[0].collections)

    fig = plots.convergence_chart(one)
    assert _has_error_bars(fig) and bands(fig) == 0
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1,000"]  # one tick
    two = pd.DataFrame({"games": [1000, 2000], "quantity": ["a", "a"], "estimate": [0.5, 0.49],
                        "lo": [0.47, 0.47], "hi": [0.53, 0.51]})
    fig2 = plots.convergence_chart(two)
    assert not _has_error_bars(fig2) and bands(fig2) == 1
    plt.close(fig)
    plt.close(fig2)


def test_seat_labels_of_bet_and_pace_policies_do_not_overlap():
    """Four seats playing ``ev-approx,greedy``: each tick label is the seat, then one
    policy a line, and no two labels overlap once drawn."""
    import matplotlib.pyplot as plt

    seats = pd.DataFrame({"seat": [1, 2, 3, 4], "bet_policy": ["ev-approx"] * 4,
                          "pace_policy": ["greedy"] * 4, "win_rate": [0.24, 0.25, 0.25, 0.26],
                          "win_rate_lo": [0.22, 0.23, 0.23, 0.24],
                          "win_rate_hi": [0.26, 0.27, 0.27, 0.28]})
    fig = plots.win_rate_chart(seats)
    fig.canvas.draw()
    ticks = fig.axes[0].get_xticklabels()
    assert [t.get_text() for t in ticks] == [f"{k}\nev-approx\ngreedy" for k in range(1, 5)]
    boxes = [t.get_window_extent() for t in ticks]
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:], strict=False))
    plt.close(fig)


def test_lane_heatmap_over_random_deals_says_the_cards_are_dealt_at_random(race_tables):
    """Over random deals a lane has no card: the axis says so instead of "lane (card)"."""
    import matplotlib.pyplot as plt

    lanes = pd.DataFrame({"lane": range(1, 7), "card": ["(random deal)"] * 6,
                          "p_first": [1 / 6] * 6, "p_second": [1 / 6] * 6, "p_third": [1 / 6] * 6})
    fig = race_plots.lane_place_heatmap(lanes)
    assert fig.axes[0].get_ylabel() == "lane (cards dealt at random)"
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [str(k) for k in range(1, 7)]
    plt.close(fig)


def test_simulated_heatmap_shows_half_widths_and_ev_chart_names_the_cards(rules):
    """A Monte Carlo P(place) is shown with its 95% half-width (an exact one alone); the
    EV chart's lanes carry their cards' names; the tile chart has one y axis."""
    import matplotlib.pyplot as plt

    counts = counts_from_outcomes(rules, random_outcomes(4))
    lanes = an.lane_ev_table(counts)
    fig = race_plots.lane_place_heatmap(lanes)
    texts = [t.get_text() for t in fig.axes[0].texts]
    half = (lanes["p_first_hi"].iloc[0] - lanes["p_first_lo"].iloc[0]) / 2
    assert texts[0] == f"{lanes['p_first'].iloc[0]:.3f}\n±{half:.3f}"
    exact = lanes.assign(**{f"p_{k}_{e}": lanes[f"p_{k}"] for k in ("first", "second", "third")
                            for e in ("lo", "hi")})
    fig2 = race_plots.lane_place_heatmap(exact)
    assert "±" not in "".join(t.get_text() for t in fig2.axes[0].texts)
    assert fig2.axes[0].get_title() == "P(place) by lane"
    fig3 = race_plots.lane_ev_chart(lanes)
    labels = [t.get_text() for t in fig3.axes[0].get_xticklabels()]
    assert labels == [f"{lane}\n{card}" for lane, card in zip(lanes["lane"], lanes["card"],
                                                               strict=True)]
    for f in (fig, fig2, fig3):
        plt.close(f)


def test_each_games_charts_live_in_its_folder():
    # sheepsim.plots keeps the shared charts; a game's own charts moved to its folder and
    # are still found under their old names there (0.1.0's examples used them)
    assert plots.lane_ev_chart is race_plots.lane_ev_chart
    assert plots.tile_usage_chart is panic_plots.tile_usage_chart
    assert race_plots.lane_ev_chart.__module__ == "sheepsim.games.race.plots"
    assert panic_plots.points_by_field_chart.__module__ == "sheepsim.games.panic.plots"
    assert not hasattr(plots, "no_such_chart")
