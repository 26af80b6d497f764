"""The harness kernel's array layouts: its accumulator, its sizes vector, its failure
record and its decisions log (numpy only; the kernel reads the same constants)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

#: the kernel's outputs, one record (:func:`sheepsim.harness.jobs.run_games` allocates
#: them): the accumulator, per game the winner and every seat's final score, a trace's
#: decisions log, the failure record, the game's own events, the final state and per
#: game the game's own result (slot ``result``) (one argument for eight arrays: the
#: kernel's Python entry point compiles faster)
Outputs = namedtuple("Outputs", ["acc", "winners", "scores", "log", "fail", "events", "final",
                                 "results"])

# -- the accumulator: ``off[O_*]`` is where each field starts in ``acc`` (int64, summed
# over games; merged across chunks by addition) --------------------------------------
O_GAMES = 0  # 1: games played
O_WINS = 1  # players: games won, by seat
O_SLOT_WINS = 2  # players: games won, by policy slot (the seat before rotation)
O_NO_WINNER = 3  # 1: games nobody won (draws)
O_TIED = 4  # 1: games in which two or more seats tied for the top final score
O_SCORE = 5  # players: final score, by seat
O_SCORE_SQ = 6  # players: its square
O_DECISIONS = 7  # 1: decisions per game (a lone option included)
O_DECISIONS_SQ = 8  # 1
O_TURNS = 9  # 1: turns per game (a turn: the decisions one seat makes in a row)
O_TURNS_SQ = 10  # 1
O_ASKED = 11  # 1: decisions a policy was asked (two or more options)
O_KIND_DECISIONS = 12  # kinds: decisions, by kind
O_KIND_OPTIONS = 13  # kinds: legal options summed over decisions, by kind
O_KIND_FORCED = 14  # kinds: decisions with one legal option, by kind
# the course of a game, from every seat's score at the end of each turn, over the games
# somebody won (:func:`sheepsim.harness.loop.course`)
O_WON = 15  # 1: games with a winner
O_LEAD_CHANGES = 16  # 1: times the sole leader changed to another seat
O_LEAD_CHANGES_SQ = 17  # 1
O_DECIDED_AT = 18  # 1: share of the turns played when the winner led for good, x COURSE_SCALE
O_DECIDED_AT_SQ = 19  # 1
O_DEFICIT = 20  # 1: the winner's largest deficit to the top score at a turn's end
O_DEFICIT_SQ = 21  # 1
O_COMEBACK = 22  # 1: games whose winner was behind the top score at the middle turn
N_FIELDS = 23
#: the game's own block (its machine's ``TALLY_LEN`` entries, slot ``tally``) starts at
#: ``off[O_GAME]``
O_GAME = N_FIELDS
#: a share in the accumulator is a whole number of 1/COURSE_SCALE (sums stay exact)
COURSE_SCALE = 10_000


def offsets(players: int, kinds: int, tally_len: int = 0) -> np.ndarray:
    """``off`` (int64, ``N_FIELDS + 2``): where each field starts, ``off[O_GAME]`` where
    the game's own block of ``tally_len`` starts; ``off[-1]`` is the accumulator's
    length."""
    widths = [1, players, players, 1, 1, players, players, 1, 1, 1, 1, 1, kinds, kinds, kinds,
              1, 1, 1, 1, 1, 1, 1, 1, tally_len]
    assert len(widths) == N_FIELDS + 1
    return np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)


# -- sizes: what the kernel allocates (from the machine's declaration) -----------------
Z_STATE, Z_OPTIONS, Z_OPTION_WIDTH, Z_VIEW, Z_MAX_DECISIONS, Z_KINDS, Z_CHANCE, Z_PHASES, \
    Z_SCRATCH, Z_OWN, Z_ROLES = range(11)
N_SIZES = 11
#: then, per decision kind, the option width a plug-in is shown (``opts[:n, :width]``:
#: the machine's ``OPTION_WIDTHS``, by default ``OPTION_WIDTH`` for every kind)
Z_KIND_WIDTHS = N_SIZES

# -- the report of the stretches a machine played itself in a game (slot ``own``) ------
# policies asked (two or more options), then per kind: decisions, options summed, lone
# options (the decisions themselves: ``own``'s return value)
P_ASKED, P_KINDS = range(2)


def report_len(kinds: int) -> int:
    return P_KINDS + 3 * kinds


#: the work arrays of :func:`sheepsim.harness.loop.play_own_games`, which allocates
#: nothing (compiled without numba's reference counting): the state and scratch, the
#: option rows (``to_move``'s), the streams, every seat's score, the seats' policy ids,
#: the turns' end scores (room for every turn a game can have), the stretches' report
#: and rows
OwnWork = namedtuple("OwnWork", ["st", "opts", "streams", "score", "seat_pid", "hist",
                                 "report", "played"])

# -- the failure record (``fail``, int64): the first failure of a chunk -----------------
F_CODE, F_GAME, F_SEAT, F_PID, F_CHOICE, F_N, F_KIND = range(7)
FAIL_WIDTH = 7
#: codes besides :data:`sheepsim.plugins.ILLEGAL_CHOICE` and ``WROTE_INPUTS``: the game's
#: machine broke its own contract (a seat, kind or option count out of range) or a game
#: ran past its machine's ``MAX_DECISIONS``
RULES_BROKEN = 3
TOO_LONG = 4

# -- the decisions log of a trace: one row per decision ------------------------------
L_SEAT, L_KIND, L_N, L_CHOICE, L_ASKED, L_PID = range(6)
LOG_HEAD = 6  # then the chosen option's row, then every seat's score after it


def log_width(option_width: int, players: int) -> int:
    return LOG_HEAD + option_width + players
