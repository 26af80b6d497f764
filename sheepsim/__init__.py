"""sheepsim: Monte Carlo strategy and balance analysis for sheep-themed board games.

Importing this package is cheap: no numba kernel is compiled until a simulation runs.
"""

from sheepsim._version import __version__

__all__ = ["__version__"]
