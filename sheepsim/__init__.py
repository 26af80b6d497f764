"""sheepsim: Monte Carlo strategy and balance analysis for sheep-themed board games.

One Python path for every game (``game`` is ``"sheep-race"``/``"race"``,
``"shear-panic"``/``"panic"`` or ``"aw-sheep"``/``"awsheep"``), the same commands,
options and defaults as the CLI, each returning a :class:`Result` (``.tables``: dict of
DataFrames by the CLI's ``--table`` names; ``.meta``: what ``FILE.meta.json`` holds):

    play(game, **options)              many games: win rates by seat and policy, ...
    compare(game, a=..., b=..., **options)
                                       head-to-head of two policies on the same games
    balance(game, **options)           the game's balance tables
    trace(game, seed=..., **options)   one game turn by turn (``Result.lines``)

For designers, rules variants on common random numbers (the same deals and dice):

    metrics(game)                      the game's balance metrics
    variants(game, files=..., set=[...], **options)
                                       variants side by side, paired differences
    sweep(game, set=["KEY=V1,V2"], **options)
                                       a metric grid over one or two rules keys
    tune(game, vary=[...], target=[...], budget=...)
                                       a balance search (needs sheepsim[tune])

Game-specific functions live in the game packages: :mod:`sheepsim.games.race` (exact
odds, bet EV, pace advice), :mod:`sheepsim.games.panic` (the flock model),
:mod:`sheepsim.games.awsheep`; charts in :mod:`sheepsim.plots`.

Importing this package is cheap: no numba kernel is compiled (and neither numpy,
pandas nor numba is imported) until a simulation runs.

Imports inside functions keep ``import sheepsim``, ``sheepsim --help`` and a warm exact
``race odds`` from loading numba kernels, pandas, matplotlib or commands they do not
need; everywhere else a module imports at its top. The modules that may wait for a
function, each with its reason, are listed in ``tests/test_layout.py`` (``LAZY`` for
the shared modules, ``GAME_LAZY`` for the game packages), which checks every module
against those lists.
"""

from sheepsim._version import __version__
from sheepsim.api import (
    Result,
    balance,
    compare,
    ladder,
    metrics,
    play,
    sweep,
    trace,
    tune,
    variants,
)

__all__ = ["Result", "__version__", "balance", "compare", "ladder", "metrics", "play", "sweep",
           "trace", "tune", "variants"]
