"""Screenshot a report's ``index.html`` in a real headless browser, to look at it.

    python scripts/screenshot_report.py REPORT_DIR [--out shot.png] [--width 1280]
                                        [--height 5000] [--browser chromium]

Uses Chromium (Debian: ``apt-get install chromium``) with a throw-away profile and no
network features; the page is self-contained, so nothing is fetched. ``--height`` is
the window height: the screenshot shows the top ``height`` pixels of the page at
``width`` pixels wide (1280: a laptop). Exit 2 with one line if the browser is missing
or fails.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")


def screenshot(report: Path, out: Path, width: int = 1280, height: int = 5000,
               browser: str = "chromium", timeout: float = 120) -> Path:
    """Render ``report/index.html`` (or ``report`` if it is a file) into ``out`` (PNG)."""
    page = report / "index.html" if report.is_dir() else report
    if not page.is_file():
        raise SystemExit(f"screenshot_report: no {page}")
    exe = shutil.which(browser)
    if exe is None:
        raise SystemExit(f"screenshot_report: browser {browser!r} not found "
                         "(Debian: apt-get install chromium)")
    out = out.resolve()
    with tempfile.TemporaryDirectory(prefix="sheepsim-shot-") as profile:
        cmd = [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
               f"--screenshot={out}", page.resolve().as_uri()]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not out.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"screenshot_report: {browser} failed ({done.returncode}): {last}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("report", type=Path, help="report folder (or an HTML file)")
    p.add_argument("--out", type=Path, default=Path("report-1280.png"))
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=5000)
    p.add_argument("--browser", default="chromium")
    args = p.parse_args(argv)
    try:
        path = screenshot(args.report, args.out, args.width, args.height, args.browser)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
