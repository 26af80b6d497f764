"""Profile Shear Panic kernels with ``perf``, with numba's functions named.

Usage::

    perf record -F 1999 -o /tmp/panic.data python benchmarks/profile_panic.py \\
        [--policy greedy] [--players 4] [--games 1500]
    perf report -i /tmp/panic.data --no-children --sort symbol \\
        --dso "[JIT] tid <pid>"     # the pid this script prints

``perf`` cannot name the machine code numba generates (it lives in anonymous memory),
so this script plays ``--games`` games of ``PlayJob.chunk`` on one thread, then
writes ``/tmp/perf-<pid>.map``, the map ``perf report`` reads for JIT code: the address
and name of every function compiled in this process (each runs to the next one's
start). The kernels are compiled here, in an empty temporary cache: code loaded from
numba's disk cache keeps no symbol table. The first part of the profile is therefore
the compilation (in ``libllvmlite``/``libpython``); restrict the report to the JIT
"dso" as above. Functions numba inlined (``inline="always"``) are counted in their
callers.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time


def write_perf_map(path: str | None = None) -> int:
    """Write the perf map of every numba function compiled in this process; returns
    the number of symbols written (0 when everything came from the disk cache)."""
    import numba

    symbols = set()
    seen = set()
    for obj in gc.get_objects():
        if not isinstance(obj, numba.core.dispatcher.Dispatcher):
            continue
        for cres in obj.overloads.values():
            library = cres.library
            if id(library) in seen:
                continue
            seen.add(id(library))
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                address = library.get_pointer_to_function(fn.name)
                if address:
                    symbols.add((address, fn.name))
    ordered = sorted(symbols)
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(ordered):
            size = ordered[i + 1][0] - address if i + 1 < len(ordered) else 4096
            out.write(f"{address:x} {min(size, 1 << 20):x} {name}\n")
    return len(ordered)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="greedy", help="one policy per seat or for all")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    os.environ["SHEEPSIM_CACHE_DIR"] = tempfile.mkdtemp(prefix="sheepsim-profile-")

    import numba

    from sheepsim.games.panic.jobs import PlayJob

    numba.set_num_threads(1)
    names = args.policy.split(",")
    job = PlayJob(None, args.players, names * args.players if len(names) == 1 else names,
                  args.seed, 4)
    job.chunk(0, 1)  # compile
    t0 = time.process_time()
    job.chunk(0, args.games)
    dt = time.process_time() - t0
    n = write_perf_map()
    print(f"pid {os.getpid()}: {args.games} games in {dt:.2f} CPU s "
          f"({args.games / dt:.1f} games/CPU s); {n} symbols in /tmp/perf-{os.getpid()}.map")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
