"""The one driver: run a :class:`~sheepsim.game.Job` for a number of games or to a
precision target, on a backend, with one progress bar and one checkpoint hook.

Games ``[0, n)`` are cut into chunks ``[start, start + size)``; each chunk is a pure
task, and the driver adds the integer counts of the chunks in game order (a chunk that
completes early waits until the ones before it are in). Integer sums do not depend on
where the chunks are cut, so the totals, every checkpoint and the stopping point are the
same on 1 or 2 threads, any chunk size and any number of Dask workers. A precision
target is checked only after every ``job.block`` games (chunks never cross a block end).

Chunk sizes: an explicit ``chunk_games`` is used exactly (a fixed plan, which the Dask
backend needs). Otherwise the thread backend sizes chunks by time: the first chunk is
one game, and each next one aims at :data:`CHUNK_SECONDS` from the measured speed (at
most 8 times the largest chunk so far), so the bar moves and Ctrl-C acts within a couple
of seconds for every game and policy, fast or slow.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job

#: The one ceiling on every game count (``--games``, ``--max-games``, report configs):
#: a typo guard far beyond any real run (days of the fastest simulation), and every
#: count stays well inside int64.
MAX_GAMES = 10**12
#: what a chunk of the thread backend aims to take (seconds): the bar moves, Ctrl-C acts
CHUNK_SECONDS = 1.0
#: a run expected to take longer than this (seconds) says so once its speed is measured
LONG_RUN_SECONDS = 120
#: the speed is measured over at least this long (seconds) before a run is estimated
ESTIMATE_AFTER_SECONDS = 2.0
#: with progress on but no terminal (a log file, CI): one progress line this often (s)
PROGRESS_LINE_SECONDS = 30


def games_problem(n_games, what: str = "games") -> str | None:
    """Why ``n_games`` is not a valid game count, or None: the one rule every entry point
    (CLI options, report configs, Python calls) applies, with one message."""
    if isinstance(n_games, bool) or not isinstance(n_games, int | np.integer):
        return f"{what} must be a whole number, got {n_games!r}"
    if not 1 <= n_games <= MAX_GAMES:
        got = f"{n_games:,}" if n_games < 10**15 else f"about 1e{len(str(int(n_games))) - 1}"
        return f"{what} must be between 1 and {MAX_GAMES:,} (1e{len(str(MAX_GAMES)) - 1}), got {got}"
    return None


def check_games(n_games, what: str = "games") -> int:
    """A game count from the user: a whole number from 1 to :data:`MAX_GAMES`."""
    problem = games_problem(n_games, what)
    if problem:
        raise SheepsimError(problem)
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
    counts: Counts
    tables: dict[str, pd.DataFrame]
    games: int
    stopped_by: str
    halfwidth: float
    #: the convergence rows (:meth:`Job.convergence`); ``trace`` is its public name since 0.1.0
    trace: pd.DataFrame
    precision: float | None
    max_games: int | None
    block: int
    chunk_games: int | None  # None: chunks were sized by time (see the module docstring)
    seconds: float

    @property
    def seed(self) -> int:
        """The seed of the games: the job's (``job.seed``, the seed's one home)."""
        return self.job.seed

    def meta(self, **extra) -> dict:
        """Everything an output records: version, game, rules and hash, policies, seed,
        games, sampling and how the run stopped."""
        from sheepsim.output import base_meta

        fields = {"game": self.job.game, **self.job.meta(), "seed": self.seed,
                  "games": self.games, "stopped_by": self.stopped_by}
        # what the run itself measured about its method (a head-to-head's pairing gain)
        if hasattr(self.job, "result_meta"):
            fields.update(self.job.result_meta(self.tables))
        if self.precision is not None:
            fields.update(precision=self.precision, max_games=self.max_games,
                          block=self.block, max_halfwidth=self.halfwidth)
        fields.update(extra)
        return base_meta(**fields)


def run(job: Job, *, games: int | None = None, precision: float | None = None,
        max_games: int | None = None, chunk_games: int | None = None, backend=None,
        threads: int | None = None, progress: bool | None = None, desc: str = "",
        state: State | None = None,
        on_chunk: Callable[[State], None] | None = None) -> Result:
    """Simulate exactly ``games`` games, or blocks of ``job.block`` games until every
    bounded 95% half-width is at most ``precision`` (or ``max_games`` are done).

    ``backend``: a :class:`ThreadBackend` (default, ``threads`` threads) or a
    :class:`sheepsim.dask_backend.DaskBackend`. ``state``: continue a checkpointed run;
    ``on_chunk(state)`` is called after every merged chunk (checkpoints). Results never
    depend on ``chunk_games``, ``threads`` or the backend. ``chunk_games=None``: sized
    by time on the thread backend, ``job.chunk_games`` on others. The games are those of
    the job's seed (``job.seed``, its one home: the job's chunks read it, the result and
    its metadata record it).
    """
    seed = check_seed(job.seed)
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
    timed = chunk_games is None and getattr(backend, "timed_chunks", False)
    speed = _Speed()
    state = state or State()
    with _session(backend, job, progress) as session, progress_bar(limit, desc, progress) as bar:
        bar.update(state.done)
        notice = _RunNotice(limit, state.done, precision, progress, getattr(job, "shorten_hint", None))
        while not state.finished:
            stop = _segment_end(state.done, limit, job.block, precision)
            plan = _TimedChunks(state.done, stop, speed) if timed else _chunks(state.done, stop, chunk)
            t0 = time.perf_counter()
            for start, n, counts in session.ordered(plan):
                _check_chunk(job, counts, seed, start, n)
                state.counts = merge(state.counts, counts)
                state.done = start + n
                state.seconds += time.perf_counter() - t0
                t0 = time.perf_counter()
                bar.update(state.done - bar.n)
                notice.update(state.done)
                if state.done == stop:
                    state.finished = _stop_here(job, state, limit, precision)
                if on_chunk is not None:
                    on_chunk(state)
    return _result(job, state, precision, limit, None if timed else chunk)


def _check_chunk(job: Job, counts: Counts, seed: int | None, start: int, n: int) -> None:
    """Stop at the first chunk whose counts show a broken rule (:meth:`Job.check`, e.g. a
    user policy's illegal choice), naming its games (``seed=None``: the warm-up game),
    instead of after the whole run."""
    try:
        job.check(counts, n)
    except SheepsimError as exc:
        raise chunk_error(exc, seed, start, n) from None


def _segment_end(done: int, limit: int, block: int, precision) -> int:
    """Where the next stretch of chunks ends: the game count, or the next block boundary."""
    if precision is None:
        return limit
    return min((done // block + 1) * block, limit)


def _chunks(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(size, stop - s)) for s in range(start, stop, size)]


class _Speed:
    """Measured chunk times of a run (wall seconds per game while chunks run)."""

    def __init__(self):
        self.games = 0
        self.seconds = 0.0
        self.largest = 0

    def record(self, n: int, seconds: float) -> None:
        self.games += n
        self.seconds += seconds
        self.largest = max(self.largest, n)

    def next_size(self) -> int:
        """Games for a chunk of about :data:`CHUNK_SECONDS`: one game until a chunk
        has been timed, then the measured speed, growing at most 8-fold per step."""
        if self.games == 0:
            return 1
        per_game = self.seconds / self.games
        want = CHUNK_SECONDS / per_game if per_game > 0 else math.inf
        return int(max(1, min(want, 8 * self.largest)))


class _TimedChunks:
    """The chunks of ``[start, stop)``, each sized when the backend asks for it (so it
    uses the latest timings); ``record(n, seconds)`` is the backend's report."""

    def __init__(self, start: int, stop: int, speed: _Speed):
        self.next, self.stop, self.speed = start, stop, speed

    def __iter__(self):
        return self

    def __next__(self) -> tuple[int, int]:
        if self.next >= self.stop:
            raise StopIteration
        n = min(self.speed.next_size(), self.stop - self.next)
        self.next += n
        return self.next - n, n

    def record(self, n: int, seconds: float) -> None:
        self.speed.record(n, seconds)


def _stop_here(job: Job, state: State, limit: int, precision) -> bool:
    if precision is None:
        return state.done >= limit
    tables = job.tables(state.counts, state.done)
    half = float(job.halfwidth(tables))
    state.checks.append((state.done, half))
    state.trace += [{"games": state.done, **row, "halfwidth_max": half} for row in job.convergence(tables)]
    return half <= precision or state.done >= limit


def _result(job: Job, state: State, precision, limit: int, chunk: int | None) -> Result:
    job.check(state.counts, state.done)
    tables = job.tables(state.counts, state.done)
    half = float(job.halfwidth(tables))
    if precision is None or not state.trace:
        state.trace = [{"games": state.done, **row, "halfwidth_max": half} for row in job.convergence(tables)]
    trace = pd.DataFrame(state.trace)
    if precision is None:
        stopped = "games"
    else:
        stopped = "precision" if half <= precision else "max_games"
        if stopped == "max_games":
            sys.stderr.write(f"sheepsim: warning: stopped at --max-games {state.done:,} with "
                             f"half-width {half:.4g} > precision {precision:g}\n")
    return Result(job, state.counts, tables, state.done, stopped, half, trace,
                  precision, limit if precision is not None else None, job.block, chunk,
                  state.seconds)


# ----------------------------------------------------------------------- backends
class ThreadBackend:
    """Chunks on a pool of ``threads`` threads in this process (the kernels release the
    GIL). ``threads=None``: one per core. Chunks may be sized by time (see the module
    docstring): their results never depend on it."""

    timed_chunks = True

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

        # Kernels run on pool threads, even with one thread, and the warm-up game too:
        # a kernel holds its thread until it returns, so the main thread only waits and
        # sees Ctrl-C at once; on an error the run does not wait for chunks in flight
        # (the command line then ends the process; see cli.run).
        self.pool = ThreadPoolExecutor(self.threads)
        try:
            warm_up = self.pool.submit(self.job.prepare).result()
            if warm_up is not None:
                _check_chunk(self.job, warm_up, None, 0, 1)
        except BaseException as exc:  # Ctrl-C while compiling, or the warm-up game failed
            self.pool.shutdown(wait=False, cancel_futures=True)
            if isinstance(exc, SheepsimError) or not isinstance(exc, Exception):
                raise
            raise chunk_error(exc, None, 0, 1, self.job) from exc  # e.g. a user policy's
        return self

    def __exit__(self, *exc):
        self.pool.shutdown(wait=exc[0] is None, cancel_futures=True)
        return False

    def ordered(self, chunks) -> Iterator[tuple[int, int, Counts]]:
        """``(start, n, counts)`` per chunk in game order, at most ``2 * threads`` in
        flight. ``chunks``: ``(start, n)`` pairs, taken one at a time as slots free up;
        if it has ``record(n, seconds)``, every chunk's time is reported to it."""
        record = getattr(chunks, "record", None)
        it = iter(chunks)
        from collections import deque

        queue: deque = deque()
        for start, n in it:
            queue.append((start, n, self.pool.submit(self._chunk, start, n)))
            if len(queue) >= 2 * self.threads:
                break
        while queue:
            start, n, fut = queue.popleft()
            counts, seconds = fut.result()
            if record:
                record(n, seconds)
            nxt = next(it, None)
            if nxt is not None:
                queue.append((*nxt, self.pool.submit(self._chunk, *nxt)))
            yield start, n, counts

    def _chunk(self, start: int, n: int) -> tuple[Counts, float]:
        t0 = time.perf_counter()
        try:
            counts = self.job.chunk(start, n)
        except Exception as exc:  # a kernel or user policy failing: one line, the game named
            first = (start if getattr(exc, "game", None) is not None  # named in the line
                     else first_failing_game(self.job, start, n))
            raise chunk_error(exc, self.job.seed, first, 1, self.job) from exc
        return counts, time.perf_counter() - t0


def first_failing_game(job: Job, start: int, n: int) -> int:
    """The first game of ``[start, start + n)`` whose play raises, for a chunk of them that
    raised: halves of the chunk are played again, the first half that raises kept (a
    game's play depends only on the seed and its number, so a chunk raises if and only if
    one of its games does). About ``n`` games more, on the error's path alone; the line
    then names the same game whatever the chunks were (``--threads``, timing)."""
    lo, hi = start, start + n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            job.chunk(lo, mid - lo)
        except Exception:  # noqa: BLE001 - the same failure, earlier
            hi = mid
        else:
            lo = mid
    return lo


def chunk_error(exc: BaseException, seed: int | None, start: int, n: int,
                job: Job | None = None, context: str = "") -> SheepsimError:
    """One :class:`SheepsimError` line for a chunk that raised: the cause (numba's
    ``SystemError: ... returned a result with an exception set`` is replaced by the
    exception the kernel raised; a numba typing error, e.g. a plug-in policy that does
    not return an integer on every path, by its most specific line), ``context`` (words
    naming what was in play) and the games it was running, to reproduce it
    (``seed=None``: the warm-up game :meth:`Job.prepare` plays)."""
    cause = exc
    while isinstance(cause, SystemError) and (cause.__cause__ or cause.__context__) is not None:
        cause = cause.__cause__ or cause.__context__
    text = str(cause).strip().splitlines()
    what = text[0] if text else type(cause).__name__
    if _is_typing_error(cause):
        detail = _typing_detail(text)
        what = f"the kernels did not compile with the policies in play (numba: {detail})"
        if re.search(r"unify|none|optional", detail, re.IGNORECASE):  # a path without a result
            what += "; a policy must return an integer on every path"
    elif not isinstance(cause, SheepsimError | ValueError):  # kernels raise ValueError(reason)
        what = f"{type(cause).__name__}: {what}" if text else what
    if job is not None:
        what += job.error_context(what)
    what += context
    if seed is None:
        return SheepsimError(f"{what} (in the warm-up game that compiles the kernels)")
    if getattr(cause, "game", None) is not None:  # the line names its game already
        return SheepsimError(f"{what} (seed {seed})")
    last = start + n - 1
    games = f"game {start:,}" if n == 1 else f"games {start:,}-{last:,}"
    return SheepsimError(f"{what} (in {games} of seed {seed})")


def kernel_call_error(exc: BaseException, seed: int, game: int, names) -> SheepsimError:
    """:func:`chunk_error` for a game played outside the driver (a trace) that raised:
    one line with the cause, the plug-in policies among ``names`` (the seats' policy
    names; all of them if none is a plug-in), the game and the seed."""
    if isinstance(exc, SheepsimError):
        return exc
    names = [str(n) for n in names]
    plugins = list(dict.fromkeys(n for n in names if ":" in n)) or list(dict.fromkeys(names))
    return chunk_error(exc, seed, game, 1,
                       context=f"; plug-in policies in play: {', '.join(plugins)}")


def _is_typing_error(exc: BaseException) -> bool:
    return any(c.__name__ == "TypingError" and c.__module__.startswith("numba")
               for c in type(exc).__mro__)


def _typing_detail(lines: list[str]) -> str:
    """The most specific line of a numba typing error: its innermost ``...Error: ...``,
    or, after numba's heading ``Failed in nopython mode pipeline ...``, the line that
    says what failed (``Unknown attribute 'foo' of type ...``)."""
    found = [(i, m.group(1).strip()) for i, line in enumerate(lines)
             if (m := re.search(r"(?:Numba\w*Error|TypingError): (.+)", line))]
    i, detail = found[-1] if found else (0, lines[0].strip() if lines else "typing error")
    if detail.startswith("Failed in "):
        rest = [line.strip() for line in lines[i + 1:]  # nested calls repeat the heading
                if line.strip() and not line.startswith("Failed in ")]
        if rest and not rest[0].startswith(("File ", "During:")):
            detail = rest[0]
    return detail


def _duration(seconds: float) -> str:
    """``"about 6 min"``, ``"about 2.5 h"``, ``"about 3 days"``."""
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"about {seconds / 3600:.1f} h"
    return f"about {seconds / 86400:.0f} days"


class _RunNotice:
    """What a run says on stderr besides the bar: once its speed is measured (after
    :data:`ESTIMATE_AFTER_SECONDS`), whether it will take longer than
    :data:`LONG_RUN_SECONDS` and how to shorten it; and without a terminal (progress
    asked for explicitly, ``progress=True``, as the CLI does unless ``--quiet``), a
    line every :data:`PROGRESS_LINE_SECONDS`. ``progress=False`` says nothing; ``None``
    (the Python default) only the estimate, and only on a terminal."""

    def __init__(self, limit: int, done: int, precision, progress: bool | None,
                 shorten_hint: str | None = None):
        self.limit, self.first, self.precision = limit, done, precision
        self.shorten_hint = shorten_hint  # the job's own advice (Job.shorten_hint)
        self.t0 = self.last_line = time.monotonic()
        self.estimate = progress is True or _show(progress)
        self.lines = progress is True and not sys.stderr.isatty()
        self.said = False

    def update(self, done: int) -> None:
        if not (self.estimate or self.lines):
            return
        now = time.monotonic()
        elapsed, ran = now - self.t0, done - self.first
        if ran <= 0 or elapsed <= 0:
            return
        left = (self.limit - done) * elapsed / ran
        if self.estimate and not self.said and elapsed >= ESTIMATE_AFTER_SECONDS:
            self.said = True
            if elapsed + left > LONG_RUN_SECONDS:
                upto = "up to " if self.precision is not None else ""
                if self.precision is not None:
                    shorter = "a larger --precision or a smaller --max-games"
                else:
                    shorter = self.shorten_hint or ("fewer --games, or --precision P (stop once "
                                                    "every 95% half-width is at most P)")
                _say(f"this run will take {upto}{_duration(elapsed + left)} ({self.limit:,} "
                     f"games at about {ran / elapsed:,.0f} games/s); {shorter} shortens it")
        if self.lines and now - self.last_line >= PROGRESS_LINE_SECONDS and done < self.limit:
            self.last_line = now
            _say(f"{done:,} of {self.limit:,} games ({done / self.limit:.0%}), "
                 f"{_duration(left)} left")


def _say(text: str) -> None:
    sys.stderr.write(f"sheepsim: {text}\n")
    sys.stderr.flush()


def progress_bar(total: int, desc: str, enabled: bool | None):
    """A tqdm bar on stderr, shown only when wanted and stderr is a terminal (else a
    stand-in that counts, so a quiet run does not import tqdm)."""
    if not _show(enabled):
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="game", unit_scale=True, file=sys.stderr,
                leave=False)


class _NoBar:
    """What the driver uses of a hidden tqdm bar: ``n`` and ``update``, as a context."""

    def __init__(self):
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def _show(enabled: bool | None) -> bool:
    return (enabled is not False) and sys.stderr.isatty() and not os.environ.get("CI")


@contextmanager
def _session(backend, job: Job, progress: bool | None):
    """The backend's session for ``job``; entering it prepares the job (compiles or loads
    the kernels), and when that takes a while the terminal says so."""
    with compile_notice(_show(progress)):
        session = backend.session(job)
        entered = session.__enter__()
    try:
        yield entered
    except BaseException:
        if not session.__exit__(*sys.exc_info()):
            raise
    else:
        session.__exit__(None, None, None)


#: seconds of silence before the compile notice appears (a warm cache loads faster)
NOTICE_AFTER = 1.5


@contextmanager
def compile_notice(enabled: bool, after: float = NOTICE_AFTER, stream=None):
    """While the body runs for more than ``after`` seconds, show ``compiling kernels
    (first run only)... 12 s`` on ``stream`` (stderr), updated every second; then the
    total time. Only on a terminal (``enabled``): never in pipes, files or CI logs."""
    if not enabled:
        yield
        return
    import threading

    stream = stream or sys.stderr
    done = threading.Event()
    t0 = time.perf_counter()
    shown = []

    def tick():
        if done.wait(after):
            return
        while not done.wait(0 if not shown else 1.0):
            stream.write(f"\rsheepsim: compiling kernels (first run only)... "
                         f"{time.perf_counter() - t0:.0f} s")
            stream.flush()
            shown.append(True)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if shown:
            stream.write(f"\rsheepsim: compiling kernels (first run only)... done in "
                         f"{time.perf_counter() - t0:.0f} s\n")
            stream.flush()
