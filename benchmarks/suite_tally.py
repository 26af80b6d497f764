"""Where a test run's time goes: a pytest plugin that writes, per test, its wall time,
its process's CPU, the CPU of the child processes it waited for, and the seconds numba
spent compiling (outermost compiles, numba's ``numba:compile`` event) with the kernels'
names; one JSON line per test in ``$TALLY_OUT/<worker>.jsonl``. ``python
benchmarks/suite_tally.py DIR [N]`` prints the totals and the N costliest files.

    PYTHONPATH=benchmarks TALLY_OUT=/tmp/tally PYTEST_ADDOPTS="-p suite_tally" bash .ci/run
    python benchmarks/suite_tally.py /tmp/tally 40

(Child CPU is counted when a child is reaped: a long-lived process, such as a module's
Chromium, is counted at the test that ends it.)
"""

import collections
import glob
import json
import os
import resource
import sys
import time

import pytest

OUT = os.environ.get("TALLY_OUT", "/tmp/tally")


def _listener():
    import numba.core.event as nev

    class Outermost(nev.Listener):
        """Outermost compiles only (a compile nests the compiles of what it calls)."""

        def __init__(self):
            self.depth, self.t0, self.total, self.names = 0, 0.0, 0.0, []

        def on_start(self, event):
            if self.depth == 0:
                self.t0 = time.perf_counter()
                fn = getattr(event.data.get("dispatcher"), "py_func", None)
                self.names.append(f"{fn.__module__}.{fn.__qualname__}" if fn else "?")
            self.depth += 1

        def on_end(self, event):
            self.depth -= 1
            if self.depth == 0:
                self.total += time.perf_counter() - self.t0

    return nev, Outermost()


def _children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    os.makedirs(OUT, exist_ok=True)
    nev, top = _listener()
    nev.register("numba:compile", top)
    w0, c0, ch0 = time.perf_counter(), time.process_time(), _children()
    yield
    nev.unregister("numba:compile", top)
    rec = {"id": item.nodeid, "wall": time.perf_counter() - w0, "cpu": time.process_time() - c0,
           "child": _children() - ch0, "compile": top.total, "kernels": top.names[:30],
           "n_kernels": len(top.names)}
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(OUT, worker + ".jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


def summary(folder: str, most: int = 40) -> None:
    """Totals over every test, then the ``most`` files with the most wall time."""
    recs = [json.loads(line) for f in glob.glob(folder + "/*.jsonl") for line in open(f)]
    by_file = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0, 0])
    for r in recs:
        b = by_file[r["id"].split("::")[0]]
        for k, v in enumerate((r["wall"], r["cpu"], r["child"], r.get("compile", 0), 1,
                               r.get("n_kernels", 0))):
            b[k] += v
    t = [sum(b[k] for b in by_file.values()) for k in range(6)]
    print(f"TOTAL wall {t[0]:.0f} cpu {t[1]:.0f} child {t[2]:.0f} compile {t[3]:.0f} "
          f"tests {t[4]} kernels {t[5]}")
    print("   wall     cpu   child compile tests kernels  file")
    for f, b in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:most]:
        print(f"{b[0]:7.1f} {b[1]:7.1f} {b[2]:7.1f} {b[3]:7.1f} {b[4]:5d} {b[5]:7d}  {f}")


if __name__ == "__main__":
    summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
