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
    try:
        from sheepsim.games.race.position import exact_from_position, parse_position
    except ImportError:
        return
    pos = parse_position(MID_RACE)
    secs, _ = best_of(lambda: exact_from_position(pos, rules, "greedy"), args.repeat)
    print(f"mid-race semifinal position (README example), greedy: {secs:.3f} s")


MID_RACE = ("semifinal; supply 16; 1: 7 r1b0w1; 2: 9 r1b1w0; 3: 6 r0b2w0; "
            "4: 8 r2b0w1; 5: 12 r1b1w0; 6: 10 r1b1w1")

if __name__ == "__main__":
    main()
