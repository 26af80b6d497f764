"""numba's inliner with one copy memo per function (``sheepsim.jit._install_inline_copy``):
the same compiled code as numba's own, for less copying.

numba copies an inlined callee's IR block by block, each block copying the function's
whole scope again; sheepsim's kernels inline deeply (``inline="always"``), and that copy
was 8.6 of a cold ``race play``'s 52 CPU s. The change must not change what numba
compiles: two fresh processes compile the same kernels, one with numba as it is and one
with the change installed, and print numba's typed IR and the LLVM IR; both must be
identical, their answer the one the same functions give run as Python (a third process,
``NUMBA_DISABLE_JIT``), and the changed one must copy fewer variables (else the test
would compare numba with itself). The same for the walk of a value's members for its
increfs and decrefs (``sheepsim.jit._install_meminfo_walk``): the same increfs and
decrefs, the same machine code, fewer instructions built.
"""

import json
import os
import re
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, sys
    import numba
    import numpy as np
    from numba.core import ir

    copies = [0]
    plain_copy = ir.Var.__deepcopy__

    def counted(self, memo):
        copies[0] += 1
        return plain_copy(self, memo)

    ir.Var.__deepcopy__ = counted
    if sys.argv[1] == "shared":
        from sheepsim import jit
        jit._install_inline_copy()

    @numba.njit(inline="always")
    def step(a, i, k):
        s = 0
        for j in range(k):
            if a[(i + j) % a.size] > 2:
                s += a[j % a.size] * 2
            elif j % 3 == 0:
                s -= 1
            else:
                while s > 100:
                    s //= 2
        return s

    @numba.njit(inline="always")
    def twice(a, i):
        x = step(a, i, 5)
        y = step(a, i + 1, 7)
        return x + y if x > y else x - y

    @numba.njit
    def top(a):
        t = 0
        for i in range(a.size):
            t += twice(a, i) + step(a, i, 3)
        return t

    value = int(top(np.arange(9, dtype=np.int64)))
    if sys.argv[1] == "python":  # NUMBA_DISABLE_JIT: the functions run as Python
        print(json.dumps({"value": value}))
        sys.exit()
    sig = top.signatures[0]
    print(json.dumps({"value": value, "llvm": top.inspect_llvm(sig),
                      "typed": str(top.overloads[sig].type_annotation),
                      "copies": copies[0]}))
''')


def _compile(mode: str, script: str = SCRIPT) -> dict:
    """``script`` run in a fresh process with ``mode`` (``python``: NUMBA_DISABLE_JIT)."""
    env = {**os.environ, **({"NUMBA_DISABLE_JIT": "1"} if mode == "python" else {})}
    done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True,
                          text=True, timeout=300, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_shared_memo_compiles_what_numba_compiles_with_fewer_copies():
    plain, shared = _compile("plain"), _compile("shared")
    expected = _compile("python")["value"]  # the same functions run as Python
    assert plain["value"] == shared["value"] == expected
    # (the typed IR names the dispatchers by address, which differs between processes)
    def typed(run):
        return re.sub(r" at 0x[0-9a-f]+", " at 0x...", run["typed"])

    assert typed(shared) == typed(plain)
    assert shared["llvm"] == plain["llvm"]
    assert 0 < shared["copies"] < plain["copies"], (shared["copies"], plain["copies"])


def test_the_flags_values_and_hash_are_numbas():
    """``sheepsim.jit._install_flag_values``: the same values (each option's property,
    numba's definition), hash (of the options' sorted names) and equality as numba's, for
    flags as numba's compiles set them."""
    from numba.core.compiler import Flags

    from sheepsim import jit

    jit._install_flag_values()

    def numbas_values(f):
        return {k: getattr(f, k) for k in f.options}

    made = [Flags()]
    for name, value in (("nrt", True), ("no_cpython_wrapper", True), ("boundscheck", True),
                        ("no_cfunc_wrapper", True), ("nrt", False)):
        f = Flags(made[-1])
        setattr(f, name, value)
        made.append(f)
    made.append(Flags(made[2]))  # a copy: equal, not the same object
    for f in made:
        assert f.values() == numbas_values(f)
        assert list(f.values()) == list(numbas_values(f))  # the same order too
        assert hash(f) == hash(tuple(sorted(numbas_values(f))))
    for f in made:
        for g in made:
            assert (f == g) == (numbas_values(f) == numbas_values(g))
    assert made[2] == made[-1] and made[0] != made[1]


MEMINFO_SCRIPT = textwrap.dedent('''
    import json, sys
    import numba
    import numpy as np
    from llvmlite import ir as llir

    built = {"extractvalue": 0}
    refops = []  # every incref and decref call the lowering emits, in order
    plain_extract, plain_call = llir.IRBuilder.extract_value, llir.IRBuilder.call

    def extract_value(self, *args, **kwargs):
        built["extractvalue"] += 1
        return plain_extract(self, *args, **kwargs)

    def call(self, fn, *args, **kwargs):
        if getattr(fn, "name", "") in ("NRT_incref", "NRT_decref"):
            refops.append(fn.name)
        return plain_call(self, fn, *args, **kwargs)

    llir.IRBuilder.extract_value, llir.IRBuilder.call = extract_value, call
    if sys.argv[1] == "walk":
        from sheepsim import jit
        jit._install_meminfo_walk()

    @numba.njit(inline="always")
    def scaled(R, k):
        a, n, pair, b, inner = R
        return a[k % a.size] * pair[1] + n + inner[1] + b[0, k % b.shape[1]]

    @numba.njit
    def touch(R, k):
        a, n, pair, b, inner = R
        inner[0][k % inner[0].size] += 1
        return scaled(R, k) + pair[0]

    @numba.njit
    def top(R, ks):
        t = 0.0
        for k in ks:
            t += touch(R, k) + scaled(R, k + 1)
            R2 = (R[0], R[1] + 1, R[2], R[3], R[4])
            t += touch(R2, k)
        return t

    R = (np.arange(5.0), 3, (2, 1.5), np.ones((2, 3)), (np.zeros(4, np.int64), 7))
    value = float(top(R, np.arange(6)))
    value = [value, R[4][0].tolist()]
    if sys.argv[1] == "python":  # NUMBA_DISABLE_JIT: the functions run as Python
        print(json.dumps({"value": value}))
        sys.exit()
    sig = top.signatures[0]
    print(json.dumps({"value": value, "asm": top.inspect_asm(sig), "refops": refops,
                      "built": built["extractvalue"]}))
''')


def test_the_meminfo_walk_emits_numbas_increfs_and_machine_code_with_fewer_instructions():
    """``sheepsim.jit._install_meminfo_walk``: a tuple of arrays, ints, a pair of numbers
    and a nested tuple (as the machines' ``R``), passed to called and inlined functions:
    the same incref and decref calls in the same order as numba's own walk, the same
    machine code, the answer of the functions run as Python, and fewer ``extractvalue``
    instructions built (else the test would compare numba with itself)."""
    plain, walk = _compile("plain", MEMINFO_SCRIPT), _compile("walk", MEMINFO_SCRIPT)
    assert plain["value"] == walk["value"] == _compile("python", MEMINFO_SCRIPT)["value"]
    assert walk["refops"] == plain["refops"] and len(plain["refops"]) > 10
    assert walk["asm"] == plain["asm"]
    assert 0 < walk["built"] < plain["built"], (walk["built"], plain["built"])
