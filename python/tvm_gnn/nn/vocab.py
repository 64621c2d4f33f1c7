# Licensed under the Apache License, Version 2.0.
"""The fixed, versioned vocabulary of graph node types.

A node's type is the TIR class name (``For``, ``BufferStore``, ``Add``, ...), or ``Call:<op>`` for
calls to the common intrinsics listed below, or one of the featurizer's own node kinds
(``Buffer`` for an allocated buffer). Anything else maps to :data:`UNKNOWN` (id 0).

Changing this list changes every node-type id: bump :data:`VOCAB_VERSION` when you do. Checkpoints
store the vocabulary they were trained with, and loading one with another vocabulary is an error.
"""

from __future__ import annotations

VOCAB_VERSION = 1

UNKNOWN = "<unk>"

_STMTS = [
    "For",
    "While",
    "SeqStmt",
    "SBlockRealize",
    "SBlock",
    "BufferStore",
    "IfThenElse",
    "Bind",
    "AttrStmt",
    "Evaluate",
    "AllocBuffer",
    "DeclBuffer",
    "AssertStmt",
    "Break",
    "Continue",
]
_EXPRS = [
    "Var",
    "SizeVar",
    "IntImm",
    "FloatImm",
    "StringImm",
    "Cast",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Mod",
    "FloorDiv",
    "FloorMod",
    "Min",
    "Max",
    "EQ",
    "NE",
    "LT",
    "LE",
    "GT",
    "GE",
    "And",
    "Or",
    "Not",
    "Select",
    "BufferLoad",
    "Ramp",
    "Broadcast",
    "Let",
    "Call",
    "Shuffle",
    "Reduce",
]
# Intrinsics that carry meaning for performance; other calls become plain "Call".
_CALLS = [
    "tirx.if_then_else",
    "tirx.exp",
    "tirx.log",
    "tirx.sqrt",
    "tirx.rsqrt",
    "tirx.tanh",
    "tirx.sigmoid",
    "tirx.erf",
    "tirx.pow",
    "tirx.fabs",
    "tirx.floor",
    "tirx.ceil",
    "tirx.round",
    "tirx.likely",
    "tirx.reinterpret",
    "tirx.shift_left",
    "tirx.shift_right",
    "tirx.bitwise_and",
    "tirx.q_multiply_shift",
    "tirx.call_extern",
    "tirx.call_pure_extern",
    "tirx.call_llvm_intrin",
    "tirx.call_llvm_pure_intrin",
    "tirx.tvm_thread_allreduce",
    "tirx.tvm_storage_sync",
    "tirx.ptx_mma",
    "tirx.ptx_ldmatrix",
    "tirx.mma_store",
    "tirx.mma_fill",
    "tirx.address_of",
]
# Node kinds the featurizer adds itself: an allocated buffer (one per allocation).
_OWN = ["Buffer"]

NODE_TYPES: tuple[str, ...] = (UNKNOWN, *_STMTS, *_EXPRS, *(f"Call:{c}" for c in _CALLS), *_OWN)


def type_index() -> dict[str, int]:
    """Map each node-type name to its id."""
    return {name: i for i, name in enumerate(NODE_TYPES)}
