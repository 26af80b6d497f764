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
reproduce it on the tree before the fix (3777241: the last one's ``first`` returned
option 3). The kernels the line-ups share come from the shared kernel cache (the suite's
warm-up compiled them); only the two line-ups, new on every run, are compiled and then
removed from it. The race's trace now takes its plug-ins as function values: what is
cloned per plug-in is its guard (``sheepsim.policy_values._plugin_guard``, cached in
the plug-in's own folder), so that is what the processes below compile and load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid

import sheepsim
from sheepsim import jit

PLUGINS = '''
import numba

TOKEN = {token!r}  # a new file on every test run: its line-ups' kernels are compiled afresh


@numba.njit
def first(kind, view, opts, n, rand):
    return 0


@numba.njit
def off_the_end(kind, view, opts, n, rand):
    return n


@numba.njit
def warm(kind, view, opts, n, rand):
    return n - 1
'''

# one race traced per line-up named on the command line (``random``: the built-in one;
# a plug-in's name: seat 2 plays it): its choices (or the one-line error), the value of
# numba's counter of compiled functions after it, the plug-in's variant key and whether
# its compiled plug-in (its guard, ``sheepsim.policy_values``: the harness's trace entry
# takes the plug-ins as function values) was loaded from the cache (the trace compiled no
# guard: numba's compile event), as JSON lines. Each
# trace starts the counter (numba internal: FunctionIdentity._unique_ids, the uid in
# every symbol) at the same value, so that the line-ups compiled in two processes get
# the same counter values, as they do by chance when the processes compiled the same
# things before
SCRIPT = '''
import itertools, json, sys
from numba.core.bytecode import FunctionIdentity
import sheepsim
from sheepsim import jit
import numba.core.event as nev
from sheepsim.errors import SheepsimError
import {plugins} as P


class Compiled(nev.Listener):
    # the functions compiled (a kernel loaded from the cache fires no compile event)
    def __init__(self):
        self.names = []

    def on_start(self, event):
        fn = getattr(event.data.get("dispatcher"), "py_func", None)
        self.names.append(fn.__qualname__ if fn is not None else "?")

    def on_end(self, event):
        pass


for name in sys.argv[1:]:
    FunctionIdentity._unique_ids = itertools.count(1_000_000)
    seat = "random" if name == "random" else f"{plugins}:{{name}}"
    user = () if name == "random" else (getattr(P, name),)
    key = jit.variant_key(user) if user else None
    compiled = Compiled()
    nev.register("numba:compile", compiled)
    try:
        res = sheepsim.trace("sheep-race", seed=1, game=5, players=2, quiet=True,
                             policy=["random", seat])
        t = res.tables["decisions"]
        status, said = "ok", [int(c) for c in t[t.seat == 2].choice]
    except SheepsimError as exc:
        status, said = "error", str(exc)
    nev.unregister("numba:compile", compiled)
    # the plug-in's guard came from the cache: the trace compiled no guard
    loaded = bool(user) and status == "ok" and not any(
        n.startswith("_plugin_guard") for n in compiled.names)
    print(json.dumps([name, status, said, next(FunctionIdentity._unique_ids), key, loaded]))
'''


def test_a_line_up_loaded_from_the_cache_runs_its_own_plugin(tmp_path):
    tag = uuid.uuid4().hex[:8]
    plugins = f"clone_plugins_{tag}"
    (tmp_path / f"{plugins}.py").write_text(textwrap.dedent(PLUGINS.format(token=tag)))
    (tmp_path / "trace_each.py").write_text(textwrap.dedent(SCRIPT.format(plugins=plugins)))
    # the sheepsim under test, whatever the working folder
    tree = os.path.dirname(os.path.dirname(os.path.abspath(sheepsim.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), tree]))

    def run(*names):
        # a process each: numba's per-process counter and a kernel loaded from another
        # process's cache entry are what is tested
        done = subprocess.run([sys.executable, str(tmp_path / "trace_each.py"), *names],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    keys = []
    try:
        # 1. every kernel the line-ups share, in the cache (compiled there if it was
        # cold: the harness trace entry taking plug-ins, with a third plug-in), so that 2 and 3
        # compile the same functions in the same order; the two plug-ins' line-ups are
        # new (the token), so 2 and 3 compile them
        (_, status, *_), (_, warm_status, _, _, warm_key, _) = run("random", "warm")
        keys.append(warm_key)
        assert status == "ok" and warm_status == "ok"
        # 2. the line-up `first`, compiled and cached
        ((_, status, first_choices, first_end, key, loaded),) = run("first")
        keys.append(key)
        assert status == "ok" and first_choices and set(first_choices) == {0} and not loaded
        # 3. `off_the_end` compiled here, then `first` loaded from the cache
        off, again = run("off_the_end", "first")
        keys.append(off[4])
        assert off[1] == "error" and "returned option" in off[2]
        # what makes 3 a test: its line-up compiled as many functions as 2's, so the
        # two clones of each function got the same counter value, and `first` was
        # loaded from the cache, not compiled here
        assert off[3] == first_end and not off[5], (off, first_end)
        assert again[5], again
        assert again[:3] == ["first", "ok", first_choices], again
    finally:
        for key in filter(None, keys):  # the two line-ups' folders (as test_plugin_cache)
            for folder in jit.cache_dir().glob(f"plugins-*-{key}"):
                shutil.rmtree(folder, ignore_errors=True)


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
