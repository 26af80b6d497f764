"""User-facing errors.

Everything a user can get wrong (a rules file, a card or policy name, an option) raises
:class:`SheepsimError` with one line naming the problem; the CLI prints that line to
stderr and exits with code 2, without a traceback.
"""


class SheepsimError(Exception):
    """A problem with the user's input; the message is one line meant for the user."""


class RulesError(SheepsimError):
    """A rules file (TOML) that does not validate; the message names the file and key."""

    def __init__(self, source: str, key: str, problem: str):
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {key}: {problem}")
