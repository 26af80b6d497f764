"""Aw, Sheep! report studies: balance of one setting (players, draft, policies) and
luck vs skill (a policy against a baseline field on the same rounds)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Study, StudyResult, register_study

CAPTIONS = {
    "by_seat": "Win rate by seat (95% Wilson interval), fair share 1/n, share of rounds the "
               "seat ended without cards.",
    "by_policy": "Pooled over the seats that played each policy, the round as the unit "
                 "(win_rate is per seat-round; fair_share = 1/players).",
    "first_player": "Win rate by position in turn order (1 = the first player): exact "
                    "binomial p-value against 1/n, chi-square p-value of equal positions.",
    "round_ends": "How rounds end: last player with cards, Flock Off, Sheep Show, fair draw.",
    "round_length": "Turns per round (95% interval for the mean).",
    "card_power": "Win rate by the number of each card kind in the starting hand (after the "
                  "draft), pooled over the seats of each policy.",
    "golden": "The golden sheep: win rate with and without it in the starting hand, and of "
              "its holder when the round ends.",
    "luck_vs_skill": "Tested policy in one seat (rotating) against the baseline in the others, "
                     "versus the baseline in that seat on the same rounds: paired difference "
                     "and exact McNemar p-value; a pure-luck game gives every policy 1/n.",
}
CHART_CAPTIONS = {
    "turn_order": "Win rate by position in turn order with 95% intervals; the dashed line "
                  "is the fair share 1/n.",
    "sheep_power": "Win rate by the number of sheep cards in the starting hand, with 95% "
                   "intervals; the dotted line is the fair share 1/n.",
    "luck_vs_skill_chart": "The tested policy's win rate against the baseline field and the "
                           "baseline's own win rate in the same seat of the same rounds, "
                           "with 95% intervals; the dashed line is 1/n, what pure luck gives.",
}


class _AwStudy(Study):
    game = "aw-sheep"
    default_block = 20_000
    default_chunk = 1 << 13

    @classmethod
    def load_rules(cls, path: Path | None):
        from sheepsim.games.awsheep.rules import load_rules

        return load_rules(path)

    @staticmethod
    def _setting(r: StudyReader, rules) -> dict:
        players = r.int_("players", required=False, default=4)
        with r.checking("players"):
            players = rules.check_players(players)
        draft = r.bool_("draft", required=False, default=rules.draft)
        return {"players": players, "draft": draft}

    def _meta(self, games):
        meta = {"games": games, "seed": self.seed, "rules": self.rules_label()}
        if self.sampling.precision is not None:
            meta.update(precision=self.sampling.precision, stopped_by="precision target")
        return meta


@register_study
class AwSheepBalance(_AwStudy):
    """Rounds of one setting. Keys: ``players`` (3-6, default 4), ``draft`` (default:
    the rules file), ``policies`` (one name for every seat or one per seat: random,
    greedy, counter or ``package.module:function``; default counter). Tables as
    :func:`~sheepsim.games.awsheep.analysis.play_tables`."""

    type_name = "awsheep-balance"
    summary = ("Aw, Sheep! balance: seats, turn order, round ends, card power "
               "(keys: players, draft, policies)")

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.awsheep.policies import resolve_policies

        p = cls._setting(r, rules)
        names = r.names("policies", required=False, default=["counter"])
        if len(names) not in (1, p["players"]):
            r.fail("policies", f"give 1 or {p['players']} names (one per seat), got {len(names)}")
        with r.checking("policies"):
            resolve_policies(names)
        return {**p, "policies": names * p["players"] if len(names) == 1 else names}

    def job(self):
        from sheepsim.games.awsheep.jobs import PlayJob

        p = self.params()
        return self._cached_job(lambda: PlayJob(self.rules, p["players"], p["policies"],
                                                self.seed, p["draft"]))

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.awsheep import plots

        job = self.job()
        job.check(totals, games)
        t = job.tables(totals, games)
        ends = t["round_ends"].set_index("end")
        notes = [turn_order_finding(t["first_player"]),
                 f"Rounds end by the Flock Off in {ends.loc['flock_off', 'share']:.1%}, with "
                 f"the last player holding cards in {ends.loc['last_with_cards', 'share']:.1%}, "
                 f"in the Sheep Show in {ends.loc['sheep_show', 'share']:.1%} and by a fair "
                 f"draw in {ends.loc['draw', 'share']:.1%}; mean length "
                 f"{t['round_length']['mean_turns'].iloc[0]:.1f} turns."]
        meta = self._meta(games)
        figures = {"turn_order": partial(plots.win_rate_by_position_chart, t["first_player"],
                                         meta=meta),
                   "sheep_power": partial(plots.card_power_chart, t["card_power"], "sheep",
                                          meta=meta)}
        captions = dict(CAPTIONS, **CHART_CAPTIONS)
        return StudyResult(dict(t), figures, notes, captions)


def turn_order_finding(first) -> str:
    """The turn-order sentence: the position furthest from a fair share (smallest exact
    binomial p-value; the largest distance from 1/n among equal p-values), with its win
    rate, interval and p, and the chi-square test of all positions together."""
    from sheepsim.tableview import fmt_estimate, p_is

    dist = (first["win_rate"] - first["fair_share"]).abs()
    worst = first.loc[first.assign(_d=-dist).sort_values(["pvalue", "_d"], kind="stable").index[0]]
    rate, lo, hi = fmt_estimate(worst["win_rate"], worst["win_rate_lo"], worst["win_rate_hi"],
                                percent=True)
    chi = first["chi2_pvalue"].iloc[0]
    verdict = "turn order matters" if chi < 0.05 else "no evidence that turn order matters"
    return (f"Turn order: position {int(worst['position'])} is furthest from a fair share, "
            f"winning {rate} of rounds (95% {lo} to {hi}; fair share "
            f"{worst['fair_share']:.1%}; exact binomial {p_is(worst['pvalue'])}); "
            f"chi-square test of equal positions {p_is(chi)}: {verdict}.")


@register_study
class AwSheepLuckSkill(_AwStudy):
    """Luck vs skill: ``policy`` (default counter) against ``baseline`` players
    (default random) on the same rounds. Keys: ``players``, ``draft``, ``policy``,
    ``baseline``. Table ``luck_vs_skill``."""

    type_name = "awsheep-luck-skill"
    summary = ("Aw, Sheep! luck vs skill: a policy against a baseline field "
               "(keys: players, draft, policy, baseline)")

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.awsheep.policies import resolve_policies

        p = cls._setting(r, rules)
        names = {}
        for key, default in (("policy", "counter"), ("baseline", "random")):
            names[key] = r.str_(key, required=False, default=default).strip()
            with r.checking(key):
                resolve_policies([names[key]])
        return {**p, **names}

    def job(self):
        from sheepsim.games.awsheep.jobs import SkillJob

        p = self.params()
        return self._cached_job(lambda: SkillJob(self.rules, p["players"], p["policy"],
                                                 p["baseline"], self.seed, p["draft"]))

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.awsheep import plots

        job = self.job()
        job.check(totals, games)
        t = job.tables(totals, games)
        notes = [luck_finding(t["luck_vs_skill"].iloc[0])]
        # named apart from the table, so the chart has its own caption
        figures = {"luck_vs_skill_chart": partial(plots.luck_vs_skill_chart, t["luck_vs_skill"],
                                                   meta=self._meta(games))}
        captions = dict(CAPTIONS, **CHART_CAPTIONS)
        return StudyResult(t, figures, notes, captions)


def luck_finding(r) -> str:
    """The luck-vs-skill sentence of one ``luck_vs_skill`` row."""
    from sheepsim.tableview import fmt_estimate, fmt_points, p_is

    a = fmt_estimate(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], percent=True)
    b = fmt_estimate(r["baseline_win_rate"], r["baseline_win_rate_lo"],
                     r["baseline_win_rate_hi"], percent=True)
    d = fmt_points(r["diff"], r["diff_lo"], r["diff_hi"], signed=True)  # percentage points
    return (f"{r['policy']} wins {a[0]} of rounds against {r['baseline']} players (95% "
            f"{a[1]} to {a[2]}); a pure-luck game would give {r['fair_share']:.1%}. In the "
            f"same seat of the same rounds {r['baseline']} wins {b[0]} (95% {b[1]} to "
            f"{b[2]}): difference {d[0]} percentage points (95% {d[1]} to {d[2]}; McNemar "
            f"{p_is(r['pvalue'])}).")
