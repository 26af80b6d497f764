"""Dask overhead: standard semifinal races on local threads versus a 2-worker LocalCluster.

Usage::

    python benchmarks/bench_dask.py [--races N] [--sweep-races N] [--repeats K]

Times ``N`` (default 10,000,000) standard semifinal races (greedy, the rules file's first
six cards) with the one driver on 2 local threads and on a LocalCluster of 2 worker
processes x 1 thread (no dashboard), alternating ``K`` times, and prints the ratio of
the best wall times (the Dask overhead; target <= 1.15). Starting the cluster and the
workers' warm-up (loading the cached kernels) are timed separately: they are paid once
per command, not per race. Every Dask run must give exactly the threads' counts.

Then a chunk-size sweep on Dask (``--sweep-races``, default 2,000,000), and memory:
the client's and the workers' resident set sizes after 1/10 of the races and after all
of them (flat: chunks are summed into fixed-size integer counts as they arrive, and at
most ``2 x threads`` chunks are in flight).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sheepsim import driver  # noqa: E402
from sheepsim.games.race.jobs import RacesJob  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def timed(games: int, chunk: int | None = None, **backend) -> tuple[float, dict]:
    job = RacesJob(seed=7)
    t0 = time.perf_counter()
    res = driver.run(job, games=games, chunk_games=chunk, progress=False, **backend)
    return time.perf_counter() - t0, res.counts


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def overhead(races: int, repeats: int, dask) -> None:
    times = {"threads": [], "dask": []}
    ref = None
    for _ in range(repeats):
        for name, backend in (("threads", {"threads": 2}), ("dask", {"backend": dask})):
            seconds, counts = timed(races, **backend)
            ref = counts if ref is None else ref
            assert same(counts, ref), f"{name}: counts differ"
            times[name].append(seconds)
            print(f"  {name:7s} {races:,} races: {seconds:6.2f} s ({races / seconds:,.0f} races/s)",
                  flush=True)
    best = {k: min(v) for k, v in times.items()}
    print(f"| threads (2), best of {repeats} | {best['threads']:.2f} s | "
          f"{races / best['threads']:,.0f} races/s |")
    print(f"| Dask LocalCluster (2 workers x 1 thread), best of {repeats} | {best['dask']:.2f} s | "
          f"{races / best['dask']:,.0f} races/s |")
    print(f"| overhead (Dask / threads wall time) | {best['dask'] / best['threads']:.3f} | "
          "target <= 1.15 |")


def sweep(races: int, dask) -> None:
    ref = None
    for chunk in (1 << 13, 1 << 15, 1 << 17, 1 << 19):
        seconds, counts = timed(races, chunk, backend=dask)
        ref = counts if ref is None else ref
        assert same(counts, ref)
        print(f"| {chunk:,} | {-(-races // chunk)} | {seconds:.2f} s | {races / seconds:,.0f} |",
              flush=True)


def memory(races: int, dask) -> None:
    for n in (races // 10, races):
        timed(n, backend=dask)
        workers = dask.client.run(rss_mb)
        print(f"| {n:,} | {rss_mb():.0f} MB | "
              f"{', '.join(f'{v:.0f}' for _, v in sorted(workers.items()))} MB |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--races", type=int, default=10_000_000)
    ap.add_argument("--sweep-races", type=int, default=2_000_000)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    from sheepsim.dask_backend import DaskBackend

    print(f"chunk size (RacesJob.chunk_games): {RacesJob.chunk_games:,} races", flush=True)
    timed(20_000, threads=2)  # compile or load the kernels here
    t0 = time.perf_counter()
    with DaskBackend(workers=2) as dask:
        dask.start()
        started = time.perf_counter() - t0
        t0 = time.perf_counter()
        timed(20_000, backend=dask)
        print(f"cluster start {started:.1f} s; first run (warm-up: workers load the kernels) "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        overhead(args.races, args.repeats, dask)
        print("| chunk (races) | chunks | wall | races/s |", flush=True)
        sweep(args.sweep_races, dask)
        print("| races | client RSS | worker RSS |", flush=True)
        memory(args.races, dask)


if __name__ == "__main__":
    main()
