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
  modulo by a constant, min, max), where TVM uses its analyzer's constant-integer bounds; a
  modulo whose operand wraps around is bounded as that analyzer bounds it (:func:`._index.bound`).

:data:`COLUMNS` names each column and :data:`TVM_COLUMNS` gives the column of TVM's 164 it
stands for; ``docs/featurizer.md`` says what each counts and how well it agrees with TVM's
(``benchmarks/speed/store_agreement.py``). The work is split in three files: this one (the pass
over the
program and the placing of buffers), :mod:`._index` (index trees and their bounds) and
:mod:`._store_row` (one row). Like the walk, ``build.sh`` compiles them with Cython and the
pure-Python files are the fallback.
"""

from tvm_gnn.tvm_compat import DTYPE_FIELD as _DTYPE

from ._index import (
    _NAMES,
    BINARY,
    BOOL,
    CMP,
    FLOAT_COUNTER,
    LOOP,
    TREE_COUNTER,
    ZERO,
    buffer_of,
    call_args,
    count_tree,
    is_float,
    items,
    name_of,
    region,
    shape_of,
    tree,
)
from ._store_row import (  # noqa: F401 - the columns are this module's API
    ARITH,
    BUFFERS_PER_STORE,
    CACHE_LINE_BYTES,
    COLUMNS,
    CURVE_SAMPLES,
    NUM_STORE_FEATURES,
    TVM_COLUMNS,
    store_row,
)


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


def _access(node, st):
    """A load's or store's buffer (its hash) and index trees; records where it happens."""
    buf = buffer_of(node)
    key = hash(buf)
    st.buffers[key] = buf
    st.paths.setdefault(key, []).append(tuple(st.path))
    return key, [tree(i, st.vars) for i in items(node.indices)]


def _value(e, st, counts, accesses, loads):
    """Count the arithmetic of a stored value (once per execution) and collect its loads: by
    buffer in ``accesses``, and as ``(buffer, indices)`` in ``loads``, whose arithmetic is counted
    once the buffers are placed (:func:`_store_row`)."""
    name = _NAMES.get(type(e)) or name_of(e)
    if name == "BufferLoad":
        key, idx = _access(e, st)
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
        count_tree(tree(e, st.vars), counts, 1)
        return
    if name == "Cast":
        _value(e.value, st, counts, accesses, loads)
        return
    if name == "Call":
        counts[4 if is_float(getattr(e, _DTYPE), st.types) else 9] += 1
        for a in call_args(e):
            _value(a, st, counts, accesses, loads)
        return
    op = BINARY.get(name)
    if op is not None:
        if op == CMP:
            counts[8] += 1  # a comparison is typed bool: TVM counts it as an integer one
        elif op == BOOL:
            counts[10] += 1
        elif is_float(getattr(e, _DTYPE), st.types):
            counts[FLOAT_COUNTER[op]] += 1
        else:
            counts[TREE_COUNTER[op]] += 1
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
            st.vars[hash(s.loop_var)] = ZERO
            _visit(s.body, st)
            return
        step = 0
        if len(ann) > 0:
            v = ann.get("pragma_auto_unroll_max_step")
            if v is not None:
                step = int(v)
        lid = len(st.loops)
        st.loops.append((max(e, 1), kind, step))
        st.vars[hash(s.loop_var)] = (LOOP, lid)
        st.path.append(lid)
        _visit(s.body, st)
        st.path.pop()
    elif name == "SeqStmt":
        for c in items(s.seq):
            _visit(c, st)
    elif name == "SBlockRealize":
        block = s.block
        ivs = items(block.iter_vars)
        i = 0
        for value in items(s.iter_values):
            st.vars[hash(ivs[i].var)] = tree(value, st.vars)
            i += 1
        for buf in items(block.alloc_buffers):
            st.allocated[hash(buf)] = buf
            st.buffers[hash(buf)] = buf
        if block.init is not None:
            _visit(block.init, st)
        _visit(block.body, st)
    elif name == "BufferStore":
        key, indices = _access(s, st)
        vname = type(s.value).__name__
        if vname == "IntImm" or vname == "FloatImm":
            # TVM gives constant stores (initializations) no row; they still place and size
            # the buffer's allocation
            st.inits.setdefault(key, []).append(indices)
            return
        counts = [0] * len(ARITH)
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


def _compact(st):
    """``{buffer: (shape, loops enclosing its allocation)}`` for buffers allocated in blocks."""
    out = {}
    n = len(st.loops)
    for key, buf in st.allocated.items():
        paths = st.paths.get(key)
        if not paths:
            out[key] = (shape_of(buf), ())
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
            out[key] = (shape_of(buf), tuple(common))
            continue
        shape, _ = region(indices, lo, hi, False)
        out[key] = (shape, tuple(common))
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
        last[s[0]] = store_row(s, st, compact, touched)
    return [last[k] for k in order]
