"""The bets ``race ev`` recommends, computed straight from an exact distribution.

Semifinal: a player first opens on one lane nobody has bet openly, then adds two hidden
bets on any other lanes; every player is paid on their own, so opening on lane L is
worth the best set of three containing L (payoffs plus the bonus, from the joint
distribution of the top three). Ties between open lanes go to the higher single-bet EV
(as ``race ev``'s open_bet table). Final: the pair of lanes with the highest EV.

This is the choice an exact ``ev`` bet policy would make for a dealt race; see
``benchmarks/ev_policy_gap.py`` for what the current table-based ``ev`` policy loses.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from sheepsim.games.race.exact.lanegraph import BUILTIN_OWN_STATE
from sheepsim.games.race.exact.solver import ExactOdds
from sheepsim.games.race.simulate import ODDS_TABLE_GAMES, ODDS_TABLE_SEED


@dataclass(frozen=True)
class BetChoice:
    """``open_lane`` (0-5, None in the final), ``hidden`` (two lanes, 0-5), ``ev`` of
    the whole set in points per race (bonus included)."""

    open_lane: int | None
    hidden: tuple[int, int]
    ev: float


def set_ev(res: ExactOdds, lanes) -> float:
    """Exact EV of holding bets on ``lanes`` (0-5) in this race, bonus included."""
    rules, lanes = res.rules, set(lanes)
    if res.stage == "final":
        return float(sum(res.winner[a] * rules.payoff_final[a] for a in lanes))
    bonus = {2: rules.bonus_two, 3: rules.bonus_three}
    ev = 0.0
    for idx in np.flatnonzero(res.joint):
        placed = (idx // 36, idx // 6 % 6, idx % 6)
        hits = [k for k in range(3) if placed[k] in lanes]
        points = sum(rules.payoff_semifinal[k, placed[k]] for k in hits) + bonus.get(len(hits), 0)
        ev += res.joint[idx] * points
    return float(ev)


def single_ev(res: ExactOdds, lane: int) -> float:
    if res.stage == "final":
        return float(res.p_place[lane, 0] * res.rules.payoff_final[lane])
    return float(res.p_place[lane] @ res.rules.payoff_semifinal[:, lane])


def best_bets(res: ExactOdds, taken=()) -> BetChoice:
    """The bets to place given ``taken`` (0-based lanes other players opened on)."""
    if res.stage == "final":
        pairs = list(combinations(range(6), 2))
        evs = [set_ev(res, p) for p in pairs]
        best = int(np.argmax(evs))
        return BetChoice(None, pairs[best], evs[best])
    sets = list(combinations(range(6), 3))
    evs = {s: set_ev(res, s) for s in sets}
    best = None
    for lane in (x for x in range(6) if x not in set(taken)):
        s = max((s for s in sets if lane in s), key=lambda s: evs[s])
        key = (evs[s], single_ev(res, lane))
        if best is None or key > best[0]:
            best = (key, lane, s)
    (_, lane, s) = best
    return BetChoice(lane, tuple(x for x in s if x != lane), evs[s])


# ------------------------------------------------------------------ whole games
#: Bet policies that read the public odds table (simulated once per rules file).
TABLE_BETS = ("ev-approx", "near-ev", "favourite")
FALLBACK_NOTE = ("the seats do not all play one own-state pace policy (greedy, saver or "
                 "steady), so the exact odds of the races as played are unavailable: ev "
                 "bets on the exact odds if every turn were played by greedy")


def ev_odds_pace(pace_names) -> tuple[str, str]:
    """``(pace policy, note)``: what the ``ev`` bet policy's exact odds assume in games
    where the seats play ``pace_names`` (``exact_game.odds_pace`` in the kernel); the
    note is empty when those are the odds of the races as played."""
    names = {p.strip() for p in pace_names}
    if len(names) == 1 and next(iter(names)) in BUILTIN_OWN_STATE:
        return next(iter(names)), ""
    return "greedy", FALLBACK_NOTE


def bet_odds_meta(bet_names, pace_names) -> dict:
    """Meta fields saying which odds the games' bet policies read and how they were
    obtained: ``ev_odds`` (exact, per dealt race) and/or ``odds_table`` (the public
    table, simulated)."""
    bets = {b.strip() for b in bet_names}
    out = {}
    if bets & {"ev", "win"}:  # win bets read the same exact odds
        pace, note = ev_odds_pace(pace_names)
        out["ev_odds"] = {"method": "exact", "solved": "each dealt race from the start",
                          "pace": pace, **({"note": note} if note else {})}
    if bets & set(TABLE_BETS):
        out["odds_table"] = {"method": "monte carlo", "games": ODDS_TABLE_GAMES,
                             "seed": ODDS_TABLE_SEED, "pace": "greedy",
                             "bet_policies": sorted(bets & set(TABLE_BETS))}
    return out


def bet_odds_notes(bet_names, pace_names) -> list[str]:
    """One sentence per kind of odds the games' ``ev``-type bet policies read (for
    report notes)."""
    bets = {b.strip() for b in bet_names}
    notes = []
    if bets & {"ev", "win"}:
        pace, note = ev_odds_pace(pace_names)
        who = " and ".join(sorted(bets & {"ev", "win"}))
        notes.append(f"{who} bets read the exact odds of each dealt race ({pace} pace)"
                     + (f"; {note}." if note else "."))
    if "ev-approx" in bets or "near-ev" in bets:
        notes.append("ev-approx and near-ev bets read the public odds table (deal-averaged, "
                     "greedy pace) and treat the three lanes of a set as independent: the "
                     "fast approximation of ev.")
    return notes
