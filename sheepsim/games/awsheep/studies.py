"""Aw, Sheep! report studies: balance of one setting (players, draft, policies) and
luck vs skill (a policy against a baseline field on the same rounds)."""

from __future__ import annotations

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
        first = t["first_player"]
        ends = t["round_ends"].set_index("end")
        notes = [f"The first player wins {first['win_rate'].iloc[0]:.1%} of rounds (95% "
                 f"{first['win_rate_lo'].iloc[0]:.1%} to {first['win_rate_hi'].iloc[0]:.1%}; "
                 f"fair share {first['fair_share'].iloc[0]:.1%}; chi-square p = "
                 f"{first['chi2_pvalue'].iloc[0]:.3g}).",
                 f"Rounds end by the Flock Off in {ends.loc['flock_off', 'share']:.1%}, with "
                 f"the last player holding cards in {ends.loc['last_with_cards', 'share']:.1%}, "
                 f"in the Sheep Show in {ends.loc['sheep_show', 'share']:.1%} and by a fair "
                 f"draw in {ends.loc['draw', 'share']:.1%}; mean length "
                 f"{t['round_length']['mean_turns'].iloc[0]:.1f} turns."]
        figures = {"turn_order": plots.win_rate_by_position_chart(first),
                   "sheep_power": plots.card_power_chart(t["card_power"], "sheep")}
        captions = dict(CAPTIONS, turn_order="Win rate by position in turn order, 1/n dashed.",
                        sheep_power="Win rate by sheep cards in the starting hand.")
        return StudyResult(dict(t), figures, notes, captions)


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
        r = t["luck_vs_skill"].iloc[0]
        notes = [f"{r['policy']} wins {r['win_rate']:.1%} of rounds against {r['baseline']} "
                 f"players (95% {r['win_rate_lo']:.1%} to {r['win_rate_hi']:.1%}); a pure-luck "
                 f"game would give {r['fair_share']:.1%}. In the same seat of the same rounds "
                 f"{r['baseline']} wins {r['baseline_win_rate']:.1%}: difference "
                 f"{r['diff']:+.1%} (95% {r['diff_lo']:+.1%} to {r['diff_hi']:+.1%}, McNemar "
                 f"p = {r['pvalue']:.3g})."]
        figures = {"luck_vs_skill": plots.luck_vs_skill_chart(t["luck_vs_skill"])}
        captions = dict(CAPTIONS, luck_vs_skill_chart="Tested policy's win rate next to 1/n.")
        return StudyResult(t, figures, notes, captions)
