# Licensed under the Apache License, Version 2.0.
"""One row of the native per-store features (:mod:`._stores`): a store's loops, its buffers'
regions, strides and reuse, the arithmetic-intensity curve and its buffer's allocation, laid out
as :data:`._stores.COLUMNS`. Compiled with Cython by ``build.sh``, like the walk.
"""

from ._index import coefficient, count_tree, dtype_bytes, loops_in, rebase, region, shape_of, slog

#: bytes per cache line, as TVM's PerStoreFeature default
CACHE_LINE_BYTES = 64
#: buffer slots per store, as TVM's default (the most-touched first, the rest dropped)
BUFFERS_PER_STORE = 5
#: samples of the arithmetic-intensity curve, as TVM's default
CURVE_SAMPLES = 10

ARITH = (
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
    for name, col in zip(ARITH, _ARITH_TVM):
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


def store_row(store, st, compact, touched):
    """The row of one store (``_State.stores`` entry); ``touched`` carries, across the stores of
    a program in order, the elements each buffer touched under each loop (TVM's serial reuse)."""
    key, path, counts, accesses, loads = store
    counts = list(counts)
    for bkey, idx in loads:
        # a compacted buffer's indices lose the loops enclosing its allocation, and with them
        # their arithmetic
        fixed = compact[bkey][1] if bkey in compact else None
        for t in idx:
            count_tree(rebase(t, fixed) if fixed else t, counts, 1)
    loops = [st.loops[j] for j in path]
    prod = 1
    for e, _, _ in loops:
        prod *= e
    row = [slog(c * prod) for c in counts]
    for _, kind, _ in _KINDS:
        num = 0
        kprod = 1
        klen = 0
        for e, k, _ in loops:
            if k == kind:
                num += 1
                kprod *= e
                klen = e
        row += [slog(num), slog(kprod if num else 0), slog(klen)]
    subs, for_touched, shape0 = _regions(path, loops, accesses, st, compact, touched)
    top_bytes = sum(sub[3] for sub in subs) if path else 0
    feats = [
        _buffer(sub, path, loops, prod, st, compact, touched, shape0, top_bytes) for sub in subs
    ]
    feats.sort(key=lambda f: (-f[0], -f[1], f[2]))
    for b in range(BUFFERS_PER_STORE):
        row += feats[b][3] if b < len(feats) else [0.0] * len(_BUFFER)
    row += _curve(counts, prod, loops, for_touched)
    row += _allocation(key, st, compact, prod)
    step = 0
    for _, _, s in loops:
        if s > 0:
            step = s
    row += [slog(prod), slog(len(path)), slog(step)]
    return row


def _regions(path, loops, accesses, st, compact, touched):
    """Per buffer of the store, the elements it touches under each of its loops (the loops
    outside at their start), as TVM relaxes them from the inside out: ``(subs, bytes touched
    under each loop, each buffer's region under all loops)``. A sub is ``[buffer, access type,
    indices, element bytes, name, elements per loop, fixed loops, loops moving it, region]``."""
    n = len(path)
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
                loops_in(t, used)
        if fixed:
            used -= fixed
        nbytes = dtype_bytes(buf.dtype, st.bytes)
        subs.append([bkey, atype, indices, nbytes, buf.name, [0] * n, fixed, used, None])
    for_touched = [0] * n
    shape0 = {}
    for i in range(n - 1, -1, -1):
        hi[path[i]] = loops[i][0] - 1
        total = 0
        for sub in subs:
            if sub[8] is None or path[i] in sub[7]:  # else this loop leaves the region as is
                fixed = sub[6]
                if fixed:
                    sub[8] = region(sub[2], lo, [0 if j in fixed else hi[j] for j in range(nl)])
                else:
                    sub[8] = region(sub[2], lo, hi)
            shape, numel = sub[8]
            sub[5][i] = numel
            total += numel * sub[3]
            touched.setdefault(path[i], {}).setdefault(sub[0], []).append(numel)
            if i == 0:
                shape0[sub[0]] = shape
        for_touched[i] = total
    return subs, for_touched, shape0


def _min_stride(indices, fixed, path, bstride):
    """``(stride, i)``: TVM's stride of the innermost loop ``path[i]`` that moves the access
    (``i`` is -1 and the stride 0 when none does)."""
    ndim = len(bstride)
    i = len(path) - 1
    while i >= 0:
        best = None
        for idx in indices:
            if fixed and path[i] in fixed:
                break
            for d in range(len(idx) - 1, -1, -1):
                c = coefficient(idx[d], path[i])
                if c != 0:
                    v = abs(c) * (bstride[d] if d < ndim else 1)
                    if best is None or v < best:
                        best = v
                    break
        if best is not None and best != 0:
            return best, i
        i -= 1
    return 0, -1


def _reuse(bkey, used, path, loops, st, touched, top_bytes):
    """``(type, distance in iterations, distance in bytes, count)``: the innermost loop that does
    not move the access (type 0), or that has the buffer touched by several stores (type 1);
    type 2: no reuse."""
    n = len(path)
    for j in range(n - 1, -1, -1):
        lid = path[j]
        if lid not in used:
            dis_iter = 1.0
            for k in range(n - 1, j, -1):
                dis_iter *= loops[k][0]
            dis_bytes = 0.0
            if j == n - 1:
                dis_bytes = float(top_bytes)
            else:
                for b2, numels2 in touched[path[j + 1]].items():
                    dis_bytes += sum(numels2) * dtype_bytes(st.buffers[b2].dtype, st.bytes)
            return 0, dis_iter, dis_bytes, loops[j][0]
        here = touched[lid][bkey]
        if len(here) >= 2:
            dis_bytes = 0.0
            for b2, numels2 in touched[lid].items():
                dis_bytes += sum(numels2) * dtype_bytes(st.buffers[b2].dtype, st.bytes)
            return 1, float(min(here)) / loops[j][0], dis_bytes / loops[j][0], len(here) - 1
    return 2, 0.0, 0.0, 0


def _buffer(sub, path, loops, prod, st, compact, touched, shape0, top_bytes):
    """``(lines, bytes, name, its 18 columns)`` of one buffer of a store."""
    bkey, atype, indices, nbytes, bname, numels, fixed, used, _ = sub
    bshape = compact[bkey][0] if bkey in compact else shape_of(st.buffers[bkey])
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
    n = len(path)
    stride, i = _min_stride(indices, fixed, path, bstride)
    innermost = stride if i == n - 1 else 0
    non_strided = 1
    for j in range(n - 1, i, -1):
        non_strided *= loops[j][0]
    rtype, dis_iter, dis_bytes, rct = _reuse(bkey, used, path, loops, st, touched, top_bytes)
    nb = nbytes * prod
    if n == 0:
        ub = lines = ulines = 1.0
    else:
        ub = float(numels[0] * nbytes)
        lines = max(1.0, prod / non_strided * min(1.0, stride * nbytes / CACHE_LINE_BYTES))
        ulines = max(1.0, ub / min(CACHE_LINE_BYTES, contiguous))
    proxy = rct if rct > 0 else 0.5
    cols = [1.0 if atype == k else 0.0 for k in range(3)]
    cols += [slog(nb), slog(ub), slog(lines), slog(ulines)]
    cols += [1.0 if rtype == k else 0.0 for k in range(3)]
    cols += [slog(dis_iter), slog(dis_bytes), slog(rct)]
    cols += [slog(nb / proxy), slog(ub / proxy), slog(lines / proxy), slog(ulines / proxy)]
    cols.append(slog(innermost))
    return lines, nb, bname, cols


def _allocation(key, st, compact, prod):
    """The stored buffer's allocation: bytes, elements x the loops enclosing it, their product,
    the store's loops' product over theirs."""
    nbytes = dtype_bytes(st.buffers[key].dtype, st.bytes)
    if key in compact:
        shape, enclosing = compact[key]
        numel = 1
        for d in shape:
            numel *= d
        outer = 1
        for j in enclosing:
            outer *= st.loops[j][0]
        return [slog(numel * nbytes), slog(numel * outer), slog(outer), slog(prod / outer)]
    numel = 1  # a parameter of the function: allocated by its caller, outside every loop
    for d in shape_of(st.buffers[key]):
        numel *= d
    return [slog(numel * nbytes), slog(numel), 1.0, slog(prod)]


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
            out.append(slog(ops[0] / mem_p))
        else:
            mem_q = memory[p - 1] if memory[p - 1] > 0 else 1
            base = ops[p - 1] / mem_q
            slope = (ops[p] / mem_p - base) / (ops[p] - ops[p - 1])
            out.append(slog(base + slope * (cur - ops[p - 1])))
    return out
