"""Fixtures for the analysis tests (helpers live in analysis_helpers.py: a module named
``conftest`` is ambiguous when several test folders have one)."""

import pytest

from sheepsim.games.race.rules import load_rules


@pytest.fixture(scope="session")
def rules():
    return load_rules()
