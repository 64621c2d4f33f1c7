# Licensed under the Apache License, Version 2.0.
"""A TIR tree read back from its JSON (``tvm.ir.save_json``), as objects the walk reads as it
reads TVM's own nodes.

Why: the registry's TVM 0.19 wheel has no Cython FFI, so every field the walk reads from a TVM
node is a ``ctypes`` call (~10 us): walking a lowered Ansor state took longer than lowering it
(``docs/ansor.md``, the speed table). ``save_json`` serializes the whole tree in one C++ call
(which releases the GIL, so it runs on the lowering threads), ``json.loads`` parses it in C, and
the walk then reads plain Python attributes. ``tests/featurize/test_json.py`` checks that the
walk gives the same graph from these objects as from TVM's.

Each node becomes an instance of a class named as the walk knows the type (``For``, ``IntImm``,
``BufferStore``: TVM's type key without its ``tir.`` prefix); arrays become lists, maps dicts,
strings ``str``, the null reference ``None``.
"""

from __future__ import annotations

import json

#: how each field is read (a reference to another node by default), by field name; IntImm's and
#: FloatImm's ``value`` are numbers (``_VALUE``)
_REF, _INT, _FLOAT, _STR, _SKIP = 0, 1, 2, 3, 4
_KINDS = {
    "span": _SKIP,
    "_checked_type_": _SKIP,
    "dtype": _STR,
    "kind": _INT,
    "iter_type": _INT,
    "data_alignment": _INT,
    "offset_factor": _INT,
    "buffer_type": _INT,
}
_VALUE = {"IntImm": _INT, "FloatImm": _FLOAT}
#: TE's unroll pragma (Ansor's ``auto_unroll_max_step``), which MetaSchedule's trees carry as an
#: annotation of the loops it unrolls
UNROLL = "pragma_auto_unroll_max_step"


class Node:
    """A TIR node read from JSON; its fields are attributes."""

    _kinds = _KINDS

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


class BufferNode(Node):
    """A buffer read from JSON, with ``scope()`` as TVM's buffers have it."""

    def scope(self) -> str:
        return getattr(self.data.type_annotation, "storage_scope", "") or "global"


class Function:
    """What the walk reads of a function: its ``body``."""

    def __init__(self, body):
        self.body = body


_CLASSES: dict[str, type] = {}


def _class(type_key: str) -> type:
    cls = _CLASSES.get(type_key)
    if cls is None:
        name = type_key.rsplit(".", 1)[-1]
        base = BufferNode if name == "Buffer" else Node
        kinds = dict(_KINDS)
        if name in _VALUE:
            kinds["value"] = _VALUE[name]
        cls = _CLASSES[type_key] = type(name, (base,), {"_kinds": kinds})
    return cls


def loads(text: str, unroll_to_loops: bool = True):
    """The root node of the JSON ``text`` of a TIR statement (``tvm.ir.save_json``).

    ``unroll_to_loops``: give TE's unroll pragma to the loops it covers as their annotation,
    where MetaSchedule's trees (and the walk's unroll feature) have it."""
    data = json.loads(text)
    raw = data["nodes"]
    n = len(raw)
    objs: list = [None] * n
    # first every object, then their fields: references point forward and backward
    for i in range(n):
        node = raw[i]
        key = node.get("type_key")
        if not key:
            continue
        if key == "runtime.String":
            objs[i] = node.get("repr_str", "")
        elif key == "Array":
            objs[i] = []
        elif key == "Map":
            objs[i] = {}
        else:
            cls = _CLASSES.get(key) or _class(key)
            obj = objs[i] = cls.__new__(cls)
            if key == "Op":
                obj.name = node.get("repr_str", "")
    pragmas = []
    for i in range(n):
        obj = objs[i]
        if obj is None:
            continue
        t = type(obj)
        if t is str:
            continue
        node = raw[i]
        if t is list:
            refs = node.get("data")
            if refs:
                obj.extend([objs[j] for j in refs])
        elif t is dict:
            refs = node.get("data", ())
            if "keys" in node:  # string keys, inline
                obj.update(zip(node["keys"], [objs[j] for j in refs]))
            else:  # key and value references, alternating
                obj.update((objs[refs[k]], objs[refs[k + 1]]) for k in range(0, len(refs), 2))
        else:
            attrs = node.get("attrs")
            if attrs:
                _fill(obj.__dict__, t._kinds, attrs, objs)
                if unroll_to_loops and attrs.get("attr_key") and obj.attr_key == UNROLL:
                    pragmas.append(obj)
    for obj in pragmas:
        _annotate_loops(obj.body, obj.value)
    return objs[data["root"]]


def _fill(d: dict, kinds: dict, attrs: dict, objs: list) -> None:
    for k, v in attrs.items():
        kind = kinds.get(k, _REF)
        if kind == _REF:
            d[k] = objs[int(v)]
        elif kind == _INT:
            d[k] = int(v)
        elif kind == _FLOAT:
            d[k] = float(v)
        elif kind == _STR:
            d[k] = v


def _annotate_loops(stmt, step) -> None:
    """Annotate the outermost loops of ``stmt`` with the unroll ``step``."""
    name = type(stmt).__name__
    if name == "For":
        stmt.annotations = {**stmt.annotations, UNROLL: step}
    elif name == "SeqStmt":
        for s in stmt.seq:
            _annotate_loops(s, step)
    elif name in ("AttrStmt", "BufferRealize", "LetStmt", "Allocate"):
        _annotate_loops(stmt.body, step)
    elif name == "IfThenElse":
        _annotate_loops(stmt.then_case, step)
        if stmt.else_case is not None:
            _annotate_loops(stmt.else_case, step)
