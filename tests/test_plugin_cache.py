"""Kernels rebuilt around a plug-in policy are cached on disk like the built-ins
(``sheepsim.jit``): in a folder keyed by the digest of the sheepsim modules the variant
reaches and a fingerprint of the plug-in, so a second process loads them, and an edit
of the plug-in or of anything it reads selects another folder (a stale kernel never
loads)."""

import json
import os
import shutil
import subprocess
import sys
import uuid

import numba
import pytest

from sheepsim.jit import variant_key

HELPER = "WHICH = {which}\n"

PLUGIN = '''
import numba

from sheepsim.games.race import layout as L
import {helper} as H

TOKEN = {token!r}  # a new file on every test run: the first process must compile


@numba.njit
def pick(kind, view, opts, n, rand):
    """The WHICH-th legal option (the first if there are fewer)."""
    if kind == L.PACE and H.WHICH < n:
        return H.WHICH
    return 0
'''

RUN = '''
import hashlib, json
import numpy as np
import {plugin} as P
from sheepsim import jit
from sheepsim.games.race import layout as L, policies
from sheepsim.games.race.kernels import empty_race_counts, kernels_for
from sheepsim.games.race.rules import load_rules

key = jit.variant_key((P.pick,), ())
out = {{"key": key}}
if {races}:
    k = kernels_for((P.pick,), ())
    rules = load_rules().kernel_rules()
    counts = empty_race_counts(rules.cards.shape[0])
    k.race_chunk(8, 3, 20, rules, np.arange(6), False, L.SEMIFINAL,
                 np.array([policies.FIRST_USER_ID]), counts)
    st = k.fill_races.python_entry.stats
    out.update(hits=sum(st.cache_hits.values()), misses=sum(st.cache_misses.values()),
               counts=hashlib.sha256(b"".join(c.tobytes() for c in counts)).hexdigest())
# the variant's folder: plugins-<digest of the sheepsim modules it reaches>-<key>
out["dirs"] = [str(p) for p in jit.cache_dir().glob(f"plugins-*-{{key}}")]
print(json.dumps(out))
'''


@pytest.fixture
def plugin(tmp_path):
    """``(folder, plugin module name, helper module name)`` written under ``tmp_path``."""
    tag = uuid.uuid4().hex[:8]
    names = (f"cached_plugin_{tag}", f"cached_helper_{tag}")
    (tmp_path / f"{names[1]}.py").write_text(HELPER.format(which=1))
    (tmp_path / f"{names[0]}.py").write_text(PLUGIN.format(helper=names[1], token=tag))
    return tmp_path, *names


def _run(plugin, races: bool) -> dict:
    folder, name, _ = plugin
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), *sys.path]))
    code = RUN.format(plugin=name, races=races)
    # a process each: a new one loads from the disk cache, and imports the plug-in as edited
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_plugin_variant_compiles_once_then_loads_from_the_cache(plugin):
    first = _run(plugin, races=True)
    try:
        assert first["key"] and first["misses"] > 0 and first["hits"] == 0
        second = _run(plugin, races=True)
        assert second["key"] == first["key"]
        assert second["hits"] > 0 and second["misses"] == 0  # nothing compiled
        assert second["counts"] == first["counts"]
        assert len(first["dirs"]) == 1 and second["dirs"] == first["dirs"]
        assert os.path.exists(os.path.join(first["dirs"][0], "modules.txt"))
    finally:
        for folder in first["dirs"]:
            shutil.rmtree(folder, ignore_errors=True)


def test_an_edit_of_the_plugin_or_what_it_reads_selects_another_folder(plugin):
    folder, name, helper = plugin
    original = _run(plugin, races=False)["key"]
    assert _run(plugin, races=False)["key"] == original  # deterministic
    source = (folder / f"{name}.py").read_text()
    (folder / f"{name}.py").write_text(source.replace("H.WHICH < n", "H.WHICH + 1 < n"))
    assert _run(plugin, races=False)["key"] not in (original, None)
    (folder / f"{name}.py").write_text(source)
    assert _run(plugin, races=False)["key"] == original
    # the policy's own file is unchanged; the constant it reads from another module is not
    (folder / f"{helper}.py").write_text(HELPER.format(which=2))
    assert _run(plugin, races=False)["key"] not in (original, None)


def test_what_cannot_be_fingerprinted_is_not_cached(tmp_path, monkeypatch):
    namespace: dict = {}
    exec("def typed_at_the_prompt(kind, st):\n    return 0\n", namespace)  # no source file
    assert variant_key((numba.njit(namespace["typed_at_the_prompt"]),)) is None
    # a global of a type not fingerprinted (a dict), in a module with a file
    name = f"dict_plugin_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("import numba\nTABLE = {0: 1}\n\n\n@numba.njit\n"
                                         "def reads(kind, st):\n    return TABLE[kind]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(name)
    try:
        assert variant_key((module.reads,)) is None
        module.TABLE = (1, 2)  # a tuple of numbers is fingerprinted
        assert variant_key((module.reads,)) is not None
    finally:
        sys.modules.pop(name, None)


def _python(folder, code: str) -> str:
    """Run ``code`` in a new interpreter with ``folder`` importable; its stdout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), *sys.path]))
    # a process each: a new one imports the files as edited (and numba's own cache)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_constant_two_modules_away_is_part_of_the_key(tmp_path):
    # the policy reads pkg.sub.K; sub.py re-exports K from deep.py, whose edit counts
    tag = uuid.uuid4().hex[:8]
    pkg = tmp_path / f"pkg_{tag}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import sub\n")
    (pkg / "sub.py").write_text(f"from pkg_{tag}.deep import K\n")
    (pkg / "deep.py").write_text("K = 0\n")
    (tmp_path / f"pol_{tag}.py").write_text(
        f"import numba\nimport pkg_{tag} as P\n\n\n@numba.njit\n"
        "def pol(kind, st):\n    return P.sub.K\n")
    code = f"import pol_{tag} as m\nfrom sheepsim.jit import variant_key\nprint(variant_key((m.pol,)))"
    before = _python(tmp_path, code)
    (pkg / "deep.py").write_text("K = 6\n")
    assert _python(tmp_path, code) not in (before, "None")


def test_a_user_function_cached_by_numba_itself_is_compiled_afresh(tmp_path):
    """numba's own cache of an ``@njit(cache=True)`` user function is keyed on its file
    only: after an edit of a constant it imports, numba loads the old code. The variant
    compiles a fresh copy (``fresh_copies``), which reads the new value."""
    tag = uuid.uuid4().hex[:8]
    (tmp_path / f"consts_{tag}.py").write_text("K = 1\n")
    (tmp_path / f"cached_{tag}.py").write_text(
        f"import numba\nfrom consts_{tag} import K\n\n\n@numba.njit(cache=True)\n"
        "def pol():\n    return K\n")
    code = (f"import cached_{tag} as m\nfrom sheepsim.jit import fresh_copies\n"
            "print(m.pol(), fresh_copies((m.pol,))[0]())")
    assert _python(tmp_path, code) == "1 1"  # compiled, and cached by numba in __pycache__
    (tmp_path / f"consts_{tag}.py").write_text("K = 2\n")
    _numba_copy, fresh = _python(tmp_path, code).split()  # numba's own: still 1 on 0.68
    assert fresh == "2"
