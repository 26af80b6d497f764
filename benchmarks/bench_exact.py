"""Speed of the exact Sheep Race solver (sheepsim.games.race.exact).

Run: ``python benchmarks/bench_exact.py [--repeat N]``. Times, on one core (the solver is
serial), the exact odds of the standard semifinal and final from the starting line for
the own-state pace policies, a mid-race position, and the scarce-blue variant where the
supply binds and the solver tracks it. The first call of a process loads (or compiles)
the kernel: it is timed separately. The numbers in benchmarks/README.md come from here.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sheepsim.games.race.exact import exact_odds
from sheepsim.games.race.rules import load_rules

STANDARD = Path(__file__).resolve().parents[1] / "sheepsim" / "games" / "race" / "standard.toml"


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    t0 = time.perf_counter()
    exact_odds()
    print(f"first call (kernel load or compile + solve): {time.perf_counter() - t0:.2f} s")
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
    from sheepsim.games.race.advise import advise
    from sheepsim.games.race.position_odds import exact_from_position

    secs, res = best_of(lambda: exact_from_position(MID_RACE, rules, "greedy"), args.repeat)
    print(f"mid-race semifinal position {MID_RACE!r}, greedy: {secs:.3f} s, {res.states:,} states")
    secs, a = best_of(lambda: advise(TRACE_POSITION, 1, rules, open_bet=5, hidden="1,3",
                                     rival_open="6,2"), args.repeat)
    print(f"race advise, README example ({len(a.table)} legal options, exact): {secs:.3f} s")


MID_RACE = "semifinal supply=14 7.101 9.110 6.020 8.201 12.110 10.111"
#: The README's advise example (race trace --seed 0, before turn 21).
TRACE_POSITION = "semifinal supply=15 6.011 10.010 8.000 10.001 12.020 F1"

if __name__ == "__main__":
    main()
