"""Fill the study registry: every registered game's ``studies`` module registers its
study types on import (see :class:`sheepsim.game.Game`)."""

from sheepsim.game import games

for _game in games():
    _game.register_studies()
