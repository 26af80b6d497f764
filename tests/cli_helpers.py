"""The command line as the test files at the top of ``tests/`` run it in-process
(:func:`sheepsim.testing.cli.run`, shared with the conformance suite)."""

from sheepsim.testing.cli import run  # noqa: F401 - the tests' import
