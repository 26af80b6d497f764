"""The one driver: run a :class:`~sheepsim.game.Job` for a number of games or to a
precision target, on a backend, with one progress bar and one checkpoint hook.

The work plan depends only on the seed, the game count (or block size) and the chunk
size: games ``[0, n)`` are cut into chunks ``[start, start + chunk)`` fixed in advance,
each chunk is a pure task, and the driver adds the integer counts of the chunks in game
order (a chunk that completes early waits in ``pending`` until the ones before it are
in). So the totals, every checkpoint and the stopping point are the same on 1 or 2
threads and on any number of Dask workers. A precision target is checked only after
every ``job.block`` games.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job

#: ``--games``/``max_games`` ceiling: far beyond any run, and every count fits in int64.
MAX_GAMES = 10**12


def check_games(n_games, what: str = "games") -> int:
    """A game count from the user: a whole number from 1 to :data:`MAX_GAMES`."""
    if isinstance(n_games, bool) or not isinstance(n_games, int | np.integer):
        raise SheepsimError(f"{what} must be a whole number, got {n_games!r}")
    if not 1 <= n_games <= MAX_GAMES:
        raise SheepsimError(f"{what} must be between 1 and {MAX_GAMES:.0e}, got {n_games}")
    return int(n_games)


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise SheepsimError(f"seed must be a whole number, got {seed!r}")
    if not 0 <= seed < 2**63:
        raise SheepsimError(f"seed must be between 0 and 2**63-1, got {seed}")
    return int(seed)


def merge(total: Counts | None, part: Counts) -> Counts:
    """Add integer counts elementwise (exact, so the order never matters)."""
    if total is None:
        return {k: np.array(v, dtype=np.int64, copy=True) for k, v in part.items()}
    if total.keys() != part.keys():
        raise RuntimeError(f"chunk counts changed shape: {sorted(total)} vs {sorted(part)}")
    for k, v in part.items():
        total[k] += v
    return total


@dataclass
class State:
    """Where a run is: merged ``counts`` of games ``[0, done)``; ``finished`` once the
    stopping rule fired; ``checks`` the precision checks so far ``(games, half-width)``.
    This is exactly what a checkpoint stores."""

    counts: Counts | None = None
    done: int = 0
    finished: bool = False
    checks: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0  # wall time spent simulating (all sessions of a resumed run)
    trace: list[dict] = field(default_factory=list)  # convergence rows (not checkpointed)


@dataclass
class Result:
    """A finished run: ``counts``, ``tables`` built from them, ``games`` simulated,
    ``stopped_by`` (``"games"``, ``"precision"`` or ``"max_games"``), ``halfwidth`` the
    widest 95% half-width of the bounded probabilities, ``trace`` the convergence trace
    (one row per block and traced quantity), the sampling settings and ``seconds``."""

    job: Job
    seed: int
    counts: Counts
    tables: dict[str, pd.DataFrame]
    games: int
    stopped_by: str
    halfwidth: float
    trace: pd.DataFrame
    precision: float | None
    max_games: int | None
    block: int
    chunk_games: int
    seconds: float

    def meta(self, **extra) -> dict:
        """Everything an output records: version, game, rules and hash, policies, seed,
        games, sampling and how the run stopped."""
        from sheepsim.output import base_meta

        fields = {"game": self.job.game, **self.job.meta(), "seed": self.seed,
                  "games": self.games, "stopped_by": self.stopped_by}
        if self.precision is not None:
            fields.update(precision=self.precision, max_games=self.max_games,
                          block=self.block, max_halfwidth=self.halfwidth)
        fields.update(extra)
        return base_meta(**fields)


def run(job: Job, *, seed: int = 0, games: int | None = None, precision: float | None = None,
        max_games: int | None = None, chunk_games: int | None = None, backend=None,
        threads: int | None = None, progress: bool | None = None, desc: str = "",
        state: State | None = None,
        on_chunk: Callable[[State], None] | None = None) -> Result:
    """Simulate exactly ``games`` games, or blocks of ``job.block`` games until every
    bounded 95% half-width is at most ``precision`` (or ``max_games`` are done).

    ``backend``: a :class:`ThreadBackend` (default, ``threads`` threads) or a
    :class:`sheepsim.dask_backend.DaskBackend`. ``state``: continue a checkpointed run;
    ``on_chunk(state)`` is called after every merged chunk (checkpoints). Results never
    depend on ``chunk_games``, ``threads`` or the backend.
    """
    seed = check_seed(seed)
    if (games is None) == (precision is None):
        raise SheepsimError("give either a number of games or a precision, not both")
    if precision is not None:
        if not (isinstance(precision, int | float) and precision > 0 and math.isfinite(precision)):
            raise SheepsimError(f"precision must be a positive number, got {precision!r}")
        max_games = check_games(max_games or job.max_games, "max games")
        limit = max_games
    else:
        limit = check_games(games)
    chunk = int(chunk_games or job.chunk_games)
    if chunk < 1:
        raise SheepsimError(f"chunk size must be at least 1, got {chunk}")
    backend = backend or ThreadBackend(threads)
    state = state or State()
    with backend.session(job) as session, progress_bar(limit, desc, progress) as bar:
        bar.update(state.done)
        while not state.finished:
            stop = _segment_end(state.done, limit, job.block, precision)
            t0 = time.perf_counter()
            for start, n, counts in session.ordered(seed, _chunks(state.done, stop, chunk)):
                state.counts = merge(state.counts, counts)
                state.done = start + n
                state.seconds += time.perf_counter() - t0
                t0 = time.perf_counter()
                bar.update(state.done - bar.n)
                if state.done == stop:
                    state.finished = _stop_here(job, state, limit, precision)
                if on_chunk is not None:
                    on_chunk(state)
    return _result(job, seed, state, precision, limit, chunk)


def _segment_end(done: int, limit: int, block: int, precision) -> int:
    """Where the next stretch of chunks ends: the game count, or the next block boundary."""
    if precision is None:
        return limit
    return min((done // block + 1) * block, limit)


def _chunks(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(size, stop - s)) for s in range(start, stop, size)]


def _stop_here(job: Job, state: State, limit: int, precision) -> bool:
    if precision is None:
        return state.done >= limit
    tables = job.tables(state.counts, state.done)
    half = float(job.halfwidth(tables))
    state.checks.append((state.done, half))
    state.trace += [{"games": state.done, **row, "halfwidth_max": half} for row in job.trace(tables)]
    return half <= precision or state.done >= limit


def _result(job: Job, seed: int, state: State, precision, limit: int, chunk: int) -> Result:
    job.check(state.counts, state.done)
    tables = job.tables(state.counts, state.done)
    half = float(job.halfwidth(tables))
    if precision is None or not state.trace:
        state.trace = [{"games": state.done, **row, "halfwidth_max": half} for row in job.trace(tables)]
    trace = pd.DataFrame(state.trace)
    if precision is None:
        stopped = "games"
    else:
        stopped = "precision" if half <= precision else "max_games"
        if stopped == "max_games":
            sys.stderr.write(f"sheepsim: warning: stopped at --max-games {state.done:,} with "
                             f"half-width {half:.4g} > precision {precision:g}\n")
    return Result(job, seed, state.counts, tables, state.done, stopped, half, trace,
                  precision, limit if precision is not None else None, job.block, chunk,
                  state.seconds)


# ----------------------------------------------------------------------- backends
class ThreadBackend:
    """Chunks on a pool of ``threads`` threads in this process (the kernels release the
    GIL). ``threads=None``: one per core."""

    def __init__(self, threads: int | None = None):
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or threads < 1):
            raise SheepsimError(f"threads must be a whole number >= 1, got {threads!r}")
        cores = os.cpu_count() or 1
        if threads is not None and threads > 4 * cores:
            raise SheepsimError(f"threads must be at most {4 * cores} on this machine "
                                f"({cores} cores), got {threads}")
        self.threads = threads or cores

    def session(self, job: Job):
        return _ThreadSession(job, self.threads)


class _ThreadSession:
    def __init__(self, job: Job, threads: int):
        self.job = job
        self.threads = threads
        self.pool = None

    def __enter__(self):
        from concurrent.futures import ThreadPoolExecutor

        self.job.prepare()
        self.pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        return False

    def ordered(self, seed: int, chunks: list[tuple[int, int]]) -> Iterator[tuple[int, int, Counts]]:
        """``(start, n, counts)`` per chunk in game order, at most ``2 * threads`` in flight."""
        if self.pool is None:
            for start, n in chunks:
                yield start, n, self.job.chunk(seed, start, n)
            return
        from collections import deque

        queue: deque = deque()
        it = iter(chunks)
        for start, n in it:
            queue.append((start, n, self.pool.submit(self.job.chunk, seed, start, n)))
            if len(queue) >= 2 * self.threads:
                break
        while queue:
            start, n, fut = queue.popleft()
            counts = fut.result()
            nxt = next(it, None)
            if nxt is not None:
                queue.append((*nxt, self.pool.submit(self.job.chunk, seed, *nxt)))
            yield start, n, counts


def progress_bar(total: int, desc: str, enabled: bool | None):
    """A tqdm bar on stderr, shown only when wanted and stderr is a terminal."""
    from tqdm import tqdm

    show = (enabled is not False) and sys.stderr.isatty() and not os.environ.get("CI")
    return tqdm(total=total, desc=desc, unit="game", unit_scale=True, disable=not show,
                file=sys.stderr, leave=False)
