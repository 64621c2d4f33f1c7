# Licensed under the Apache License, Version 2.0.
"""The featurizer's per-node hot loop: one pass over a TIR syntax tree.

``build.sh`` compiles this very file with Cython (``setup.py``); when the extension is missing,
Python imports the file itself, so the compiled and the pure-Python paths run the same source and
give identical output (``tests/featurize/test_walk.py`` checks it).

The walk emits nodes in pre-order (a parent always precedes its children), so the node-type list
is also the pre-order walk that the FastText embeddings are trained on.
"""

import math

from tvm_gnn.featurize._names import NAMES as _NAMES
from tvm_gnn.featurize._names import buffer_of, call_args, name_of, op_name

# Numeric feature columns, one row per node: defined with the graph schema that the GNN reads.
from tvm_gnn.nn.schema import (  # noqa: F401 - NUM_FEATURES and the columns are re-exported
    F_BITS,
    F_CONST,
    F_DEPTH,
    F_FOOTPRINT,
    F_KIND,
    F_LAST,
    F_LOCAL,
    F_LOOP_DEPTH,
    F_NCONST,
    F_NDIM,
    F_REDUCE,
    F_REUSE,
    F_REUSE_DIST,
    F_STRIDE,
    F_TRIPS,
    F_UNROLL,
    F_VALUE,
    NUM_FEATURES,
)

# Array's C getters (Array.__iter__ goes through three Python layers per element) and the
# data-type field, of whichever TVM is installed (0.19 or 0.26/0.27)
from tvm_gnn.tvm_compat import DTYPE_FIELD as _DTYPE
from tvm_gnn.tvm_compat import array_get as _array_get
from tvm_gnn.tvm_compat import array_size as _array_size


def _items(arr):
    if type(arr) is list:  # a tree read from JSON (._json)
        return arr
    return [_array_get(arr, i) for i in range(_array_size(arr))]


# Children to visit, by node-type name (in order). Nodes with special handling are not listed.
_CHILDREN = {
    "Add": ("a", "b"),
    "Sub": ("a", "b"),
    "Mul": ("a", "b"),
    "Div": ("a", "b"),
    "Mod": ("a", "b"),
    "FloorDiv": ("a", "b"),
    "FloorMod": ("a", "b"),
    "Min": ("a", "b"),
    "Max": ("a", "b"),
    "EQ": ("a", "b"),
    "NE": ("a", "b"),
    "LT": ("a", "b"),
    "LE": ("a", "b"),
    "GT": ("a", "b"),
    "GE": ("a", "b"),
    "And": ("a", "b"),
    "Or": ("a", "b"),
    "Not": ("a",),
    "Select": ("condition", "true_value", "false_value"),
    "Ramp": ("base", "stride"),
    "Broadcast": ("value",),
    "IfThenElse": ("condition", "then_case", "else_case"),
    "Evaluate": ("value",),
    "AttrStmt": ("value", "body"),
    "AssertStmt": ("condition",),
    "While": ("condition", "body"),
    "Break": (),
    "Continue": (),
    "StringImm": (),
}
_SERIAL_KIND = 0
_REDUCE_ITER_TYPE = 2  # IterVar.CommReduce


class GraphTooLargeError(ValueError):
    """The program has more nodes than the featurizer's cap allows."""


#: _slog of an infinite constant (such as a max-reduction's -inf init): past every finite
#: float32's (log2(1 + 3.4e38) = 128), so it stays finite and apart from them
SLOG_INF = 129.0


def _slog(v):
    if not math.isfinite(v):
        return 0.0 if v != v else (SLOG_INF if v > 0 else -SLOG_INF)  # NaN: no magnitude
    return math.log2(1.0 + v) if v >= 0 else -math.log2(1.0 - v)


def _bits(dtype, cache):
    key = str(dtype)
    b = cache.get(key)
    if b is None:
        base = key.split("x")[0]  # drop the lane count of vector types such as float32x4
        digits = "".join(ch for ch in base if ch.isdigit())
        b = math.log2(int(digits)) if digits else 0.0
        cache[key] = b
    return b


def _buffer_info(buf, cache, dcache):
    """(ndim, log2 numel, log2 innermost extent, local, bits, strides) of a buffer, cached."""
    key = hash(buf)  # TVM objects hash by address; int keys skip TVM's costly __eq__
    info = cache.get(key)
    if info is None:
        dims = []
        for d in _items(buf.shape):
            dims.append(d.value if type(d).__name__ == "IntImm" else 1)
        strides = [0.0] * len(dims)
        acc = 1
        for i in range(len(dims) - 1, -1, -1):
            strides[i] = math.log2(1.0 + acc)
            acc *= max(dims[i], 1)
        scope = buf.scope()
        info = (
            float(len(dims)),
            math.log2(max(acc, 1)),
            math.log2(max(dims[-1], 1)) if dims else 0.0,
            0.0 if scope == "global" or scope == "" else 1.0,
            _bits(buf.dtype, dcache),
            strides,
        )
        cache[key] = info
    return info


def _emit_buffer(nid, info, sp_node, sp_col, sp_val):
    ndim, numel, last, local, bits, _ = info
    for col, val in (
        (F_VALUE, numel),
        (F_NDIM, ndim),
        (F_LAST, last),
        (F_LOCAL, local),
        (F_BITS, bits),
    ):
        if val != 0.0:
            sp_node.append(nid)
            sp_col.append(col)
            sp_val.append(val)


def _emit_reuse(nid, loops, moved, sp_node, sp_col, sp_val):
    """F_FOOTPRINT, F_REUSE and F_REUSE_DIST of the access ``nid`` inside ``loops`` (outermost
    first), of which those in ``moved`` reach its indices."""
    foot = 0.0
    reuse = 0.0
    inner = 0.0  # log2 iterations of the loops inside the current one
    dist = -1.0
    for k in range(len(loops) - 1, -1, -1):
        loop, log_e = loops[k]
        if moved is not None and loop in moved:
            foot += log_e
        elif log_e > 0.0:
            reuse += log_e
            if dist < 0.0:
                dist = math.log2(1.0 + 2.0**inner)
        inner += log_e
    for col, val in ((F_FOOTPRINT, foot), (F_REUSE, reuse), (F_REUSE_DIST, dist)):
        if val > 0.0:
            sp_node.append(nid)
            sp_col.append(col)
            sp_val.append(val)


def walk(root, type_ids, max_nodes, reuse=False):
    """Walk the syntax tree under ``root`` and return its graph as flat Python lists.

    Features come back in two parts, to keep the per-node work small: dense per-node columns
    (depth, loop depth, log2 trips) and sparse ``(node, column, value)`` triples for the rest.
    :func:`tvm_gnn.featurize.graph.walk_arrays` assembles them into the feature matrix.

    Parameters
    ----------
    root : tvm.tirx.Stmt
        The body of a PrimFunc (scheduled or lowered).
    type_ids : dict[str, int]
        Node-type name to id; names not in it get id 0 (unknown).
    max_nodes : int
        Raise :class:`GraphTooLargeError` past this many nodes.
    reuse : bool
        Fill the footprint and reuse columns (F_FOOTPRINT...) of buffer accesses; they stay 0
        otherwise, and the walk skips the bookkeeping they need.

    Returns
    -------
    types : list[int]
        Node-type id per node, in pre-order.
    parents : list[int]
        Parent node id per node (-1 for the root).
    depths, loop_depths : list[int]
        Syntax-tree depth and number of enclosing loops per node.
    trips : list[float]
        log2 of the product of the enclosing loop extents per node.
    sp_node, sp_col, sp_val : list
        Sparse features: ``x[sp_node[k], sp_col[k]] = sp_val[k]``.
    def_src, def_dst : list[int]
        Def-use edges: from the node defining a variable (a loop, a block binding, a let) to each
        node that uses it.
    unknown : set[str]
        Node-type names that mapped to the unknown id.
    """
    types = []
    parents = []
    depths = []
    loop_depths = []
    trips_out = []
    sp_node = []
    sp_col = []
    sp_val = []
    def_src = []
    def_dst = []
    unknown = set()
    defs = {}
    bufs = {}
    dtypes = {}
    ops = {}
    unk_id = 0
    loop_ids = set()  # nodes that are loops
    moved_by = {}  # access, binding or let node -> the loop nodes its indices or value depend on
    accesses = []  # (access node, its enclosing loops as ((loop node, log2 extent), ...))
    # Stack entries: node, parent id, depth, loop depth, log2 trips, index stride, reduce flag,
    # the variable this node defines (block bindings) or None, the node whose loop dependences
    # the variables in this subtree add to (an access's index, a binding or let value) or -1, and
    # the enclosing loops.
    stack = [(root, -1, 0, 0, 0.0, 0.0, 0.0, None, -1, ())]
    while stack:
        node, parent, depth, loopd, trips, stride, red, defvar, ctx, loops = stack.pop()
        nid = len(types)
        if nid >= max_nodes:
            raise GraphTooLargeError(
                f"program has more than {max_nodes} nodes (the featurizer's max_nodes)"
            )
        name = _NAMES.get(type(node)) or name_of(node)
        if stride != 0.0:
            sp_node.append(nid)
            sp_col.append(F_STRIDE)
            sp_val.append(stride)
        if defvar is not None:
            defs[hash(defvar)] = nid
            if reuse:
                ctx = nid
            if red != 0.0:
                sp_node.append(nid)
                sp_col.append(F_REDUCE)
                sp_val.append(red)
        kids = None  # list of (child, stride, reduce, defvar); None means no children
        kid_ctx = None  # per kid, where it differs from this node's ctx
        child_loopd = loopd
        child_trips = trips
        child_loops = loops
        if name == "Var" or name == "SizeVar":
            d = defs.get(hash(node))
            if d is not None:
                def_src.append(d)
                def_dst.append(nid)
                if ctx >= 0:
                    if d in loop_ids:
                        moved = moved_by.get(ctx)
                        if moved is None:
                            moved_by[ctx] = {d}
                        else:
                            moved.add(d)
                    else:
                        via = moved_by.get(d)
                        if via:
                            moved = moved_by.get(ctx)
                            if moved is None:
                                moved_by[ctx] = set(via)
                            else:
                                moved.update(via)
        elif name == "IntImm":
            v = node.value
            if v != 0:
                sp_node.append(nid)
                sp_col.append(F_VALUE)
                sp_val.append(_slog(v))
        elif name == "FloatImm":
            sp_node.append(nid)
            sp_node.append(nid)
            sp_col.append(F_VALUE)
            sp_col.append(F_BITS)
            sp_val.append(_slog(node.value))
            sp_val.append(_bits(getattr(node, _DTYPE), dtypes))
        elif name == "BufferLoad" or name == "BufferStore":
            info = _buffer_info(buffer_of(node), bufs, dtypes)
            _emit_buffer(nid, info, sp_node, sp_col, sp_val)
            strides = info[5]
            kids = []
            if name == "BufferStore":
                kids.append((node.value, 0.0, 0.0, None))
            i = 0
            for idx in _items(node.indices):
                kids.append((idx, strides[i] if i < len(strides) else 0.0, 0.0, None))
                i += 1
            if reuse:
                accesses.append((nid, loops))
                kid_ctx = [nid] * len(kids)
                if name == "BufferStore":
                    kid_ctx[0] = -1  # the stored value is not an index
        elif name == "For":
            ext = node.extent
            if type(ext).__name__ == "IntImm":
                e = ext.value
                kids = [(node.body, 0.0, 0.0, None)]
            else:
                e = 1
                kids = [(ext, 0.0, 0.0, None), (node.body, 0.0, 0.0, None)]
            log_e = math.log2(max(e, 1))
            sp_node.append(nid)
            sp_node.append(nid)
            sp_col.append(F_VALUE)
            sp_col.append(F_KIND + int(node.kind))
            sp_val.append(log_e)
            sp_val.append(1.0)
            ann = node.annotations
            if len(ann) > 0:
                step = ann.get("pragma_auto_unroll_max_step")
                if step is not None:
                    sp_node.append(nid)
                    sp_col.append(F_UNROLL)
                    sp_val.append(math.log2(1.0 + int(step)))
            defs[hash(node.loop_var)] = nid
            child_loopd = loopd + 1
            child_trips = trips + log_e
            if reuse:
                loop_ids.add(nid)
                child_loops = loops + ((nid, log_e),)
        elif name == "SeqStmt":
            kids = [(s, 0.0, 0.0, None) for s in _items(node.seq)]
        elif name == "SBlockRealize":
            block = node.block
            kids = []
            ivs = _items(block.iter_vars)
            i = 0
            for value in _items(node.iter_values):
                iv = ivs[i]
                is_red = 1.0 if int(iv.iter_type) == _REDUCE_ITER_TYPE else 0.0
                kids.append((value, 0.0, is_red, iv.var))
                i += 1
            pred = node.predicate
            if not (type(pred).__name__ == "IntImm" and pred.value == 1):
                kids.append((pred, 0.0, 0.0, None))
            kids.append((block, 0.0, 0.0, None))
        elif name == "SBlock":
            kids = [(buf, 0.0, 0.0, None) for buf in _items(node.alloc_buffers)]
            init = node.init
            if init is not None:
                kids.append((init, 0.0, 0.0, None))
            kids.append((node.body, 0.0, 0.0, None))
        elif name == "BufferRealize":  # TVM 0.19: a buffer realized for its body
            _emit_buffer(nid, _buffer_info(node.buffer, bufs, dtypes), sp_node, sp_col, sp_val)
            kids = [(node.body, 0.0, 0.0, None)]
            name = "AllocBuffer"
        elif name == "Buffer" or name == "AllocBuffer" or name == "DeclBuffer":
            buf = node if name == "Buffer" else node.buffer
            _emit_buffer(nid, _buffer_info(buf, bufs, dtypes), sp_node, sp_col, sp_val)
        elif name == "Call":
            op = op_name(node)
            tname = ops.get(op)
            if tname is None:
                tname = "Call:" + op
                if tname not in type_ids:
                    tname = "Call"
                ops[op] = tname
            name = tname
            kids = [(a, 0.0, 0.0, None) for a in call_args(node)]
        elif name == "Bind":
            defs[hash(node.var)] = nid
            kids = [(node.value, 0.0, 0.0, None)]
            if reuse:
                kid_ctx = [nid]
        elif name == "Let" or name == "LetStmt":  # LetStmt: TVM 0.19's Bind, with its body
            defs[hash(node.var)] = nid
            kids = [(node.value, 0.0, 0.0, None), (node.body, 0.0, 0.0, None)]
            if reuse:
                kid_ctx = [nid, ctx]
            if name == "LetStmt":
                name = "Bind"
        elif name == "Cast":
            sp_node.append(nid)
            sp_col.append(F_BITS)
            sp_val.append(_bits(getattr(node, _DTYPE), dtypes))
            kids = [(node.value, 0.0, 0.0, None)]
        else:
            fields = _CHILDREN.get(name)
            if fields is not None:
                kids = []
                for f in fields:
                    c = getattr(node, f)
                    if c is not None:
                        kids.append((c, 0.0, 0.0, None))
        tid = type_ids.get(name, unk_id)
        if tid == unk_id:
            unknown.add(name)
        types.append(tid)
        parents.append(parent)
        depths.append(depth)
        loop_depths.append(loopd)
        trips_out.append(trips)
        if kids:
            # Constant operands become features of their parent, not nodes of their own: they are
            # half of all nodes otherwise, and a leaf holds nothing its parent cannot.
            nconst = 0
            const = 0.0
            for j in range(len(kids) - 1, -1, -1):
                c, s, r, dv = kids[j]
                if dv is None:
                    cname = type(c).__name__
                    if cname == "IntImm" or cname == "FloatImm":
                        nconst += 1
                        const += _slog(c.value)
                        continue
                cx = ctx if kid_ctx is None else kid_ctx[j]
                stack.append(
                    (c, nid, depth + 1, child_loopd, child_trips, s, r, dv, cx, child_loops)
                )
            if nconst:
                sp_node.append(nid)
                sp_node.append(nid)
                sp_col.append(F_CONST)
                sp_col.append(F_NCONST)
                sp_val.append(const)
                sp_val.append(float(nconst))
    for nid, loops in accesses:
        _emit_reuse(nid, loops, moved_by.get(nid), sp_node, sp_col, sp_val)
    return (
        types,
        parents,
        depths,
        loop_depths,
        trips_out,
        sp_node,
        sp_col,
        sp_val,
        def_src,
        def_dst,
        unknown,
    )
