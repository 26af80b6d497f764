"""A kernel that Python never calls is not finalized (``sheepsim.jit``, "one optimization
per kernel tree"): its library stays LLVM IR until a caller with a Python entry point is
finalized, which links that IR and optimizes and emits the whole tree once. Here on a
toy module of three kernels (``leaf`` <- ``middle`` <- ``top``), compiled into a cache of
its own: the libraries of ``leaf`` and ``middle`` stay unfinalized; the answers are the
plain Python ones; a second process reads the deferred cache entries back as deferred
ones and links them into a kernel it compiles; a deferred kernel whose address is asked
for (a function value) is finalized then, outside any compile."""

import subprocess
import sys
import textwrap

import pytest

MODULE = textwrap.dedent('''
    import numpy as np

    from sheepsim.jit import njit


    @njit(no_cfunc_wrapper=False)  # a function value: its C wrapper's address is asked below
    def leaf(x):
        return x * 3 + 1


    @njit
    def middle(a):
        s = 0
        for v in a:
            s += leaf(v)
        return s


    @njit
    def top(a, k):
        return middle(a) * k


    @njit
    def other(a):
        return middle(a) - leaf(a[0])
''')

PROBE = textwrap.dedent('''
    import sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import toykernels as t
    from sheepsim import jit

    a = np.arange(5, dtype=np.int64)
    name = sys.argv[2]
    got = int(getattr(t, name)(a, 7) if name == "top" else getattr(t, name)(a))
    libs = {n: getattr(t, n).overloads for n in ("leaf", "middle")}
    deferred = {n: [type(c.library).__name__ == "_DeferredLibrary" and c.library.is_deferred()
                    for c in ov.values()] for n, ov in libs.items()}
    hits = sum(sum(getattr(t, n).stats.cache_hits.values()) for n in ("leaf", "middle"))
    print(got, hits, deferred["leaf"], deferred["middle"])
''')


def _plain(a):
    return sum(3 * v + 1 for v in a)


@pytest.fixture
def toy(tmp_path):
    (tmp_path / "toykernels.py").write_text(MODULE)
    return tmp_path


def _run(toy, name):
    done = subprocess.run([sys.executable, "-c", PROBE, str(toy), name], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got, hits, flags = done.stdout.split(maxsplit=2)
    return int(got), int(hits), flags


def test_callees_stay_ir_and_the_answers_are_the_plain_ones(toy):
    a = list(range(5))
    assert _run(toy, "top") == (_plain(a) * 7, 0, "[True] [True]\n")
    # leaf and middle were compiled (as top's callees) and never finalized
    assert list(toy.rglob("*.nbi")), "the toy kernels were not cached"
    # a second process: `other` compiles, linking leaf and middle read back from their
    # cache entries (2 cache hits), deferred again
    assert _run(toy, "other") == (_plain(a) - 1, 2, "[True] [True]\n")


def test_a_deferred_kernel_is_finalized_when_its_address_is_asked_for(toy):
    """Outside a compile (numba's compiler lock is taken for it): a kernel passed as a
    function value needs its machine code."""
    code = textwrap.dedent('''
        import sys, threading
        import numpy as np
        sys.path.insert(0, sys.argv[1])
        import toykernels as t
        a = np.arange(5, dtype=np.int64)
        from numba import types
        t.leaf.compile((types.int64,))  # compiled, or read from the cache (deferred)
        (cres,) = t.leaf.overloads.values()
        assert cres.library.is_deferred()
        out = []
        th = threading.Thread(target=lambda: out.append(
            cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)))
        th.start(); th.join()
        assert out and out[0] != 0 and not cres.library.is_deferred()
        got = int(t.top(a, 2))
        # sheepsim's njit builds no C wrapper unless asked (middle is no function value)
        t.middle.compile((types.Array(types.int64, 1, "C"),))
        (m,) = t.middle.overloads.values()
        try:
            m.library._final_module.get_function(m.fndesc.llvm_cfunc_wrapper_name)
            raise AssertionError("middle has a C wrapper")
        except NameError:
            pass
        print(got, sum(t.leaf.stats.cache_hits.values()))
    ''')
    # compiled here (a first process), then read back from the cache (a second one)
    for hits in (0, 1):
        done = subprocess.run([sys.executable, "-c", code, str(toy)], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [str(_plain(range(5)) * 2), str(hits)]
