"""One 2-worker LocalCluster (processes, no dashboard) shared by the Dask tests.

The workers inherit this process's environment, so they use the same kernel cache
folder and load the kernels this process (or an earlier run) compiled, and this
folder is on their ``sys.path``, so :mod:`raising_policy` imports there by name.
"""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")  # the sheepsim[dask] extra (part of sheepsim[test])


@pytest.fixture(scope="session")
def cluster():
    """A started :class:`~sheepsim.dask_backend.DaskBackend` of 2 local workers."""
    from sheepsim.dask_backend import DaskBackend

    backend = DaskBackend(workers=2)
    backend.start()
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def one_worker():
    """A started :class:`~sheepsim.dask_backend.DaskBackend` of 1 local worker."""
    from sheepsim.dask_backend import DaskBackend

    backend = DaskBackend(workers=1)
    backend.start()
    yield backend
    backend.close()
