# Licensed under the Apache License, Version 2.0.
"""Index trees of the native per-store features (:mod:`._stores`): an integer expression with
block bindings substituted, as nested tuples, and what is computed on them: constant folding,
interval bounds over loop ranges, operation counts, TVM's stride coefficient.

A tree is ``(op, a, b)`` with leaves ``(CONST, value)``, ``(LOOP, loop id)`` and
``(UNKNOWN,)``. Compiled with Cython by ``build.sh``, like the walk.
"""

import math

from tvm_gnn.featurize._names import NAMES as _NAMES
from tvm_gnn.featurize._names import buffer_of, call_args, name_of  # noqa: F401 - shared with ._stores
from tvm_gnn.tvm_compat import array_get as _array_get
from tvm_gnn.tvm_compat import array_size as _array_size

# Index trees: tuples (op, a, b); leaves (CONST, value), (LOOP, loop id) and (UNKNOWN,).
CONST = 0
LOOP = 1
UNKNOWN = 2
ADD = 3
SUB = 4
MUL = 5
DIV = 6
MOD = 7
MIN = 8
MAX = 9
CMP = 10
BOOL = 11
SELECT = 12
ZERO = (CONST, 0)

BINARY = {
    "Add": ADD,
    "Sub": SUB,
    "Mul": MUL,
    "Div": DIV,
    "FloorDiv": DIV,
    "Mod": MOD,
    "FloorMod": MOD,
    "Min": MIN,
    "Max": MAX,
    "EQ": CMP,
    "NE": CMP,
    "LT": CMP,
    "LE": CMP,
    "GT": CMP,
    "GE": CMP,
    "And": BOOL,
    "Or": BOOL,
}
# the arithmetic counter each tree op adds to (an index into _store_row.ARITH)
TREE_COUNTER = {ADD: 5, SUB: 5, MUL: 6, DIV: 7, MOD: 7, MIN: 8, MAX: 8, CMP: 8}
FLOAT_COUNTER = {ADD: 0, SUB: 0, MUL: 1, DIV: 2, MOD: 2, MIN: 3, MAX: 3}


def slog(x):
    return math.log2(1.0 + x) if x >= 0 else math.log2(1.0 - x)


def items(arr):
    return [_array_get(arr, i) for i in range(_array_size(arr))]


def is_float(ty, cache):
    key = str(ty)
    f = cache.get(key)
    if f is None:
        f = key.startswith("float") or key.startswith("bfloat")
        cache[key] = f
    return f


def dtype_bytes(ty, cache):
    key = str(ty)
    b = cache.get(key)
    if b is None:
        base = key.split("x")[0]
        digits = "".join(ch for ch in base if ch.isdigit())
        b = max(int(digits) // 8, 1) if digits else 1
        cache[key] = b
    return b


def fold(op, a, b):
    """The tree ``(op, a, b)``, constants folded as TVM's simplifier would."""
    if a[0] == CONST and b[0] == CONST:
        x, y = a[1], b[1]
        if op == ADD:
            return (CONST, x + y)
        if op == SUB:
            return (CONST, x - y)
        if op == MUL:
            return (CONST, x * y)
        if op == DIV and y != 0:
            return (CONST, x // y)
        if op == MOD and y != 0:
            return (CONST, x % y)
        if op == MIN:
            return (CONST, min(x, y))
        if op == MAX:
            return (CONST, max(x, y))
    if op == ADD:
        if a == ZERO:
            return b
        if b == ZERO:
            return a
    elif op == SUB:
        if b == ZERO:
            return a
    elif op == MUL:
        if a == ZERO or b == ZERO:
            return ZERO
        if a == (CONST, 1):
            return b
        if b == (CONST, 1):
            return a
    elif op == DIV:
        if b == (CONST, 1):
            return a
        if a == ZERO:
            return ZERO
    elif op == MOD:
        if b == (CONST, 1) or a == ZERO:
            return ZERO
    return (op, a, b)


def tree(e, vars):
    """The index tree of an integer expression, bindings substituted and constants folded."""
    name = _NAMES.get(type(e)) or name_of(e)
    if name == "IntImm":
        return (CONST, e.value)
    if name == "Var" or name == "SizeVar":
        t = vars.get(hash(e))
        return t if t is not None else (UNKNOWN,)
    op = BINARY.get(name)
    if op is not None:
        return fold(op, tree(e.a, vars), tree(e.b, vars))
    if name == "Cast":
        return tree(e.value, vars)
    if name == "Not":
        return (BOOL, tree(e.a, vars), ZERO)
    if name == "Select":
        return (SELECT, tree(e.true_value, vars), tree(e.false_value, vars))
    return (UNKNOWN,)


def count_tree(t, counts, times):
    op = t[0]
    if op <= UNKNOWN:
        return
    c = TREE_COUNTER.get(op)
    if c is not None:
        counts[c] += times
    elif op == BOOL:
        counts[10] += times
    elif op == SELECT:
        counts[11] += times
    count_tree(t[1], counts, times)
    count_tree(t[2], counts, times)


def rebase(t, fixed):
    """Tree ``t`` with the loops in ``fixed`` at 0, constants folded again."""
    op = t[0]
    if op == LOOP:
        return ZERO if t[1] in fixed else t
    if op <= UNKNOWN:
        return t
    return fold(op, rebase(t[1], fixed), rebase(t[2], fixed))


def bound(t, lo, hi, wrap=True):
    """(min, max) of tree ``t`` when loop ``j`` ranges over ``[lo[j], hi[j]]``."""
    op = t[0]
    if op == CONST:
        return t[1], t[1]
    if op == LOOP:
        return lo[t[1]], hi[t[1]]
    if op == UNKNOWN:
        return 0, 0
    if op == MOD and wrap and t[2][0] == CONST and t[2][1] > 0 and t[1][0] == ADD:
        split = _mod_of_sum(t[1], t[2][1], lo, hi)
        if split is not None:
            return split
    a0, a1 = bound(t[1], lo, hi, wrap)
    b0, b1 = bound(t[2], lo, hi, wrap)
    if op == ADD:
        return a0 + b0, a1 + b1
    if op == SUB:
        return a0 - b1, a1 - b0
    if op == MUL:
        p = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return min(p), max(p)
    if op == DIV:
        if b0 == b1 and b0 > 0:
            return a0 // b0, a1 // b0
        return min(a0, 0), max(a1, 0)
    if op == MOD:
        if b0 == b1 and b0 > 0:
            if a0 >= 0 and a1 < b0:
                return a0, a1
            # where the operand wraps around, TVM's feature extraction bounds the remainder to
            # one value, not [0, b - 1] (checked against PerStoreFeature: `j % 56` over j in
            # [0, 64) touches one element there); its buffer compaction does not (wrap False)
            return (0, 0) if wrap else (0, b0 - 1)
        return 0, max(b1 - 1, 0)
    if op == MIN:
        return min(a0, b0), min(a1, b1)
    if op == MAX:
        return max(a0, b0), max(a1, b1)
    if op == SELECT:
        return min(a0, b0), max(a1, b1)
    return 0, 1  # comparisons and logic


def _mod_of_sum(a, c, lo, hi):
    """Bounds of ``(x * k + y) % c`` as TVM's simplifier rewrites it when ``k`` divides ``c``
    and ``y`` stays in ``[0, k)``: ``(x % (c / k)) * k + y``; None if the sum is not of that
    form."""
    for prod, rest in ((a[1], a[2]), (a[2], a[1])):
        if prod[0] != MUL:
            continue
        for x, k in ((prod[1], prod[2]), (prod[2], prod[1])):
            if k[0] != CONST or k[1] <= 0 or c % k[1]:
                continue
            y0, y1 = bound(rest, lo, hi)
            if y0 < 0 or y1 >= k[1]:
                continue
            m0, m1 = bound((MOD, x, (CONST, c // k[1])), lo, hi)
            return m0 * k[1] + y0, m1 * k[1] + y1
    return None


def loops_in(t, out):
    op = t[0]
    if op == LOOP:
        out.add(t[1])
    elif op > UNKNOWN:
        loops_in(t[1], out)
        loops_in(t[2], out)


def coefficient(t, lid):
    """TVM's ``GetVarStride`` coefficient of loop ``lid`` in ``t``: 1 for the bare variable or a
    sum, the constant factor of the last product over it, 0 if it does not occur."""
    # flags: [visited_var, visited_add, visited_mul, stride]
    f = [False, False, False, 0]
    _coef_visit(t, lid, f)
    if f[0] and not f[2] and not f[1]:
        return 1
    return f[3] if f[0] else 0


def _coef_visit(t, lid, f):
    op = t[0]
    if op == LOOP:
        if t[1] == lid:
            f[0] = True
            f[3] = 2
        return
    if op <= UNKNOWN:
        return
    _coef_visit(t[1], lid, f)
    _coef_visit(t[2], lid, f)
    if op == MUL:
        if f[0] and not f[1]:
            if t[1][0] == CONST:
                f[2] = True
                f[3] = t[1][1]
            elif t[2][0] == CONST:
                f[2] = True
                f[3] = t[2][1]
    elif op == ADD:
        if f[0] and not f[2]:
            f[1] = True
            f[3] = 1


def shape_of(buf):
    out = []
    for d in items(buf.shape):
        out.append(d.value if type(d).__name__ == "IntImm" else 1)
    return out


def region(indices, lo, hi, wrap=True):
    """Per-dimension extents of the union of ``indices`` under the loop ranges, and their
    product."""
    ndim = len(indices[0])
    shape = []
    numel = 1
    for d in range(ndim):
        mn = None
        mx = None
        for idx in indices:
            a, b = bound(idx[d], lo, hi, wrap)
            if mn is None or a < mn:
                mn = a
            if mx is None or b > mx:
                mx = b
        ext = mx - mn + 1
        shape.append(ext)
        numel *= ext
    return shape, max(numel, 0)
