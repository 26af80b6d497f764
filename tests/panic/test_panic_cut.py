"""Shear Panic's plug-in seats on the harness (:mod:`sheepsim.games.panic.cut`): a
plug-in seat's turn stops at each of its decisions, and the harness asks the plug-in
through its guard. The games are the engine's with the same plug-ins: the machine's
tally (the engine's accumulator layout), every game's winner and points give the digests
the engine's plug-in kernels gave (``engine.kernels_for``, pinned below: the engine
compiled a variant per line-up of plug-ins); a plug-in that is ``random`` written as a
plug-in leaves every count of the harness as ``random`` does."""

import hashlib

import numba
import numpy as np
import pytest
from test_panic_pinned import _rules

from sheepsim.games.panic import layout as L
from sheepsim.games.panic.policies import randbelow
from sheepsim.games.panic.policies.decide import (
    FIRST_USER_ID,
    GREEDY,
    RANDOM,
    ROLLOUT,
    ROLLOUT_V1,
)
from sheepsim.harness import layout as H


@numba.njit
def stream_pick(kind, view, opts, n, rand):
    """``random`` written as a plug-in: uniform from its own stream."""
    return randbelow(rand, n)


@numba.njit
def last_option(kind, view, opts, n, rand):
    """The last legal menu option; a random one of every sub-decision."""
    if kind == L.K_ACTION:
        return n - 1
    return randbelow(rand, n)


@numba.njit
def view_hash(kind, view, opts, n, rand):
    """Everything it is shown (the whole view, every column of every option) hashed into
    its choice with one draw: any difference in what it is shown changes the game. An
    Ewe Turn's options only by their turn: the engine left earlier options' entries
    after it, the cut turn lists the documented ``[turn, 0, 0, 0]``
    (:func:`test_an_ewe_turns_options_are_the_documented_ones`)."""
    h = np.uint64(1469598103934665603)
    for j in range(view.shape[0]):
        h = (h ^ np.uint64(view[j] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    width = 1 if kind == L.K_PANIC_TURN else opts.shape[1]
    for i in range(n):
        for j in range(width):
            h = (h ^ np.uint64(opts[i, j] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    h = h ^ np.uint64(kind) ^ np.uint64(randbelow(rand, 7))
    return np.int64(h % np.uint64(n))


@numba.njit
def zeros_after_the_turn(kind, view, opts, n, rand):
    """``random``, except that an Ewe Turn's option with an entry after the turn gets
    the illegal answer ``n`` (the run stops)."""
    if kind == L.K_PANIC_TURN:
        for i in range(n):
            for j in range(1, opts.shape[1]):
                if opts[i, j] != 0:
                    return n
    return randbelow(rand, n)


USERS = (stream_pick, last_option, view_hash, zeros_after_the_turn)
PICK, LAST, HASH, ZEROS = range(FIRST_USER_ID, FIRST_USER_ID + len(USERS))
PLAYOUTS = 4


def _digest(*arrays) -> str:
    """The first 16 hex digits of the SHA-256 of ``arrays`` as int64, in order."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def _harness(R, players, pids, seed, games, users=USERS):
    """``(acc, winners, scores, offsets)`` of the harness playing the machine."""
    from sheepsim.harness import machine as M
    from sheepsim.harness.jobs import run_games

    m = M.load("sheepsim.games.panic.machine")
    kernel = m.kernel(users, FIRST_USER_ID, pids)
    acc, fail, winners, scores, _ = run_games(m, kernel, R, players,
                                              np.asarray(pids, dtype=np.int64), False, seed,
                                              0, games, outcomes=True)
    assert fail[H.F_CODE] == 0
    return acc, winners, scores, m.offsets(players)


#: (rules, players, policy ids, seed, games, digest): the digest (:func:`_digest`) of the
#: engine's summed accumulator, each game's winning seat and each game's points, from its
#: plug-in kernels (``engine.kernels_for(USERS)``, ``games_chunk`` with a row per game,
#: ``--playouts`` 4) on branch pmplug at 82875c5, where this test compared them directly
CASES = [
    ("standard", 3, [PICK, RANDOM, RANDOM], 1, 300, "40d84a92c02bdb03"),
    ("standard", 4, [HASH, RANDOM, LAST, PICK], 2, 300, "bfb3775ef9a030ed"),
    ("standard", 3, [HASH, HASH, HASH], 3, 200, "1501c4f032522470"),
    ("variant", 4, [RANDOM, HASH, RANDOM, LAST], 4, 200, "38ba6cbf3f368941"),
    ("standard", 4, [LAST, GREEDY, HASH, RANDOM], 5, 100, "a294cde381ab7b56"),
    ("variant", 3, [GREEDY, HASH, PICK], 6, 100, "633f09e65f2122b5"),
    ("standard", 3, [ROLLOUT, HASH, GREEDY], 7, 20, "6a15e3e46e92cd43"),
    ("standard", 4, [PICK, ROLLOUT_V1, RANDOM, LAST], 8, 20, "b86dd24f6e953809"),
]


@pytest.mark.parametrize("which,players,pids,seed,games,engine", CASES)
def test_the_harness_plays_the_engines_games_with_plugins(tmp_path, which, players, pids,
                                                          seed, games, engine):
    """The machine's tally, winners and points give the engine's digest: entry for
    entry the same counts and the same games (``view_hash`` makes any difference in a
    view or an option list a different game)."""
    R = _rules(which, tmp_path).kernel_array(players)
    acc, winners, scores, off = _harness(R, players, pids, seed, games)
    assert _digest(acc[off[H.O_GAME]:], winners, scores) == engine
    assert acc[off[H.O_ASKED]] > 10 * games  # the plug-ins were asked


@pytest.mark.parametrize("players,plugged", [(3, [0]), (4, [1, 3])])
def test_random_as_a_plugin_leaves_every_count_of_the_harness(rules, players, plugged):
    """``stream_pick`` is ``random``: seated in place of it, the whole accumulator (the
    harness's decisions by kind, lone options, asked, turns, the course of the lead,
    and the game's tally) is the same, so a plug-in seat's decisions are counted as a
    built-in seat's are."""
    R = rules.kernel_array(players)
    base = [RANDOM] * players
    mixed = list(base)
    for s in plugged:
        mixed[s] = PICK
    ref, _, _, off = _harness(R, players, base, 9, 200, users=())  # the built-ins' entry
    acc, _, _, _ = _harness(R, players, mixed, 9, 200)
    assert np.array_equal(acc, ref)
    assert acc[off[H.O_KIND_FORCED] + L.K_ROUTE] > 0  # lone routes were counted (not asked)


def test_an_ewe_turns_options_are_the_documented_ones(rules):
    """``[turn, 0, 0, 0]`` (``layout.K_PANIC_TURN``) at every Ewe Turn a plug-in is asked:
    ``zeros_after_the_turn`` at every seat plays 300 games without a failure."""
    R = rules.kernel_array(4)
    acc, _, _, off = _harness(R, 4, [ZEROS] * 4, 10, 300)
    assert acc[off[H.O_KIND_DECISIONS] + L.K_PANIC_TURN] > 20


@numba.njit
def past_last(kind, view, opts, n, rand):
    """Vandal: the first sub-decision it is asked, it answers ``n`` (not an option)."""
    if kind == L.K_ACTION:
        return 0
    return n


def test_the_job_plays_plugins_on_the_harness_as_the_engine(rules):
    """``PlayJob`` with plug-ins (the harness): its summed counts and the game-level sums
    of the pooled intervals (keys in order) give the digest of the engine's per-game
    rows' (``jobs.game_sums``; pinned as :data:`CASES`), and its outcomes are the
    harness's winners and points."""
    from sheepsim.games.panic.jobs import PlayJob

    names = [f"{__name__}:view_hash", "random", f"{__name__}:last_option", "greedy"]
    job = PlayJob(rules, 4, names, seed=12)
    got = job.chunk(0, 60)
    sums = [got[k] for k in sorted(got) if k not in ("acc", "harness")]
    assert _digest(got["acc"], *sums) == "b8d0014faa12e391"
    winners, points = job.outcomes(0, 60)
    _, w, p, _ = _harness(rules.kernel_array(4), 4, [HASH, RANDOM, LAST, GREEDY], 12, 60)
    assert np.array_equal(winners, w) and np.array_equal(points, p)


def test_a_broken_choice_stops_the_job_with_one_line(rules):
    """The harness's check of every answer: the error names the policy, its seat
    (1-based), the game and what it did, in one line."""
    from sheepsim.errors import SheepsimError
    from sheepsim.games.panic.jobs import PlayJob

    name = f"{__name__}:past_last"
    job = PlayJob(rules, 3, ["random", name, "random"], seed=5)
    with pytest.raises(SheepsimError) as exc:
        job.chunk(0, 10)
    msg = str(exc.value)
    assert f"policy '{name}' (seat 2) in game 0" in msg
    assert "returned option" in msg and "\n" not in msg
