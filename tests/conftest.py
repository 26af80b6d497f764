"""Shared test helpers."""

import os

# Tests never show windows and never depend on a display.
os.environ.setdefault("MPLBACKEND", "Agg")
