"""Chunked, reproducible execution of game kernels.

A kernel call simulates games ``start .. start+count-1`` and returns integer
accumulators (counts and sums). Because each game draws only from its own random
streams (see :mod:`sheepsim.rng`) and accumulators are integers, merging chunks by
addition gives *exactly* the same totals for any chunk size, thread count or worker
count. Floating-point summaries are computed from the merged integers afterwards.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from sheepsim.errors import SheepsimError

#: Games per kernel call unless the caller asks otherwise. Big enough to amortise the
#: call overhead and keep both cores busy, small enough for a live progress bar.
DEFAULT_CHUNK = 1 << 17

ChunkFn = Callable[[int, int], Sequence[np.ndarray]]


def check_games(n_games) -> int:
    """Validate a game count from the user."""
    if isinstance(n_games, bool) or not isinstance(n_games, int | np.integer):
        raise SheepsimError(f"games must be a whole number, got {n_games!r}")
    if n_games <= 0:
        raise SheepsimError(f"games must be at least 1, got {n_games}")
    return int(n_games)


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise SheepsimError(f"seed must be a whole number, got {seed!r}")
    if not 0 <= seed < 2**63:
        raise SheepsimError(f"seed must be between 0 and 2**63-1, got {seed}")
    return int(seed)


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the body with ``threads`` numba threads (None: all cores); restores after."""
    import numba

    if threads is None:
        yield numba.get_num_threads()
        return
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise SheepsimError(f"threads must be a whole number >= 1, got {threads!r}")
    if threads > numba.config.NUMBA_NUM_THREADS:
        raise SheepsimError(
            f"threads must be at most {numba.config.NUMBA_NUM_THREADS} on this machine, "
            f"got {threads}"
        )
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


def chunk_bounds(start: int, stop: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    """``(start, count)`` pairs covering ``[start, stop)``."""
    pos = start
    while pos < stop:
        count = min(chunk_size, stop - pos)
        yield pos, count
        pos += count


def progress_bar(total: int, desc: str, enabled: bool | None):
    """A tqdm bar on stderr, shown only when wanted and stderr is a terminal."""
    from tqdm import tqdm

    show = (enabled is not False) and sys.stderr.isatty() and not os.environ.get("CI")
    return tqdm(total=total, desc=desc, unit="game", unit_scale=True, disable=not show,
                file=sys.stderr, leave=False)


def merge(total: list[np.ndarray] | None, part: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Add integer accumulators elementwise (exact)."""
    if total is None:
        return [np.array(a, copy=True) for a in part]
    for acc, a in zip(total, part, strict=True):
        acc += a
    return total


def run_chunked(
    run_chunk: ChunkFn,
    n_games: int,
    *,
    first_game: int = 0,
    chunk_size: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "",
    on_chunk: Callable[[int, list[np.ndarray]], None] | None = None,
) -> list[np.ndarray]:
    """Run games ``first_game .. first_game+n_games-1`` in chunks and merge exactly.

    ``run_chunk(start, count)`` returns a sequence of integer arrays. ``on_chunk(done,
    totals)`` is called after each chunk (checkpointing, convergence traces).
    """
    n_games = check_games(n_games)
    chunk_size = int(chunk_size or DEFAULT_CHUNK)
    if chunk_size < 1:
        raise SheepsimError(f"chunk size must be at least 1, got {chunk_size}")
    totals: list[np.ndarray] | None = None
    with numba_threads(threads), progress_bar(n_games, desc, progress) as bar:
        done = 0
        for start, count in chunk_bounds(first_game, first_game + n_games, chunk_size):
            totals = merge(totals, run_chunk(start, count))
            done += count
            bar.update(count)
            if on_chunk is not None:
                on_chunk(done, totals)
    assert totals is not None
    return totals


def run_until(
    run_chunk: ChunkFn,
    halfwidth: Callable[[list[np.ndarray]], float],
    precision: float,
    *,
    block: int,
    max_games: int,
    chunk_size: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    desc: str = "",
) -> tuple[list[np.ndarray], int]:
    """Sequential stopping: simulate blocks of ``block`` games until
    ``halfwidth(totals) <= precision`` or ``max_games`` is reached.

    Stopping is only checked at multiples of ``block`` (a fixed number, independent of
    ``chunk_size`` and threads), so the same command always stops at the same game count
    with the same totals. Returns ``(totals, games)``.
    """
    if not precision > 0:
        raise SheepsimError(f"precision must be a positive number, got {precision}")
    max_games = check_games(max_games)
    totals: list[np.ndarray] | None = None
    done = 0
    with numba_threads(threads), progress_bar(max_games, desc, progress) as bar:
        while done < max_games:
            n = min(block, max_games - done)
            for start, count in chunk_bounds(done, done + n, int(chunk_size or DEFAULT_CHUNK)):
                totals = merge(totals, run_chunk(start, count))
            done += n
            bar.update(n)
            if halfwidth(totals) <= precision:
                break
    assert totals is not None
    return totals, done
