"""A report's kernels compiled up front, across processes (issue 50, item 4).

Most of a cold report's time is numba compiling each study's kernels, one study after
another, in one process. With more than one core, :func:`start` hands the simulated
studies' games to worker processes first (one study of each game per worker at a time,
the games in the order the report meets them): each builds the study's job and plays
its warm-up game (:meth:`sheepsim.game.Job.prepare`), which compiles the kernels into
the shared on-disk cache. The report then runs its studies in order as before, in this
process, waiting before a simulated study only for its own game's warm-up, and loads
what the workers compiled. Exact and direct studies are left to the report itself (it
runs them while the workers compile the rest). Results cannot change: the workers only
compile; every number is still computed by the report's own process.

A worker that fails (whatever the reason) is ignored: the report then compiles that
study itself and says what is wrong, as it would have without the warm-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor

#: ``SHEEPSIM_REPORT_WARMUP=0`` turns the warm-up off (one process, as before)
ENV = "SHEEPSIM_REPORT_WARMUP"
#: the config argument of a worker for the shipped report
DEFAULT = "-"


def cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _prepare(config: str, names: list[str]) -> None:
    """In a worker: compile (or load) the kernels of the studies ``names`` of ``config``."""
    from sheepsim.report.config import load_config

    cfg = load_config(None if config == DEFAULT else config)
    for study in cfg.studies:
        if study.name in names:
            study.job().prepare()


def _worker(config: str, names: tuple[str, ...]) -> int:
    """One worker process (a fresh interpreter: nothing of the caller's state, no
    re-import of its main script); its output is dropped."""
    cmd = [sys.executable, "-m", "sheepsim.report.warmup", config, *names]
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False).returncode


class Warmup:
    """The warm-up of each of a report's games; :meth:`wait` before a study."""

    def __init__(self, pool: ThreadPoolExecutor | None, futures: dict[str, Future]):
        self.pool, self.futures = pool, futures

    def wait(self, study) -> None:
        """Block until the warm-up of ``study``'s game is over (nothing if it has none)."""
        fut = self.futures.get(study.game)
        if fut is not None and not (study.exact or study.direct):
            fut.exception()  # a failed worker is ignored (see the module docstring)

    def close(self) -> None:
        """Wait for the workers still running (an interrupted report: they finish their
        game and exit)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def start(config, studies) -> Warmup:
    """Start compiling the kernels of the simulated ``studies`` (of ``config``, a path or
    None for the shipped report) in up to ``cores()`` worker processes, one per game at
    a time; nothing on one core, for one game, or with ``SHEEPSIM_REPORT_WARMUP=0``."""
    games: dict[str, list[str]] = {}
    for s in studies:
        if not (s.exact or s.direct):
            games.setdefault(s.game, []).append(s.name)
    workers = min(cores(), len(games))
    if workers < 2 or os.environ.get(ENV, "1") == "0":
        return Warmup(None, {})
    pool = ThreadPoolExecutor(workers, thread_name_prefix="sheepsim-warmup")
    config = DEFAULT if config is None else os.fspath(config)
    futures = {game: pool.submit(_worker, config, tuple(names)) for game, names in games.items()}
    return Warmup(pool, futures)


if __name__ == "__main__":
    _prepare(sys.argv[1], sys.argv[2:])
