"""The conformance suite (:mod:`sheepsim.testing.conformance`) for every game: the
built-in ones and every game installed through the ``sheepsim.games`` entry points."""

from sheepsim.testing.conformance import *  # noqa: F403
