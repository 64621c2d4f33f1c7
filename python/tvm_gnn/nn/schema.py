# Licensed under the Apache License, Version 2.0.
"""What a graph holds: the contract between the featurizer, which fills it, and the GNN, which
reads it. Pure Python: no ``tvm``, no ``torch``.

A graph has one row of :data:`NUM_FEATURES` numbers per node (the columns below), a node-type id
per node (:mod:`tvm_gnn.nn.vocab`) and typed edges (:data:`EDGE_DOWN` ...).
:class:`FeaturizerConfig` says how the featurizer (:mod:`tvm_gnn.featurize`) builds them; a
checkpoint records it beside the weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .vocab import VOCAB_VERSION

# Numeric feature columns, one row per node. Logs are log2; all values are O(1)-O(30).
F_VALUE = 0  # signed log2(1+|v|) of a constant; log2 extent of a loop; log2 #elements of a Buffer
F_KIND = 1  # F_KIND + k is 1 for a loop of kind k: serial, parallel, vectorized, unrolled, thread
F_UNROLL = 6  # log2(1 + pragma_auto_unroll_max_step) on the loop that carries the annotation
F_DEPTH = 7  # log2(1 + depth in the syntax tree)
F_LOOP_DEPTH = 8  # number of enclosing loops
F_TRIPS = 9  # log2 of how often the node executes: the product of the enclosing loop extents
F_NDIM = 10  # buffer access or Buffer: number of dimensions
F_LAST = 11  # buffer access or Buffer: log2 extent of the innermost (contiguous) dimension
F_LOCAL = 12  # buffer access or Buffer: 1 if the buffer is not in global memory
F_STRIDE = 13  # root of an index expression: log2(1 + row-major stride of its dimension)
F_BITS = 14  # log2 bits of the element type, for buffer accesses, casts and float constants
F_REDUCE = 15  # root of a block binding: 1 if it binds a reduction iterator
F_CONST = 16  # sum of signed log2(1+|v|) of the constant operands folded into this node
F_NCONST = 17  # number of constant operands folded into this node
# Buffer accesses: how the enclosing loops use the data (XGBModel's per-store features measure the
# same with byte counts). A loop "moves" an access when its variable reaches the access's indices,
# directly or through block bindings and lets.
F_FOOTPRINT = 18  # log2 distinct elements touched: sum of log2 extents of the loops that move it
F_REUSE = 19  # log2 times each element is touched again: sum of log2 extents of the other loops
F_REUSE_DIST = 20  # log2(1 + iterations between reuses): inside the innermost loop not moving it
NUM_FEATURES = 21
#: the columns before the footprint and reuse ones: what models read unless trained with them
NUM_BASE_FEATURES = F_FOOTPRINT

#: Bump when the graphs the featurizer emits change; cached datasets are rebuilt on a mismatch.
#: 2: infinite and NaN constants get finite features (they were inf/NaN, and trained as NaN).
#: 3: buffer accesses' footprint and reuse columns appended (F_FOOTPRINT..., filled with
#:    FeaturizerConfig(reuse=True)); the first NUM_BASE_FEATURES columns are unchanged, so models
#:    trained on them read version 3 graphs.
FEATURIZER_VERSION = 3


EDGE_DOWN, EDGE_UP, EDGE_DEF_USE, EDGE_USE_DEF = 0, 1, 2, 3
NUM_EDGE_TYPES = 4


LOWERINGS = ("emulated", "tvm")


@dataclass(frozen=True)
class FeaturizerConfig:
    """How candidates become graphs."""

    # "emulated": walk the scheduled TIR, emulating lowering; "tvm": run TVM's lowering passes.
    lowering: Literal["emulated", "tvm"] = "emulated"
    # A program with more nodes is rejected with GraphTooLargeError, never truncated.
    # Scheduled TIR of real conv2d / matmul / fused tasks has ~100-2,000 nodes.
    max_nodes: int = 8192
    # Fill the buffer accesses' footprint and reuse columns (the last three); they are 0
    # otherwise. Costs ~9% of the featurizer's time; only models with num_features =
    # NUM_FEATURES read them (docs/featurizer.md).
    reuse: bool = False

    def __post_init__(self):
        if self.lowering not in LOWERINGS:
            raise ValueError(f"unknown lowering {self.lowering!r}; choose one of {LOWERINGS}")
        if self.max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {self.max_nodes}")

    def version(self) -> str:
        """A string identifying the graphs this config produces (for caches)."""
        reuse = "-reuse" if self.reuse else ""
        return f"f{FEATURIZER_VERSION}-v{VOCAB_VERSION}-{self.lowering}-{self.max_nodes}{reuse}"
