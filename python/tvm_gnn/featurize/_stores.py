# Licensed under the Apache License, Version 2.0.
"""Per-store features from the scheduled TIR, without TVM's lowering passes.

A subset of the columns of TVM's ``PerStoreFeature`` (what XGBModel ranks with), computed by one
pass over the scheduled program (``sch.mod``) and a few interval evaluations per store. TVM lowers
each candidate first (12 passes: init blocks lowered, buffers compacted, the program simplified)
and runs its arithmetic analyzer on every access; here those passes are emulated where they change
a column:

- a serial loop of extent 1 without annotations is dropped and its variable is 0 (TVM's
  ``SimplifyForFeatureExtraction``); block bindings are substituted into the indices, with the
  constant folding that leaves ``x + 0`` as ``x``;
- a buffer allocated in a block lives under the innermost loop enclosing all its accesses, with
  the shape of the region they touch under it (``PlanAndUpdateBufferAllocationLocation``,
  ``CompactBufferAllocation``);
- index bounds are interval arithmetic over the loop ranges (``+ - *``, floor division and
  modulo by a constant, min, max), where TVM uses its analyzer's constant-integer bounds.

:data:`COLUMNS` names each column and :data:`TVM_COLUMNS` gives the column of TVM's 164 it
stands for; ``docs/featurizer.md`` says what each counts and how well it agrees with TVM's
(``benchmarks/store_agreement.py``). Like the walk, ``build.sh`` compiles this file with Cython
and the pure-Python file is the fallback.
"""

import math

from tvm_ffi import _ffi_api as _ffi

_array_size = _ffi.ArraySize
_array_get = _ffi.ArrayGetItem

#: bytes per cache line, as TVM's PerStoreFeature default
CACHE_LINE_BYTES = 64
#: buffer slots per store, as TVM's default (the most-touched first, the rest dropped)
BUFFERS_PER_STORE = 5
#: samples of the arithmetic-intensity curve, as TVM's default
CURVE_SAMPLES = 10

_ARITH = (
    "float_add_sub",
    "float_mul",
    "float_div_mod",
    "float_cmp",
    "float_math_func",
    "int_add_sub",
    "int_mul",
    "int_div_mod",
    "int_cmp",
    "int_math_func",
    "bool_op",
    "select_op",
)
# their columns in TVM's layout (float_mad, float_other_func and int_other_func are left out:
# TVM never counts a MAD, and the others are calls with side effects, absent from CPU programs)
_ARITH_TVM = (1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 14, 15)
_KINDS = (("vec", 2, 16), ("unroll", 3, 27), ("parallel", 1, 38))  # (name, ForKind, TVM column)
_BUFFER = (
    "read",
    "write",
    "read_write",
    "bytes",
    "unique_bytes",
    "lines",
    "unique_lines",
    "reuse_loop",
    "reuse_serial",
    "reuse_none",
    "reuse_dis_iter",
    "reuse_dis_bytes",
    "reuse_ct",
    "bytes_d_reuse_ct",
    "unique_bytes_d_reuse_ct",
    "lines_d_reuse_ct",
    "unique_lines_d_reuse_ct",
    "stride",
)


def _columns():
    names, tvm = [], []
    for name, col in zip(_ARITH, _ARITH_TVM):
        names.append(name)
        tvm.append(col)
    for kind, _, col in _KINDS:
        for k, part in enumerate(("num", "prod", "len")):
            names.append(f"{kind}_{part}")
            tvm.append(col + k)
    for b in range(BUFFERS_PER_STORE):
        for k, part in enumerate(_BUFFER):
            names.append(f"B{b}.{part}")
            tvm.append(57 + 18 * b + k)
    for k in range(CURVE_SAMPLES):
        names.append(f"arith_intensity_{k}")
        tvm.append(147 + k)
    for k, part in enumerate(
        (
            "alloc_size",
            "alloc_prod",
            "alloc_outer_prod",
            "alloc_inner_prod",
            "outer_prod",
            "num_loops",
            "auto_unroll_max_step",
        )
    ):
        names.append(part)
        tvm.append(157 + k)
    return tuple(names), tuple(tvm)


#: the columns of a row, and the column of TVM's PerStoreFeature each stands for
COLUMNS, TVM_COLUMNS = _columns()
NUM_STORE_FEATURES = len(COLUMNS)

# Index trees: tuples (op, a, b); leaves (_CONST, value), (_LOOP, loop id) and (_UNKNOWN,).
_CONST = 0
_LOOP = 1
_UNKNOWN = 2
_ADD = 3
_SUB = 4
_MUL = 5
_DIV = 6
_MOD = 7
_MIN = 8
_MAX = 9
_CMP = 10
_BOOL = 11
_SELECT = 12
_ZERO = (_CONST, 0)

_BINARY = {
    "Add": _ADD,
    "Sub": _SUB,
    "Mul": _MUL,
    "Div": _DIV,
    "FloorDiv": _DIV,
    "Mod": _MOD,
    "FloorMod": _MOD,
    "Min": _MIN,
    "Max": _MAX,
    "EQ": _CMP,
    "NE": _CMP,
    "LT": _CMP,
    "LE": _CMP,
    "GT": _CMP,
    "GE": _CMP,
    "And": _BOOL,
    "Or": _BOOL,
}
# the arithmetic counter each tree op adds to (index of _ARITH)
_TREE_COUNTER = {_ADD: 5, _SUB: 5, _MUL: 6, _DIV: 7, _MOD: 7, _MIN: 8, _MAX: 8, _CMP: 8}
_FLOAT_COUNTER = {_ADD: 0, _SUB: 0, _MUL: 1, _DIV: 2, _MOD: 2, _MIN: 3, _MAX: 3}


def _slog(x):
    return math.log2(1.0 + x) if x >= 0 else math.log2(1.0 - x)


def _items(arr):
    return [_array_get(arr, i) for i in range(_array_size(arr))]


def _is_float(ty, cache):
    key = str(ty)
    f = cache.get(key)
    if f is None:
        f = key.startswith("float") or key.startswith("bfloat")
        cache[key] = f
    return f


def _dtype_bytes(ty, cache):
    key = str(ty)
    b = cache.get(key)
    if b is None:
        base = key.split("x")[0]
        digits = "".join(ch for ch in base if ch.isdigit())
        b = max(int(digits) // 8, 1) if digits else 1
        cache[key] = b
    return b


def _fold(op, a, b):
    """The tree ``(op, a, b)``, constants folded as TVM's simplifier would."""
    if a[0] == _CONST and b[0] == _CONST:
        x, y = a[1], b[1]
        if op == _ADD:
            return (_CONST, x + y)
        if op == _SUB:
            return (_CONST, x - y)
        if op == _MUL:
            return (_CONST, x * y)
        if op == _DIV and y != 0:
            return (_CONST, x // y)
        if op == _MOD and y != 0:
            return (_CONST, x % y)
        if op == _MIN:
            return (_CONST, min(x, y))
        if op == _MAX:
            return (_CONST, max(x, y))
    if op == _ADD:
        if a == _ZERO:
            return b
        if b == _ZERO:
            return a
    elif op == _SUB:
        if b == _ZERO:
            return a
    elif op == _MUL:
        if a == _ZERO or b == _ZERO:
            return _ZERO
        if a == (_CONST, 1):
            return b
        if b == (_CONST, 1):
            return a
    elif op == _DIV:
        if b == (_CONST, 1):
            return a
        if a == _ZERO:
            return _ZERO
    elif op == _MOD:
        if b == (_CONST, 1) or a == _ZERO:
            return _ZERO
    return (op, a, b)


class _State:
    """What one pass over a program collects."""

    def __init__(self):
        self.loops = []  # loop id -> (extent, kind, auto-unroll step or 0)
        self.path = []  # ids of the loops enclosing the current statement, outermost first
        self.vars = {}  # variable (hash) -> its tree: a loop, a constant or a block binding
        self.stores = []  # (buffer, loop path, arith counts, {buffer: [type, [indices]]})
        self.paths = {}  # buffer -> loop paths of its accesses
        self.allocated = {}  # buffer (hash) -> Buffer, for buffers allocated in a block
        self.buffers = {}  # buffer (hash) -> Buffer
        self.inits = {}  # buffer -> indices of its constant stores
        self.types = {}  # dtype string caches
        self.bytes = {}


def _tree(e, st):
    """The index tree of an integer expression, bindings substituted and constants folded."""
    name = type(e).__name__
    if name == "IntImm":
        return (_CONST, e.value)
    if name == "Var" or name == "SizeVar":
        t = st.vars.get(hash(e))
        return t if t is not None else (_UNKNOWN,)
    op = _BINARY.get(name)
    if op is not None:
        return _fold(op, _tree(e.a, st), _tree(e.b, st))
    if name == "Cast":
        return _tree(e.value, st)
    if name == "Not":
        return (_BOOL, _tree(e.a, st), _ZERO)
    if name == "Select":
        return (_SELECT, _tree(e.true_value, st), _tree(e.false_value, st))
    return (_UNKNOWN,)


def _count_tree(t, counts, times):
    op = t[0]
    if op <= _UNKNOWN:
        return
    c = _TREE_COUNTER.get(op)
    if c is not None:
        counts[c] += times
    elif op == _BOOL:
        counts[10] += times
    elif op == _SELECT:
        counts[11] += times
    _count_tree(t[1], counts, times)
    _count_tree(t[2], counts, times)


def _value(e, st, counts, accesses, loads):
    """Count the arithmetic of a stored value (once per execution) and collect its loads: by
    buffer in ``accesses``, and as ``(buffer, indices)`` in ``loads``, whose arithmetic is counted
    once the buffers are placed (:func:`_store_row`)."""
    name = type(e).__name__
    if name == "BufferLoad":
        buf = e.buffer
        key = hash(buf)
        st.buffers[key] = buf
        st.paths.setdefault(key, []).append(tuple(st.path))
        idx = [_tree(i, st) for i in _items(e.indices)]
        loads.append((key, idx))
        acc = accesses.get(key)
        if acc is None:
            accesses[key] = [0, [idx]]  # read
        elif acc[0] == 1:  # the stored buffer, read too
            acc[0] = 2
        elif acc[0] == 0:
            acc[1].append(idx)
        return
    if name == "IntImm" or name == "FloatImm" or name == "StringImm":
        return
    if name == "Var" or name == "SizeVar":
        _count_tree(_tree(e, st), counts, 1)
        return
    if name == "Cast":
        _value(e.value, st, counts, accesses, loads)
        return
    if name == "Call":
        counts[4 if _is_float(e.ty, st.types) else 9] += 1
        for a in _items(e.args):
            _value(a, st, counts, accesses, loads)
        return
    op = _BINARY.get(name)
    if op is not None:
        if op == _CMP:
            counts[8] += 1  # a comparison is typed bool: TVM counts it as an integer one
        elif op == _BOOL:
            counts[10] += 1
        elif _is_float(e.ty, st.types):
            counts[_FLOAT_COUNTER[op]] += 1
        else:
            counts[_TREE_COUNTER[op]] += 1
        _value(e.a, st, counts, accesses, loads)
        _value(e.b, st, counts, accesses, loads)
        return
    if name == "Not":
        counts[10] += 1
        _value(e.a, st, counts, accesses, loads)
        return
    if name == "Select":
        counts[11] += 1
        _value(e.condition, st, counts, accesses, loads)
        _value(e.true_value, st, counts, accesses, loads)
        _value(e.false_value, st, counts, accesses, loads)
        return
    if name == "Ramp":
        _value(e.base, st, counts, accesses, loads)
        _value(e.stride, st, counts, accesses, loads)
    elif name == "Broadcast":
        _value(e.value, st, counts, accesses, loads)
    elif name == "Let":
        _value(e.value, st, counts, accesses, loads)
        _value(e.body, st, counts, accesses, loads)


# statements whose body is all they add here
_WRAPPERS = frozenset(("AttrStmt", "LetStmt", "While", "SBlock", "DeclBuffer", "Allocate"))


def _visit(s, st):
    name = type(s).__name__
    if name == "For":
        ext = s.extent
        e = ext.value if type(ext).__name__ == "IntImm" else 1
        kind = int(s.kind)
        ann = s.annotations
        if e == 1 and kind == 0 and len(ann) == 0:
            st.vars[hash(s.loop_var)] = _ZERO
            _visit(s.body, st)
            return
        step = 0
        if len(ann) > 0:
            v = ann.get("pragma_auto_unroll_max_step")
            if v is not None:
                step = int(v)
        lid = len(st.loops)
        st.loops.append((max(e, 1), kind, step))
        st.vars[hash(s.loop_var)] = (_LOOP, lid)
        st.path.append(lid)
        _visit(s.body, st)
        st.path.pop()
    elif name == "SeqStmt":
        for c in _items(s.seq):
            _visit(c, st)
    elif name == "SBlockRealize":
        block = s.block
        ivs = _items(block.iter_vars)
        i = 0
        for value in _items(s.iter_values):
            st.vars[hash(ivs[i].var)] = _tree(value, st)
            i += 1
        for buf in _items(block.alloc_buffers):
            st.allocated[hash(buf)] = buf
            st.buffers[hash(buf)] = buf
        if block.init is not None:
            _visit(block.init, st)
        _visit(block.body, st)
    elif name == "BufferStore":
        buf = s.buffer
        key = hash(buf)
        st.buffers[key] = buf
        st.paths.setdefault(key, []).append(tuple(st.path))
        indices = [_tree(i, st) for i in _items(s.indices)]
        vname = type(s.value).__name__
        if vname == "IntImm" or vname == "FloatImm":
            # TVM gives constant stores (initializations) no row; they still place and size
            # the buffer's allocation
            st.inits.setdefault(key, []).append(indices)
            return
        counts = [0] * len(_ARITH)
        accesses = {key: [1, [indices]]}
        loads = []
        _value(s.value, st, counts, accesses, loads)
        st.stores.append((key, tuple(st.path), counts, accesses, loads))
    elif name == "IfThenElse":
        _visit(s.then_case, st)
        if s.else_case is not None:
            _visit(s.else_case, st)
    elif name in _WRAPPERS:
        body = getattr(s, "body", None)
        if body is not None:
            _visit(body, st)


def _rebase(t, fixed):
    """Tree ``t`` with the loops in ``fixed`` at 0, constants folded again."""
    op = t[0]
    if op == _LOOP:
        return _ZERO if t[1] in fixed else t
    if op <= _UNKNOWN:
        return t
    return _fold(op, _rebase(t[1], fixed), _rebase(t[2], fixed))


def _bound(t, lo, hi):
    """(min, max) of tree ``t`` when loop ``j`` ranges over ``[lo[j], hi[j]]``."""
    op = t[0]
    if op == _CONST:
        return t[1], t[1]
    if op == _LOOP:
        return lo[t[1]], hi[t[1]]
    if op == _UNKNOWN:
        return 0, 0
    a0, a1 = _bound(t[1], lo, hi)
    b0, b1 = _bound(t[2], lo, hi)
    if op == _ADD:
        return a0 + b0, a1 + b1
    if op == _SUB:
        return a0 - b1, a1 - b0
    if op == _MUL:
        p = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return min(p), max(p)
    if op == _DIV:
        if b0 == b1 and b0 > 0:
            return a0 // b0, a1 // b0
        return min(a0, 0), max(a1, 0)
    if op == _MOD:
        if b0 == b1 and b0 > 0:
            if a0 >= 0 and a1 < b0:
                return a0, a1
            return 0, b0 - 1
        return 0, max(b1 - 1, 0)
    if op == _MIN:
        return min(a0, b0), min(a1, b1)
    if op == _MAX:
        return max(a0, b0), max(a1, b1)
    if op == _SELECT:
        return min(a0, b0), max(a1, b1)
    return 0, 1  # comparisons and logic


def _loops_in(t, out):
    op = t[0]
    if op == _LOOP:
        out.add(t[1])
    elif op > _UNKNOWN:
        _loops_in(t[1], out)
        _loops_in(t[2], out)


def _coefficient(t, lid):
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
    if op == _LOOP:
        if t[1] == lid:
            f[0] = True
            f[3] = 2
        return
    if op <= _UNKNOWN:
        return
    _coef_visit(t[1], lid, f)
    _coef_visit(t[2], lid, f)
    if op == _MUL:
        if f[0] and not f[1]:
            if t[1][0] == _CONST:
                f[2] = True
                f[3] = t[1][1]
            elif t[2][0] == _CONST:
                f[2] = True
                f[3] = t[2][1]
    elif op == _ADD:
        if f[0] and not f[2]:
            f[1] = True
            f[3] = 1


def _shape(buf):
    out = []
    for d in _items(buf.shape):
        out.append(d.value if type(d).__name__ == "IntImm" else 1)
    return out


def _region(indices, lo, hi):
    """Per-dimension extents of the union of ``indices`` under the loop ranges, and their
    product."""
    ndim = len(indices[0])
    shape = []
    numel = 1
    for d in range(ndim):
        mn = None
        mx = None
        for idx in indices:
            a, b = _bound(idx[d], lo, hi)
            if mn is None or a < mn:
                mn = a
            if mx is None or b > mx:
                mx = b
        ext = mx - mn + 1
        shape.append(ext)
        numel *= ext
    return shape, max(numel, 0)


def _compact(st):
    """``{buffer: (shape, loops enclosing its allocation)}`` for buffers allocated in blocks."""
    out = {}
    n = len(st.loops)
    for key, buf in st.allocated.items():
        paths = st.paths.get(key)
        if not paths:
            out[key] = (_shape(buf), ())
            continue
        common = list(paths[0])
        for p in paths[1:]:
            k = 0
            while k < len(common) and k < len(p) and common[k] == p[k]:
                k += 1
            del common[k:]
        fixed = set(common)
        lo = [0] * n
        hi = [0 if j in fixed else st.loops[j][0] - 1 for j in range(n)]
        indices = []
        for s in st.stores:
            acc = s[3].get(key)
            if acc is not None:
                indices += acc[1]
        for s in st.inits.get(key, ()):
            indices.append(s)
        if not indices:
            out[key] = (_shape(buf), tuple(common))
            continue
        shape, _ = _region(indices, lo, hi)
        out[key] = (shape, tuple(common))
    return out


def _store_row(store, st, compact, touched):
    key, path, counts, accesses, loads = store
    counts = list(counts)
    for bkey, idx in loads:
        # a compacted buffer's indices lose the loops enclosing its allocation, and with them
        # their arithmetic
        fixed = compact[bkey][1] if bkey in compact else None
        for t in idx:
            _count_tree(_rebase(t, fixed) if fixed else t, counts, 1)
    loops = [st.loops[j] for j in path]
    n = len(path)
    prod = 1
    for e, _, _ in loops:
        prod *= e
    row = [_slog(c * prod) for c in counts]
    for _, kind, _ in _KINDS:
        num = 0
        kprod = 1
        klen = 0
        for e, k, _ in loops:
            if k == kind:
                num += 1
                kprod *= e
                klen = e
        row += [_slog(num), _slog(kprod if num else 0), _slog(klen)]
    # the region each buffer touches under each loop: loops outside it at their start
    nl = len(st.loops)
    lo = [0] * nl
    hi = [0] * nl
    subs = []
    for bkey, (atype, indices) in accesses.items():
        buf = st.buffers[bkey]
        # a compacted buffer is indexed from its region's start under its allocation: the loops
        # enclosing the allocation no longer reach its indices
        fixed = set(compact[bkey][1]) if bkey in compact else None
        used = set()
        for idx in indices:
            for t in idx:
                _loops_in(t, used)
        if fixed:
            used -= fixed
        # the last item: the region under the loops so far, (shape, elements)
        subs.append(
            [
                bkey,
                atype,
                indices,
                _dtype_bytes(buf.dtype, st.bytes),
                buf.name,
                [0] * n,
                fixed,
                used,
                None,
            ]
        )
    for_touched = [0] * n
    shape0 = {}
    for i in range(n - 1, -1, -1):
        hi[path[i]] = loops[i][0] - 1
        total = 0
        for sub in subs:
            if sub[8] is None or path[i] in sub[7]:  # else this loop leaves the region as is
                fixed = sub[6]
                if fixed:
                    sub[8] = _region(sub[2], lo, [0 if j in fixed else hi[j] for j in range(nl)])
                else:
                    sub[8] = _region(sub[2], lo, hi)
            shape, numel = sub[8]
            sub[5][i] = numel
            total += numel * sub[3]
            touched.setdefault(path[i], {}).setdefault(sub[0], []).append(numel)
            if i == 0:
                shape0[sub[0]] = shape
        for_touched[i] = total
    top_bytes = sum(sub[3] for sub in subs) if n else 0
    feats = []
    for bkey, atype, indices, nbytes, bname, numels, fixed, used, _ in subs:
        if bkey in compact:
            bshape = compact[bkey][0]
        else:
            bshape = _shape(st.buffers[bkey])
        ndim = len(bshape)
        bstride = [1] * ndim
        for d in range(ndim - 2, -1, -1):
            bstride[d] = bstride[d + 1] * bshape[d + 1]
        access = shape0.get(bkey, [1] * ndim)
        contiguous = 1
        for d in range(ndim - 1, -1, -1):
            if d < len(access) and access[d] == bshape[d]:
                contiguous = bshape[d] * nbytes
                break
        stride = 0
        i = n - 1
        while i >= 0:
            best = None
            for idx in indices:
                if fixed and path[i] in fixed:
                    break
                for d in range(len(idx) - 1, -1, -1):
                    c = _coefficient(idx[d], path[i])
                    if c != 0:
                        v = abs(c) * (bstride[d] if d < ndim else 1)
                        if best is None or v < best:
                            best = v
                        break
            stride = best if best is not None else 0
            if stride != 0:
                break
            i -= 1
        innermost = stride if i == n - 1 else 0
        non_strided = 1
        for j in range(n - 1, i, -1):
            non_strided *= loops[j][0]
        # reuse: the innermost loop that does not move the access, or one touching it twice
        rtype = 2
        dis_iter = 0.0
        dis_bytes = 0.0
        rct = 0
        for j in range(n - 1, -1, -1):
            lid = path[j]
            if lid not in used:
                rtype = 0
                rct = loops[j][0]
                dis_iter = 1.0
                for k in range(n - 1, j, -1):
                    dis_iter *= loops[k][0]
                if j == n - 1:
                    dis_bytes = float(top_bytes)
                else:
                    for b2, numels2 in touched[path[j + 1]].items():
                        dis_bytes += sum(numels2) * _dtype_bytes(st.buffers[b2].dtype, st.bytes)
                break
            here = touched[lid][bkey]
            if len(here) >= 2:
                rtype = 1
                rct = len(here) - 1
                dis_iter = float(min(here))
                for b2, numels2 in touched[lid].items():
                    dis_bytes += sum(numels2) * _dtype_bytes(st.buffers[b2].dtype, st.bytes)
                dis_iter /= loops[j][0]
                dis_bytes /= loops[j][0]
                break
        nb = nbytes * prod
        if n == 0:
            ub = 1.0
            lines = 1.0
            ulines = 1.0
        else:
            ub = float(numels[0] * nbytes)
            lines = prod / non_strided * min(1.0, stride * nbytes / CACHE_LINE_BYTES)
            lines = max(1.0, lines)
            ulines = max(1.0, ub / min(CACHE_LINE_BYTES, contiguous))
        proxy = rct if rct > 0 else 0.5
        feats.append(
            (
                lines,
                nb,
                bname,
                [
                    1.0 if atype == 0 else 0.0,
                    1.0 if atype == 1 else 0.0,
                    1.0 if atype == 2 else 0.0,
                    _slog(nb),
                    _slog(ub),
                    _slog(lines),
                    _slog(ulines),
                    1.0 if rtype == 0 else 0.0,
                    1.0 if rtype == 1 else 0.0,
                    1.0 if rtype == 2 else 0.0,
                    _slog(dis_iter),
                    _slog(dis_bytes),
                    _slog(rct),
                    _slog(nb / proxy),
                    _slog(ub / proxy),
                    _slog(lines / proxy),
                    _slog(ulines / proxy),
                    _slog(innermost),
                ],
            )
        )
    feats.sort(key=lambda f: (-f[0], -f[1], f[2]))
    for b in range(BUFFERS_PER_STORE):
        row += feats[b][3] if b < len(feats) else [0.0] * len(_BUFFER)
    row += _curve(counts, prod, loops, for_touched)
    if key in compact:
        shape, enclosing = compact[key]
        numel = 1
        for d in shape:
            numel *= d
        outer = 1
        for j in enclosing:
            outer *= st.loops[j][0]
        nbytes = _dtype_bytes(st.buffers[key].dtype, st.bytes)
        row += [_slog(numel * nbytes), _slog(numel * outer), _slog(outer), _slog(prod / outer)]
    else:  # a parameter of the function: allocated by its caller
        numel = 1
        for d in _shape(st.buffers[key]):
            numel *= d
        nbytes = _dtype_bytes(st.buffers[key].dtype, st.bytes)
        row += [_slog(numel * nbytes), _slog(numel), 1.0, _slog(prod)]
    step = 0
    for _, _, s in loops:
        if s > 0:
            step = s
    row += [_slog(prod), _slog(n), _slog(step)]
    return row


def _curve(counts, prod, loops, for_touched):
    """The arithmetic-intensity curve: float operations over bytes touched, sampled at
    :data:`CURVE_SAMPLES` even steps of the operations as loops are added from the inside."""
    n = len(loops)
    total = float(counts[0] + counts[1] + counts[2] + counts[3] + counts[4])
    if total <= 0 or n == 0:
        return [0.0] * CURVE_SAMPLES
    ops = []
    memory = []
    for i in range(n - 1, -1, -1):
        total *= loops[i][0]
        ops.append(total)
        memory.append(for_touched[i])
    out = []
    p = 0
    for k in range(CURVE_SAMPLES):
        cur = (k + 1) / CURVE_SAMPLES * total
        while p < n - 1 and ops[p] < cur - 1e-4:
            p += 1
        mem_p = memory[p] if memory[p] > 0 else 1
        if p == 0:
            out.append(_slog(ops[0] / mem_p))
        else:
            mem_q = memory[p - 1] if memory[p - 1] > 0 else 1
            base = ops[p - 1] / mem_q
            slope = (ops[p] / mem_p - base) / (ops[p] - ops[p - 1])
            out.append(_slog(base + slope * (cur - ops[p - 1])))
    return out


def store_rows(func):
    """The per-store rows of a scheduled PrimFunc: one list of :data:`NUM_STORE_FEATURES`
    numbers per buffer it stores a computed value to, in the order of first store (the values
    of its last store), as TVM orders its rows."""
    st = _State()
    _visit(func.body, st)
    compact = _compact(st)
    touched = {}
    last = {}
    order = []
    for s in st.stores:
        if s[0] not in last:
            order.append(s[0])
        last[s[0]] = _store_row(s, st, compact, touched)
    return [last[k] for k in order]
