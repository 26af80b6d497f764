"""Aw, Sheep! report studies: balance of one setting (players, draft, policies) and
luck vs skill (a policy against a baseline field on the same rounds)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from sheepsim.games.awsheep.game import GAME
from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Study, StudyResult, register_study

#: the game's default policy (every command's; :attr:`sheepsim.game.Game.policy_defaults`)
_DEFAULT = GAME.policy_defaults["play"]

CAPTIONS = {
    "by_seat": "Win rate by seat (95% Wilson interval), fair share 1/n, wins from a tie for "
               "first (wins_on_tie), share of rounds the seat ended without cards.",
    "by_policy": "Pooled over the seats that played each policy, the round as the unit "
                 "(win_rate is per seat-round; fair_share = 1/players). A policy on every "
                 "seat wins exactly 1/n by symmetry (exact = yes, no interval).",
    "first_player": "Win rate by position in turn order (1 = the first player) for the "
                    "policy field shown: exact binomial p-value against 1/n, Holm-adjusted "
                    "over the positions (pvalue_holm, significant), chi-square p-value of "
                    "equal positions, wins from a tie for first.",
    "round_ends": "How rounds end: last player with cards, Flock Off, Sheep Show, fair draw.",
    "ties": "How the winner was decided; a tie for first goes to the Sheep Show (or a fair "
            "draw): tie rate and shares with 95% Wilson intervals.",
    "flock_off_triggers": "How each Flock Off started: the run of sheep equal to the players "
                          "still in, past them (a player out on their last sheep, a Methane "
                          "discarding two), or everyone out at once.",
    "margins": "Flock Off winning margin: best flock value minus the next contender's "
               "(0 = a tie for first).",
    "knockouts": "Players without cards when the round ends.",
    "round_length": "Turns per round (95% interval for the mean).",
    "card_power": "Starting-hand composition, not card value: win rate by the number of "
                  "each card kind in the starting hand (after the draft), pooled over the "
                  "seats of each policy, intervals clustered by round. A hand has a fixed "
                  "size: more sheep means fewer action cards.",
    "golden": "Starting-hand composition: win rate of the players starting with and "
              "without the golden sheep (not paired; its paired value is in card value).",
    "card_use": "How each card kind is used: plays per round, and per play the player's "
                "and the target's change in flock value (the card itself included), rivals "
                "knocked out and the player going out (intervals clustered by round).",
    "card_value": "Card value on common random numbers: the holder's win rate with one card "
                  "of the kind in the starting hand minus with a plain sheep in its place "
                  "(same deal and random streams), 95% interval clustered by round.",
    "golden_value": "The golden sheep's paired effect of holding it at the start: win rate "
                    "with it minus with a plain sheep in its place, same rounds.",
    "luck_vs_skill": "Tested policy in one seat (rotating) against the baseline in the others, "
                     "versus the baseline in that seat on the same rounds: paired difference "
                     "and exact McNemar p-value; a pure-luck game gives every policy 1/n.",
}
CHART_CAPTIONS = {
    "turn_order": "Win rate by position in turn order with 95% intervals; the dashed line "
                  "is the fair share 1/n.",
    "sheep_power": "Starting-hand composition, not card value: win rate by the number of "
                   "sheep cards in the starting hand (a hand of fixed size: more sheep, fewer "
                   "action cards), with 95% intervals; the dotted line is the fair share 1/n.",
    "card_value_chart": "Card value: the holder's win rate with one card of the kind in the "
                        "starting hand minus with a plain sheep in its place, on the same "
                        "rounds, in percentage points with 95% intervals; 0 dashed.",
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
        names = r.names("policies", required=False, default=[_DEFAULT])
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
    """The turn-order sentence for one policy field (``field`` column, one setting):
    the position furthest from a fair share (smallest exact binomial p-value; the
    largest distance from 1/n among equal p-values), with its win rate, interval and
    Holm-adjusted p, and the chi-square test of all positions together. The pattern
    belongs to the field that produced it: another field gives another one."""
    from sheepsim.tableview import fmt_estimate, p_is

    dist = (first["win_rate"] - first["fair_share"]).abs()
    worst = first.loc[first.assign(_d=-dist).sort_values(["pvalue", "_d"], kind="stable").index[0]]
    rate, lo, hi = fmt_estimate(worst["win_rate"], worst["win_rate_lo"], worst["win_rate_hi"],
                                percent=True)
    chi = first["chi2_pvalue"].iloc[0]
    verdict = "turn order matters" if chi < 0.05 else "no evidence that turn order matters"
    field = first["field"].iloc[0] if "field" in first.columns else None
    who = f" with every seat playing {field}" if field and "," not in field else (
        f" with the seats playing {field}" if field else "")
    return (f"Turn order{who}: position {int(worst['position'])} is furthest from a fair "
            f"share, winning {rate} of rounds (95% {lo} to {hi}; fair share "
            f"{worst['fair_share']:.1%}; exact binomial {p_is(worst['pvalue'])}, Holm-adjusted "
            f"over the {len(first)} positions {p_is(worst['pvalue_holm'])}); chi-square test "
            f"of equal positions {p_is(chi)}: {verdict}. Another policy field gives another "
            f"pattern.")


@register_study
class AwSheepTurnOrder(_AwStudy):
    """Turn order for several policy fields on the same rounds. Keys: ``players`` (3-6,
    default 4), ``draft`` (default: the rules file), ``fields`` (policies, each played by
    every seat; default random, greedy, counter). One turn-order finding per field;
    tables as :func:`~sheepsim.games.awsheep.analysis.play_tables` with a ``field``
    column."""

    type_name = "awsheep-turn-order"
    summary = ("Aw, Sheep! turn order per policy field: the same rounds under each field "
               "(keys: players, draft, fields)")

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.awsheep.policies import resolve_policies

        p = cls._setting(r, rules)
        fields = r.names("fields", required=False, default=["random", "greedy", "counter"])
        with r.checking("fields"):
            resolve_policies(fields)
        if len(set(fields)) != len(fields):
            r.fail("fields", "give each field once")
        return {**p, "fields": fields}

    def job(self):
        from sheepsim.games.awsheep.jobs import FieldsJob

        p = self.params()
        return self._cached_job(lambda: FieldsJob(self.rules, p["players"], p["fields"],
                                                  self.seed, p["draft"]))

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.awsheep import plots

        job = self.job()
        job.check(totals, games)
        t = job.tables(totals, games)
        first = t["first_player"]
        notes = [turn_order_finding(g) for _, g in first.groupby("field", sort=False)]
        tables = {k: t[k] for k in ("first_player", "by_seat", "ties")}
        figures = {"turn_order": partial(plots.win_rate_by_position_chart, first,
                                         meta=self._meta(games))}
        return StudyResult(tables, figures, notes, dict(CAPTIONS, **CHART_CAPTIONS))


@register_study
class AwSheepCardValue(_AwStudy):
    """Card value of one setting on common random numbers. Keys: ``players`` (3-6,
    default 4), ``draft`` (default: the rules file), ``policies`` (the field: one name for
    every seat or one per seat; default counter). Tables ``card_value``, ``golden_value``,
    ``card_use``."""

    type_name = "awsheep-card-value"
    summary = ("Aw, Sheep! card value: each kind against a plain sheep on the same rounds "
               "(keys: players, draft, policies)")
    default_block = 2_000
    default_chunk = 1 << 9  # a round here is 10-20 plain rounds

    parse_params = AwSheepBalance.parse_params

    def job(self):
        from sheepsim.games.awsheep.jobs import CardValueJob

        p = self.params()
        return self._cached_job(lambda: CardValueJob(self.rules, p["players"], p["policies"],
                                                     self.seed, p["draft"]))

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.awsheep import plots

        job = self.job()
        job.check(totals, games)
        t = job.tables(totals, games)
        figures = {"card_value_chart": partial(plots.card_value_chart, t["card_value"],
                                               meta=self._meta(games))}
        return StudyResult(t, figures, [card_value_finding(t["card_value"])],
                           dict(CAPTIONS, **CHART_CAPTIONS))


def card_value_finding(cv) -> str:
    """The card-value sentence: every kind's value in percentage points of the holder's
    win rate with its interval, the field named."""
    from sheepsim.tableview import fmt_estimate

    parts = []
    for r in cv.sort_values("value", ascending=False, kind="stable").itertuples(index=False):
        x, lo, hi = (v.rstrip("%") for v in fmt_estimate(r.value, r.value_lo, r.value_hi,
                                                           percent=True))
        sign = "+" if not x.startswith("-") else ""
        parts.append(f"{r.kind} {sign}{x} (95% {lo} to {hi})")
    field = cv["field"].iloc[0]
    who = f"every seat playing {field}" if "," not in field else f"the seats playing {field}"
    return (f"Card value with {who}, {int(cv['players'].iloc[0])} players "
            f"(the holder's win rate with one such card in the starting hand minus with a "
            f"plain sheep in its place, same rounds, in percentage points): "
            + "; ".join(parts) + ".")


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
        for key, default in (("policy", _DEFAULT), ("baseline", "random")):
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
