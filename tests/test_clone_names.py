"""A kernel rebuilt around plug-ins runs its own plug-ins, whatever else the process
compiled or loaded from the kernel cache (``sheepsim.jit._clone_tag``).

numba names a compiled function's symbol after its module, name, argument types and a
counter of the process, and links the functions a kernel calls into it with ODR linkage
(one body per name). Clones of one sheepsim function that differ only in their globals
(one per line-up of plug-ins) used to share their name: a clone compiled in this process
and a different one in a kernel loaded from the cache (compiled by another process whose
counter had the same value) got the same symbol, and the JIT linked calls to whichever
came first. The race's plug-in line-up ``first`` then ran ``off_the_end``'s code: the
CI run of 2026-12-06 failed a contract test that way, and the three processes below
reproduce it on the tree before the fix (the last one's ``first`` returned option 3).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import sheepsim
from sheepsim import jit

PLUGINS = '''
import numba


@numba.njit
def uniform_pick(kind, view, opts, n, rand):
    return min(n - 1, int(rand[0, 0] % n))


@numba.njit
def first(kind, view, opts, n, rand):
    return 0


@numba.njit
def off_the_end(kind, view, opts, n, rand):
    return n
'''

# one race traced per plug-in named on the command line, seat 2 playing it: its choices
# (or the one-line error), as JSON lines. Each trace starts numba's counter of compiled
# functions (numba internal: FunctionIdentity._unique_ids, the uid in every symbol) at
# the same value, so that the line-ups compiled in two processes get the same counter
# values, as they do by chance when the processes compiled the same things before
SCRIPT = '''
import itertools, json, sys
from numba.core.bytecode import FunctionIdentity
import sheepsim
from sheepsim.errors import SheepsimError
for name in sys.argv[1:]:
    FunctionIdentity._unique_ids = itertools.count(1_000_000)
    try:
        res = sheepsim.trace("sheep-race", seed=1, game=5, players=2, quiet=True,
                             policy=["random", f"clone_plugins:{name}"])
        t = res.tables["decisions"]
        print(json.dumps([name, "ok", [int(c) for c in t[t.seat == 2].choice]]))
    except SheepsimError as exc:
        print(json.dumps([name, "error", str(exc)]))
'''


def test_a_line_up_loaded_from_the_cache_runs_its_own_plugin(tmp_path):
    (tmp_path / "clone_plugins.py").write_text(textwrap.dedent(PLUGINS))
    (tmp_path / "trace_each.py").write_text(textwrap.dedent(SCRIPT))
    # the sheepsim under test, whatever the working folder
    tree = os.path.dirname(os.path.dirname(os.path.abspath(sheepsim.__file__)))
    env = dict(os.environ, SHEEPSIM_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), tree]))

    def run(*names):
        done = subprocess.run([sys.executable, str(tmp_path / "trace_each.py"), *names],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    # 1. every kernel the line-ups share, compiled and cached (so that 2 and 3 compile
    # the same functions in the same order: their counters agree)
    run("uniform_pick")
    # 2. the line-up `first`, compiled and cached
    ((_, status, first_choices),) = run("first")
    assert status == "ok" and first_choices and set(first_choices) == {0}
    # 3. `off_the_end` compiled here, then `first` loaded from the cache
    off, again = run("off_the_end", "first")
    assert off[1] == "error" and "returned option" in off[2]
    assert again == ["first", "ok", first_choices], again


def test_clones_are_named_by_their_variant():
    """The same variant's clone has the same name in every process (its cache entry is
    found); another variant's, or an uncached clone, has another."""
    assert jit._clone_tag("abc-123") == jit._clone_tag("abc-123")
    assert jit._clone_tag("abc-123") != jit._clone_tag("abc-124")
    assert jit._clone_tag(None) != jit._clone_tag(None)

    def fn():
        return 0

    name = fn.__qualname__
    assert jit.uniquely_named(fn).__qualname__.startswith(f"{name}__u")
