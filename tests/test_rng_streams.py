"""The seat policy streams (issue 29, item 3): Philox4x32-10 keys."""

import numpy as np
import pytest

from sheepsim import rng

# Random123's published known-answer vectors for philox4x32 with 10 rounds (kat_vectors):
# counter (4 words), key (2 words) -> output (4 words).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr, key, out", KAT)
def test_philox_known_answers(ctr, key, out):
    got = rng.philox4x32(*(np.uint64(c) for c in ctr), *(np.uint64(k) for k in key))
    assert tuple(int(x) for x in got) == out


def _key(seed, game, seat, phase=0):
    streams = np.zeros((1, 2), dtype=np.uint64)
    rng.seed_policy_stream(streams, 0, seed, game, seat, phase)
    return int(streams[0, 0]), int(streams[0, 1])


def test_seat_streams_are_distinct_and_odd():
    keys = {_key(s, g, seat, ph) for s in (0, 1, 2**40) for g in (0, 1, 2**33)
            for seat in range(6) for ph in (0, 1)}
    assert len(keys) == 3 * 3 * 6 * 2
    assert all(gamma & 1 for _, gamma in keys)


def test_seat_stream_is_not_the_game_streams():
    """A policy's stream shares no state with the game's own streams (dice, deal)."""
    streams = rng.new_streams()
    rng.seed_streams(streams, 7, 3)
    game_words = {int(w) for w in streams.ravel()}
    for seat in range(6):
        assert not game_words & set(_key(7, 3, seat))


def test_seat_stream_draws_are_uniform():
    """Seats 0-5 of 2,000 games, one draw in [0, 6) each: chi-square against uniform at
    df=5; p > 0.001 for this fixed seed (the statistic is deterministic)."""
    from scipy.stats import chisquare

    streams = np.zeros((1, 2), dtype=np.uint64)
    draws = np.zeros(6, dtype=np.int64)
    for g in range(2000):
        for seat in range(6):
            rng.seed_policy_stream(streams, 0, 11, g, seat, 0)
            draws[rng.randbelow(streams, 0, 6)] += 1
    assert chisquare(draws).pvalue > 1e-3


def test_policy_failure_lines():
    from sheepsim import plugins

    e = plugins.policy_failure(plugins.ILLEGAL_CHOICE, "mymod:pick", 1, 1234, 7, 5)
    assert str(e) == ("policy 'mymod:pick' (seat 2) in game 1234 returned option 7, "
                      "not one of its 5 legal options 0..4") and e.game == 1234
    e = plugins.policy_failure(plugins.ILLEGAL_CHOICE, "mymod:pick", 1, 1234, 7, 5, "pace")
    assert str(e).endswith("not one of its 5 legal options 0..4 (a 'pace' decision)")
    e = plugins.policy_failure(plugins.WROTE_INPUTS, "mymod:pick", 0, 3, 0, 5, "bet_open")
    assert str(e) == ("policy 'mymod:pick' (seat 1) in game 3 wrote to its read-only inputs "
                      "(view or opts) when asked a 'bet_open' decision with 5 options; a "
                      "policy must not change what it is shown") and e.game == 3
    assert "\n" not in str(e)
    assert plugins.kind_name(("PACE", "BET"), 1) == "bet" and plugins.kind_name(("A",), 3) is None


def test_user_policy_chain_copies_checks_and_dispatches():
    """The one chain builder (``jit.user_policy_chain``): ids past the built-ins reach the
    user's functions with copies; a function that writes to them is reported with
    ``WROTE_INPUTS_CHOICE`` and the engine's arrays are untouched."""
    import numba

    from sheepsim import jit

    @numba.njit
    def builtin(pid, kind, view, opts, n, rand):
        return 0

    @numba.njit
    def last(kind, view, opts, n, rand):
        return n - 1

    @numba.njit
    def vandal(kind, view, opts, n, rand):
        opts[0, 0] = 99
        return 0

    chain = jit.user_policy_chain(builtin, (last, vandal), 5)

    @numba.njit
    def ask(pid, view, opts, n, rand):
        return chain(pid, 0, view, opts, n, rand)

    view = np.arange(4, dtype=np.int64)
    opts = np.arange(6, dtype=np.int64).reshape(3, 2)
    rand = np.zeros((1, 2), dtype=np.uint64)
    assert ask(0, view, opts, 3, rand) == 0
    assert ask(5, view, opts, 3, rand) == 2
    assert ask(6, view, opts, 3, rand) == jit.WROTE_INPUTS_CHOICE
    assert opts[0, 0] == 0 and (view == np.arange(4)).all()
