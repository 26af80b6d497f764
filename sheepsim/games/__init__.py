"""The games. Each is one folder with a ``game.py`` defining ``GAME`` (a
:class:`sheepsim.game.Game`); registering a game is one line here."""

#: modules defining ``GAME``, in the order the CLI and the report list them
REGISTRY = (
    "sheepsim.games.race.game",
    "sheepsim.games.panic.game",
    "sheepsim.games.awsheep.game",
)
