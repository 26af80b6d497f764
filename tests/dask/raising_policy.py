"""A user policy that raises on the workers (imported there by name): the Dask tests
check that the run stops with one line naming the chunk and the error."""

import numba


@numba.njit
def balk(kind, view, opts, n, rand):
    """Refuses to decide: raises on its first decision."""
    if n >= 0:  # always; the return below only types the function as returning an int
        raise ValueError("the sheep balks")
    return 0
