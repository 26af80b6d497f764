"""The race's single-race kernels take plug-ins as function values (issues 50 item 2 and
45): ``race trace`` and single races (``race odds --policy mod:fn``) run entries compiled
once whatever the plug-ins (``race trace``: the harness's entry for line-ups with plug-ins
of the machine :mod:`sheepsim.games.race.single`; single races:
``kernels._plugged_entries``, ``fill_races`` rebuilt to ask plug-ins through its
``users`` argument), so a second, different line-up of plug-ins compiles only its new
plug-ins, not a race kernel, and a new process loads the entry from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sheepsim
from tests.plugin_modules import fresh_module

PLUGINS = '''

@numba.njit
def last_option(kind, view, opts, n, rand):
    return n - 1


@numba.njit
def first_option(kind, view, opts, n, rand):
    return 0
'''

# a new process, a third line-up: what the race's kernels loaded or compiled
SECOND = '''
import json, sys
from numba.core import event
import sheepsim
from sheepsim.games.race.trace import MACHINE
from sheepsim.harness import machine as M
mod = sys.argv[1]
compiled = []
OURS = ("sheepsim.games.race", "sheepsim.harness")


class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__module__)

    def on_end(self, ev):
        pass


with event.install_listener("numba:compile", Listener()):
    res = sheepsim.trace("sheep-race", seed=3, game=1, players=2, quiet=True,
                         policy=[f"{mod}:first_option", "saver"])
st = M.load(MACHINE)._entries[True].entry.stats
print(json.dumps({"misses": sum(st.cache_misses.values()), "hits": sum(st.cache_hits.values()),
                  "race_compiles": [m for m in compiled if m.startswith(OURS)],
                  "choices": [int(c) for c in res.tables["decisions"].choice]}))
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    """A module of plug-ins written afresh for this run (its name and source are new):
    ``uniform_pick`` (:data:`tests.plugin_modules.HEAD`) and those of :data:`PLUGINS`."""
    yield from fresh_module(tmp_path_factory, "race_values", PLUGINS)


class _Compiles:
    """The modules of the functions numba compiles (not loads) while it is installed."""

    def __enter__(self):
        from numba.core import event

        self.modules: list[str] = []
        modules = self.modules

        class Listener(event.Listener):
            def on_start(self, ev):
                modules.append(ev.data["dispatcher"].py_func.__module__)

            def on_end(self, ev):
                pass

        self._cm = event.install_listener("numba:compile", Listener())
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _trace(policy, players, seed=4, game=2):
    return sheepsim.trace("sheep-race", seed=seed, game=game, players=players, quiet=True,
                          policy=policy)


def _trace_entry():
    """The harness's entry that traces ``race trace``'s race for line-ups with plug-ins."""
    from sheepsim.games.race.trace import MACHINE
    from sheepsim.harness import machine as M

    return M.load(MACHINE)._entries[True].entry


def test_a_second_lineup_traces_without_compiling_a_race_kernel(mod):
    name, folder = mod
    first = _trace([f"{name}:uniform_pick", "greedy", "saver"], 3)
    entry = _trace_entry()
    signatures = list(entry.signatures)
    assert len(signatures) == 1
    with _Compiles() as seen:  # other plug-ins, other built-ins, another seat count
        second = _trace([f"{name}:last_option", "steady"], 2)
    race = [m for m in seen.modules if m.startswith(("sheepsim.games.race", "sheepsim.harness"))]
    assert race == [], race
    assert name in seen.modules  # the new plug-in itself did compile (its guard's copy)
    assert list(entry.signatures) == signatures  # the line-up changed only an argument
    # each plug-in seat's choices are its own: the last option, and uniform_pick in range
    d = second.tables["decisions"]
    assert len(d) > 0 and (d[d.seat == 1].choice == d[d.seat == 1].n_options - 1).all()
    d1 = first.tables["decisions"]
    assert ((d1.choice >= 0) & (d1.choice < d1.n_options)).all()
    # the same line-up again gives the same trace
    assert _trace([f"{name}:uniform_pick", "greedy", "saver"], 3).lines == first.lines
    # a new process, a third line-up: the entry loads from the cache, no race kernel compiles
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([folder, *sys.path]))
    out = subprocess.run([sys.executable, "-c", SECOND, name], capture_output=True, text=True,
                         check=True, env=env)
    res = json.loads(out.stdout)
    assert res["misses"] == 0 and res["hits"] == 1 and res["race_compiles"] == [], res
    here = _trace([f"{name}:first_option", "saver"], 2, seed=3, game=1).tables["decisions"]
    assert res["choices"] == [int(c) for c in here.choice]


def test_single_races_of_two_plugins_share_one_entry(mod):
    from sheepsim.games.race import kernels
    from sheepsim.games.race.simulate import race_chunk_fn

    name, _ = mod
    counts = {fn: race_chunk_fn(policy=f"{name}:{fn}", seed=5)(0, 2_000)
              for fn in ("uniform_pick", "last_option", "first_option")}
    assert len(kernels._plugged_entries()["fill_races"].entry.signatures) == 1
    places = {fn: c[1].sum() for fn, c in counts.items()}  # 3 places a race
    assert set(places.values()) == {3 * 2_000}
    # each ran its own plug-in: different races on the same dice
    joints = [c[0].tobytes() for c in counts.values()]
    assert len(set(joints)) == 3
    # and the same again gives the same counts
    again = race_chunk_fn(policy=f"{name}:last_option", seed=5)(0, 2_000)
    assert all(np.array_equal(x, y) for x, y in zip(again, counts["last_option"], strict=True))
