"""Sheep Race studies, built on :mod:`sheepsim.games.race.analysis` and :mod:`sheepsim.plots`.

* ``race-odds``: one dealt race: odds and single-bet EV per lane, every set of bets
  ranked by EV (bonus counted), the best open bet given lanes already taken;
* ``race-fairness``: random deals: lane odds, fair payoffs next to Tables 1 and 2, card
  strength with over/under-powered cards flagged;
* ``race-balance``: whole games: win rate and score by seat and policy, turn order;
* ``race-head-to-head``: two policies for one seat on the same dice (paired difference).

Each runs the chunk functions of ``simulate``/``estimate`` one chunk at a time (``start`` = games
done, so a study resumes exactly) and builds the analysis tables from merged totals.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from sheepsim.games.race.cli_exact import ev_builders
from sheepsim.games.race.game import GAME
from sheepsim.report.game_studies import HeadToHeadStudy
from sheepsim.report.reader import StudyReader
from sheepsim.report.registry import Study, StudyResult, register_study

STAGES = ("semifinal", "final")


def _policy_field(bets, paces) -> str:
    """``"bet policies ev-approx, favourite, ...; pace greedy"``: which field a number
    comes from (two studies' first-player numbers differ with it)."""
    def names(xs):
        xs = list(xs)
        return xs[0] if len(set(xs)) == 1 else ", ".join(xs)

    return (f"bet {'policy' if len(set(bets)) == 1 else 'policies'} {names(bets)} and pace "
            f"{'policy' if len(set(paces)) == 1 else 'policies'} {names(paces)}")


def _flag_rule() -> str:
    from sheepsim.games.race.analysis import MIN_CARD_EFFECT

    return (f"Holm 5% over the cards, each outcome its own family, and a point estimate at "
            f"least {MIN_CARD_EFFECT:.0%} off the fair share")


class _RaceStudy(Study):
    game = "sheep-race"

    @classmethod
    def load_rules(cls, path: Path | None):
        from sheepsim.games.race.rules import load_rules

        return load_rules(path)

    def bet_lineups(self) -> list[tuple[list[str], list[str]]]:
        """``(bet policies, pace policies)`` of each line-up of whole games the study plays
        (none for single races)."""
        return []

    def describe(self) -> dict:
        """The manifest entry, with ``bet_odds`` (one per line-up) where bets read odds:
        ``ev_odds`` (exact odds of each dealt race) and/or ``odds_table`` (simulated)."""
        from sheepsim.games.race.exact.bets import bet_odds_meta

        d = super().describe()
        odds = [bet_odds_meta(*lineup) for lineup in self.bet_lineups()]
        if any(odds):
            d["bet_odds"] = odds
        return d

    def plot_meta(self, games: int) -> dict:
        """What chart footnotes show."""
        meta = {"games": games, "seed": self.seed, "rules": self.rules_label()}
        if self.sampling.precision is not None:
            meta.update(precision=self.sampling.precision, stopped_by="precision target")
        return meta


def _pace_policy(r: StudyReader, key: str = "policy") -> str:
    from sheepsim.games.race.simulate import resolve_policies

    name = r.str_(key, required=False, default=GAME.policy_defaults["pace"])
    with r.checking(key):
        resolve_policies([name])
    return name


def _players(r: StudyReader, rules, default: int = 4) -> int:
    from sheepsim.games.race.simulate import check_players

    players = r.int_("players", required=False, default=default)
    with r.checking("players"):
        check_players(rules, players)
    return players


# ---------------------------------------------------------------- one dealt race
METHODS = ("exact", "mc")


def _method(r: StudyReader, policy: str) -> str:
    """``method``: ``"exact"`` or ``"mc"``, by the rule of ``race odds``/``race ev``
    (:func:`sheepsim.games.race.cli_exact._method`): ``exact`` is refused with a game
    count (nothing is simulated) or a pace policy the solver cannot follow; ``mc``
    needs a game count; left out, the study is exact when the policy allows it and no
    game count is given, else simulated."""
    from sheepsim.games.race.exact.solver import exact_reason

    method = r.str_("method", choices=METHODS) if "method" in r.table else None
    sized = "games" in r.table or "precision" in r.table
    reason = exact_reason(policy)
    if method == "exact":
        if sized:
            r.fail("method", "exact takes no games or precision (nothing is simulated); "
                             'give method = "mc" to simulate')
        if reason:
            r.fail("method", f"no exact solution: {reason}; give method = \"mc\" and games "
                             "to simulate")
    elif sized:
        method = "mc"
    elif method is None and reason is None:
        method = "exact"
    elif method == "mc":
        r.missing("games", 'missing: method = "mc" simulates (give games, or precision and '
                           "max_games)")
    else:
        r.missing("games", f"missing: {reason}; give games (or precision and max_games) to "
                           "simulate")
    if method == "exact" and "seed" in r.table:
        r.fail("seed", 'an exact study simulates nothing; drop seed (or give method = "mc" '
                       "and games)")
    return method


def _dealt_position(r: StudyReader, rules) -> tuple[str, list[str], str]:
    """``position`` (the ``race odds --position`` text; ``lanes``/``stage`` fill what it
    leaves out): ``(canonical text, lane card names, stage)``."""
    from sheepsim.games.race.exact.position import as_position, position_arrays

    text = r.str_("position")
    lanes = r.names("lanes") if "lanes" in r.table else None
    stage = r.str_("stage", choices=STAGES) if "stage" in r.table else None
    with r.checking("position"):
        pos = as_position(text, stage=stage, lanes=lanes)
        cards = position_arrays(pos, rules)[2]
        return pos.text(), [rules.cards[i].name for i in cards], pos.stage


@register_study
class RaceOdds(_RaceStudy):
    """The table-side questions for one dealt race.

    Keys: ``lanes`` (six card names for lanes 1-6; default the rules file's first six),
    ``stage`` (``semifinal``/``final``, default semifinal), ``policy`` (pace policy for
    every turn, default greedy), ``taken`` (lanes 1-6 already bet openly, semifinal only;
    default none), ``position`` (a race in progress, as ``race odds --position`` takes
    it; default the starting line) and ``method`` (``exact``: solved, no ``games`` or
    ``seed``; ``mc``: simulated, needs ``games``; default exact when the pace policy
    allows it and no game count is given, as ``race odds`` does). Tables ``lanes``,
    ``bet_sets``, ``open_bet`` (semifinal): the tables of ``race ev``, collapsed to
    points when exact.
    """

    type_name = "race-odds"
    solvable = True
    summary = ("odds, bet EVs, best sets of bets for a chosen deal, exact where the policy "
               "allows (keys: lanes, stage, policy, taken, position, method)")
    default_block = 20_000

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        position = None
        if "position" in r.table:
            position, lanes, stage = _dealt_position(r, rules)
        else:
            lanes = r.names("lanes", required=False, default=rules.card_names[:6])
            with r.checking("lanes"):
                lanes = [rules.cards[i].name for i in rules.lanes(lanes)]
            stage = r.str_("stage", required=False, default="semifinal", choices=STAGES)
        taken = r.int_list("taken", required=False, default=[], nonempty=False, min_value=1)
        if taken and stage == "final":
            r.fail("taken", "the final has no open bets")
        if any(t > 6 for t in taken) or len(set(taken)) != len(taken) or len(taken) > 5:
            r.fail("taken", f"must be up to 5 different lanes 1-6, got {taken}")
        policy = _pace_policy(r)
        params = {"lanes": lanes, "stage": stage, "policy": policy, "taken": sorted(taken),
                  "method": _method(r, policy)}
        if position is not None:
            params["position"] = position
        return params

    def job(self):
        from sheepsim.games.race.exact.from_position import PositionJob
        from sheepsim.games.race.jobs import RacesJob

        p = self.params()
        if "position" in p:
            return self._cached_job(lambda: PositionJob(
                self.rules, p["position"], p["policy"], self.seed, "ev", tuple(p["taken"])))
        return self._cached_job(lambda: RacesJob(self.rules, p["lanes"], p["stage"], p["policy"],
                                                 self.seed, report="ev", taken=tuple(p["taken"])))

    def solve(self):
        """The exact odds (method ``exact``), solved once: an
        :class:`~sheepsim.games.race.exact.ExactOdds`."""
        if getattr(self, "_solved", None) is None:
            from sheepsim.games.race.exact.from_position import exact_from_position
            from sheepsim.games.race.exact.solver import exact_odds

            p = self.params()
            if "position" in p:
                self._solved = exact_from_position(p["position"], self.rules, p["policy"])
            else:
                self._solved = exact_odds(self.rules, p["lanes"], p["stage"], p["policy"])
        return self._solved

    def tables(self, counts, games) -> dict:
        if self.exact:  # the tables of `race ev --exact` (cli_exact.handle_ev)
            from sheepsim.games.race.exact.from_position import exact_tables

            p = self.params()
            t = exact_tables(self.solve(), ev_builders(p["stage"], tuple(p["taken"])))
        else:
            t = self.job().tables(counts, games)
        # the report's file names (kept from earlier reports)
        return {("bet_sets" if k == "sets" else k): v for k, v in t.items()}

    def plot_meta(self, games: int) -> dict:
        if self.exact:
            return {"method": "exact", "rules": self.rules_label()}
        return super().plot_meta(games)

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.race import plots as race_plots
        from sheepsim.tableview import fmt_estimate

        t = self.tables(totals, games)
        meta = self.plot_meta(games)
        lanes, sets = t["lanes"], t["bet_sets"]
        best_lane = lanes.loc[lanes["ev"].idxmax()]
        final = self.params()["stage"] == "final"  # the final pays the winner only: no bonus
        exact = self.exact
        if exact:  # no interval to size the decimals by: four, as the tables print EVs
            ev_text = f"exact EV {best_lane['ev']:.4f} points"
            set_ev = f"exact EV {sets['ev'].iloc[0]:.4f} points"
        else:
            ev, ev_lo, ev_hi = fmt_estimate(best_lane["ev"], best_lane["ev_lo"],
                                            best_lane["ev_hi"])
            ev_text = f"EV {ev} points" + ("" if ev_lo == ev_hi == ev else f" (95% {ev_lo} to {ev_hi})")
            set_ev = f"EV {sets['ev'].iloc[0]:.2f} points"
        notes = [f"Best single bet: lane {int(best_lane['lane'])} ({best_lane['card']}), "
                 f"{ev_text}.",
                 f"Best set of {'two' if final else 'three'} bets: lanes "
                 f"{sets['lanes'].iloc[0]}, {set_ev}{'' if final else ' with the bonus'}."]
        if "open_bet" in t:
            rec = t["open_bet"][t["open_bet"]["recommended"]].iloc[0]
            notes.append(f"Best open bet: lane {int(rec['lane'])}, then hidden bets on lanes "
                         f"{rec['hidden_lanes']}.")
        figures = {"lane_places": partial(race_plots.lane_place_heatmap, lanes, meta=meta),
                   "lane_ev": partial(race_plots.lane_ev_chart, lanes, meta=meta),
                   "best_sets": partial(race_plots.bet_sets_chart, sets, meta=meta)}
        captions = _odds_captions(final, exact)
        columns = {"lanes": ["lane", "card", "p_first", "p_second", "p_third", "ev",
                             "payoff_first", "fair_first"],
                   "bet_sets": ["rank", "lanes", "cards", "ev", "gap_to_best", "bonus_ev",
                                "open_allowed"]}
        return StudyResult(t, figures, notes, captions, key_findings=notes[:2], columns=columns)


#: how a race-odds study's numbers were obtained, for its captions
_EXACT = "exact (solved from the rules, not simulated: no intervals)"


def _odds_captions(final: bool, exact: bool) -> dict:
    """The race-odds study's captions: with 95% intervals, or said to be exact."""
    bonus = "" if final else " with the bonus"
    if exact:
        lanes = (f"Per lane, {_EXACT}: P(place), EV of one bet (bonus not counted), printed "
                 "and fair payoffs")
        sets = (f"Every set of bets ranked by EV{bonus}, {_EXACT}, from the joint distribution "
                "of the top three; gap to the best set")
        best = f"The best sets of bets by EV, {_EXACT}."
    else:
        lanes = ("Per lane: P(place) (95% Wilson intervals), EV of one bet (bonus not counted, "
                 "95% normal interval), printed and fair payoffs")
        sets = (f"Every set of bets ranked by EV{bonus}, from the joint distribution of the "
                "top three; gap to the best set with a paired interval")
        best = "The best sets of bets by EV with 95% intervals."
    return {
        "lanes": lanes + " (every lane's EV equal to the table mean; fair_* ignore the bonus, "
                         "fair_bonus_* count each lane's share of the set bonus, bonus_share).",
        "bet_sets": sets + ".",
        "open_bet": "Value of opening on each lane: the best set of three containing it"
                    + (f", {_EXACT}." if exact else "."),
        "lane_places": "P(place) by lane" + (f", {_EXACT}." if exact else "."),
        "lane_ev": "Single-bet EV by lane, printed payoffs" + (f", {_EXACT}." if exact else "."),
        "best_sets": best}


# ---------------------------------------------------------------- random deals
@register_study
class RaceFairness(_RaceStudy):
    """Random deals: fair payoff tables and card strength.

    Game ``g`` is one random-deal semifinal and one whole game. Keys: ``policy`` (pace
    policy, default greedy), ``players`` (2-6, default 4) and ``bet_policy`` (default ev)
    for the whole games that seat the final. Tables ``fair_payoffs``, ``cards``,
    ``semifinal_lanes``, ``final_lanes``.
    """

    type_name = "race-fairness"
    summary = ("random deals: lane odds, fair vs printed payoffs, card strength "
               "(keys: policy, players, bet_policy)")
    default_block = 2_000
    default_chunk = 1 << 14

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.race.simulate import resolve_policies

        policy = _pace_policy(r)
        players = _players(r, rules)
        bet = r.str_("bet_policy", required=False, default=GAME.policy_defaults["bet"])
        with r.checking("bet_policy"):
            resolve_policies(policy, bet, players)
        return {"policy": policy, "players": players, "bet_policy": bet}

    def bet_lineups(self):
        p = self.params()
        return [([p["bet_policy"]], [p["policy"]])]

    def job(self):
        from sheepsim.games.race.jobs import BalanceJob

        p = self.params()
        return self._cached_job(lambda: BalanceJob(self.rules, p["policy"], self.seed,
                                                   p["players"], p["bet_policy"]))

    def tables(self, counts, games) -> dict:
        return self.job().tables(counts, games)

    def results(self, totals, games) -> StudyResult:
        from sheepsim.games.race import plots as race_plots
        from sheepsim.tableview import fair_share_finding, fmt_estimate

        t = self.tables(totals, games)
        meta = self.plot_meta(games)
        cards = t["cards"]
        strongest = fair_share_finding(
            cards, lambda r: f"Card {r['card']}", value="p_win", fair=1 / 6,
            pvalue="pvalue_win_holm", test=f"exact binomial, Holm over the {len(cards)} cards,",
            what="it wins the races it runs in")
        notes = [strongest]
        for col, what in (("flag_win", "wins"), ("flag_top3", "top-3 finishes"),
                          ("flag_final_win", "final wins")):
            for flag in ("over", "under"):
                names = cards.loc[cards[col] == flag, "card"].tolist()
                if names:
                    notes.append(f"{flag.capitalize()}-powered by {what}: {', '.join(names)}.")
        if len(notes) == 1:
            notes.append("No card is flagged over- or under-powered.")
        fair = t["fair_payoffs"]
        worst = fair.loc[(fair["ratio"] - 1).abs().idxmax()]
        notes.append(f"Largest mispricing: {worst['stage']} {worst['place']} place, lane "
                     f"{int(worst['lane'])}: printed {worst['printed']:g}, fair "
                     "{} (95% {} to {}).".format(*fmt_estimate(worst["fair"], worst["fair_lo"],
                                                              worst["fair_hi"])))
        figures = {"semifinal_places": partial(race_plots.lane_place_heatmap, t["semifinal_lanes"],
                                               meta=meta),
                   "fair_payoffs": partial(race_plots.fair_payoff_chart, fair, meta=meta),
                   "card_strength": partial(race_plots.card_strength_chart, cards, meta=meta)}
        captions = {
            "card_strength": "P(win) and P(top 3) per card with 95% intervals; dotted lines: "
                             "equal cards; marked cards are over- or under-powered.",
            "fair_payoffs": "Printed payoffs (Tables 1 and 2) next to the fair ones that give "
                            "every lane the table's mean EV (the mean EV is held fixed: fair "
                            "payoffs move value between lanes, they add none); difference = "
                            "printed - fair. fair "
                            "ignores the bonus; fair_with_bonus counts each lane's share of "
                            "the set bonus (bonus_share; the final pays none).",
            "cards": "P(win), P(top 3) per race the card runs in and P(win the final) per game "
                     "it is dealt, each tested against equal cards (exact binomial; Holm over "
                     "the cards, each outcome its own family: pvalue_*_raw the card's own "
                     "test, pvalue_*_holm adjusted); effect = observed / fair share - 1; "
                     "flagged where the adjusted p-value is at most 5% and the point estimate "
                     "of the effect is at least the threshold (see the notes).",
            "semifinal_lanes": "Semifinal lanes over random deals: P(place), EV and fair payoffs.",
            "final_lanes": "Final lanes as seated by the semifinals in whole games.",
            "semifinal_places": "Semifinal P(place) by lane over random deals.",
        }
        columns = {"fair_payoffs": ["stage", "place", "lane", "p", "printed", "fair",
                                    "difference", "ratio", "lane_ev"],
                   "cards": ["card", "p_win", "effect_win", "flag_win", "p_top3", "effect_top3",
                             "flag_top3", "p_final_win", "effect_final_win", "flag_final_win"],
                   "semifinal_lanes": ["lane", "card", "p_first", "p_second", "p_third", "ev",
                                       "payoff_first", "fair_first"]}
        key = [strongest, notes[-1]]  # the strongest card, the largest mispricing
        methods = [f"Cards are flagged over- or under-powered by {_flag_rule()}; fair shares: "
                   "a card wins 1/6 and places in 1/2 of the races it runs in."]
        if self.params()["bet_policy"] in ("ev", "win"):  # the whole games read exact odds
            from sheepsim.games.race.exact.bets import bet_odds_notes

            methods += bet_odds_notes(*self.bet_lineups()[0])
        return StudyResult(t, figures, notes, captions, key_findings=key, columns=columns,
                           methods=methods)


# ---------------------------------------------------------------- whole games
@register_study
class RaceBalance(_RaceStudy):
    """Whole games: win rate and score by seat and by policy, turn order, ties.

    Keys: ``players`` (2-6, default 4), ``bet_policies`` and ``pace_policies`` (one name
    for every seat or one per seat; defaults ev-approx and greedy; ``ev``, the exact
    per-deal bets, costs about 0.1 s per game). Tables ``seats``, ``policies``,
    ``turns``, ``scores``, ``turn_order``, ``tie_breaks``. To study seat balance with
    identical players, use ``near-ev`` bets: identical ``ev-approx`` players place the
    same bets and tie in about half the games, and the token stack decides them.
    """

    type_name = "race-balance"
    summary = "whole games: seat and policy balance (keys: players, bet_policies, pace_policies)"
    default_block = 2_000
    default_chunk = 1 << 14

    @classmethod
    def parse_params(cls, r: StudyReader, rules) -> dict:
        from sheepsim.games.race.simulate import resolve_policies

        players = _players(r, rules)
        bets = r.names("bet_policies", required=False, default=[GAME.policy_defaults["bet"]])
        pace = r.names("pace_policies", required=False, default=[GAME.policy_defaults["pace"]])
        for key, names in (("bet_policies", bets), ("pace_policies", pace)):
            if len(names) not in (1, players):
                r.fail(key, f"give 1 or {players} names (one per seat), got {len(names)}")
        with r.checking("bet_policies"):
            resolve_policies("greedy", bets, players)
        with r.checking("pace_policies"):
            resolve_policies(pace, "random", players)
        pol = resolve_policies(pace, bets, players)
        return {"players": players, "bet_policies": list(pol.bet_names),
                "pace_policies": list(pol.pace_names)}

    def bet_lineups(self):
        p = self.params()
        return [(p["bet_policies"], p["pace_policies"])]

    def job(self):
        from sheepsim.games.race.jobs import GamesJob

        p = self.params()
        return self._cached_job(lambda: GamesJob(self.rules, p["players"], p["bet_policies"],
                                                 p["pace_policies"], self.seed))

    def tables(self, counts, games) -> dict:
        return self.job().tables(counts, games)

    def results(self, totals, games) -> StudyResult:
        from sheepsim import plots
        from sheepsim.games.race.exact.bets import bet_odds_notes
        from sheepsim.tableview import fair_share_finding, fmt_estimate

        t = self.tables(totals, games)
        meta = self.plot_meta(games)
        order = t["turn_order"]
        ties = t["tie_breaks"].iloc[0]
        tie, tie_lo, tie_hi = fmt_estimate(ties["tie_rate"], ties["tie_rate_lo"],
                                           ties["tie_rate_hi"], percent=True)
        p = self.params()
        field = _policy_field(p["bet_policies"], p["pace_policies"])
        notes = [fair_share_finding(
                     order, lambda r: f"With {field}, turn-order position {int(r['turn_order'])} "
                                      "in semifinal 1", value="p_win", fair="fair_share",
                     pvalue="pvalue_holm", test=f"exact binomial, Holm over the {len(order)} "
                     "positions,", what="it wins"),
                 f"{tie} of games end in a tie for first, decided by the token "
                 f"stack (95% {tie_lo} to {tie_hi})."]
        best = t["policies"].loc[t["policies"]["win_rate"].idxmax()]
        if len(t["policies"]) > 1:
            notes.append(f"Best policy pair: {best['bet_policy']} bets with {best['pace_policy']} "
                         f"pace, win rate {best['win_rate']:.1%} over {int(best['seats'])} seat(s).")
        methods = bet_odds_notes(*self.bet_lineups()[0])
        figures = {"seat_win_rate": partial(plots.win_rate_chart, t["seats"], meta=meta),
                   "turn_order_win_rate": partial(
                       plots.win_rate_chart, order, x="turn_order", value="p_win", meta=meta,
                       title="Win rate by turn order in semifinal 1")}
        captions = {"seats": "Win rate (95% Wilson interval) and mean score (95% normal interval) "
                             "by seat; win rates include wins decided by the token stack "
                             "(tie_breaks).",
                    "policies": "Pooled over the seats that played each policy pair; 95% "
                                "intervals with the game as the unit (per-game totals of those "
                                "seats), as seats in one game share the dice; win rates include "
                                "wins decided by the token stack (tie_breaks).",
                    "turns": "Mean turns per race.",
                    "scores": "Score distribution per seat (scores of 200+ count as 200).",
                    "turn_order": "Win rate by position in semifinal 1's turn order, tested "
                                  "against the fair share (exact binomial: pvalue_raw per "
                                  "position, pvalue_holm adjusted over the positions; "
                                  "chi-square over all orders); "
                                  "wins_on_tie: wins decided by the token stack.",
                    "tie_breaks": "How the winner was decided: the top score alone, or a tie "
                                  "for first broken by the token stack (tie_rate: share of "
                                  "games tied for first).",
                    "seat_win_rate": "Win rate by seat with 95% intervals; the dotted line is "
                                     "the fair share 1/n.",
                    "turn_order_win_rate": "Win rate by position in semifinal 1's turn order "
                                           "with 95% intervals; the dotted line is the fair "
                                           "share."}
        # every seat plays one policy pair: its one row is 1/n by symmetry, nothing to read
        omit = ["policies"] if len(t["policies"]) == 1 else []
        return StudyResult(t, figures, notes, captions, methods=methods, page_omit=omit)


@register_study
class RaceHeadToHead(HeadToHeadStudy, _RaceStudy):
    """Two policies for one seat on common random numbers (the same dice): the shared
    ``head-to-head`` study (:mod:`sheepsim.report.game_studies`) under its older name,
    plus which odds the bet policies read.

    Keys: ``a`` and ``b`` (``"BET,PACE"`` pairs; defaults ``ev-approx,greedy`` and
    ``random,greedy``), ``field`` (the other seats, default ``ev-approx,greedy``), ``seat``
    (1-based, default 1), ``players`` (default 4). Table ``comparison``.
    """

    type_name = "race-head-to-head"
    game = "sheep-race"
    summary = "two BET,PACE policy pairs for one seat on the same dice (keys: a, b, field, seat, players)"
    default_block = 2_000
    default_chunk = 1 << 13
    defaults = {"a": "ev-approx,greedy", "b": "random,greedy"}
    score_words = ("mean score", "mean score")

    def bet_lineups(self):
        from sheepsim.headtohead import lineups

        p = self.params()
        return [tuple(list(x) for x in zip(*(pair.split(",") for pair in lineup), strict=True))
                for lineup in lineups(p["a"], p["b"], p["field"], p["players"], p["seat"])]

    def tie_note(self, comparison) -> str:
        return super().tie_note(comparison).replace("tie-break", "token stack")

    def methods(self) -> list[str]:
        from sheepsim.games.race.exact.bets import bet_odds_notes

        methods = []
        for lineup in self.bet_lineups():
            methods += [n for n in bet_odds_notes(*lineup) if n not in methods]
        return methods

    def key_findings(self, notes):
        return notes[:2]
