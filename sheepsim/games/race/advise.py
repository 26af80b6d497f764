"""The best pace now: expected points of each pace option for the sheep the dice chose.

Given a position, the lane the dice selected (after any Lazy Sheep), the player's own
bets and the rivals' open bets, every legal option of the 9 is played out: the player's
expected points from this race (payoffs and the bonus for two or three placed sheep)
if every later turn follows ``policy``. Exact (:mod:`~sheepsim.games.race.exact`) when
``policy`` allows it; otherwise Monte Carlo where every option is continued on the same
dice (race ``g`` of each option uses the streams keyed by ``(seed, g)``), so the
differences between options carry paired intervals.

A bet-aware continuation policy (``partisan``) is simulated seeing this player's bets
on every later turn (the rivals' hidden bets are not known at the table).

Given the scores before the race (``scores``), the final's advice can maximise the
chance of winning the game instead (``objective="win"``, the default once the scores
differ; :mod:`~sheepsim.games.race.standings`): the same distribution of the final's
winner, another objective. Every option then shows both, and the advice says where
they disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sheepsim import driver
from sheepsim.errors import SheepsimError
from sheepsim.games.race import layout as L
from sheepsim.games.race.engine import apply_option, legal_options, race_over
from sheepsim.games.race.exact.from_position import (
    _ids,
    _rules,
    continuation_args,
    continuation_kernel,
)
from sheepsim.games.race.exact.position import as_position, position_arrays
from sheepsim.games.race.exact.solver import exact_reason, solve_position
from sheepsim.games.race.standings import (
    choose_objective,
    pairs_label,
    rival_pairs,
    standings,
    win_lanes,
)
from sheepsim.stats import normal_interval

DEFAULT_ADVISE_GAMES = 20_000


#: exact expected points closer than this are equal options (the solver's rounding is
#: about 1e-13 points; a real difference between two options is far larger)
EXACT_TIE = 1e-9


@dataclass
class Advice:
    """``table``: one row per legal option, best first (``option``, ``after`` the sheep
    after it in the position format, ``expected_points`` and its ``_lo``/``_hi``/``_se``:
    the player's expected points from this race,
    ``gap_to_best``/``gap_to_best_lo``/``gap_to_best_hi``
    paired with the best option (with scores in the final: ``p_win`` the chance of
    winning the game and its ``_se``, and ``best_for_win``/``best_for_points``: the
    other objective's best marks; ranked by the objective ``goal``: with ``win`` the
    value columns are ``p_win``/``_lo``/``_hi``/``_se`` and ``gap_to_best`` is in win
    probability, ``expected_points``/``_se`` follow), ``best``: True for every option as good as the best,
    so equal options are all marked); ``best`` the best option's name (the first of
    ``tied`` when several are equal); ``tied`` every best option's name; ``margin`` the
    best expected points minus the next option that is not equal to it (0.0 when every
    option is equal, NaN when only one is legal); ``objective`` what the points are, in
    words; ``method``; ``note`` why Monte Carlo was used (empty when exact)."""

    table: pd.DataFrame
    best: str
    margin: float
    method: str
    note: str
    meta_fields: dict
    tied: tuple[str, ...] = ()
    objective: str = ""
    #: ``"points"`` (expected points) or ``"win"`` (the chance of winning the game)
    goal: str = "points"

    def headline(self, lane: int) -> str:
        """One line: the lane, the best option (or the tie) and the margin."""
        what = "chance of winning the game" if self.goal == "win" else "expected points"
        if len(self.table) == 1:
            return f"pace advice for lane {lane}: {self.best} is the only legal option"
        if len(self.tied) > 1:
            which = "all options" if len(self.tied) == len(self.table) else ", ".join(self.tied)
            return f"pace advice for lane {lane}: tie, {which} give equal {what}"
        unit = " in win probability" if self.goal == "win" else " points"
        return f"pace advice for lane {lane}: best {self.best}, by {self.margin:.4f}{unit}"

    def disagreement(self) -> str:
        """With scores in the final: one line saying whether the other objective picks
        another option ('' without scores)."""
        other = self.meta_fields.get("best_for_points" if self.goal == "win" else "best_for_win")
        if other is None:
            return ""
        name = "expected points" if self.goal == "win" else "the chance of winning the game"
        if not self.meta_fields["objectives_disagree"]:
            return f"{name} picks the same option"
        return f"for {name} the best option would be {', '.join(other)}"


def _lanes_arg(values, what: str) -> tuple[int, ...]:
    """1-based lane numbers -> 0-based tuple (validated)."""
    if values is None:
        return ()
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    try:
        out = tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise SheepsimError(f"{what}: lane numbers 1-6, got {values!r}") from None
    if any(not 1 <= v <= 6 for v in out):
        one = "a lane number" if len(out) == 1 else "lane numbers"
        raise SheepsimError(f"{what}: {one} 1-6, got {', '.join(map(str, out))}")
    if len(set(out)) != len(out):
        raise SheepsimError(f"{what}: a lane may be named once, got {', '.join(map(str, out))}")
    return tuple(v - 1 for v in out)


def bet_view(stage: str, open_bet, hidden, rival_open):
    """``(my lanes (0-based), seen (2, 6))`` from 1-based lane arguments, validated.
    At least one bet of the player's own is needed: without one every option is worth
    0 points, and advice would only name the first option."""
    own_open = _lanes_arg([] if open_bet in (None, "") else [open_bet], "open bet")
    hidden = _lanes_arg(hidden, "hidden bets")
    rivals = _lanes_arg(rival_open, "rivals' open bets")
    if not own_open and not hidden:
        raise SheepsimError("advise needs your bets: --open/--hidden (open_bet=/hidden= in Python)")
    if stage == "final" and (own_open or rivals):
        raise SheepsimError("the final has no open bets: give the two final bets as hidden")
    if set(own_open) & set(hidden):
        raise SheepsimError("a hidden bet must be on another lane than your open bet")
    if set(own_open) & set(rivals):
        raise SheepsimError("your open bet is on a lane a rival bet openly (open lanes differ)")
    most = 2 if stage == "final" else 3
    mine = own_open + hidden
    if len(mine) > most:
        raise SheepsimError(f"a player holds at most {most} bets in a {stage}, got {len(mine)}")
    seen = np.zeros((2, 6), np.int64)
    seen[L.MY_BETS, list(mine)] = 1
    seen[L.RIVAL_OPEN, list(rivals)] = 1
    return mine, seen


def points_per_outcome(rules, stage: str, mine) -> np.ndarray:
    """``(216,)`` the player's points for each outcome code ``36a + 6b + c`` (the final:
    only ``a``, the winner, counts)."""
    pay = np.asarray(rules.payoff_semifinal, np.float64)
    idx = np.arange(216)
    placed = np.stack([idx // 36, (idx // 6) % 6, idx % 6])
    if stage == "final":
        return np.where(np.isin(placed[0], list(mine)), np.asarray(rules.payoff_final)[placed[0]], 0.0)
    member = np.isin(placed, list(mine))
    bonus = np.array([0.0, 0.0, rules.bonus_two, rules.bonus_three])
    return (member * pay[np.arange(3)[:, None], placed]).sum(axis=0) + bonus[member.sum(axis=0)]


def after_option(board, race, lane: int, option: int):
    """Copies of ``board``/``race`` after ``option`` for ``lane``."""
    b, r = board.copy(), race.copy()
    apply_option(b, r, lane, option)
    return b, r


def _sheep_after(row, ez_first) -> str:
    if row[L.STATUS] == L.FINISHED:
        return f"F{row[L.PLACE]}"
    if row[L.STATUS] == L.EXHAUSTED:
        return f"X{row[L.POS]}"
    return f"{row[L.POS]}.{row[L.RED]}{row[L.BLUE]}{row[L.WHITE]}"


def legal_for(board, race, lane: int) -> np.ndarray:
    legal = np.zeros(L.N_OPTIONS, np.bool_)
    legal_options(board, race, lane, legal)
    return legal


def _exact_points(options, board, race, rules, policy, pts, stage, win=None):
    """Exact expected points after each option (``(len(options),)``) and, given
    ``win`` (1.0 per final winner lane that wins the game), the chance of winning the
    game after each option (else None)."""
    ev = np.zeros(len(options))
    p_win = None if win is None else np.zeros(len(options))
    for i, (b, r) in enumerate(options):
        joint, winner, _, _, _ = solve_position(b, r, rules, policy)
        ev[i] = winner @ pts[36 * np.arange(6)] if stage == "final" else joint @ pts
        if win is not None:
            p_win[i] = winner @ win
    return ev, p_win


def _mc_outcomes(options, rules, policy, stage, games, seed, seen) -> np.ndarray:
    """Outcome codes per race ``(len(options), games)``, every option on the same dice."""
    pol, dice, pace_ids, seen = continuation_args(rules, stage, policy, seen)
    kernel = continuation_kernel(pol.user_pace, "race_outcomes", _ids(pace_ids))
    out = np.zeros((len(options), games), np.int64)
    for i, (b, r) in enumerate(options):
        try:
            kernel(b, r, seed, 0, dice, pace_ids, seen, out[i])
        except ValueError as exc:
            raise SheepsimError(str(exc)) from None
    return out


def advise(position, lane: int, rules=None, *, open_bet=None, hidden=(), rival_open=(),
           policy: str = "greedy", method: str = "auto", games: int = DEFAULT_ADVISE_GAMES,
           seed: int = 0, stage=None, lanes=None, scores=None, seat=1, objective=None,
           tie_order=None, rival_bets=None) -> Advice:
    """Expected points of each pace option for ``lane`` (1-6, the sheep the dice chose).

    ``open_bet`` (a lane), ``hidden`` (lanes) the player's bets; ``rival_open`` lanes
    other players bet openly; later turns follow ``policy``; ``method`` auto/exact/mc.

    ``scores`` (seat order, before this race; text ``"12,18"`` or a sequence) with
    ``seat`` (yours, 1-based): in the final, each option's chance of winning the game
    too (``p_win``), and ``objective`` ``"win"`` (the default when the scores differ)
    ranks by it, ``"points"`` by expected points (the default when all are equal or no
    scores are given). ``tie_order`` (seats from the top of the scoring stack down) and
    ``rival_bets`` (``"1,6/2,5"``: the rivals' final pairs in seat order) as in
    :func:`~sheepsim.games.race.standings.standings`.
    """
    rules = _rules(rules)
    pos = as_position(position, stage=stage, lanes=lanes)
    board, race, lane_cards = position_arrays(pos, rules)
    mine, seen = bet_view(pos.stage, open_bet, hidden, rival_open)
    st = game_standings(scores, seat, tie_order, rival_bets)
    goal, why = choose_objective(objective, st, pos.stage)
    sel = _lanes_arg([lane], "selected lane")[0]
    if board[sel, L.STATUS] != L.RUNNING:
        raise SheepsimError(f"lane {lane} is {_sheep_after(board[sel], 0)}: only a running sheep moves")
    if race_over(board.copy(), race.copy()):
        raise SheepsimError("the race is already over in this position")
    reason = exact_reason(policy)
    if method not in ("auto", "exact", "mc"):
        raise SheepsimError(f"method must be auto, exact or mc, got {method!r}")
    if method == "exact" and reason:
        raise SheepsimError(f"no exact solution: {reason}")
    exact = method != "mc" and reason is None
    legal = legal_for(board, race, sel)
    opts = [o for o in range(L.N_OPTIONS) if legal[o]]
    if not opts:
        raise SheepsimError(f"lane {lane} has no legal option")
    after = [after_option(board, race, sel, o) for o in opts]
    pts = points_per_outcome(rules, pos.stage, mine)
    win = pairs = None
    if st is not None and pos.stage == "final":
        pairs, how = rival_pairs(st, lambda: _start_winner(rules, lane_cards, policy), rules)
        win = win_lanes(st, mine, pairs, rules)
    if exact:
        ev, p_win = _exact_points(after, board, race, rules, policy, pts, pos.stage, win)
        per_race = per_win = None
    else:
        games, seed = driver.check_games(games), driver.check_seed(seed)
        codes = _mc_outcomes(after, rules, policy, pos.stage, games, seed, seen)
        per_race = pts[codes]
        ev = per_race.mean(axis=1)
        per_win = None if win is None else win[codes // 36]
        p_win = None if win is None else per_win.mean(axis=1)
    ez_first = int(race[L.EZ_FIRST])
    if goal == "win":
        table = _table(opts, after, sel, p_win, per_win, ez_first, "p_win")
        table = _with_other(table, _table(opts, after, sel, ev, per_race, ez_first), "expected_points")
    else:
        table = _table(opts, after, sel, ev, per_race, ez_first)
        if p_win is not None:
            table = _with_other(table, _table(opts, after, sel, p_win, per_win, ez_first, "p_win"),
                                "p_win")
    value = "p_win" if goal == "win" else "expected_points"
    tied = tuple(table.loc[table["best"], "option"])
    others = table.loc[~table["best"], value]
    if len(table) == 1:  # nothing to choose: no margin
        margin = float("nan")
    else:
        margin = float(table[value].iloc[0] - others.iloc[0]) if len(others) else 0.0
    note = "" if exact else (reason or "Monte Carlo requested (--mc)")
    bets = [m + 1 for m in mine]
    later = f"every later turn of every sheep played by {policy.strip()}"
    if goal == "win":
        objective = (f"your chance of winning the game (scores before the final "
                     f"{', '.join(map(str, st.scores))}, you in seat {st.seat + 1}; your "
                     f"bets on lanes {', '.join(map(str, bets))}; rivals' bets "
                     f"{' / '.join(pairs_label(pairs))}), {later}")
    else:
        objective = (f"your expected points from this race (payoffs and bonus for your bets on "
                     f"lanes {', '.join(map(str, bets))}), {later}")
    fields = {"method": "exact" if exact else "monte carlo", "policy": policy,
              "position": pos.text(), "lane": lane, "bets": bets,
              "rival_open": sorted(int(x) + 1 for x in np.flatnonzero(seen[L.RIVAL_OPEN])),
              "goal": goal, "goal_reason": why,
              "objective": objective, "best": tied[0], "tied": list(tied), "margin": margin}
    if st is not None:
        fields.update(st.meta())
    if win is not None:
        fields.update(rival_bets=pairs_label(pairs), rival_bets_from=how,
                      win_lanes=[int(w) + 1 for w in np.flatnonzero(win)],
                      **_both_best(table, per_race is None))
    if exact:
        fields["equal_within"] = EXACT_TIE
    else:
        fields.update(games=games, seed=seed, note=note)
    return Advice(table, tied[0], margin, fields["method"], note, fields, tied, objective, goal)


def game_standings(scores, seat=1, tie_order=None, rival_bets=None):
    """:class:`~sheepsim.games.race.standings.Standings` or None without scores (then
    the other standings arguments must be left out)."""
    if scores is None or (isinstance(scores, str) and not scores.strip()):
        given = [name for name, v in (("seat", None if str(seat).strip() == "1" else seat),
                                      ("tie order", tie_order), ("rival bets", rival_bets))
                 if v not in (None, "")]
        if given:
            raise SheepsimError(f"{given[0]} applies with the scores (--scores)")
        return None
    return standings(scores, seat, tie_order, rival_bets)


def _start_winner(rules, lane_cards, policy: str) -> np.ndarray:
    """P(lane wins) at the start of the final on these lanes (``policy`` if it can be
    solved exactly, else greedy: what the rivals' ev bets assume)."""
    from sheepsim.games.race.exact.solver import exact_odds

    pace = policy if exact_reason(policy) is None else "greedy"
    return exact_odds(rules, lane_cards, "final", pace).winner


def _with_other(table: pd.DataFrame, other: pd.DataFrame, name: str) -> pd.DataFrame:
    """``table`` plus the other objective's value, standard error and best mark per option."""
    extra = other.set_index("option")[[name, f"{name}_se", "best"]].rename(
        columns={"best": f"best_for_{'win' if name == 'p_win' else 'points'}"})
    return table.join(extra, on="option")


def _both_best(table: pd.DataFrame, exact: bool) -> dict:
    """The best options for each objective and whether they differ."""
    first = "p_win" if table.columns[2] == "p_win" else "expected_points"
    mine = list(table.loc[table["best"], "option"])
    other_col = "best_for_points" if first == "p_win" else "best_for_win"
    other = list(table.loc[table[other_col], "option"])
    win, points = (mine, other) if first == "p_win" else (other, mine)
    return {"best_for_win": win, "best_for_points": points,
            "objectives_disagree": not set(win) & set(points)}


def _table(opts, after, sel, ev, per_race, ez_first, name="expected_points") -> pd.DataFrame:
    """One row per legal option, best first (equal options in option order); ``best``
    marks every option equal to the top one: exact values within :data:`EXACT_TIE`, or
    simulated options giving the same points in every simulated race. ``name``: the
    value's column (``expected_points``, or ``p_win`` for the chance of winning the game)."""
    top = int(np.argmax(ev))
    rows = []
    for i, o in enumerate(opts):
        row = {"option": L.OPTION_NAMES[o], "after": _sheep_after(after[i][0][sel], ez_first),
               "expected_points": ev[i]}
        if per_race is None:
            gap = ev[i] - ev[top]
            row.update(expected_points_se=0.0, gap_to_best=gap, gap_to_best_se=0.0,
                       best=bool(abs(gap) <= EXACT_TIE))
        else:
            n = per_race.shape[1]
            d = per_race[i] - per_race[top]
            row.update(expected_points_se=per_race[i].std(ddof=1) / np.sqrt(n),
                       gap_to_best=d.mean(), gap_to_best_se=d.std(ddof=1) / np.sqrt(n),
                       best=bool(not d.any()))
        rows.append(row)
    df = pd.DataFrame(rows).rename(columns={"expected_points": name,
                                            "expected_points_se": f"{name}_se"})
    df[f"{name}_lo"], df[f"{name}_hi"] = normal_interval(df[name], df[f"{name}_se"])
    df["gap_to_best_lo"], df["gap_to_best_hi"] = normal_interval(df["gap_to_best"], df["gap_to_best_se"])
    # equal options sort together at the top, in option order
    key = np.where(df["best"], np.inf, df[name])
    df = df.iloc[np.argsort(-key, kind="stable")].reset_index(drop=True)
    return df[["option", "after", name, f"{name}_lo", f"{name}_hi", f"{name}_se", "gap_to_best",
               "gap_to_best_lo", "gap_to_best_hi", "gap_to_best_se", "best"]]
