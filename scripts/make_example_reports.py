"""Regenerate the example reports kept under ``reports/`` (one small report per game).

Run from anywhere: ``python scripts/make_example_reports.py [--threads K]``. Each
``reports/NAME.toml`` is built into ``reports/NAME/``, replacing the previous example
only once the new one is complete. Paths are given relative to the
repository root so the committed manifests hold no machine-specific paths.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("sheep-race-example", "shear-panic-example", "aw-sheep-example")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="threads running chunks")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    from sheepsim.report.build import run_report

    os.chdir(ROOT)
    for name in EXAMPLES:
        config, out = Path("reports") / f"{name}.toml", Path("reports") / name
        # Built from scratch in a scratch folder and swapped in only when complete, so an
        # edited config never meets an old folder and a failure keeps the previous example.
        scratch = Path("reports") / f".{name}.building"
        shutil.rmtree(scratch, ignore_errors=True)
        manifest = run_report(config, scratch, quiet=args.quiet, threads=args.threads)
        shutil.rmtree(out, ignore_errors=True)
        scratch.rename(out)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(f"{out}: {len(manifest['files'])} files, {size / 1e6:.2f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
