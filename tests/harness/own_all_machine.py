"""The toy game of :mod:`.own_machine` declaring that its ``own`` plays every built-in
seat (``OWN_BUILTINS``: line-ups of built-ins run the harness's own-only entry), played
with rules key ``own`` 2."""

from tests.harness.own_machine import (  # noqa: F401 (the machine's declarations)
    KINDS,
    MAX_OPTIONS,
    OPTION_WIDTH,
    OWN_STRETCHES,
    RULES,
    VIEW_LEN,
    apply,
    decide,
    own,
    scores,
    seated,
    start,
    state_size,
    to_move,
    view,
    winner,
)

OWN_BUILTINS = True
