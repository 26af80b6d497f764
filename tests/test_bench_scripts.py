"""The benchmark scripts' bad input: one line, exit 2, before any timing."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize(("argv", "says"), [
    # ran the whole benchmark, then a SheepsimError traceback from the memory check
    (["--memory-games", "0"], "--memory-games must be at least 1, got 0"),
    (["--rounds", "0"], "--rounds must be at least 1, got 0"),
])
def test_bench_panic_refuses_bad_counts_in_one_line(argv, says):
    # --quick with no case: the old script reached the memory check within seconds
    p = subprocess.run([sys.executable, str(BENCH / "bench_panic.py"), "--quick", "--cases",
                        "nosuch", *argv], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr.strip().splitlines() == [f"bench_panic.py: {says}"]
