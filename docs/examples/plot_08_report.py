"""
A report of one study
=====================

``sheepsim report CONFIG.toml --out DIR`` runs the studies a TOML config lists and
writes one folder: ``index.html``, ``report.md``, every table as CSV, every chart as
PNG and SVG, and ``manifest.json``. Here a config of one small study (an Aw, Sheep!
luck-against-skill study), run from Python, and the chart it wrote.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from sheepsim.report.build import run_report

folder = Path(tempfile.mkdtemp())
config = folder / "tiny.toml"
config.write_text('''
title = "A tiny report"

[[study]]
type = "awsheep-luck-skill"
name = "luck-vs-skill"
title = "Counter against three random players"
players = 4
seed = 2
games = 2_000
''')
manifest = run_report(config, folder / "report", quiet=True)
files = sorted(p.relative_to(folder / "report").as_posix() for p in (folder / "report").rglob("*")
               if p.is_file())
print("\n".join(files))

# %%
# The study's chart, as the report wrote it:
png = next((folder / "report").rglob("*.png"))
fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
ax.imshow(plt.imread(png))
ax.set_axis_off()
