"""Playing to win the game: the standings before the final and the chance of winning.

The game's winner is the player with the most points after the final. Given the scores
before the final (seat order), the final's bets of every player and the lane that wins
the final, who wins the game is decided; so the chance of winning the game is one more
objective on the same distribution of the final's winner that gives expected points
(``race advise|ev --scores``). A semifinal is not the end of the game: its chance of
winning the game depends on the races after it (whole-game simulation), so the ``win``
objective is refused there.

Ties for the game (the rules README: the scoring token on top of the stack wins): points
are awarded in turn order from the final's first player, the score leader, and a token
that moves onto a space goes on top. So between players level after the final, one
that scored in the final beats one that did not, two that scored are ordered by turn
order (the later mover is on top), and two that did not score keep the stack order
they had before the final (``tie_order``: seats from the top of the stack down; by
default the stack as set up, seat 1 the first player of semifinal 1 on top). The
leader who starts the final is the highest score, ties to the token higher in
``tie_order``.

Rivals' final bets are hidden; unless given, each rival is assumed to bet the pair of
lanes with the highest expected points at the start of this final (the ``ev`` bet
policy's choice), from the exact odds of the pace policy, or of ``greedy`` when the
policy can only be simulated.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from sheepsim import api
from sheepsim.errors import SheepsimError
from sheepsim.games.race.game import GAME

OBJECTIVES = ("win", "points")


@dataclass(frozen=True)
class Standings:
    """``scores`` before the final, seat order; ``seat`` the player advised (0-based);
    ``tie_order`` seats (0-based) from the top of the stack down; ``rival_bets`` each
    rival's pair of final lanes (0-based) in seat order without ``seat``, or None: each
    rival on the pair of highest expected points at the start of the final."""

    scores: tuple[int, ...]
    seat: int
    tie_order: tuple[int, ...]
    rival_bets: tuple[tuple[int, int], ...] | None = None

    @property
    def players(self) -> int:
        return len(self.scores)

    @property
    def all_equal(self) -> bool:
        return len(set(self.scores)) == 1

    @property
    def first_player(self) -> int:
        """The final's first player: the highest score, ties to the token on top."""
        rank = {s: i for i, s in enumerate(self.tie_order)}
        return min(range(self.players), key=lambda k: (-self.scores[k], rank[k]))

    def rivals(self) -> list[int]:
        return [k for k in range(self.players) if k != self.seat]

    def meta(self) -> dict:
        return {"scores": list(self.scores), "seat": self.seat + 1,
                "tie_order": [k + 1 for k in self.tie_order]}


def _ints(values, what: str) -> list[int]:
    if isinstance(values, str):
        parts = [v.strip() for v in values.split(",")]
        if any(not p for p in parts):
            raise SheepsimError(f"{what}: whole numbers separated by commas, got {values!r}")
        values = parts
    elif isinstance(values, (int, np.integer)):
        values = [values]
    out = []
    for v in values:
        if isinstance(v, bool) or isinstance(v, float) and not float(v).is_integer():
            raise SheepsimError(f"{what}: whole numbers, got {v!r}")
        try:
            out.append(int(str(v).strip()) if isinstance(v, str) else int(v))
        except (TypeError, ValueError):
            raise SheepsimError(f"{what}: whole numbers separated by commas, got {v!r}") from None
    return out


def parse_scores(values) -> tuple[int, ...]:
    """One score per player (the game's player counts), whole numbers >= 0, seat order."""
    scores = _ints(values, "scores")
    if len(scores) not in GAME.player_counts:
        raise SheepsimError(f"scores: one score per player, {GAME.players_text} players, got "
                            f"{len(scores)} score{'s' * (len(scores) != 1)}")
    if any(s < 0 for s in scores):
        raise SheepsimError(f"scores: whole numbers >= 0, got {', '.join(map(str, scores))}")
    return tuple(scores)


def _parse_pairs(values, n: int) -> tuple[tuple[int, int], ...]:
    """Rivals' final bets: ``"1,6/2,5"`` (text) or a list of pairs, 1-based lanes."""
    if isinstance(values, str):
        values = [p for p in values.split("/")]
    pairs = []
    for p in values:
        lanes = _ints(p, "rival bets")
        if len(lanes) != 2 or len(set(lanes)) != 2 or any(not 1 <= x <= 6 for x in lanes):
            raise SheepsimError(f"rival bets: each rival's two final bets are two different "
                                f"lanes 1-6 (pairs separated by '/'), got {p!r}")
        pairs.append((lanes[0] - 1, lanes[1] - 1))
    if len(pairs) != n:
        raise SheepsimError(f"rival bets: one pair per rival ({n}), in seat order without "
                            f"yours, got {len(pairs)}")
    return tuple(pairs)


def standings(scores, seat=1, tie_order=None, rival_bets=None) -> Standings:
    """A validated :class:`Standings` from 1-based arguments (text or sequences)."""
    scores = parse_scores(scores)
    n = len(scores)
    seats = _ints(seat, "seat") if not isinstance(seat, (list, tuple)) else []
    seat_n = seats[0] if len(seats) == 1 else 0
    if not 1 <= seat_n <= n:
        raise SheepsimError(f"seat: a seat 1-{n} (one per score), got {seat!r}")
    if tie_order is None or tie_order == "":
        order = tuple(range(n))
    else:
        given = _ints(tie_order, "tie order")
        if sorted(given) != list(range(1, n + 1)):
            raise SheepsimError(f"tie order: every seat 1-{n} once, top of the stack first, got "
                                f"{', '.join(map(str, given))}")
        order = tuple(s - 1 for s in given)
    rivals = None if rival_bets in (None, "") else _parse_pairs(rival_bets, n - 1)
    return Standings(scores, seat_n - 1, order, rivals)


def choose_objective(objective, st: Standings | None, stage: str) -> tuple[str, str]:
    """``(objective, why)``: ``win`` or ``points`` and the reason in words.

    Default: ``win`` in the final when the scores differ, ``points`` when they are all
    equal, when no scores are given, or in a semifinal (its win chance needs the races
    after it)."""
    if objective not in (None, "", *OBJECTIVES):
        raise SheepsimError(f"objective: win or points, got {objective!r}")
    if objective == "win":
        if st is None:
            raise SheepsimError("the win objective needs the scores before the race (--scores)")
        if stage != "final":
            raise SheepsimError("the win objective is exact only in the final: a semifinal's "
                                "chance of winning the game depends on the races after it; "
                                "use --objective points")
        return "win", "asked for"
    if objective == "points":
        return "points", "asked for"
    if st is None:
        return "points", "the default without scores"
    if stage != "final":
        return "points", "the default in a semifinal, where the win objective is not exact"
    if st.all_equal:
        return "points", "the default when all scores are equal"
    return "win", "the default when the scores differ"


def final_points(pairs, rules) -> np.ndarray:
    """``(players, 6)`` points each player scores in the final if lane ``w`` wins."""
    pay = np.asarray(rules.payoff_final, np.int64)
    out = np.zeros((len(pairs), 6), np.int64)
    for k, lanes in enumerate(pairs):
        for lane in lanes:
            out[k, lane] = pay[lane]
    return out


def game_winner(st: Standings, points: np.ndarray, w: int) -> int:
    """The seat that wins the game when lane ``w`` wins the final (``points`` from
    :func:`final_points`, seat order)."""
    n = st.players
    first = st.first_player
    turn = [(k - first) % n for k in range(n)]  # position in the final's scoring order
    stack = {s: i for i, s in enumerate(st.tie_order)}

    def key(k):
        moved = points[k, w] > 0
        # higher key wins: score, then a token that moved in the final (the later in turn
        # order on top), then the stack order before the final (top first)
        return (st.scores[k] + points[k, w], moved, turn[k] if moved else -stack[k])

    return max(range(n), key=key)


def win_lanes(st: Standings, my_lanes, rival_pairs, rules) -> np.ndarray:
    """``(6,)`` 1.0 for the lanes whose win in the final makes ``st.seat`` win the game."""
    pairs = list(rival_pairs)
    pairs.insert(st.seat, tuple(my_lanes))
    points = final_points(pairs, rules)
    return np.array([float(game_winner(st, points, w) == st.seat) for w in range(6)])


def best_ev_pair(winner: np.ndarray, rules) -> tuple[int, int]:
    """The pair of lanes with the highest expected points for P(lane wins) ``winner``
    (the first in pair order among equals)."""
    pay = np.asarray(rules.payoff_final, np.float64) * np.asarray(winner, np.float64)
    pairs = list(combinations(range(6), 2))
    return pairs[int(np.argmax([pay[a] + pay[b] for a, b in pairs]))]


def rival_pairs(st: Standings, start_winner, rules) -> tuple[tuple[tuple[int, int], ...], str]:
    """``(the rivals' pairs, how they were chosen in words)``; ``start_winner()`` gives
    P(lane wins) at the start of the final (called only when the pairs are not given)."""
    if st.rival_bets is not None:
        return st.rival_bets, "given"
    pair = best_ev_pair(start_winner(), rules)
    return (pair,) * (st.players - 1), ("each rival on the pair of highest expected points "
                                         "at the start of this final")


def pairs_label(pairs) -> list[str]:
    return [",".join(str(x + 1) for x in p) for p in pairs]


def game_table(winner, rules, st: Standings, rivals, goal: str, cards=None,
               games: int | None = None):
    """The final's 15 pairs of bets for ``st.seat``: expected points and the chance of
    winning the game against ``rivals`` (pairs, seat order without the seat), ranked by
    ``goal`` (``win``/``points``; equal values keep pair order).

    ``winner`` P(lane wins the final) (exact), or frequencies over ``games`` simulated
    races (then ``p_win_se`` and ``ev_se`` are their standard errors). Columns: ``rank``,
    ``lanes``, ``cards``, ``p_win``, ``p_win_se``, ``ev``, ``ev_se``, ``win_if`` (the
    winning lanes that win you the game), ``best_for_win``, ``best_for_points`` (every
    pair as good as the best, exact values within 1e-9)."""
    import pandas as pd

    winner = np.asarray(winner, np.float64)
    pay = np.asarray(rules.payoff_final, np.float64)
    rows = []
    for pair in combinations(range(6), 2):
        win = win_lanes(st, pair, rivals, rules)
        pts = np.zeros(6)
        pts[list(pair)] = pay[list(pair)]
        p, ev = float(winner @ win), float(winner @ pts)
        if games:
            p_se = float(np.sqrt(p * (1 - p) / games))
            ev_se = float(np.sqrt(max(winner @ pts**2 - ev**2, 0.0) / games))
        else:
            p_se = ev_se = 0.0
        rows.append({"lanes": ",".join(str(x + 1) for x in pair),
                     "cards": "" if cards is None else ",".join(cards[x] for x in pair),
                     "p_win": p, "p_win_se": p_se, "ev": ev, "ev_se": ev_se,
                     "win_if": ",".join(str(w + 1) for w in np.flatnonzero(win))})
    df = pd.DataFrame(rows)
    df["best_for_win"] = df["p_win"] >= df["p_win"].max() - 1e-9
    df["best_for_points"] = df["ev"] >= df["ev"].max() - 1e-9
    keys = ["p_win", "ev"] if goal == "win" else ["ev", "p_win"]
    df = df.sort_values(keys, ascending=False, kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    return df


def game_meta(table, st: Standings, goal: str, why: str, rivals, how: str) -> dict:
    """Meta fields of the pairs table: the objective, the standings, the rivals' pairs
    and the best pair for each objective (the gain in win probability of the win pair
    over the points pair, and what it costs in expected points)."""
    win = table[table["best_for_win"]].sort_values("ev", ascending=False, kind="stable").iloc[0]
    pts = table[table["best_for_points"]].sort_values("p_win", ascending=False,
                                                      kind="stable").iloc[0]
    return {"goal": goal, "goal_reason": why, **st.meta(), "rival_bets": pairs_label(rivals),
            "rival_bets_from": how,
            "best_for_win": win["lanes"], "best_for_points": pts["lanes"],
            "objectives_disagree": bool(not table.loc[table["best_for_win"], "best_for_points"].any()),
            "win_gain": float(win["p_win"] - pts["p_win"]),
            "points_cost": float(pts["ev"] - win["ev"])}


def final_bets(scores, *, seat=1, objective=None, tie_order=None, rival_bets=None, **options):
    """``race ev --stage final --scores ...`` in Python: a :class:`sheepsim.api.Result`
    whose ``tables["game"]`` ranks the final's 15 pairs of bets by ``objective`` (the
    chance of winning the game by default when the scores differ) with both values per
    pair, and whose ``meta`` names the best pair for each objective (``best_for_win``,
    ``best_for_points``, ``win_gain``, ``points_cost``). ``options``: the other
    ``race ev`` options as keywords (``position``, ``lanes``, ``policy``, ``rules``...;
    ``stage`` is the final unless a ``position`` says otherwise)."""
    if "position" not in options:
        options.setdefault("stage", "final")
    keywords = {"scores": scores if isinstance(scores, str) else ",".join(map(str, scores)),
                "seat": str(seat), "objective": objective, "tie_order": tie_order,
                "rival_bets": rival_bets, **options}
    return api._run("race", "ev", {k: v for k, v in keywords.items() if v is not None})
