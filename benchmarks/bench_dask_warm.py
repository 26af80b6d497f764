"""Dask workers' cold warm-up: the CPU the workers of one machine spend compiling.

Usage::

    python benchmarks/bench_dask_warm.py [COMMAND ...]

Starts a 2-worker LocalCluster whose workers share one empty kernel cache folder (a
new temporary ``SHEEPSIM_CACHE_DIR``), runs ``sheepsim COMMAND --scheduler ADDRESS``
on it (default ``pig play --games 2000 --quiet``) and prints, per worker, the process
CPU seconds the run took (warm-up and chunks) and the CPU inside numba's compile events.
Run it with this tree's and an old tree's Python, alternating, to compare: the workers
compiled the same kernels at once before they warmed up in turn (``dask_backend``'s
warm-up lock).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time


def _listen() -> int:
    """On a worker: sum the process CPU inside numba's compile events (outermost)."""
    import builtins

    from numba.core import event

    if getattr(builtins, "_bench_compile", None) is None:
        builtins._bench_compile = [0.0, 0]

        class Listener(event.Listener):
            def on_start(self, ev):
                builtins._bench_compile[1] += 1
                if builtins._bench_compile[1] == 1:
                    self.t0 = time.process_time()

            def on_end(self, ev):
                builtins._bench_compile[1] -= 1
                if builtins._bench_compile[1] == 0:
                    builtins._bench_compile[0] += time.process_time() - self.t0

        event.register("numba:compile", Listener())
    return 0


def _compile_cpu() -> float:
    import builtins

    return builtins._bench_compile[0]


def main() -> None:
    # set here, not at import: the workers import this module again (spawn)
    os.environ["SHEEPSIM_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-dask-warm-")
    from sheepsim.cli import main as sheepsim
    from sheepsim.dask_backend import DaskBackend

    argv = sys.argv[1:] or ["pig", "play", "--games", "2000", "--quiet"]
    with DaskBackend(workers=2) as backend:
        client = backend.start()
        client.run(_listen)
        before = client.run(time.process_time)
        t0 = time.perf_counter()
        code = sheepsim([*argv, "--scheduler", client.scheduler.address, "--format", "csv"])
        wall = time.perf_counter() - t0
        after = client.run(time.process_time)
        compiled = client.run(_compile_cpu)
    cpu = sorted(after[w] - before[w] for w in before)
    comp = sorted(compiled.values())
    print(f"exit {code}; wall {wall:.1f} s; workers' CPU {', '.join(f'{v:.1f}' for v in cpu)} s "
          f"(total {sum(cpu):.1f}); in compiles {', '.join(f'{v:.1f}' for v in comp)} s "
          f"(total {sum(comp):.1f})", file=sys.stderr)


if __name__ == "__main__":
    main()
