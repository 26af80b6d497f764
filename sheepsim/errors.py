"""User-facing errors.

Everything a user can get wrong (a rules file, a card or policy name, an option) raises
:class:`SheepsimError` with one line naming the problem; the CLI prints that line to
stderr and exits with code 2, without a traceback.
"""


class SheepsimError(Exception):
    """A problem with the user's input; the message is one line meant for the user.
    ``game``: the game it happened in, when the message names it (a policy's broken
    choice): the run's error line then names no range of games."""

    game: int | None = None


class RulesError(SheepsimError):
    """A rules file (TOML) that does not validate; the message names the file and key."""

    def __init__(self, source: str, key: str, problem: str):
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {_where(key)}: {problem}")


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` ... ``11th`` ... ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _where(key: str) -> str:
    """The key as a designer counts: ``race.cards[2].red`` (the TOML path, indexes from 0)
    with ``(the 3rd [[race.cards]] table)`` after it."""
    head, bracket, rest = key.rpartition("[")
    index = rest.partition("]")[0]
    if not bracket or not index.isdigit():
        return key
    return f"{key} (the {_ordinal(int(index) + 1)} [[{head}]] table)"
