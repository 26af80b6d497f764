"""Screenshot a report's ``index.html`` in a real headless browser, to look at it.

    python scripts/screenshot_report.py REPORT_DIR [--out shot.png] [--width 1280]
                                        [--height full|PIXELS] [--browser chromium]

By default the whole page is captured: the browser first lays the page out at
``--width`` pixels (1280: a laptop) and reports the document's height, then takes a
screenshot that tall. ``--height PIXELS`` captures only the top PIXELS instead (a
window of that height). Uses Chromium (Debian: ``apt-get install chromium``) with a
throw-away profile and no network features; the page is self-contained, so nothing is
fetched. Exit 2 with one line if the browser is missing or fails.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")
#: appended to a copy of the page: puts the laid-out height into the title once loaded
HEIGHT_PROBE = ("<script>addEventListener('load', () => { document.title = 'sheepsim-height=' + "
                "Math.ceil(document.documentElement.scrollHeight); });</script>")
MAX_HEIGHT = 100_000  # pixels; a taller page is cut there (and the script says so)


def _browser(browser: str) -> str:
    exe = shutil.which(browser)
    if exe is None:
        raise SystemExit(f"screenshot_report: browser {browser!r} not found "
                         "(Debian: apt-get install chromium)")
    return exe


def _run(cmd: list[str], browser: str, timeout: float) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"screenshot_report: {browser} failed ({done.returncode}): {last}")
    return done


def page_height(page: Path, width: int, browser: str = "chromium", timeout: float = 120) -> int:
    """The height in pixels of ``page`` laid out ``width`` pixels wide (its charts
    decoded), measured in the browser on a copy with a one-line script added."""
    exe = _browser(browser)
    text = page.read_text(encoding="utf-8")
    probe = text.replace("</body>", HEIGHT_PROBE + "</body>", 1) if "</body>" in text \
        else text + HEIGHT_PROBE
    with tempfile.TemporaryDirectory(prefix="sheepsim-shot-") as tmp:
        copy = Path(tmp) / "page.html"
        copy.write_text(probe, encoding="utf-8")
        cmd = [exe, *FLAGS, f"--user-data-dir={tmp}/profile", f"--window-size={width},1000",
               "--virtual-time-budget=10000", "--dump-dom", copy.as_uri()]
        dom = _run(cmd, browser, timeout).stdout
    found = re.search(r"sheepsim-height=(\d+)", dom)
    if not found:
        raise SystemExit(f"screenshot_report: {browser} did not report the page height")
    return int(found.group(1))


def screenshot(report: Path, out: Path, width: int = 1280, height: int | None = None,
               browser: str = "chromium", timeout: float = 120) -> Path:
    """Render ``report/index.html`` (or ``report`` if it is a file) into ``out`` (PNG):
    the whole page (``height`` None), or its top ``height`` pixels."""
    page = report / "index.html" if report.is_dir() else report
    if not page.is_file():
        raise SystemExit(f"screenshot_report: no {page}")
    exe = _browser(browser)
    if height is None:
        height = page_height(page, width, browser, timeout)
        if height > MAX_HEIGHT:
            print(f"screenshot_report: the page is {height} px tall; capturing the top "
                  f"{MAX_HEIGHT}", file=sys.stderr)
            height = MAX_HEIGHT
    out = out.resolve()
    with tempfile.TemporaryDirectory(prefix="sheepsim-shot-") as profile:
        cmd = [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
               f"--screenshot={out}", page.resolve().as_uri()]
        _run(cmd, browser, timeout)
    if not out.is_file():
        raise SystemExit(f"screenshot_report: {browser} wrote no {out}")
    return out


def _height(text: str) -> int | None:
    if text == "full":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'full' or a number of pixels, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 pixel, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("report", type=Path, help="report folder (or an HTML file)")
    p.add_argument("--out", type=Path, default=Path("report-1280.png"))
    p.add_argument("--width", type=int, default=1280, help="window width in pixels (default 1280)")
    p.add_argument("--height", type=_height, default=None, metavar="full|PIXELS",
                   help="full (default): the whole page, its height measured in the browser; "
                        "PIXELS: only the top PIXELS of the page")
    p.add_argument("--browser", default="chromium")
    args = p.parse_args(argv)
    try:
        path = screenshot(args.report, args.out, args.width, args.height, args.browser)
    except (SystemExit, subprocess.TimeoutExpired) as exc:
        print(exc if isinstance(exc, SystemExit) else f"screenshot_report: timed out ({exc})",
              file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
