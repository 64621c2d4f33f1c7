# Licensed under the Apache License, Version 2.0.
"""TVM's IR node names as the featurizer reads them, whichever supported TVM built the tree.

The vocabulary (``tvm_gnn.nn.vocab``) and the walks use TVM 0.26's names. What TVM 0.27 changed
among the nodes the featurizer reads:

- a load is ``tvm.ir.expr.TensorLoad`` with its buffer in ``.source``, where 0.26 has
  ``tvm.tirx.expr.BufferLoad`` with ``.buffer``;
- the operators TVM 0.26 registers as ``tirx.if_then_else``, ``tirx.likely``, ``tirx.ceil`` and
  others are ``prim.*`` operators;
- the bitwise operations and shifts, calls of ``tirx.bitwise_and`` ... ``tirx.shift_right`` in
  0.26, are nodes of their own (``BitwiseAnd`` ... ``RShift``, operands ``a`` and ``b``).

Every other node the walks visit kept its name and fields: ``tests/featurize/test_names.py``
checks the graphs and store rows of real candidates against those made under 0.26. One map here
keeps a single code path for both versions.

TVM 0.19 (Ansor's, :mod:`tvm_gnn.tvm_compat`) names its operators ``tir.*``; they read as 0.26's
``tirx.*``. Its states lower through TE into trees with ``BufferRealize`` (a buffer realized for
its body, read as 0.26's ``AllocBuffer``) and multi-dimensional accesses; the walk
(:mod:`._walk`) handles both, and ``tests/featurize/test_ansor.py`` checks them.
"""

#: TVM 0.27's bitwise nodes -> (the 0.26 operator they were calls of, their operand fields)
_CALL_NODES = {
    "BitwiseAnd": ("tirx.bitwise_and", ("a", "b")),
    "BitwiseOr": ("tirx.bitwise_or", ("a", "b")),
    "BitwiseXor": ("tirx.bitwise_xor", ("a", "b")),
    "BitwiseNot": ("tirx.bitwise_not", ("a",)),
    "LShift": ("tirx.shift_left", ("a", "b")),
    "RShift": ("tirx.shift_right", ("a", "b")),
}

#: TVM's type name -> the name the featurizer knows it by
RENAMED = {"TensorLoad": "BufferLoad", **{name: "Call" for name in _CALL_NODES}}

#: the field holding an access's buffer, where it is not ``buffer``
_BUFFER_FIELD = {"TensorLoad": "source"}

#: type -> name, filled by :func:`name_of`; the hot loops read it first (``NAMES.get(type(n))``)
NAMES = {}


def name_of(node) -> str:
    """The featurizer's name of ``node``'s type (TVM 0.26's)."""
    t = type(node)
    name = NAMES.get(t)
    if name is None:
        name = RENAMED.get(t.__name__, t.__name__)
        NAMES[t] = name
    return name


def buffer_of(access):
    """The buffer a load or a store reads or writes."""
    return getattr(access, _BUFFER_FIELD.get(type(access).__name__, "buffer"))


def op_name(call) -> str:
    """The operator a call (a node :func:`name_of` calls ``Call``) applies, by its 0.26 name."""
    node = _CALL_NODES.get(type(call).__name__)
    if node is not None:
        return node[0]
    name = call.op.name
    if name.startswith("prim."):  # 0.27
        return "tirx." + name[5:]
    if name.startswith("tir."):  # 0.19
        return "tirx." + name[4:]
    return name


def call_args(call) -> list:
    """The operands of a call (a node :func:`name_of` calls ``Call``), in order."""
    node = _CALL_NODES.get(type(call).__name__)
    if node is not None:
        return [getattr(call, f) for f in node[1]]
    args = call.args
    return [args[i] for i in range(len(args))]
