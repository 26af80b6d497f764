"""Fill the study registry: every registered game's ``studies`` module registers its
study types on import (see :class:`sheepsim.game.Game`), and the designers' studies of
every game (``variants``, ``sweep``, ``tune``) register from
:mod:`sheepsim.report.designer_studies`, the ``head-to-head`` of every game from
:mod:`sheepsim.report.game_studies`."""

from sheepsim.game import games
from sheepsim.report import designer_studies, game_studies  # noqa: F401 - register their study types

for _game in games():
    _game.register_studies()
