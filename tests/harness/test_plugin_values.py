"""Plug-in policies as function values on the harness (issue 50, item 2): the entry
kernel compiles once per game whatever the line-up, each plug-in compiles once and is
cached on disk, so a second process playing the same plug-ins in a new line-up compiles
nothing; and a plug-in that does not answer with an integer stops the run with one line.
Played on Pig (``pip install ./examples/pig``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sheepsim
from sheepsim import game
from sheepsim.errors import SheepsimError
from sheepsim.harness import machine
from tests.plugin_modules import fresh_module

PLUGINS = '''

@numba.njit
def hold_at(kind, view, opts, n, rand):
    return 1 if view[0] >= 15 else 0


@numba.njit
def halves(kind, view, opts, n, rand):
    return n / 2
'''

# a second process: the same plug-ins in a new line-up; what its kernels loaded or compiled
SECOND = '''
import json, sys
from sheepsim import game
from sheepsim.harness import machine
mod = sys.argv[1]
job = game.get("pig").job("play", players=3, seed=4,
                          policies=f"{mod}:hold_at,random,{mod}:uniform_pick")
acc = job.chunk(0, 300)["acc"]
m = machine.load(game.get("pig").machine)
guards = [g for g in m._users[tuple(m._users)[0]] if g.py_func.__name__ == "_plugin_guard"]
stats = [m._entries[True].entry.stats, *(g.stats for g in guards)]
print(json.dumps({"misses": sum(sum(s.cache_misses.values()) for s in stats),
                  "hits": sum(sum(s.cache_hits.values()) for s in stats),
                  "acc": acc.tolist()}))
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    """A module of plug-ins written afresh for this run (its name and source are new):
    ``uniform_pick`` (:data:`tests.plugin_modules.HEAD`) and those of :data:`PLUGINS`."""
    yield from fresh_module(tmp_path_factory, "values", PLUGINS)


def _pig():
    return machine.load(game.get("pig").machine)


def test_a_new_lineup_compiles_no_entry_kernel_and_a_second_process_nothing(mod):
    name, folder = mod
    pig = game.get("pig")
    first = pig.job("play", players=3, seed=4,
                    policies=f"{name}:uniform_pick,hold-20,{name}:hold_at")
    first.chunk(0, 300)
    m = _pig()
    entry_signatures = list(m._entries[True].entry.signatures)
    second = pig.job("play", players=3, seed=4,
                     policies=f"{name}:hold_at,random,{name}:uniform_pick")
    acc = second.chunk(0, 300)["acc"]
    # the same entry, no new signature: the line-up changed only an argument
    assert m._entries[True].entry.signatures == entry_signatures and len(entry_signatures) == 1
    # a new process: the plug-ins load from the cache, the entry too; the same counts
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([folder, *sys.path]))
    out = subprocess.run([sys.executable, "-c", SECOND, name], capture_output=True, text=True,
                         check=True, env=env)
    res = json.loads(out.stdout)
    assert res["misses"] == 0 and res["hits"] >= 3, res  # the entry and both plug-ins loaded
    assert np.array_equal(np.array(res["acc"]), acc)


def test_a_plugin_answering_a_float_stops_with_one_line(mod):
    name, _ = mod
    with pytest.raises(SheepsimError, match="must return an integer on every path") as err:
        sheepsim.play("pig", players=2, policy=f"{name}:halves,random", games=10, seed=1,
                      quiet=True)
    assert "\n" not in str(err.value) and "returns float64" in str(err.value)
