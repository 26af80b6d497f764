"""Shear Panic studies: balance for 3 and 4 players, and policy head-to-heads.

Runs the job (:class:`~sheepsim.games.panic.jobs.PlayJob`, on the harness) one chunk at
a time (``start`` = games done; a game is keyed by ``(seed, game index)``) and builds the tables with
:func:`~sheepsim.games.panic.analysis.build_tables` from the merged accumulator vector,
exactly as :func:`~sheepsim.games.panic.simulate.play_games` does in one go.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from sheepsim.games.panic.game import GAME
from sheepsim.report.game_studies import HeadToHeadStudy
from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Study, StudyResult, register_study


class _PanicStudy(Study):
    game = "shear-panic"

    @classmethod
    def load_rules(cls, path: Path | None):
        from sheepsim.games.panic.rules import load_rules

        return load_rules(path)



@register_study
class PanicBalance(_PanicStudy):
    """Whole Shear Panic games with one policy per seat.

    Keys: ``players`` (3 or 4, default 4), ``policies`` (one name for every seat or one
    per seat: random, greedy, rollout or ``package.module:function``; default greedy),
    ``playouts`` (rollout playouts per candidate, default 4). Tables as
    :func:`~sheepsim.games.panic.analysis.build_tables`.
    """

    type_name = "panic-balance"
    summary = "Shear Panic balance: seats, policies, fields, tiles (keys: players, policies, playouts)"
    default_block = 1_000
    default_chunk = 256  # greedy plays ~100 games/s per core: a checkpoint every few seconds

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.panic.policies import resolve_policies

        players = r.int_("players", required=False, default=4)
        with r.checking("players"):
            players = rules.check_players(players)
        names = r.names("policies", required=False, default=[GAME.policy_defaults["play"]])
        if len(names) not in (1, players):
            r.fail("policies", f"give 1 or {players} names (one per seat), got {len(names)}")
        with r.checking("policies"):
            resolve_policies(names)
        playouts = r.int_("playouts", min_value=1, required=False, default=4)
        names = names * players if len(names) == 1 else names
        return {"players": players, "policies": names, "playouts": playouts}

    def job(self):
        from sheepsim.games.panic.jobs import PlayJob

        p = self.params()
        return self._cached_job(lambda: PlayJob(self.rules, p["players"], p["policies"],
                                                self.seed, p["playouts"],
                                                chunk_games=self.default_chunk))

    def panic_result(self, counts, games):
        self.job().check(counts, games)
        return self.job().result(counts, games)

    def results(self, totals, games) -> StudyResult:
        import numpy as np

        from sheepsim import plots
        from sheepsim.games.panic import plots as panic_plots
        from sheepsim.games.panic.balance import tile_usage_table
        from sheepsim.stats import binomial_two_sided_p, chi_square_uniform_p, holm_adjusted
        from sheepsim.tableview import fair_share_finding, fmt_estimate, p_is

        res = self.panic_result(totals, games)
        t = res.tables
        seats = t["by_seat"]
        notes = []
        if len(set(res.policies)) == 1:
            # the row furthest from a fair share, as every game's report says it
            wins = seats["wins"].to_numpy()
            tested = seats.assign(fair_share=1 / res.players, pvalue_holm=holm_adjusted(
                binomial_two_sided_p(wins, np.full(len(wins), games), 1 / res.players)))
            p = chi_square_uniform_p(wins)
            notes.append(fair_share_finding(
                tested, lambda r: f"With every seat playing {res.policies[0]}, seat "
                                  f"{int(r['seat'])}", value="win_rate", fair="fair_share",
                pvalue="pvalue_holm", test=f"exact binomial, Holm over the {res.players} seats,",
                what="it wins") + f" Chi-square test of equal wins {p_is(p)}.")
        ties = t["tie_breaks"].iloc[0]
        tie, tie_lo, tie_hi = fmt_estimate(ties["tie_rate"], ties["tie_rate_lo"],
                                           ties["tie_rate_hi"], percent=True)
        notes.append(f"{tie} of games end in a tie for most points (95% {tie_lo} to "
                     f"{tie_hi}), decided by sheep left, then turn order.")
        ends = t["game_end"].set_index("end")
        notes.append(f"The menus ran out before the final pen in "
                     f"{ends.loc['menus_ran_out', 'share']:.1%} of games; mean game length "
                     f"{t['turns']['mean_turns'].iloc[0]:.1f} turns.")
        notes.append(_tile_note(t["tiles"], games))
        captions = {
            "by_seat": "Win rate (lo/hi: 95% Wilson interval) and mean points (95% normal "
                       "interval) by seat.",
            "by_policy": "Pooled over the seats that played each policy; 95% intervals with the "
                         "game as the unit (per-game totals of those seats).",
            "points_by_field": "Mean points per game scored in each field of the time track.",
            "sheep_shorn": "Sheep of each colour shorn per game.",
            "turns": "Game length in turns (95% interval for the mean).",
            "turn_histogram": "Games by length.",
            "game_end": "How games end: the counter reaches the final pen, or the menus run out.",
            "tie_breaks": "What decided the winner: points alone, or a tie for most points "
                          "broken by sheep left, then turn order (tie_rate: share of games "
                          "tied for first).",
            "tiles": "Per seat and menu tile: how often chosen, mean time-track position when "
                     "chosen and the mean points its user gained that turn.",
        }
        meta = {"games": games, "seed": self.seed, "rules": self.rules_label()}
        if self.sampling.precision is not None:
            meta.update(precision=self.sampling.precision, stopped_by="precision target")
        wins = seats
        figures = {"seat_win_rate": partial(plots.win_rate_chart, wins, meta=meta,
                                         title=f"Shear Panic, {res.players} players: "
                                               "win rate by seat"),
                   "field_points": partial(panic_plots.points_by_field_chart, t["points_by_field"],
                                            meta=meta),
                   "tile_usage": partial(panic_plots.tile_usage_chart, t["tiles"], meta=meta)}
        captions.update({"seat_win_rate": "Win rate by seat with 95% intervals.",
                         "field_points": "Mean points per game by field, stacked per seat.",
                         "tile_usage": "How often each menu tile is chosen per seat per game "
                                       "(where on the time track: tile_summary)."})
        tables = dict(t)
        # the caption promises means: the sums behind them stay in the Python API
        tables["tiles"] = t["tiles"].drop(columns=["counter_sum", "gain_sum"], errors="ignore")
        # the page shows the tiles pooled over seats, most used first (one row per tile);
        # the per-seat rows are in the CSV
        tables["tile_summary"] = tile_usage_table(t["tiles"], games).sort_values(
            "chosen_per_seat_game", ascending=False, kind="stable").reset_index(drop=True)
        captions["tile_summary"] = ("Menu tiles pooled over seats, most used first: times "
                                    "chosen per seat per game, mean time-track space when "
                                    "chosen, mean points its user gained that turn.")
        captions["tiles"] = captions["tiles"] + " Every seat and tile: in the CSV."
        omit = ["by_policy"] if len(t["by_policy"]) == 1 else []  # 1/n by symmetry
        return StudyResult(tables, figures, notes, captions,
                           key_findings=[notes[0], notes[-1]] if len(notes) > 1 else notes,
                           page_rows={"tiles": 0}, page_omit=omit)


def _tile_note(tiles, games: int) -> str:
    """The menu tile players lean on most, and the one that gains most per use."""
    from sheepsim.games.panic.balance import tile_usage_table

    use = tile_usage_table(tiles, games)
    most = use.loc[use["chosen_per_seat_game"].idxmax()]
    best = use.loc[use["mean_gain"].idxmax()]
    return (f"Most used menu tile: {int(most['tile'])} ({str(most['action']).replace('_', ' ')}, "
            f"time {int(most['time'])}), chosen {most['chosen_per_seat_game']:.2f} times per seat "
            f"per game; the biggest gain per use: tile {int(best['tile'])} "
            f"({str(best['action']).replace('_', ' ')}), {best['mean_gain']:.2f} points.")


@register_study
class PanicHeadToHead(HeadToHeadStudy):
    """Two policies for one seat on common random numbers (the same dice): the shared
    ``head-to-head`` study (:mod:`sheepsim.report.game_studies`) under its older name.

    Every game is played twice with the same seed and game index, once with policy ``a``
    and once with ``b`` in the focal seat. Keys: ``a``, ``b`` (defaults greedy, random),
    ``field`` (the other seats, default greedy), ``seat`` (1-based, default 1),
    ``players`` (3 or 4, default 4), ``playouts`` (default 4). Table ``comparison``
    (columns of :func:`sheepsim.headtohead.compare_table`; ``mean_score`` is the seat's
    points).
    """

    type_name = "panic-head-to-head"
    game = "shear-panic"
    summary = "two policies for one Shear Panic seat on the same dice (keys: a, b, field, seat, players)"
    default_block = 1_000
    default_chunk = 256
    score_words = ("points", "mean points")
