"""Plug-in modules written afresh for a test run (a new name and source, so nothing in a
kernel cache holds them), importable for the tests of a module and by the processes
they start (its folder on ``PYTHONPATH``)."""

from __future__ import annotations

import sys
import textwrap
import uuid

import pytest

#: the head of every such module: its token, and a plug-in drawing from its own stream
HEAD = '''
import numba

from sheepsim.rng import policy_uniform

TOKEN = {token!r}  # a new file on every test run: nothing cached has these plug-ins


@numba.njit
def uniform_pick(kind, view, opts, n, rand):
    return min(n - 1, int(policy_uniform(rand) * n))
'''


def fresh_module(tmp_path_factory, prefix: str, body: str):
    """Yields ``(module name, folder)`` of :data:`HEAD` followed by ``body`` (more
    plug-ins), importable until the fixture using it ends."""
    folder = tmp_path_factory.mktemp(prefix)
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    (folder / f"{name}.py").write_text(textwrap.dedent(HEAD.format(token=name) + body))
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(folder))
    yield name, str(folder)
    mp.undo()
    sys.modules.pop(name, None)
