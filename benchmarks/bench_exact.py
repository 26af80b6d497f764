"""Speed of the exact Sheep Race solver (sheepsim.games.race.exact).

Run: ``python benchmarks/bench_exact.py [--repeat N] [--games N]``. Times, on one core
(the solver is serial), the exact odds of the standard semifinal and final from the
starting line for the own-state pace policies, a mid-race position, and the scarce-blue
variant where the supply binds and the solver tracks it; then the exact policies inside
whole games: CPU seconds (``time.process_time``) per 4-player game with every seat
betting ``ev`` (one exact solve per race) against ``ev-approx``, and with one
``lookahead`` seat (one backward sweep per decision of that seat). The first call of a
process loads (or compiles) the kernels: it is timed separately. The numbers in
benchmarks/README.md come from here.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sheepsim.games.race.advise import advise
from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.rules import load_rules

STANDARD = Path(__file__).resolve().parents[1] / "sheepsim" / "games" / "race" / "standard.toml"


def best_of(fn, repeat: int) -> tuple[float, object]:
    """Best CPU seconds (``time.process_time``: load-independent) of ``repeat`` calls."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", type=int, default=100, help="games of the exact-policy line-ups")
    args = ap.parse_args()
    t0 = time.perf_counter()
    exact_odds()
    print(f"first call (kernel load or compile + solve): {time.perf_counter() - t0:.2f} s wall")
    rules = load_rules()
    with tempfile.TemporaryDirectory() as tmp:
        scarce = Path(tmp) / "scarce.toml"
        scarce.write_text(STANDARD.read_text().replace("blue = 19", "blue = 11"))
        scarce_rules = load_rules(scarce)
        cases = [(rules, "standard", stage, policy) for stage in ("semifinal", "final")
                 for policy in ("greedy", "saver", "steady")]
        cases += [(scarce_rules, "scarce blue (11)", stage, "greedy") for stage in ("semifinal", "final")]
        print("| rules | stage | policy | seconds | joint states visited | supply tracked |")
        print("| --- | --- | --- | ---: | ---: | --- |")
        for r, label, stage, policy in cases:
            secs, res = best_of(lambda r=r, s=stage, p=policy: exact_odds(r, None, s, p), args.repeat)
            print(f"| {label} | {stage} | {policy} | {secs:.3f} | {res.states:,} | "
                  f"{'yes' if res.supply_binds else 'no (proved)'} |")
    from sheepsim.games.race.exact.from_position import exact_from_position

    secs, res = best_of(lambda: exact_from_position(MID_RACE, rules, "greedy"), args.repeat)
    print(f"mid-race semifinal position {MID_RACE!r}, greedy: {secs:.3f} s, {res.states:,} states")
    secs, a = best_of(lambda: advise(TRACE_POSITION, 1, rules, open_bet=5, hidden="1,3",
                                     rival_open="6,2"), args.repeat)
    print(f"race advise, README example ({len(a.table)} legal options, exact): {secs:.3f} s")
    decisions(rules, args.repeat)
    whole_games(rules, args.games)


def decisions(rules, repeat: int) -> None:
    """One lookahead decision (one backward sweep for every option) against race advise
    (one forward solve per option), at the start of a semifinal and mid-race."""
    import numpy as np

    from sheepsim.games.race.exact.from_position import board_from
    from sheepsim.games.race.exact.game import option_values

    start = "semifinal 0.111 0.210 0.030 0.201 0.120 0.111"  # the starting line
    mine = np.array([0, 0, 0, 1, 1, 1], np.int64)  # bets on lanes 4, 5, 6
    kr = rules.kernel_rules()
    for label, pos, lane in (("start of a semifinal", start, 6), ("mid-race", MID_RACE, 4)):
        board, race, _, _ = board_from(pos, rules)
        option_values(lane - 1, board, race, mine, kr, 0)  # loads the kernel
        t_back, values = best_of(lambda b=board, r=race, ln=lane: option_values(
            ln - 1, b, r, mine, kr, 0), repeat)
        t_fwd, a = best_of(lambda p=pos, ln=lane: advise(p, ln, rules, open_bet=4, hidden="5,6"),
                           repeat)
        n = int(np.isfinite(values).sum())
        assert np.allclose(np.sort(values[np.isfinite(values)]), np.sort(a.table["expected_points"]))
        print(f"lookahead decision, {label} (lane {lane}, {n} options): one backward sweep "
              f"{t_back:.3f} s, race advise (a forward solve per option) {t_fwd:.3f} s, "
              f"ratio {t_fwd / t_back:.1f}")


def whole_games(rules, games: int) -> None:
    """Games per CPU second of whole games (``GamesJob.rows``: the race machine on the
    harness) with the exact policies."""
    from sheepsim.games.race.jobs import GamesJob

    lineups = [("ev-approx bets, greedy pace (every seat)", "greedy", "ev-approx", 20_000),
               ("ev bets (exact, every seat), greedy pace", "greedy", "ev", games),
               ("ev-approx bets, seat 1 lookahead, 3 greedy", "lookahead,greedy,greedy,greedy",
                "ev-approx", games)]
    print("| 4-player games | games | CPU s | games per CPU second |")
    print("| --- | ---: | ---: | ---: |")
    for label, pace, bets, n in lineups:
        GamesJob(rules, 4, bets, pace, 1).rows(0, 1)  # loads (or compiles) the kernel
        t0 = time.process_time()
        GamesJob(rules, 4, bets, pace, 2).rows(0, n)
        secs = time.process_time() - t0
        print(f"| {label} | {n:,} | {secs:.2f} | {n / secs:,.2f} |")


MID_RACE = "semifinal supply=14 7.101 9.110 6.020 8.201 12.110 10.111"
#: The README's advise example (race trace --seed 0, before turn 21).
TRACE_POSITION = "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"

if __name__ == "__main__":
    main()
