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

from sheepsim import runner
from sheepsim.output import atomic_write_bytes
from sheepsim.report.registry import Job, Sampling

CHECKPOINT_DIR = ".checkpoints"


@dataclass
class Checkpoint:
    """State of one study's simulation."""

    identity: str
    totals: list[np.ndarray] | None
    done: int
    finished: bool
    seconds: float  # wall time spent simulating, over every session
    trace: list[tuple[int, float]] = field(default_factory=list)  # precision checks: (games, half-width)
    earlier_seconds: float = 0.0  # of which before this session (not stored)


def checkpoint_path(out: Path, study_name: str) -> Path:
    return out / CHECKPOINT_DIR / f"{study_name}.npz"


def save_checkpoint(path: Path, cp: Checkpoint) -> None:
    """Write ``cp`` atomically (a crash leaves the previous checkpoint intact)."""
    arrays = {f"acc{i}": a for i, a in enumerate(cp.totals or [])}
    trace = np.array(cp.trace, dtype=np.float64).reshape(-1, 2)  # games fit a float exactly
    buf = io.BytesIO()
    np.savez(buf, identity=np.array(cp.identity), done=np.int64(cp.done),
             finished=np.bool_(cp.finished), seconds=np.float64(cp.seconds), trace=trace,
             n_acc=np.int64(len(arrays)), **arrays)
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
            n = int(z["n_acc"])
            totals = [np.array(z[f"acc{i}"]) for i in range(n)] if n else None
            trace = [(int(g), float(h)) for g, h in z["trace"]]
            return Checkpoint(identity, totals, int(z["done"]), bool(z["finished"]),
                              float(z["seconds"]), trace)
    except (OSError, ValueError, KeyError):
        # An unreadable checkpoint cannot be trusted; the study starts over.
        return None


def _stop_here(job: Job, sampling: Sampling, cp: Checkpoint) -> bool:
    """Whether the study is finished at ``cp.done``; precision checks go into ``cp.trace``."""
    if sampling.games is not None:
        return cp.done >= sampling.games
    # Stopping is decided only at block boundaries (and max_games), so the answer never
    # depends on chunks.
    if cp.done % sampling.block and cp.done < sampling.max_games:
        return False
    half = float(job.halfwidth(cp.totals, cp.done))
    cp.trace.append((cp.done, half))
    return half <= sampling.precision or cp.done >= sampling.max_games


def _target(sampling: Sampling, done: int) -> int:
    """Where the next run of chunks ends: the game count, or the next block boundary."""
    if sampling.games is not None:
        return sampling.games
    nxt = (done // sampling.block + 1) * sampling.block
    return min(nxt, sampling.max_games)


def simulate(job: Job, sampling: Sampling, path: Path, identity: str, *, resume: bool,
             progress: bool, desc: str, chunk_size: int | None = None) -> Checkpoint:
    """Run (or continue) a study's simulation to its end; return the final checkpoint."""
    cp = load_checkpoint(path, identity) if resume else None
    if cp is None:
        cp = Checkpoint(identity, None, 0, False, 0.0)
    cp.earlier_seconds = cp.seconds
    if cp.finished:
        return cp
    chunk = int(chunk_size or job.chunk_size)
    total = sampling.games if sampling.games is not None else sampling.max_games
    with runner.progress_bar(total, desc, progress) as bar:
        bar.update(cp.done)
        while not cp.finished:
            stop = _target(sampling, cp.done)
            for start, count in runner.chunk_bounds(cp.done, stop, chunk):
                t0 = time.perf_counter()
                cp.totals = runner.merge(cp.totals, job.run_chunk(start, count))
                cp.done = start + count
                cp.seconds += time.perf_counter() - t0
                if cp.done == stop:
                    cp.finished = _stop_here(job, sampling, cp)
                save_checkpoint(path, cp)
                bar.update(count)
    return cp
