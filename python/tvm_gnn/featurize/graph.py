# Licensed under the Apache License, Version 2.0.
"""Featurizer: the TIR of a scheduled candidate to a ``torch_geometric.data.Data`` graph.

Nodes are TIR syntax-tree nodes (plus one ``Buffer`` node per allocated buffer); each has a
node-type id from :mod:`tvm_gnn.vocab` and ``NUM_FEATURES`` numbers (see :mod:`tvm_gnn._walk`).
Edges, with their kind in ``edge_type``:

====  ==============================================================
0     parent to child in the syntax tree
1     child to parent
2     definition to use: a loop, block binding or let to each use of its variable
3     use to definition
====  ==============================================================

Two ways to get the TIR (``FeaturizerConfig.lowering``), measured in ``docs/featurizer.md``:

``"emulated"`` (default)
    Walk the scheduled TIR (``sch.mod``, MetaSchedule's post-processed candidate) and do in the
    walk what lowering contributes to the loop nest: block bindings become def-use edges, as if
    substituted; each index expression carries its dimension's flattened (row-major) stride;
    loop kinds and unroll annotations are kept. No TVM pass runs, so it is ~20x faster.
``"tvm"``
    Run TVM's own lowering passes first (:data:`TVM_LOWERING_PASSES`: blocks removed, buffers
    compacted and flattened, simplified), then walk the result. Exact, but ~22 ms a candidate.
"""

from __future__ import annotations

import logging
from functools import partial

import numpy as np
import torch
from torch_geometric.data import Data

from ..nn.schema import (
    F_DEPTH,
    F_LOOP_DEPTH,
    F_TRIPS,
    LOWERINGS,
    NUM_BASE_FEATURES,
    NUM_EDGE_TYPES,
    NUM_FEATURES,
    FeaturizerConfig,
)
from ..nn.vocab import type_index
from . import _walk

__all__ = [
    "NUM_BASE_FEATURES",
    "NUM_FEATURES",
    "FeaturizerConfig",
    "GraphTooLargeError",
    "batch_of",
    "featurize",
    "featurize_batch",
    "featurize_candidates",
    "graphs_of",
    "lower",
    "walk_arrays",
    "walk_lists",
]

logger = logging.getLogger(__name__)

GraphTooLargeError = _walk.GraphTooLargeError


def _tvm_lowering_passes():
    from tvm import s_tir, tirx

    s, t = s_tir.transform, tirx.transform
    # The loop-nest part of tvm.s_tir.pipeline.default_s_tir_pipeline, in its order.
    return [
        s.LowerInitBlock(),
        s.PlanAndUpdateBufferAllocationLocation(),
        s.ConvertBlocksToOpaque(),
        s.CompactBufferAllocation(),
        s.LowerMatchBuffer(),
        t.StmtSimplify(),
        s.LowerOpaqueBlock(),
        t.FlattenBuffer(),
    ]


_TYPE_IDS = type_index()
_TVM_PASSES = None


def _main_func(mod):
    """The single PrimFunc of an IRModule (or the PrimFunc itself)."""
    from ..tvm_compat import tir

    if isinstance(mod, tir.PrimFunc):
        return mod
    funcs = [f for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]
    if len(funcs) != 1:
        raise ValueError(f"expected an IRModule with one PrimFunc, got {len(funcs)}")
    return funcs[0]


def lower(mod, lowering: str = "emulated"):
    """The PrimFunc the graph is built from, after ``lowering`` (see the module docstring)."""
    global _TVM_PASSES
    import tvm

    if lowering == "tvm":
        from ..tvm_compat import tir

        if isinstance(mod, tir.PrimFunc):
            mod = tvm.IRModule({"main": mod})
        if _TVM_PASSES is None:
            _TVM_PASSES = tvm.transform.Sequential(_tvm_lowering_passes())
        mod = _TVM_PASSES(mod)
    elif lowering != "emulated":
        raise ValueError(f"unknown lowering {lowering!r}; choose one of {LOWERINGS}")
    return _main_func(mod)


def walk_lists(func, max_nodes: int, walk=_walk.walk, reuse: bool = False):
    """Walk a PrimFunc; return the raw lists of :func:`tvm_gnn.featurize._walk.walk`."""
    out = walk(func.body, _TYPE_IDS, max_nodes, reuse)
    if out[-1]:
        logger.debug("node types outside the vocabulary (mapped to <unk>): %s", sorted(out[-1]))
    return out


def walk_arrays(func, max_nodes: int, walk=_walk.walk, reuse: bool = False):
    """Walk a PrimFunc; return numpy arrays ``(node_type, x, edge_index, edge_type)``."""
    a = _assemble([walk_lists(func, max_nodes, walk, reuse)])
    return a["node_type"], a["x"], a["edge_index"], a["edge_type"]


def _assemble(outs) -> dict[str, np.ndarray]:
    """Numpy arrays of one or more walks (outputs of :func:`walk_lists`), as one batched graph.

    Node ids of walk ``k`` are offset by the nodes of the walks before it; ``batch`` maps each
    node to its walk. Edges are grouped by kind (all tree edges first), the order
    ``Batch.from_data_list`` would give for a single graph.
    """
    types, parents, depths, loopds, trips = [], [], [], [], []
    sp_node, sp_col, sp_val, d_src, d_dst = [], [], [], [], []
    n_nodes, n_sp, n_du = [], [], []
    for t, p, dep, ld, tr, sn, sc, sv, ds, dd, _ in outs:
        types += t
        parents += p
        depths += dep
        loopds += ld
        trips += tr
        sp_node += sn
        sp_col += sc
        sp_val += sv
        d_src += ds
        d_dst += dd
        n_nodes.append(len(t))
        n_sp.append(len(sn))
        n_du.append(len(ds))
    counts = np.asarray(n_nodes, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    n = int(counts.sum())
    x = np.zeros((n, NUM_FEATURES), dtype=np.float32)
    # float64, then rounded: NumPy's float32 log2 differs by an ulp between its AVX2 and AVX-512
    # kernels (depth 5, 11, ...), so the same program featurized differently on znver3 and znver4
    x[:, F_DEPTH] = np.log2(1.0 + np.asarray(depths, dtype=np.float64))
    x[:, F_LOOP_DEPTH] = loopds
    x[:, F_TRIPS] = trips
    x[np.asarray(sp_node, dtype=np.int64) + np.repeat(offsets, n_sp), sp_col] = sp_val
    if not np.isfinite(x).all():  # a feature the walk does not bound yet: refuse, never train on it
        bad = sorted({int(c) for c in np.nonzero(~np.isfinite(x))[1]})
        raise ValueError(f"non-finite node features in column(s) {bad}")
    par = np.asarray(parents, dtype=np.int64)
    child = np.nonzero(par >= 0)[0]
    par = par[child] + np.repeat(offsets, counts)[child]
    du_off = np.repeat(offsets, n_du)
    src = np.asarray(d_src, dtype=np.int64) + du_off
    dst = np.asarray(d_dst, dtype=np.int64) + du_off
    edge_index = np.concatenate(
        [
            np.stack([par, child]),
            np.stack([child, par]),
            np.stack([src, dst]),
            np.stack([dst, src]),
        ],
        axis=1,
    )
    edge_type = np.repeat(
        np.arange(NUM_EDGE_TYPES, dtype=np.int64), [len(child), len(child), len(src), len(src)]
    )
    return {
        "node_type": np.asarray(types, dtype=np.int64),
        "x": x,
        "edge_index": edge_index,
        "edge_type": edge_type,
        "batch": np.repeat(np.arange(len(counts), dtype=np.int64), counts),
    }


def to_data(node_type, x, edge_index, edge_type) -> Data:
    """Wrap the arrays of :func:`walk_arrays` in a PyG ``Data``."""
    return Data(
        x=torch.from_numpy(x),
        node_type=torch.from_numpy(node_type),
        edge_index=torch.from_numpy(edge_index),
        edge_type=torch.from_numpy(edge_type),
    )


def featurize(mod, config: FeaturizerConfig | None = None) -> Data:
    """Turn one program (IRModule with one PrimFunc, or a PrimFunc) into a graph.

    Raises
    ------
    GraphTooLargeError
        If the program has more than ``config.max_nodes`` nodes.
    """
    config = config or FeaturizerConfig()
    return to_data(*walk_arrays(lower(mod, config.lowering), config.max_nodes, reuse=config.reuse))


def featurize_candidates(candidates, config: FeaturizerConfig | None = None):
    """Featurize MetaSchedule candidates; never raises for a single bad candidate.

    Returns
    -------
    graphs : list[Data | None]
        One graph per candidate; ``None`` where featurizing failed.
    errors : list[str]
        One message per failed candidate, in order.
    """
    config = config or FeaturizerConfig()
    return graphs_of([partial(lower, c.sch.mod, config.lowering) for c in candidates], config)


def graphs_of(programs, config: FeaturizerConfig):
    """:func:`featurize_candidates` of programs given as calls that return each one's PrimFunc
    (or raise), as :func:`batch_of` takes them."""
    graphs, errors = [], []
    for i, program in enumerate(programs):
        try:
            graphs.append(to_data(*walk_arrays(program(), config.max_nodes, reuse=config.reuse)))
        except Exception as err:  # noqa: BLE001 - a cost model must survive any bad candidate
            graphs.append(None)
            errors.append(f"candidate {i}: {type(err).__name__}: {err}")
    return graphs, errors


def featurize_batch(candidates, config: FeaturizerConfig | None = None, walk=_walk.walk):
    """Featurize candidates straight into one batched graph (the inference fast path).

    Equivalent to ``Batch.from_data_list(featurize(...) for each)``, without building a ``Data``
    per graph: the walk's lists are concatenated and turned into arrays once per batch.

    Returns
    -------
    arrays : dict[str, torch.Tensor] or None
        ``x``, ``node_type``, ``edge_index``, ``edge_type``, ``batch`` and ``num_graphs`` for the
        candidates that featurized; None if none did.
    ok : list[int]
        Indices of those candidates, in order.
    errors : list[str]
        One message per failed candidate.
    """
    config = config or FeaturizerConfig()
    return batch_of([partial(lower, c.sch.mod, config.lowering) for c in candidates], config, walk)


def batch_of(programs, config: FeaturizerConfig, walk=_walk.walk):
    """:func:`featurize_batch` of programs given as calls that return each one's PrimFunc (or
    raise): the MetaSchedule candidates' and Ansor's states' (:mod:`.ansor`) common path."""
    outs, ok, errors = [], [], []
    for i, program in enumerate(programs):
        try:
            outs.append(walk_lists(program(), config.max_nodes, walk, config.reuse))
            ok.append(i)
        except Exception as err:  # noqa: BLE001 - a cost model must survive any bad candidate
            errors.append(f"candidate {i}: {type(err).__name__}: {err}")
    if not ok:
        return None, ok, errors
    arrays = {k: torch.from_numpy(v) for k, v in _assemble(outs).items()}
    arrays["num_graphs"] = len(ok)
    return arrays, ok, errors
