"""The Sheep Race's balance metrics (:mod:`sheepsim.balance_metrics`): lanes from single
random-deal semifinals, seats and turns from whole games, and the harness's metrics of
every game (:mod:`sheepsim.harness.metrics`) from the same whole games played by the race
machine (:mod:`sheepsim.games.race.machine`, job ``harness``)."""

from __future__ import annotations

from dataclasses import replace

from sheepsim.balance_metrics import Metric, maximum, spread
from sheepsim.harness import metrics as harness_metrics

#: pace policies whose single races ignore the payoffs (they look only at the board), so a
#: payoff edit leaves the lane counts unchanged; ``lookahead(-exact)`` and ``partisan`` read
#: bets
PAYOFF_BLIND_PACE = ("greedy", "random", "saver", "steady")

#: games (rounds) every variant plays by default
DEFAULT_GAMES = 20_000


#: the examples the designers' commands' ``--help`` shows (:mod:`sheepsim.designer`):
#: a ``variants --set`` edit, a ``sweep --set`` axis, a ``tune --vary`` range and target
EXAMPLES = {"set": "race.payoffs.bonus_three=2", "sweep": "race.payoffs.bonus_three=0,1,2,3,4",
            "vary": "race.payoffs.semifinal[0][0]=6..40", "target": "lane_ev_spread=min"}


def _lane_ev(t, rules):
    """``(6,)`` single-bet EV by lane: sum over 1st-3rd of Table 1's payoff times P(place)."""
    import numpy as np

    p = t["lanes"][["p_first", "p_second", "p_third"]].to_numpy()
    return (p * np.asarray(rules.payoff_semifinal).T).sum(axis=1)


def lane_ev(t, rules, players):
    return _lane_ev(t, rules)


def lane_p_first(t, rules, players):
    return t["lanes"]["p_first"].to_numpy()


def seat_win_rates(t, rules, players):
    return t["seats"]["win_rate"].to_numpy()


def first_player_edge(t, rules, players) -> float:
    row = t["turn_order"].set_index("turn_order").loc[1]
    return float(row["p_win"] - row["fair_share"])


def mean_turns(t, rules, players) -> float:
    return float(t["turns"]["mean_turns"].sum())


def card_p_win(t, rules, players):
    return t["cards"]["p_win"].to_numpy()


def card_ev(t, rules, players):
    return t["cards"]["ev"].to_numpy()


METRICS = (
    spread("lane_ev_spread", "largest minus smallest single-bet EV (Table 1 payoff times "
           "P(1st/2nd/3rd)) over the six lanes of a random-deal semifinal (bias-corrected)",
           "points", "lower", "lanes", lane_ev),
    spread("lane_win_spread", "largest minus smallest P(first) over the lanes of a "
           "random-deal semifinal (bias-corrected)", "probability", "lower", "lanes", lane_p_first),
    spread("seat_win_spread", "largest minus smallest win rate over the seats of whole games "
           "(bias-corrected)", "probability", "lower", "games", seat_win_rates),
    Metric("first_player_edge", "win rate of the first player of semifinal 1 minus 1/players",
           "probability", "zero", "games", first_player_edge),
    Metric("mean_turns", "turns per whole game (two semifinals and the final)", "turns",
           "none", "games", mean_turns),
    maximum("card_win_max", "the strongest card's P(win) in the random-deal semifinals it runs "
            "in (a card that wins most races: near 1; even cards: 1/6; bias-corrected)",
            "probability", "lower", "cards", card_p_win),
    spread("card_win_spread", "largest minus smallest P(win) over the cards, in the random-deal "
           "semifinals each runs in (bias-corrected)", "probability", "lower", "cards", card_p_win),
    spread("card_ev_spread", "largest minus smallest single-bet EV (Table 1 payoff of its lane "
           "and place) over the cards, in the random-deal semifinals each runs in "
           "(bias-corrected)", "points", "lower", "cards", card_ev),
)

#: the harness's metrics the race adds, measured on the whole games of job ``harness``
#: (the games of job ``games``, played by the race machine): all but those named like one
#: of the race's own (``first_player_edge`` the race's is semifinal 1's first player,
#: ``seat_win_spread`` the same definition, ``mean_turns`` the race's counts the races'
#: turns only) and ``draw_rate`` (a game always has a winner: 0). A seat's score is its
#: money; a turn, as the harness counts it: one seat's decisions in a row, a bet or a turn
#: of a race (its roll and move; a race's last turn and the next race's first bet by the
#: same seat make one)
_OWN = {m.name for m in METRICS}
_HARNESS_SKIPPED = {"draw_rate"}
#: the race's meaning of the harness's metrics that read turns or scores
_RACE_MEANING = {
    "tie_rate": "share of games in which two or more seats end with the most money (the "
                "stamps then break the tie)",
    "mean_decisions": "decisions per game: every bet (open, hidden, final) and every turn's "
                      "pace decision, lone options included",
    "lead_changes": "times per game the sole leader by money (at a turn's end: a bet or a "
                    "turn of a race) became another seat",
    "decided_at": "share of a game's turns (bets and race turns) played when its winner "
                  "became the sole leader by money for good (0: led throughout)",
    "winner_deficit": "the winner's largest deficit in money to the richest seat at a turn's "
                      "end (after a race's payout)",
    "comeback_rate": "share of games whose winner had less money than the richest seat at the "
                     "middle turn (bets and race turns)",
    "sd_turns": "standard deviation of the turns per game, a turn one seat's decisions in a "
                "row: a bet, or a turn of a race (its roll and move)",
    "sd_decisions": "standard deviation of the decisions per game (bets and pace decisions)",
    "branching": "mean legal options per decision, bets and pace decisions (a turn's moves of "
                 "the selected sheep), lone options included",
    "forced_share": "share of decisions with one legal option (a forced move or bet, taken "
                    "without asking)",
}
#: the job the harness's metrics read
HARNESS_JOB = "harness"
METRICS = METRICS + tuple(replace(m, job=HARNESS_JOB, meaning=_RACE_MEANING.get(m.name, m.meaning))
                          for m in harness_metrics.METRICS
                          if m.name not in _OWN and m.name not in _HARNESS_SKIPPED)


def unavailable(policies: dict):
    """The metrics a line-up (``policies``: each role's names) cannot be measured under,
    and why, or None: the lane and card metrics under a pace policy that plays whole
    games only (``lookahead``, ``lookahead-exact``: their single races have no bets to
    look at)."""
    from sheepsim.games.race.policies import WHOLE_GAME_PACE

    def names(role: str, default: str) -> list[str]:
        given = policies.get(role) or default
        given = given.split(",") if isinstance(given, str) else list(given)
        return [str(n).strip() for n in given]

    pace = names("pace", "greedy")
    out, why = set(), []
    whole = [p for p in dict.fromkeys(pace) if p in WHOLE_GAME_PACE]
    if whole:
        out |= {m.name for m in METRICS if m.job in ("lanes", "cards")}
        why.append(f"the lane and card metrics' single races cannot take the pace policy "
                   f"{', '.join(whole)}, which plays whole games only")
    return (out, "; ".join(why)) if out else None


def add_options(p) -> None:
    """The race's extra option of the designers' commands: which semifinal the lane
    metrics read."""
    p.add_argument("--lanes", metavar="NAME,...",
                   help="lane metrics on this dealt semifinal (six cards for lanes 1-6), solved "
                        "exactly when the pace policy allows (greedy, saver, steady: no "
                        "simulation at all); default: random deals, simulated")


def job_options(args) -> dict:
    return {"lanes": getattr(args, "lanes", None)}


def metric_jobs(rules, players: int, seed: int, policies: dict, keys, lanes=None) -> dict:
    from sheepsim.games.race.exact.solver import exact_reason
    from sheepsim.games.race.jobs import CardsJob, GamesJob, HarnessJob, RacesJob

    out = {}
    if "lanes" in keys:
        if lanes is None:
            out["lanes"] = RacesJob(rules, None, "semifinal", policies["pace"], seed, random_deal=True)
        elif exact_reason(policies["pace"]) is None:
            out["lanes"] = ExactLanesJob(rules, lanes, policies["pace"])
        else:
            out["lanes"] = RacesJob(rules, lanes, "semifinal", policies["pace"], seed)
    if "games" in keys:
        out["games"] = GamesJob(rules, players, policies["bet"], policies["pace"], seed)
    if "cards" in keys:
        out["cards"] = CardsJob(rules, None, "semifinal", policies["pace"], seed, random_deal=True)
    if HARNESS_JOB in keys:
        out[HARNESS_JOB] = HarnessJob(rules, players, policies["bet"], policies["pace"], seed)
    return out


class ExactLanesJob:
    """The lanes of one dealt semifinal solved exactly (:func:`~sheepsim.games.race.exact.exact_odds`):
    ``exact`` jobs are never simulated; :meth:`exact_tables` gives table ``lanes``
    (``lane``, ``card``, ``p_first``, ``p_second``, ``p_third``) as the simulated
    :class:`~sheepsim.games.race.jobs.RacesJob` names its columns."""

    exact = True

    def __init__(self, rules, lanes, policy: str):
        from sheepsim.games.race.simulate import _rules, lane_cards

        self.rules = _rules(rules)
        self.lanes = tuple(lane_cards(self.rules, lanes).tolist())  # validated now
        self.policy = policy
        self._tables = None

    def exact_tables(self) -> dict:
        if self._tables is None:
            import pandas as pd

            from sheepsim.games.race.exact.solver import exact_odds

            res = exact_odds(self.rules, list(self.lanes), "semifinal", self.policy)
            p = res.p_place
            self._tables = {"lanes": pd.DataFrame({
                "lane": range(1, 7), "card": [self.rules.cards[i].name for i in self.lanes],
                "p_first": p[:, 0], "p_second": p[:, 1], "p_third": p[:, 2]})}
        return self._tables

    def tables(self, counts, games) -> dict:
        return self.exact_tables()

    def prepare(self):
        self.exact_tables()

    def check(self, counts, games) -> None:
        pass

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_tables"} | {"_tables": None}


def invariant(key: str, policies: dict) -> tuple[str, ...]:
    """Rules keys an edit of which leaves job ``key``'s counts unchanged."""
    if key in ("lanes", "cards") and policies["pace"] in PAYOFF_BLIND_PACE:
        return ("race.payoffs",)
    return ()
