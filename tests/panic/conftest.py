"""Fixtures for the Shear Panic tests (helper functions live in ``panic_helpers``)."""

import pytest

from sheepsim.games.panic.rules import load_rules


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(scope="session")
def R4(rules):
    return rules.kernel_array(4)

