"""Resumable chunked execution of one study, with a checkpoint after every chunk.

A checkpoint (``.checkpoints/<study>.npz`` in the out folder, written atomically) holds
the merged integer accumulators, the number of games done, whether the study is
finished, the wall time spent so far and the study's identity hash. Because every game
draws only from streams keyed by its own index and the accumulators are integers,
continuing with ``start = done`` and adding gives exactly the totals of an uninterrupted
run, whatever the chunk size or thread count.

Precision targets stop only at multiples of the study's ``block`` (fixed by the config,
never by the chunk size), so a resumed run stops at the same game count as a fresh one.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sheepsim import driver
from sheepsim.game import Job
from sheepsim.output import atomic_write_bytes
from sheepsim.report.registry import Sampling, Study

CHECKPOINT_DIR = ".checkpoints"


@dataclass
class Checkpoint:
    """State of one study's simulation."""

    identity: str
    totals: dict[str, np.ndarray] | None
    done: int
    finished: bool
    seconds: float  # wall time spent simulating, over every session
    trace: list[tuple[int, float]] = field(default_factory=list)  # precision checks: (games, half-width)
    earlier_seconds: float = 0.0  # of which before this session (not stored)
    earlier_games: int = 0  # games loaded from the checkpoint this session (not stored)
    loaded_finished: bool = False  # finished before this session: nothing simulated now


def checkpoint_path(out: Path, study_name: str) -> Path:
    return out / CHECKPOINT_DIR / f"{study_name}.npz"


def save_checkpoint(path: Path, cp: Checkpoint) -> None:
    """Write ``cp`` atomically (a crash leaves the previous checkpoint intact)."""
    arrays = {f"count_{k}": a for k, a in (cp.totals or {}).items()}
    trace = np.array(cp.trace, dtype=np.float64).reshape(-1, 2)  # games fit a float exactly
    buf = io.BytesIO()
    np.savez(buf, identity=np.array(cp.identity), done=np.int64(cp.done),
             finished=np.bool_(cp.finished), seconds=np.float64(cp.seconds), trace=trace,
             **arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buf.getvalue())


def load_checkpoint(path: Path, identity: str) -> Checkpoint | None:
    """The checkpoint at ``path`` if it belongs to a study with this identity, else None."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["identity"]) != identity:
                return None
            totals = {k[len("count_"):]: np.array(z[k]) for k in z.files if k.startswith("count_")}
            totals = totals or None
            trace = [(int(g), float(h)) for g, h in z["trace"]]
            return Checkpoint(identity, totals, int(z["done"]), bool(z["finished"]),
                              float(z["seconds"]), trace)
    except (OSError, ValueError, KeyError):
        # An unreadable checkpoint cannot be trusted; the study starts over.
        return None


def simulate(job: Job, sampling: Sampling, path: Path, identity: str, *, resume: bool,
             progress: bool, desc: str, chunk_size: int | None = None,
             backend=None) -> Checkpoint:
    """Run (or continue) a study's simulation with the driver, checkpointing after every
    merged chunk; return the final checkpoint."""
    cp = load_checkpoint(path, identity) if resume else None
    if cp is None:
        cp = Checkpoint(identity, None, 0, False, 0.0)
    cp.earlier_seconds, cp.earlier_games, cp.loaded_finished = cp.seconds, cp.done, cp.finished
    if cp.finished:
        return cp
    if sampling.block:
        job.block = sampling.block
    state = driver.State(cp.totals, cp.done, cp.finished, list(cp.trace), cp.seconds)

    def save(st: driver.State) -> None:
        cp.totals, cp.done, cp.finished, cp.trace, cp.seconds = (
            st.counts, st.done, st.finished, st.checks, st.seconds)
        save_checkpoint(path, cp)

    driver.run(job, games=sampling.games, precision=sampling.precision,
               max_games=sampling.max_games, chunk_games=chunk_size, progress=progress,
               desc=desc, state=state, on_chunk=save, backend=backend)
    return cp


def solve(study: Study, identity: str) -> Checkpoint:
    """An exact study (:attr:`Study.exact`): solved now, no games and no checkpoint (a
    resumed report solves it again: well under a second once the solver's kernels are
    cached); ``seconds`` is the solver's wall time, loading its kernels included."""
    t0 = time.perf_counter()
    study.solve()
    return Checkpoint(identity, None, 0, True, time.perf_counter() - t0)


def run_direct(study: Study, identity: str, backend, progress: bool) -> Checkpoint:
    """A :attr:`~Study.direct` study (a balance search): run now in one go on ``backend``,
    no checkpoint (a resumed report runs it again, to the same numbers); ``done`` is
    the games it played, ``seconds`` its wall time."""
    t0 = time.perf_counter()
    games = study.run(backend, progress)
    return Checkpoint(identity, None, int(games), True, time.perf_counter() - t0)
