"""Test suites a game package reuses (they import pytest: for test runs only)."""
