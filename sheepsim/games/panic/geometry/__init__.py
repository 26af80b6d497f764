"""Shear Panic's flock geometry (numba kernels on the state vector ``st``):

* :mod:`.flockops`: sheep lookup, the seven actions and their legality;
* :mod:`.groups`: connected groups, the main flock, regroup routes;
* :mod:`.regroup`: regrouping the flock until it is connected;
* :mod:`.scoring`: scoring on the flock (rows from the front and the back, teammates
  together, sheep next to the black sheep).

Nothing is imported here: importing this package compiles nothing. The time track's
scoring is :mod:`..track`, the friendly pure-Python wrapper :class:`..flock.Flock`.
"""
