"""Run the driver's chunks on Dask distributed: a cluster, or a ``LocalCluster`` here.

:class:`DaskBackend` speaks the driver's backend protocol (``session(job)`` giving an
object whose ``ordered(chunks)`` yields ``(start, n, counts)`` in game order), so
the work plan is the driver's, never the cluster's: chunks are fixed by the job (its seed) and the
chunk size, each is a pure task ``(job, start, n) -> counts``, results are taken
as they complete (``as_completed``) and handed to the driver in game order (a chunk
that finishes early waits in a small buffer). Totals, checkpoints and precision stops
are therefore byte-identical to the thread backend on any number of workers.

Faults. A worker that dies (SIGKILL, lost node) loses its running and finished-but-not-
yet-fetched chunks; the scheduler recomputes them elsewhere (its ``allowed-failures``;
a ``LocalCluster`` started here allows :data:`ALLOWED_FAILURES`), and tasks that raise
are retried ``retries`` times. Each chunk is one future keyed by its first game and is
merged once, by its start. A chunk that still fails (user code raising, a worker dying
too often) stops the run with one :class:`SheepsimError` line naming the chunk.

Losses. A scheduler lost mid-run stops the run with one line saying so. Workers that
are all gone (killed and not restarted) are waited for up to ``worker_timeout``
seconds (:data:`WORKER_TIMEOUT`, ``--worker-timeout``), then the run stops with one
line. Local workers started here ignore Ctrl-C (the client stops them), so an
interrupt prints one line, not a traceback per worker; distributed's own log lines stay
off the terminal unless ``SHEEPSIM_DASK_LOGS`` names a level (``WARNING``, ``INFO``).

Workers. At the start of every session the workers must run this sheepsim version on
this package source (:func:`sheepsim.jit.source_digest`), else the run is refused. A
worker plugin warms the job's kernels (``job.prepare()``) on every worker, and again on
a worker that joins or restarts later, before it takes chunks; the workers sharing a
kernel cache folder (a machine's) warm up one at a time (a lock file in the cache
root, :data:`WARM_LOCK`), so the first compiles and the others load what it wrote
instead of compiling the same kernels at once. Each task runs its
kernel on one numba thread: a worker's parallelism is its Dask thread count (``dask
worker --nthreads K``; ``threads_per_worker`` for a local cluster). Kernels are cached
in the worker's own ``SHEEPSIM_CACHE_DIR`` (default: its user cache folder); keep that
on a node-local disk, never a shared network folder (``cache_dir=`` sets it).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections import deque
from collections.abc import Iterator

from sheepsim import jit
from sheepsim._version import __version__
from sheepsim.errors import SheepsimError
from sheepsim.game import Counts, Job

try:  # an optional extra: sheepsim[dask]
    from distributed.diagnostics.plugin import WorkerPlugin as _PluginBase
except ImportError:  # pragma: no cover - DaskBackend() then says what to install
    _PluginBase = object

#: how long to wait for a scheduler to answer before giving up (seconds)
CONNECT_TIMEOUT = 8
#: how long to wait for a worker when a cluster has none (at the start, or after every
#: worker was lost mid-run) before giving up (seconds; ``worker_timeout=``)
WORKER_TIMEOUT = 60
#: how often a waiting run checks that the scheduler and some worker are still there (s)
POLL_SECONDS = 1.0
#: the environment variable that lets distributed's log lines through, at that level
LOG_VARIABLE = "SHEEPSIM_DASK_LOGS"
#: worker deaths a chunk may see before it fails (the scheduler's allowed-failures),
#: for the LocalCluster this module starts
ALLOWED_FAILURES = 3
PLUGIN_NAME = "sheepsim-warm-up"
#: the file in the kernel cache root that the warm-ups of the workers sharing that
#: cache lock in turn (:func:`_warm_lock`)
WARM_LOCK = "warm-up.lock"


class DaskBackend:
    """Chunks as Dask tasks: on ``client`` (a ``distributed.Client``), on the scheduler
    at ``scheduler`` (``"tcp://host:8786"``), or on a ``LocalCluster`` of ``workers``
    processes with ``threads_per_worker`` threads each, started here without dashboard.

    ``max_in_flight``: chunks submitted but not yet merged (default twice the cluster's
    threads), which bounds memory. ``retries``: reruns of a chunk that raised.
    ``cache_dir``: the workers' kernel cache root (default: each worker's own
    ``SHEEPSIM_CACHE_DIR`` or user cache folder). ``connect_timeout``: how long to wait for
    the scheduler to answer (s; default :data:`CONNECT_TIMEOUT`). Connects on first use; use as a context
    manager or call :meth:`close` (a client passed in is left open).
    """

    def __init__(self, client=None, *, scheduler: str | None = None, workers: int | None = None,
                 threads_per_worker: int = 1, max_in_flight: int | None = None, retries: int = 1,
                 cache_dir: str | None = None, connect_timeout: float | None = None,
                 worker_timeout: float = WORKER_TIMEOUT):
        if sum(x is not None for x in (client, scheduler, workers)) != 1:
            raise SheepsimError("give exactly one of a Dask client, a scheduler address or "
                                "a number of local workers")
        for name, value, low in (("workers", workers, 1), ("threads per worker", threads_per_worker, 1),
                                 ("max in flight", max_in_flight, 1), ("retries", retries, 0)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < low):
                raise SheepsimError(f"{name} must be a whole number >= {low}, got {value!r}")
        if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
            raise SheepsimError(f"the scheduler address must be like tcp://host:8786, got {scheduler!r}")
        if isinstance(worker_timeout, bool) or not isinstance(worker_timeout, int | float) \
                or not worker_timeout > 0:
            raise SheepsimError(f"the worker timeout must be a positive number of seconds, got "
                                f"{worker_timeout!r}")
        _require_distributed()
        _quiet_logs()
        self.client, self.scheduler, self.workers = client, scheduler, workers
        self.threads_per_worker, self.max_in_flight, self.retries = (
            threads_per_worker, max_in_flight, retries)
        # None: CONNECT_TIMEOUT as it is when the backend is made (a test may shorten it)
        self.cache_dir = cache_dir
        self.connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.worker_timeout = worker_timeout
        self._owned: list = []  # what close() shuts down (a cluster and/or client made here)

    def start(self):
        """Connect (or start the local cluster) now; the connected client."""
        if self.client is None:
            self.client = self._connect() if self.scheduler else self._local_cluster()
        return self.client

    def _connect(self):
        from distributed import Client

        _check_tls(self.scheduler)
        try:
            client = Client(self.scheduler, timeout=self.connect_timeout, set_as_default=False)
        except TimeoutError:
            raise SheepsimError(f"cannot reach the Dask scheduler at {self.scheduler} (no "
                                f"answer within {self.connect_timeout:g} s)") from None
        except (OSError, ValueError, TypeError) as exc:
            raise SheepsimError(f"cannot reach the Dask scheduler at {self.scheduler}: "
                                f"{_first_line(exc)}") from None
        self._owned.append(client)
        return client

    def _local_cluster(self):
        import logging

        import dask
        from distributed import Client, LocalCluster

        with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}), \
                _quiet_workers():
            cluster = LocalCluster(n_workers=self.workers, processes=True,
                                   threads_per_worker=self.threads_per_worker,
                                   dashboard_address=None,
                                   silence_logs=_log_level(logging.CRITICAL),
                                   # no dashboard; its health/metrics server on any free
                                   # port rather than a warning that 8787 is taken
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            # owned before leaving the block: a Ctrl-C held during the start is raised
            # as it ends, and close() must then shut this cluster down
            self._owned.append(cluster)
        client = Client(cluster, set_as_default=False)
        self._owned.insert(0, client)
        return client

    def close(self) -> None:
        """Shut down the client and local cluster this backend started (if any); a
        client whose scheduler is gone is closed without waiting for it."""
        from distributed import Client

        # a client whose scheduler is gone: close without waiting on it (a lost local
        # scheduler would otherwise keep the cluster's close waiting for half a minute)
        lost = any(isinstance(t, Client) and not _running(t) for t in self._owned)
        with _quiet_asyncio():
            self._close_owned(lost)
        if self.scheduler is not None or self.workers is not None:
            self.client = None

    def _close_owned(self, lost: bool) -> None:
        while self._owned:
            thing = self._owned.pop(0)
            if not lost:
                thing.close()
                continue
            try:
                thing.close(timeout=2)
            except Exception:  # noqa: BLE001 - already reported: the scheduler is gone
                # what could be closed is; do not let the object warn again when collected
                from distributed.core import Status

                thing.status = Status.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def session(self, job: Job) -> _DaskSession:
        return _DaskSession(self, job)


class _DaskSession:
    """One driver run on the cluster: checks the workers, warms them, runs chunks."""

    def __init__(self, backend: DaskBackend, job: Job):
        self.backend, self.job = backend, job
        self.token = uuid.uuid4().hex[:12]
        self.live: set = set()  # futures submitted and not yet merged

    def __enter__(self):
        client = self.backend.start()
        self.expect = local_identity()
        check_workers(client, self.expect)
        _register_warm_up(client, self.job, self.backend.cache_dir)
        threads = sum(client.nthreads().values())
        self.window = self.backend.max_in_flight or max(2, 2 * threads)
        return self

    def __exit__(self, *exc):
        if not _running(self.backend.client):  # the scheduler is gone: nothing to tidy
            self.live.clear()
            return False
        for fut in self.live:
            fut.cancel()
        self.live.clear()
        try:  # a shared cluster is left as found
            self.backend.client.unregister_worker_plugin(PLUGIN_NAME)
        except Exception:  # noqa: BLE001, S110 - the cluster may be gone already
            pass
        return False

    def _check_cluster(self, since: list, games: str) -> None:
        """Between waits: one line if the scheduler is gone, or if no worker has been
        there for ``worker_timeout`` seconds (``since[0]``: when the last one left)."""
        import time

        client, backend = self.backend.client, self.backend
        if not _running(client):
            raise SheepsimError(f"lost the Dask scheduler{_at(backend)} during the run ({games} "
                                "not done); nothing was written")
        try:
            workers = client.nthreads()
        except Exception:  # noqa: BLE001 - the scheduler went away while asked
            raise SheepsimError(f"lost the Dask scheduler{_at(backend)} during the run ({games} "
                                "not done); nothing was written") from None
        if workers:
            since[0] = None
            return
        since[0] = since[0] or time.monotonic()
        if time.monotonic() - since[0] >= backend.worker_timeout:
            raise SheepsimError(f"every Dask worker is gone: none for {backend.worker_timeout:g} s "
                                f"(--worker-timeout), {games} not done; nothing was written")

    def _submit(self, start: int, n: int):
        fut = self.backend.client.submit(
            run_chunk, self.job, self.token, start, n, self.expect,
            key=f"sheepsim-chunk-{self.token}-{self.job.seed}-{start}", pure=False,
            retries=self.backend.retries)
        self.live.add(fut)
        return fut

    def ordered(self, chunks: list[tuple[int, int]]) -> Iterator[tuple[int, int, Counts]]:
        """``(start, n, counts)`` per chunk in game order, at most ``window`` chunks
        submitted but not yet yielded (running, queued or waiting in the buffer)."""
        todo = iter(chunks)
        expected = deque(start for start, _ in chunks)
        unmerged = set(expected)
        where: dict = {}  # future -> (start, n), submitted and not yet finished
        buffer: dict[int, tuple[int, Counts]] = {}  # start -> (n, counts), complete chunks
        no_workers_since = [None]

        def submit_next() -> None:
            nxt = next(todo, None)
            if nxt is not None:
                where[self._submit(*nxt)] = nxt

        for _ in range(self.window):
            submit_next()
        while where:
            left = f"games from {expected[0]:,}" if expected else "the last chunk"
            finished = self._wait(list(where), no_workers_since, left)
            for fut in sorted(finished, key=lambda f: where[f][0]):
                start, n = where.pop(fut)
                counts = self._counts_of(fut, start, n, no_workers_since, left)
                self.live.discard(fut)
                fut.release()
                if start not in unmerged or start in buffer:
                    continue  # each chunk counts once, by its first game
                buffer[start] = (n, counts)
            while expected and expected[0] in buffer:
                first = expected.popleft()
                unmerged.discard(first)
                n_first, c = buffer.pop(first)
                submit_next()
                yield first, n_first, c

    def _wait(self, futures: list, since: list, games: str) -> set:
        """The finished ones of ``futures``, waiting in steps of :data:`POLL_SECONDS`
        and checking the cluster between steps (:meth:`_check_cluster`)."""
        from distributed import wait

        while True:
            try:
                return wait(futures, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                self._check_cluster(since, games)
            except Exception:  # noqa: BLE001 - cancelled futures: the scheduler went away
                self._check_cluster(since, games)
                # only those done: a future "lost" with its scheduler is not, and its
                # result() would wait for good (a test hung on it under load)
                done = {f for f in futures if f.done()}
                if done:
                    return done

    def _counts_of(self, fut, start: int, n: int, since: list, left: str) -> Counts:
        """:func:`_counts_of`, naming a lost scheduler as such. Fetching a finished
        chunk's counts waits in steps of :data:`POLL_SECONDS`, checking the cluster
        between steps (``since``, ``left``: as for :meth:`_check_cluster`): the worker
        holding them may go away first (then the chunk runs again, which needs a worker;
        a test hung here when every worker went away)."""
        games = f"games {start:,}-{start + n - 1:,}"
        while True:
            if fut.cancelled() and not _running(self.backend.client):
                raise SheepsimError(f"lost the Dask scheduler{_at(self.backend)} during the run "
                                    f"({games} not done); nothing was written")
            try:
                return _counts_of(fut, start, n, timeout=POLL_SECONDS)
            except TimeoutError:
                self._check_cluster(since, left)


def _counts_of(fut, start: int, n: int, timeout: float | None = None) -> Counts:
    """A finished chunk's counts, or one error line naming the chunk; TimeoutError if
    they did not arrive within ``timeout`` seconds (None: wait for them)."""
    from distributed import KilledWorker

    games = f"games {start:,}-{start + n - 1:,}"
    try:
        return fut.result(timeout=timeout)
    except TimeoutError as exc:
        if fut.status != "error":  # not here in time (not an error of the chunk)
            raise
        raise SheepsimError(f"chunk of {games} failed on a Dask worker: "
                            f"TimeoutError: {_first_line(exc)}") from None
    except KilledWorker:
        raise SheepsimError(f"chunk of {games}: the workers running it died too often "
                            "(scheduler allowed-failures); giving up") from None
    except WrongWorker as exc:
        raise SheepsimError(str(exc)) from None
    except ChunkError as exc:
        raise SheepsimError(f"chunk of {games} failed on a Dask worker: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - user code on a worker may raise anything
        raise SheepsimError(f"chunk of {games} failed on a Dask worker: "
                            f"{type(exc).__name__}: {_first_line(exc)}") from None


# ------------------------------------------------------------------ on the workers
class WrongWorker(RuntimeError):
    """A worker whose sheepsim version or package source differs from the client's."""


#: jobs by session token in this worker process, so the kernels a job builds lazily
#: are built once per worker, not once per chunk (a few recent sessions only)
_JOBS: dict[str, Job] = {}


def local_identity() -> tuple[str, str]:
    """``(sheepsim version, package source digest)`` of this process."""
    return __version__, jit.source_digest()


def run_chunk(job: Job, token: str, start: int, n: int, expect) -> Counts:
    """The Dask task: games ``[start, start + n)`` of the job's seed, on one numba thread."""
    if local_identity() != tuple(expect):
        raise WrongWorker(_mismatch_text(os.uname().nodename, local_identity(), expect))
    _one_numba_thread()
    if token not in _JOBS:
        while len(_JOBS) >= 4:
            _JOBS.pop(next(iter(_JOBS)))
        _JOBS[token] = job
    try:
        return _JOBS[token].chunk(start, n)
    except Exception as exc:  # noqa: BLE001 - user code (policies) may raise anything
        raise ChunkError(_root_cause(exc)) from None


class ChunkError(RuntimeError):
    """A chunk's code raised on a worker; the message is the (root) error, one line."""


def _root_cause(exc: BaseException) -> str:
    """``"ValueError: ..."`` of the error a chunk raised. A policy raising inside a
    parallel numba kernel surfaces as a ``SystemError`` caused by the policy's own
    exception, which is the one worth reporting (the cause does not survive pickling,
    so it is read here, on the worker)."""
    while isinstance(exc, SystemError) and (exc.__cause__ or exc.__context__) is not None:
        exc = exc.__cause__ or exc.__context__
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _one_numba_thread() -> None:
    # A worker runs one task per Dask thread; a parallel kernel inside a task would
    # oversubscribe the cores. numba's setting is per calling thread.
    import numba

    numba.set_num_threads(1)


def _identity_on_worker() -> tuple[str, str]:
    return local_identity()


def check_workers(client, expect: tuple[str, str]) -> None:
    """Refuse a cluster with no worker (after :data:`WORKER_TIMEOUT` s) or with a worker
    running another sheepsim version or package source."""
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except TimeoutError:
        raise SheepsimError(f"the Dask cluster has no workers (waited {WORKER_TIMEOUT} s)") from None
    try:
        found = client.run(_identity_on_worker)
    except Exception as exc:  # noqa: BLE001 - e.g. sheepsim not installed on a worker
        raise SheepsimError(f"a Dask worker cannot run sheepsim: {type(exc).__name__}: "
                            f"{_first_line(exc)}") from None
    for worker, ident in sorted(found.items()):
        if tuple(ident) != tuple(expect):
            raise SheepsimError(_mismatch_text(worker, tuple(ident), expect))


def _mismatch_text(worker: str, found, expect) -> str:
    return (f"Dask worker {worker} runs sheepsim {found[0]} (source {found[1]}), this client "
            f"sheepsim {expect[0]} (source {expect[1]}); install the same sheepsim on every "
            "worker (results would not be reproducible)")


def _register_warm_up(client, job: Job, cache_dir: str | None) -> None:
    plugin = WarmUp(job, cache_dir)
    try:
        client.register_plugin(plugin, name=PLUGIN_NAME)
    except Exception as exc:  # noqa: BLE001 - e.g. the job does not unpickle on a worker
        raise SheepsimError(f"cannot prepare the Dask workers: {type(exc).__name__}: "
                            f"{_first_line(exc)}") from None


class WarmUp(_PluginBase):
    """The worker plugin: sets the kernel cache folder and compiles (or loads) the job's
    kernels on a worker before it takes chunks, also on a worker that joins or restarts
    later. A warm-up that raises is only logged: the chunk that hits the same error
    reports it, naming the chunk."""

    idempotent = False

    def __init__(self, job: Job, cache_dir: str | None):
        self.job, self.cache_dir = job, cache_dir

    async def setup(self, worker):
        import asyncio

        if self.cache_dir:
            os.environ["SHEEPSIM_CACHE_DIR"] = self.cache_dir
        # compiling takes seconds to a minute: off the worker's event loop
        await asyncio.get_running_loop().run_in_executor(None, self._warm)

    def _warm(self) -> None:
        import logging

        try:
            _one_numba_thread()
            with _warm_lock():
                self.job.prepare()
        except Exception as exc:  # noqa: BLE001 - reported by the chunks instead
            logging.getLogger("sheepsim").warning("warm-up failed: %s", _first_line(exc))


@contextlib.contextmanager
def _warm_lock():
    """Held during a worker's warm-up: the workers whose kernel cache root is this one
    (those of one machine, or a local cluster's) warm up in turn, so one compiles each
    kernel and writes it to the cache and the others load it (they compiled the same
    kernels at once: twice the compile CPU on two workers). Nothing is locked where the
    lock file cannot be made (a read-only cache root) or on a system without
    ``fcntl``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: each worker compiles its own
        yield
        return
    root = jit.cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = open(root / WARM_LOCK, "a")  # noqa: SIM115 - held across the yield
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        yield


def _running(client) -> bool:
    """Whether ``client`` is connected to a live scheduler."""
    return client is None or str(getattr(client, "status", "running")) in ("running", "Status.running")


def _at(backend: DaskBackend) -> str:
    return f" at {backend.scheduler}" if backend.scheduler else ""


def _check_tls(address: str) -> None:
    """``tls://`` needs TLS settings in the Dask config (certificate authority, client
    certificate and key); without them distributed fails only after a long wait."""
    import dask

    if not address.strip().lower().startswith("tls://"):
        return
    tls = dask.config.get("distributed.comm.tls", {}) or {}
    if not (tls.get("ca-file") and (tls.get("client") or {}).get("cert")):
        raise SheepsimError(f"the scheduler address {address} uses TLS, but no TLS settings are "
                            "configured (distributed.comm.tls.ca-file and client.cert/key in "
                            "the Dask config, e.g. ~/.config/dask/distributed.yaml)")


def _log_level(default: int) -> int:
    """distributed's log level: ``SHEEPSIM_DASK_LOGS`` if set (a level name), else
    ``default``."""
    import logging

    name = os.environ.get(LOG_VARIABLE, "").strip().upper()
    level = logging.getLevelName(name) if name else default
    return level if isinstance(level, int) else default


def _quiet_logs() -> None:
    """Keep distributed's own log lines (ERROR on a lost worker, on shutdown) off the
    terminal in this process unless ``SHEEPSIM_DASK_LOGS`` asks for them: every fault
    the run cares about is reported as one sheepsim line."""
    import logging

    logging.getLogger("distributed").setLevel(_log_level(logging.CRITICAL))


class _quiet_asyncio:
    """While a cluster shuts down (after an interrupt or a lost worker): the event
    loop's "Future exception was never retrieved" reports of connections closed under
    it go to the ``asyncio`` logger; at :func:`_log_level` while this lasts."""

    def __enter__(self):
        import logging

        self.logger = logging.getLogger("asyncio")
        self.level = self.logger.level
        self.logger.setLevel(_log_level(logging.CRITICAL))
        return self

    def __exit__(self, *exc):
        import gc

        gc.collect()  # such futures report when collected: now, while quiet
        self.logger.setLevel(self.level)
        return False


class _quiet_workers:
    """While local worker processes start: Ctrl-C kept from them, so that an interrupt
    reaches the client alone, which shuts the workers down; and their distributed
    logging at :func:`_log_level` (read from the environment they start with,
    ``DASK_LOGGING__DISTRIBUTED``).

    SIGINT is blocked in this thread, so every thread started meanwhile (the cluster's
    event loop, the threads that spawn the workers) starts with it blocked, and so does
    every worker process (a signal mask survives fork and exec): a Ctrl-C sent to the
    whole process group stays pending in the workers for good. In this process it
    reaches a thread that does not block it (one that existed before, e.g. a BLAS pool)
    and runs the handler set here, which only notes it; on leaving, the old handler
    comes back and the noted interrupt is sent to it (Python's raises KeyboardInterrupt;
    a process that ignores SIGINT goes on ignoring it). An earlier version ignored
    SIGINT meanwhile, which the workers inherited too, but then a Ctrl-C in the first
    seconds of a run (longer on a loaded machine) was lost and the run went on. Where
    signal masks do not exist (Windows), SIGINT is ignored meanwhile."""

    ENV = "DASK_LOGGING__DISTRIBUTED"

    def __enter__(self):
        import logging
        import signal
        import threading

        self.old = None  # the handler replaced (None: one not set from Python)
        self.replaced = False
        self.blocked = False
        self.interrupted = False
        if threading.current_thread() is threading.main_thread():
            if hasattr(signal, "pthread_sigmask"):
                # multiprocessing starts its resource tracker on the first spawn and
                # then *unblocks* SIGINT in the thread that spawned it: start it first
                from multiprocessing import resource_tracker

                resource_tracker.ensure_running()
                self.old = signal.signal(signal.SIGINT, self._note)
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                self.blocked = True
            else:
                self.old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            self.replaced = True
        self.old_env = os.environ.get(self.ENV)
        os.environ[self.ENV] = logging.getLevelName(_log_level(logging.CRITICAL)).lower()
        return self

    def _note(self, signum, frame):
        self.interrupted = True

    def __exit__(self, *exc):
        import signal

        if self.old_env is None:
            os.environ.pop(self.ENV, None)
        else:
            os.environ[self.ENV] = self.old_env
        if self.blocked:  # one held for this thread is delivered here, to _note
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if self.replaced:  # None: a handler not set from Python; the default is closest
            signal.signal(signal.SIGINT, signal.SIG_DFL if self.old is None else self.old)
        if self.interrupted and exc[0] is None:
            # sent again to this thread alone, to the handler it had: Python's raises
            # KeyboardInterrupt here, a process that ignores SIGINT goes on ignoring it
            signal.raise_signal(signal.SIGINT)
        return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _require_distributed() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise SheepsimError("running on Dask needs the distributed package: "
                            "pip install 'sheepsim[dask]'") from None
