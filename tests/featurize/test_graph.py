"""Featurizer: exact graphs of hand-written programs, both lowerings, caps and bad input."""

import math

import numpy as np
import pytest
import torch
from tvm.script import tirx as T

from tvm_gnn.featurize import _walk, graph
from tvm_gnn.nn import schema
from tvm_gnn.nn.vocab import NODE_TYPES

from ..conftest import add_one, matmul4


def _types(d):
    return [NODE_TYPES[t] for t in d.node_type.tolist()]


def _edges(d, kind):
    m = d.edge_type == kind
    return sorted(map(tuple, d.edge_index[:, m].t().tolist()))


def test_add_one_graph_is_exact():
    d = graph.featurize(add_one)
    d.validate(raise_on_error=True)
    # b[i] = a[i] + 1.0: the constant is folded into Add; store value first, then its index.
    assert _types(d) == ["For", "BufferStore", "Add", "BufferLoad", "Var", "Var"]
    assert _edges(d, schema.EDGE_DOWN) == [(0, 1), (1, 2), (1, 5), (2, 3), (3, 4)]
    assert _edges(d, schema.EDGE_UP) == [(1, 0), (2, 1), (3, 2), (4, 3), (5, 1)]
    assert _edges(d, schema.EDGE_DEF_USE) == [(0, 4), (0, 5)]  # loop i -> both uses of i
    assert _edges(d, schema.EDGE_USE_DEF) == [(4, 0), (5, 0)]
    x = d.x.numpy()
    assert x.shape == (6, graph.NUM_FEATURES)
    assert x[0, _walk.F_VALUE] == 3.0  # log2(extent 8)
    assert x[0, _walk.F_KIND + 0] == 1.0  # serial
    assert x[1, _walk.F_TRIPS] == 3.0  # the store runs 8 times
    assert x[1, _walk.F_BITS] == 5.0  # float32
    assert x[2, _walk.F_NCONST] == 1.0 and x[2, _walk.F_CONST] == 1.0  # + 1.0 folded
    assert x[5, _walk.F_STRIDE] == 1.0  # log2(1 + stride 1) of the store's index


def test_matmul_block_graph_is_exact():
    d = graph.featurize(matmul4)
    d.validate(raise_on_error=True)
    types = _types(d)
    assert len(types) == 27
    assert types.count("For") == 3
    assert types.count("SBlockRealize") == 2 and types.count("SBlock") == 2
    assert types.count("BufferStore") == 2  # init and update
    assert types.count("BufferLoad") == 3
    assert types.count("Var") == 13  # 3 bindings + 10 index uses
    assert types.count("Add") == 1 and types.count("Mul") == 1
    assert d.edge_index.shape[1] == 2 * 26 + 2 * 13
    du = _edges(d, schema.EDGE_DEF_USE)
    # loops i, j, k (nodes 2, 3, 4) define the block bindings (6, 7, 8) ...
    assert (2, 6) in du and (3, 7) in du and (4, 8) in du
    # ... which define vi, vj, vk: 4 + 4 + 2 uses.
    assert sum(1 for s, _ in du if s == 6) == 4
    assert sum(1 for s, _ in du if s == 7) == 4
    assert sum(1 for s, _ in du if s == 8) == 2
    x = d.x.numpy()
    assert x[8, _walk.F_REDUCE] == 1.0 and x[6, _walk.F_REDUCE] == 0.0


@T.prim_func(s_tir=True)
def _matmul_8x4x2(
    a: T.Buffer((8, 2), "float32"), b: T.Buffer((2, 4), "float32"), c: T.Buffer((8, 4), "float32")
):
    for i, _u, j, k in T.grid(8, 1, 4, 2):  # _u: a loop of one iteration reuses nothing
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                c[vi, vj] = T.float32(0)
            c[vi, vj] = c[vi, vj] + a[vi, vk] * b[vk, vj]


@pytest.mark.parametrize("lowering", graph.LOWERINGS)
def test_footprint_and_reuse_of_each_access_follow_the_loops_that_reach_its_indices(lowering):
    d = graph.featurize(_matmul_8x4x2, graph.FeaturizerConfig(lowering=lowering, reuse=True))
    x = d.x.numpy()
    types = _types(d)
    got = sorted(
        (
            t,
            x[n, _walk.F_VALUE],
            x[n, _walk.F_FOOTPRINT],
            x[n, _walk.F_REUSE],
            round(float(x[n, _walk.F_REUSE_DIST]), 4),
        )
        for n, t in enumerate(types)
        if t in ("BufferLoad", "BufferStore")
    )
    # loops i, j, k: log2 extents 3, 2, 1. (type, log2 elements of the buffer, footprint, reuse,
    # log2(1 + iterations between reuses))
    c = (5.0, 5.0, 1.0, 1.0)  # c[i, j]: not moved by k, the innermost loop: reused every iteration
    a = (4.0, 4.0, 2.0, round(math.log2(1 + 2), 4))  # a[i, k]: reused across j, 2 iterations of k
    b = (3.0, 3.0, 3.0, round(math.log2(1 + 8), 4))  # b[k, j]: reused across i, after 4 x 2
    assert got == sorted(
        [
            ("BufferStore", *c),
            ("BufferStore", *c),
            ("BufferLoad", *c),
            ("BufferLoad", *a),
            ("BufferLoad", *b),
        ]
    )
    # the reuse columns are appended: models trained on the columns before them still read those
    assert graph.NUM_BASE_FEATURES == _walk.F_FOOTPRINT < _walk.F_REUSE_DIST < graph.NUM_FEATURES
    # by default the walk leaves them empty, and the graph is otherwise the same
    plain = graph.featurize(_matmul_8x4x2, graph.FeaturizerConfig(lowering=lowering))
    assert not plain.x[:, graph.NUM_BASE_FEATURES :].any()
    assert torch.equal(plain.x[:, : graph.NUM_BASE_FEATURES], d.x[:, : graph.NUM_BASE_FEATURES])
    assert torch.equal(plain.edge_index, d.edge_index)


def test_real_candidates_featurize_in_both_lowerings(conv_candidates):
    _, cands = conv_candidates
    for lowering in graph.LOWERINGS:
        cfg = graph.FeaturizerConfig(lowering=lowering)
        graphs, errors = graph.featurize_candidates(cands[:8], cfg)
        assert errors == []
        for d in graphs:
            d.validate(raise_on_error=True)
            assert 50 < d.num_nodes < 2000
            assert torch.isfinite(d.x).all()
            assert (d.node_type > 0).all(), "every node type of a real conv2d is in the vocabulary"
    # parallel and vectorized loops of post-processed candidates are seen as such
    d = graph.featurize(cands[0].sch.mod)
    loops = d.x[d.node_type == NODE_TYPES.index("For")]
    assert loops[:, _walk.F_KIND + 1].sum() >= 1  # parallel


def test_node_cap_is_an_error_not_a_truncation():
    with pytest.raises(graph.GraphTooLargeError, match="more than 5 nodes"):
        graph.featurize(matmul4, graph.FeaturizerConfig(max_nodes=5))
    assert graph.featurize(matmul4, graph.FeaturizerConfig(max_nodes=27)).num_nodes == 27


def test_bad_config_names_choices():
    with pytest.raises(ValueError, match="emulated"):
        graph.FeaturizerConfig(lowering="fast")
    with pytest.raises(ValueError, match="max_nodes"):
        graph.FeaturizerConfig(max_nodes=0)


def test_featurize_candidates_reports_failures(conv_candidates):
    _, cands = conv_candidates
    graphs, errors = graph.featurize_candidates(
        [cands[0], cands[1]], graph.FeaturizerConfig(max_nodes=10)
    )
    assert graphs == [None, None]
    assert len(errors) == 2 and "GraphTooLargeError" in errors[0]


def test_featurizer_is_deterministic(conv_candidates):
    m = conv_candidates[1][3].sch.mod
    a, b = graph.featurize(m), graph.featurize(m)
    np.testing.assert_array_equal(a.x.numpy(), b.x.numpy())
    np.testing.assert_array_equal(a.edge_index.numpy(), b.edge_index.numpy())


def test_depth_column_is_correctly_rounded_on_every_cpu(conv_candidates):
    # NumPy's float32 log2 is an ulp off at depths 5, 11, ... on AVX-512 CPUs only: the column
    # must equal the correctly rounded log2(1 + depth), the same bits on znver3 and znver4
    depth = graph.featurize(conv_candidates[1][3].sch.mod).x[:, schema.F_DEPTH].numpy()
    exact = {np.float32(math.log2(1 + d)) for d in range(1000)}
    assert set(depth.tolist()) <= exact and len(set(depth.tolist())) > 12


def test_featurize_batch_equals_batched_data_list(conv_candidates):
    from torch_geometric.data import Batch

    _, cands = conv_candidates
    cfg = graph.FeaturizerConfig(max_nodes=1000)
    mixed = [cands[0], cands[1], cands[2]]
    arrays, ok, errors = graph.featurize_batch(mixed, cfg)
    ref = Batch.from_data_list([graph.featurize(c.sch.mod, cfg) for c in mixed])
    assert ok == [0, 1, 2] and errors == [] and arrays["num_graphs"] == 3
    for key in ("x", "node_type", "batch"):
        assert torch.equal(arrays[key], ref[key]), key
    got = set(zip(*arrays["edge_index"].tolist(), arrays["edge_type"].tolist()))
    want = set(zip(*ref.edge_index.tolist(), ref.edge_type.tolist()))
    assert got == want and arrays["edge_index"].shape == ref.edge_index.shape
    # failures are reported and left out, the rest keeps its order
    arrays, ok, errors = graph.featurize_batch(mixed, graph.FeaturizerConfig(max_nodes=10))
    assert arrays is None and ok == [] and len(errors) == 3


@T.prim_func(s_tir=True)
def max_from_minus_inf(a: T.Buffer((8,), "float32"), b: T.Buffer((1,), "float32")):
    b[0] = T.float32(-math.inf)  # a max-reduction's init, as in a transformer's softmax
    for i in range(8):
        b[0] = T.max(b[0], a[i] * T.float32(math.nan))


def test_infinite_and_nan_constants_get_finite_features():
    x = graph.featurize(max_from_minus_inf).x
    assert torch.isfinite(x).all()
    assert x[:, _walk.F_CONST].min() == -_walk.SLOG_INF  # -inf: beyond every finite float
    assert abs(_walk._slog(-3.4e38)) < _walk.SLOG_INF
