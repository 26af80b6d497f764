"""The Sheep Race's balance metrics (:mod:`sheepsim.balance_metrics`): lanes from single
random-deal semifinals, seats and turns from whole games."""

from __future__ import annotations

from sheepsim.balance_metrics import Metric, maximum, spread

#: pace policies whose single races ignore the payoffs (they look only at the board), so a
#: payoff edit leaves the lane counts unchanged; ``lookahead`` and ``partisan`` read bets
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
    from sheepsim.games.race.jobs import CardsJob, GamesJob, RacesJob

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
