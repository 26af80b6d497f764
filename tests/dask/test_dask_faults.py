"""Faults on Dask: a worker killed mid-run, a chunk raising in user code, an unreachable
scheduler, a worker running other sheepsim code."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from dask_helpers import as_csv

from sheepsim import driver
from sheepsim.cli import main
from sheepsim.errors import SheepsimError
from sheepsim.games.race.jobs import RacesJob

#: 16 chunks of about 0.2 s each on one core: when the first is merged, both workers are
#: still running others (at most 4 in flight)
GAMES, CHUNK = 16 * 65_536, 65_536


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(cluster):
    client = cluster.client
    pids = client.run(os.getpid)  # worker address -> process id
    killed: list[tuple[str, list]] = []

    def kill_a_busy_worker(state: driver.State) -> None:
        """After the first merged chunk, SIGKILL a worker that is running chunks."""
        if killed:
            return
        deadline = time.monotonic() + 10
        while not (busy := {w: list(k) for w, k in client.processing().items() if k}):
            assert time.monotonic() < deadline, "no worker is running a chunk"
            time.sleep(0.01)
        worker = sorted(busy)[0]
        os.kill(pids[worker], signal.SIGKILL)
        killed.append((worker, busy[worker]))

    ref = driver.run(RacesJob(seed=21), games=GAMES, chunk_games=CHUNK, threads=2,
                     progress=False)
    res = driver.run(RacesJob(seed=21), games=GAMES, chunk_games=CHUNK, backend=cluster,
                     progress=False, on_chunk=kill_a_busy_worker)
    worker, lost = killed[0]
    assert lost and all(str(k).startswith("sheepsim-chunk-") for k in lost)
    assert res.games == GAMES
    for k in ref.counts:
        assert np.array_equal(res.counts[k], ref.counts[k]), k
    assert as_csv(res.tables) == as_csv(ref.tables)
    # every race counted exactly once: the joint (1st, 2nd, 3rd) counts sum to the races
    assert int(res.counts["joint"].sum()) == GAMES
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it (for the other tests)
    assert pids[worker] not in client.run(os.getpid).values()


def test_a_raising_user_policy_is_one_line_naming_the_chunk(one_worker, tmp_path, capsys):
    """The policy module (tests/dask/raising_policy.py) is imported on the worker by name;
    its ValueError stops the run: exit 2, one line, nothing written. (One worker: each
    worker compiles a user policy's kernels. Aw, Sheep! seats it: on the harness a
    plug-in compiles alone, about a CPU second, where each line-up of the race's own
    kernels recompiles them, 11-48 CPU s; what is tested is the Dask backend's, the
    same for every game.)"""
    out = tmp_path / "play.csv"
    code = main(["awsheep", "play", "--players", "3", "--policy", "random,raising_policy:balk,random",
                 "--games", "3000", "--scheduler", one_worker.client.scheduler.address,
                 "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "chunk of games 0-2,999 failed on a Dask worker" in err
    assert "the sheep balks" in err  # the policy's own message, whatever wraps it
    assert not list(tmp_path.iterdir())  # neither the table nor its metadata file


def test_an_unreachable_scheduler_is_one_line_and_exit_2_quickly(tmp_path, capsys, monkeypatch):
    from sheepsim import dask_backend

    # nothing listens there: the command gives up after CONNECT_TIMEOUT; the wait is
    # bounded by it plus 7 s of start (the bound of 15 s this test had with the default
    # 8 s), with the test's wait shortened to 1 s
    assert dask_backend.CONNECT_TIMEOUT <= 8
    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", 1)
    t0 = time.perf_counter()
    code = main(["race", "odds", "--games", "1000", "--scheduler", "tcp://127.0.0.1:1",
                 "--out", str(tmp_path / "x.csv")])
    seconds = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert code == 2 and seconds < 1 + 7
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err
    assert not (tmp_path / "x.csv").exists()


def _fake_digest():
    import sheepsim.jit

    sheepsim.jit._real_digest = sheepsim.jit.source_digest
    sheepsim.jit.source_digest = lambda: "0123456789abcdef"


def _real_digest():
    import sheepsim.jit

    sheepsim.jit.source_digest = sheepsim.jit._real_digest


def test_a_worker_with_other_package_source_is_refused(cluster):
    """One worker made to report another package digest (as after an edit of its copy
    of sheepsim): the run is refused before any chunk runs, naming that worker."""
    client = cluster.client
    worker = sorted(client.nthreads())[0]
    client.run(_fake_digest, workers=[worker])
    try:
        with pytest.raises(SheepsimError) as err:
            driver.run(RacesJob(seed=1), games=100, backend=cluster, progress=False)
    finally:
        client.run(_real_digest, workers=[worker])
    text = str(err.value)
    assert f"Dask worker {worker}" in text and "source 0123456789abcdef" in text
    assert "install the same sheepsim on every worker" in text


def test_tls_without_tls_settings_is_one_line_at_once(tmp_path, capsys, monkeypatch):
    """distributed would print a 71-line traceback after 16 s of trying to connect; the
    address is checked against the Dask config first, so no connection is attempted
    (what took the 16 s). Asserted as such, not as a wall-clock bound: the command's
    own start (imports) takes seconds on a loaded machine, and a 5 s bound failed there."""
    import distributed

    tried = []

    def no_client(*args, **kwargs):
        tried.append(args)
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(distributed, "Client", no_client)
    out = tmp_path / "x.csv"
    code = main(["race", "odds", "--mc", "--games", "1000", "--scheduler", "tls://127.0.0.1:1",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and tried == []
    assert err.count("\n") == 1 and "uses TLS, but no TLS settings are configured" in err, err
    assert not out.exists()


def _lose_after_first_chunk(backend, what: str):
    """An ``on_chunk`` that, after the first merged chunk, removes every worker for good
    (``workers``) or closes the scheduler (``scheduler``) of a local cluster."""
    cluster = backend._owned[1]  # [client, LocalCluster], as DaskBackend starts them
    done = []

    def hook(state: driver.State) -> None:
        if done:
            return
        done.append(state.done)
        if what == "workers":
            cluster.scale(0)  # no nanny left to restart them
        else:
            cluster.sync(cluster.scheduler.close)

    return hook


@pytest.mark.parametrize(("what", "words"), [
    ("workers", "every Dask worker is gone: none for 2 s (--worker-timeout), games from "),
    ("scheduler", "lost the Dask scheduler during the run (games "),
])
def test_losing_every_worker_or_the_scheduler_is_one_line_after_a_bounded_wait(what, words):
    from sheepsim.dask_backend import DaskBackend

    backend = DaskBackend(workers=1, worker_timeout=2)
    backend.start()
    try:
        hook = _lose_after_first_chunk(backend, what)
        t0 = time.monotonic()
        with pytest.raises(SheepsimError) as err:
            driver.run(RacesJob(seed=3), games=40 * 20_000, chunk_games=20_000,
                       backend=backend, progress=False, on_chunk=hook)
        # the wait is bounded: the timeout, a poll or two, and the kernels' warm-up
        assert time.monotonic() - t0 < 90
    finally:
        t1 = time.monotonic()
        backend.close()
        assert time.monotonic() - t1 < 15  # a lost scheduler does not hold the close up
    assert words in str(err.value) and "\n" not in str(err.value)
    assert "nothing was written" in str(err.value)


def test_a_finished_chunk_whose_worker_goes_away_before_its_counts_arrive_is_one_line():
    """The race behind a hang of the test above under load: a chunk finished, then every
    worker went away before its counts were fetched. Fetching them would run the chunk
    again, which needs a worker: the wait must end with the "every worker is gone" line
    after ``--worker-timeout``, not last for good."""
    import threading

    from sheepsim.dask_backend import DaskBackend, _DaskSession

    backend = DaskBackend(workers=1, worker_timeout=2)
    client = backend.start()
    cluster = backend._owned[1]  # [client, LocalCluster], as DaskBackend starts them
    outcome: list = []
    try:
        fut = client.submit(lambda: 7, pure=False)
        assert fut.result(timeout=60) == 7  # finished, its result held by the worker
        cluster.scale(0)  # no nanny left to restart it
        deadline = time.monotonic() + 30
        while client.nthreads():
            assert time.monotonic() < deadline, "the worker did not go"
            time.sleep(0.05)
        session = _DaskSession(backend, RacesJob(seed=3))

        def fetch() -> None:
            try:
                outcome.append(session._counts_of(fut, 0, 20_000, [None], "games from 0"))
            except SheepsimError as exc:
                outcome.append(exc)

        t0 = time.monotonic()
        thread = threading.Thread(target=fetch, daemon=True)  # daemon: a hang fails, not blocks
        thread.start()
        thread.join(60)
        assert outcome, "fetching the counts waited for good"
        assert time.monotonic() - t0 < 30  # worker_timeout 2 s, polls of 1 s
    finally:
        backend.close()
    assert isinstance(outcome[0], SheepsimError), outcome
    assert "every Dask worker is gone: none for 2 s (--worker-timeout), games from 0" in str(outcome[0])


def _ctrl_c_works() -> None:
    """In the child: Ctrl-C's default action, whatever the tests inherited (a shell
    starts background jobs with SIGINT ignored, and children keep that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_local_run(children: int, settle: float) -> tuple[int, str]:
    """Start a long ``race odds`` on 2 local workers in its own process group; once it
    has ``children`` child processes, wait ``settle`` s and send SIGINT to the whole
    group (as a terminal's Ctrl-C does). Its exit code and stderr."""
    import subprocess
    import sys

    import psutil

    proc = subprocess.Popen([sys.executable, "-m", "sheepsim", "race", "odds", "--mc", "--games",
                             "100000000", "--workers", "2", "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_ctrl_c_works)
    try:
        deadline = time.monotonic() + 90
        while len(psutil.Process(proc.pid).children(recursive=True)) < children:
            assert time.monotonic() < deadline and proc.poll() is None, "no workers started"
            time.sleep(0.05)
        time.sleep(settle)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()  # close its pipes here: left open, the next test fails on them
    return proc.returncode, err


def test_ctrl_c_with_local_workers_is_one_line():
    """Ctrl-C reaches the whole process group (the command and its worker processes):
    one line, exit 130, no worker tracebacks or distributed log lines."""
    code, err = _interrupt_local_run(children=2, settle=4)  # workers running chunks
    assert code == 130 and err == "sheepsim: interrupted\n", err


def test_ctrl_c_while_local_workers_start_is_not_lost():
    """A Ctrl-C while the local cluster starts (the first worker process just spawned,
    SIGINT blocked so that the workers inherit the block) ends the run as one at any
    other time; it was lost before (SIGINT was ignored in the command too), and the run
    went on."""
    code, err = _interrupt_local_run(children=1, settle=0)
    assert code == 130 and err == "sheepsim: interrupted\n", err


def _main_thread_with_sigmask() -> None:
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "pthread_sigmask"):
        pytest.skip("needs the main thread and signal masks")


def test_quiet_workers_holds_a_ctrl_c_until_the_start_is_over():
    """A SIGINT sent to the process while the workers start is not lost and does not
    interrupt the start: it is raised as KeyboardInterrupt when the start is over."""
    from sheepsim.dask_backend import _quiet_workers

    _main_thread_with_sigmask()
    # Python's own Ctrl-C handler, whatever this process inherited (a shell starts
    # background jobs with SIGINT ignored, and then Python installs none)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    reached = False
    try:
        with pytest.raises(KeyboardInterrupt):
            with _quiet_workers():
                os.kill(os.getpid(), signal.SIGINT)  # to the process, as a terminal sends it
                time.sleep(0.2)
                reached = True  # the start went on to its end
        assert reached
        # the handler is back, unblocked
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, previous)


def test_quiet_workers_leaves_an_ignored_ctrl_c_ignored():
    from sheepsim.dask_backend import _quiet_workers

    _main_thread_with_sigmask()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _quiet_workers():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # and nothing was raised
    finally:
        signal.signal(signal.SIGINT, old)
