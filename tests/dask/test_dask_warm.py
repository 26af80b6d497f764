"""The workers sharing a kernel cache warm up in turn (``dask_backend._warm_lock``): the
first compiles a job's kernels and writes them, the others then load them, where two
local workers compiled the same kernels at once (``benchmarks/README.md``, "Dask")."""

from __future__ import annotations

import fcntl
import multiprocessing
import time

from sheepsim import dask_backend


class _Job:
    """A job whose warm-up checks that the cache's warm-up lock is held meanwhile."""

    def __init__(self, root):
        self.root, self.held = root, None

    def prepare(self):
        with open(self.root / dask_backend.WARM_LOCK, "a") as other:  # another open: a rival
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self.held = True
            else:
                self.held = False


def test_a_warm_up_holds_the_caches_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path))
    job = _Job(tmp_path)
    dask_backend.WarmUp(job, None)._warm()
    assert job.held is True
    with open(tmp_path / dask_backend.WARM_LOCK, "a") as f:  # and released after it
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _warm_in_turn(root: str, log: str) -> None:
    import os

    os.environ["SHEEPSIM_CACHE_DIR"] = root
    with open(log, "a") as f:
        f.write("waiting\n")
    with dask_backend._warm_lock(), open(log, "a") as f:
        f.write("in\n")


def test_a_second_worker_waits_for_the_first_warm_up(tmp_path, monkeypatch):
    """A second process (a worker) waits while the lock is held and warms up once it is
    released. (A broken lock could pass the wait check under heavy load, never fail a
    working one: no timing bound decides a pass.)"""
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path))
    log = tmp_path / "log"
    with dask_backend._warm_lock():
        child = multiprocessing.get_context("spawn").Process(
            target=_warm_in_turn, args=(str(tmp_path), str(log)))
        child.start()
        deadline = time.monotonic() + 120
        while not (log.exists() and "waiting" in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # time enough to take an unlocked lock
        assert log.read_text() == "waiting\n"
    child.join(timeout=120)
    assert child.exitcode == 0 and log.read_text() == "waiting\nin\n"
