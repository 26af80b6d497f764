"""Where the ``win`` objective's advice differs from ``points`` in the final (issue 47).

Run: ``python benchmarks/play_to_win.py``. Exact: the standard final (the rules file's
first six cards in lanes 1-6, ``greedy`` pace) from the start, the rivals on the pair of
highest expected points (``race ev``'s default), and pace advice in one mid-final
position. Each row: the pair (or pace option) that maximises the chance of winning the
game and the one that maximises expected points, both valued both ways; the gain in
win probability of playing to win and what it costs in expected points. The table in
benchmarks/README.md comes from this script.
"""

from __future__ import annotations

from sheepsim.games.race.advise import advise
from sheepsim.games.race.standings import final_bets

BETS = [  # (situation, scores, your seat, rivals' pairs or None: race ev's default)
    ("2 players, level", "20,20", 1, None),
    ("2 players, behind by 6", "20,26", 1, None),
    ("2 players, behind by 16", "20,36", 1, None),
    ("2 players, behind by 17 (lane 2 ties: your token lands on top)", "20,37", 1, None),
    ("2 players, behind by 18 (lane 1 ties)", "20,38", 1, None),
    ("2 players, behind by 19", "20,39", 1, None),
    ("2 players, ahead by 6", "26,20", 1, None),
    ("2 players, ahead by 2, rival on the long shots", "22,20", 1, "1,2"),
    ("3 players, 6 and 14 behind", "20,26,34", 1, None),
    ("4 players, level, second to score", "20,20,20,20", 2, None),
]
PACE = ("final 12.101 10.110 9.030 8.201 11.110 10.111", 4, "4,1")
PACE_SCORES = ["20,30", "20,24", "20,20"]


def row(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    print(row(["final situation (standard final, start)", "to win: pair, P(win), EV",
               "for points: pair, P(win), EV", "win gain", "EV cost"]))
    print(row(["---"] * 5))
    for name, scores, seat, rivals in BETS:
        res = final_bets(scores, seat=seat, objective="win", rival_bets=rivals)
        t = res.tables["game"].set_index("lanes")
        m = res.meta
        w, p = t.loc[m["best_for_win"]], t.loc[m["best_for_points"]]
        print(row([f"{name} (rival pairs {' / '.join(m['rival_bets'])})",
                   f"{m['best_for_win']}: {w['p_win']:.4f}, {w['ev']:.3f}",
                   f"{m['best_for_points']}: {p['p_win']:.4f}, {p['ev']:.3f}",
                   f"+{m['win_gain']:.4f}", f"{m['points_cost']:.3f}"]))
    position, lane, hidden = PACE
    print()
    print(row(["pace, lane 4 selected in `" + position + "`, your bets 4,1",
               "to win: option, P(win), EV", "for points: option, P(win), EV", "win gain",
               "EV cost"]))
    print(row(["---"] * 5))
    for scores in PACE_SCORES:
        a = advise(position, lane, hidden=hidden, scores=scores, objective="win")
        t = a.table.set_index("option")
        w, p = a.meta_fields["best_for_win"][0], a.meta_fields["best_for_points"][0]
        print(row([f"scores {scores} (rival pair {a.meta_fields['rival_bets'][0]})",
                   f"{w}: {t.loc[w, 'p_win']:.4f}, {t.loc[w, 'expected_points']:.3f}",
                   f"{p}: {t.loc[p, 'p_win']:.4f}, {t.loc[p, 'expected_points']:.3f}",
                   f"+{t.loc[w, 'p_win'] - t.loc[p, 'p_win']:.4f}",
                   f"{t.loc[p, 'expected_points'] - t.loc[w, 'expected_points']:.3f}"]))


if __name__ == "__main__":
    main()
