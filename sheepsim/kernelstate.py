"""Kernel state conventions shared by the games (plain Python: no numpy, no numba).

* **Flat vectors with named offsets.** A game's kernels keep rules, state, views,
  accumulators and small contexts in flat ``int64`` vectors; a layout module declares each
  vector's fields once, in order, with :func:`alloc`, and exports the offsets as
  constants (``ST_HAND = offsets["hand"]``) that numba folds into the kernels.
* **A block's scratch is a namedtuple** of numpy arrays allocated in Python, once per
  chunk of games (``w.opts``, ``w.ctx``, ``w.streams`` ...: named fields, never
  positions), so the kernels allocate nothing and a field added later breaks no caller.
"""


def alloc(spec):
    """Consecutive offsets for ``(name, size)`` pairs, in order; returns ``(offsets,
    total)``: ``offsets[name]`` is where the field starts, ``total`` the vector's length."""
    out, pos = {}, 0
    for name, size in spec:
        out[name] = pos
        pos += size
    return out, pos
