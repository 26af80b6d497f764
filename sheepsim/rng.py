"""Per-game random streams for numba kernels.

Every game owns independent streams keyed by ``(seed, game index, purpose)``, so a
game's result depends only on the seed and its index, never on which thread or chunk
ran it. Dice, deals/seat draws and policy randomness are separate *purposes*: two
policies compared under the same seed see the same dice (common random numbers) even
if one of them draws random numbers and the other does not.

The generator is SplitMix64 (Steele, Lea & Flood 2014, the generator behind Java's
``SplittableRandom``): the key hash gives each stream its own starting state *and* its
own odd increment ("gamma"), so two streams are different sequences, not offsets of
one sequence (which would overlap with ~1e8 games x 1e3 draws each).

A stream is two ``uint64`` words ``[state, gamma]``; kernels keep a small
``(N_PURPOSES, 2)`` scratch array per thread block and re-key it for every game with
:func:`seed_streams`. numba's global ``np.random`` state is never used.

**A seat's policy stream** is keyed differently (:func:`seed_policy_stream`): by
``(seed, game, seat, phase)`` through Philox4x32-10 (Salmon et al. 2011, the counter-based
generator behind numpy's ``Philox``), a keyed bijection whose key is the seed. The game
streams above are keyed by an invertible mix, so a stream's state would give back the
seed and with it the deal and the dice; a policy holds only its Philox-derived state,
from which neither the seed nor another stream follows without breaking Philox. Each
seat drawing from its own stream also means replacing one seat's policy leaves every
other seat's draws unchanged (common random numbers for head-to-heads).
"""

import numpy as np

from sheepsim.jit import njit

#: Stream purposes. Keep the numbers stable: changing them changes every result.
DICE = 0
DEAL = 1
POLICY = 2
N_PURPOSES = 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G1 = np.uint64(0xFF51AFD7ED558CCD)
_G2 = np.uint64(0xC4CEB9FE1A85EC53)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S33 = np.uint64(33)
_S11 = np.uint64(11)
_S32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_ONE = np.uint64(1)
_TWO53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(inline="always")
def mix64(z):
    """SplitMix64 finaliser (Stafford variant 13): a bijection on uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always")
def _mix_gamma(z):
    # MurmurHash3 finaliser, forced odd: a valid Weyl increment for SplitMix64.
    z = (z ^ (z >> _S33)) * _G1
    z = (z ^ (z >> _S33)) * _G2
    return (z ^ (z >> _S33)) | _ONE


@njit(inline="always")
def stream_key(seed, game, purpose):
    """Hash ``(seed, game, purpose)`` (non-negative ints) to a 64-bit key."""
    k = mix64(np.uint64(seed) + _GOLDEN)
    k = mix64(k ^ (np.uint64(game) * _M2 + _GOLDEN))
    return mix64(k ^ (np.uint64(purpose) * _G1 + _M1))


@njit(inline="always")
def seed_stream(streams, purpose, seed, game):
    """Key row ``purpose`` of ``streams`` (shape ``(N_PURPOSES, 2)``, uint64)."""
    k = stream_key(seed, game, purpose)
    streams[purpose, 0] = mix64(k)
    streams[purpose, 1] = _mix_gamma(k + _GOLDEN)


@njit(inline="always")
def seed_streams(streams, seed, game):
    """Key every purpose row of ``streams`` for one game."""
    for p in range(streams.shape[0]):
        seed_stream(streams, p, seed, game)


@njit(inline="always")
def next_u64(streams, purpose):
    """Next uniform uint64 from stream ``purpose``."""
    s = streams[purpose, 0] + streams[purpose, 1]
    streams[purpose, 0] = s
    return mix64(s)


@njit(inline="always")
def draw_below(state, gamma, n):
    """Exactly uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` from a stream held in
    two local ``uint64`` words; returns ``(value, state after)`` (``gamma`` is fixed).

    Lemire's multiply-and-reject method on the top 32 bits of a draw: a division is
    needed only in the rare case that the low product word falls in the biased range.
    A kernel drawing many numbers in a loop keeps the stream in locals with this (so the
    state stays in a register) and writes it back once; :func:`randbelow` is the same
    draw on a row of a ``streams`` array.
    """
    un = np.uint64(n)
    state += gamma
    m = (mix64(state) >> _S32) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            state += gamma
            m = (mix64(state) >> _S32) * un
            low = m & _MASK32
    return np.int64(m >> _S32), state


@njit(inline="always")
def randbelow(streams, purpose, n):
    """Exactly uniform integer in ``[0, n)`` from stream ``purpose`` (see
    :func:`draw_below`)."""
    value, state = draw_below(streams[purpose, 0], streams[purpose, 1], n)
    streams[purpose, 0] = state
    return value


@njit(inline="always")
def uniform(streams, purpose):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(streams, purpose) >> _S11) * _TWO53


@njit
def shuffle(streams, purpose, arr):
    """Fisher-Yates shuffle of a 1-D array in place."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randbelow(streams, purpose, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)


@njit(inline="always")
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of the counter ``(c0, c1, c2, c3)`` under the key ``(k0, k1)``, all
    32-bit words held in ``uint64``; returns the four output words. Checked against the
    Random123 known-answer vectors in ``tests/test_rng_streams.py``."""
    for r in range(10):
        if r > 0:  # the key is bumped before every round but the first
            k0 = (k0 + _PHILOX_W0) & _MASK32
            k1 = (k1 + _PHILOX_W1) & _MASK32
        p0 = _PHILOX_M0 * c0  # 32 x 32 -> 64 bits: no overflow in uint64
        p1 = _PHILOX_M1 * c2
        c0, c1, c2, c3 = ((p1 >> _S32) ^ c1 ^ k0, p1 & _MASK32,
                          (p0 >> _S32) ^ c3 ^ k1, p0 & _MASK32)
    return c0, c1, c2, c3


@njit(inline="always")
def seed_policy_stream(streams, row, seed, game, seat, phase):
    """Key row ``row`` of ``streams`` as the policy stream of ``seat`` in ``game`` of
    ``seed`` (``phase``: a game's separate decision phases, 0 if it has one): Philox4x32-10
    with the seed as key and ``(game, seat, phase)`` as counter (see the module notes).
    ``seed`` and ``game`` below ``2**64``, ``seat`` and ``phase`` below ``2**32``."""
    s = np.uint64(seed)
    g = np.uint64(game)
    o0, o1, o2, o3 = philox4x32(g & _MASK32, g >> _S32, np.uint64(seat), np.uint64(phase),
                                s & _MASK32, s >> _S32)
    streams[row, 0] = o0 | (o1 << _S32)
    streams[row, 1] = o2 | (o3 << _S32) | _ONE  # odd: a valid Weyl increment


def new_streams() -> np.ndarray:
    """Scratch for one game's streams: ``(N_PURPOSES, 2)`` uint64, not yet keyed."""
    return np.zeros((N_PURPOSES, 2), dtype=np.uint64)


@njit(inline="always")
def policy_stream(streams):
    """The POLICY row of a game's ``(N_PURPOSES, 2)`` streams as a ``(1, 2)`` view: the
    only random stream a policy receives (the dice are the future and stay hidden);
    draws through it advance the game's own policy stream."""
    return streams[POLICY:POLICY + 1]


@njit(inline="always")
def policy_randbelow(rand, n):
    """Uniform integer in ``[0, n)`` from a policy stream ``rand`` (``1 <= n < 2**32``)."""
    return randbelow(rand, 0, n)


@njit(inline="always")
def policy_uniform(rand):
    """Uniform float in ``[0, 1)`` from a policy stream ``rand``."""
    return uniform(rand, 0)
