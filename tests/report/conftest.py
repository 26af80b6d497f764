"""One uninterrupted run of the small config, shared by the report tests (read-only)."""

import pytest

from sheepsim.report.build import run_report

from .helpers import write_config


@pytest.fixture(scope="session")
def small_report(tmp_path_factory):
    """``(out folder, manifest)`` of the small config, default chunks, every core."""
    base = tmp_path_factory.mktemp("small")
    out = base / "out"
    manifest = run_report(write_config(base), out, quiet=True)
    return out, manifest
