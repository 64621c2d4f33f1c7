"""Ansor's states as graphs (TVM 0.19): lowered as XGBModel's features see them, read by the
one walk, with 0.19's names mapped onto the vocabulary."""

import numpy as np

from tvm_gnn.nn.schema import F_UNROLL, FeaturizerConfig
from tvm_gnn.nn.vocab import NODE_TYPES, UNKNOWN

from ..conftest import tvm019_only

pytestmark = tvm019_only()


def _types(graph_node_type):
    return {NODE_TYPES[t] for t in np.asarray(graph_node_type).tolist()}


def test_states_lower_to_tir_with_realized_buffers(ansor_conv):
    from tvm import tir

    from tvm_gnn.featurize.ansor import lower_state

    task, states = ansor_conv
    func = lower_state(task, states[0])
    assert isinstance(func, tir.PrimFunc)
    kinds = set()
    tir.stmt_functor.post_order_visit(func.body, lambda n: kinds.add(type(n).__name__))
    assert {"BufferRealize", "For", "BufferStore", "BufferLoad"} <= kinds
    assert "SBlock" not in kinds and "Block" not in kinds


def test_every_node_type_of_a_state_is_in_the_vocabulary(ansor_conv, ansor_matmul):
    from tvm_gnn.featurize.ansor import state_graphs

    for task, states in (ansor_conv, ansor_matmul):
        graphs, errors = state_graphs(task, states, FeaturizerConfig())
        assert not errors
        types = set().union(*(_types(g.node_type) for g in graphs))
        assert UNKNOWN not in types
        # BufferRealize reads as an allocation; 0.19's tir.* operators as 0.26's tirx.*
        assert {"AllocBuffer", "For", "BufferStore", "BufferLoad"} <= types
    assert "Call:tirx.exp" in types  # the matmul's exp


def test_threads_and_the_upstream_lowering_give_the_same_functions(ansor_conv):
    import tvm
    from tvm.auto_scheduler import feature

    from tvm_gnn.featurize import ansor

    task, states = ansor_conv
    serial = [ansor.lower_state(task, s) for s in states[:6]]
    pooled = ansor.lower_states(task, states[:6], threads=2)
    for a, b in zip(serial, pooled):
        tvm.ir.assert_structural_equal(a, b)
    if hasattr(feature, "get_lowered_tir_from_states"):  # the series is applied (build.sh)
        for a, b in zip(serial, feature.get_lowered_tir_from_states(states[:6], task)):
            tvm.ir.assert_structural_equal(a, b)


def test_the_unroll_pragma_is_the_loops_unroll_feature(ansor_conv):
    from tvm_gnn.featurize.ansor import state_graphs

    task, states = ansor_conv
    graphs, _ = state_graphs(task, states, FeaturizerConfig())
    steps = set()
    for g in graphs:
        loops = np.asarray(g.node_type) == NODE_TYPES.index("For")
        steps |= {round(2 ** float(v) - 1) for v in g.x[loops, F_UNROLL].tolist() if v}
    # Ansor's sketches draw auto_unroll_max_step from these (CPU: 0, 16, 64, 512)
    assert steps and steps <= {16, 64, 512}


def test_a_state_that_does_not_lower_is_an_error_not_a_crash(ansor_conv, ansor_matmul):
    from tvm_gnn.featurize.ansor import featurize_states, lower_states

    task, states = ansor_conv
    _, foreign = ansor_matmul  # a matmul's state has steps the conv's DAG cannot take
    out = lower_states(task, [states[0], foreign[0]])
    assert not isinstance(out[0], BaseException)
    assert isinstance(out[1], BaseException)
    arrays, ok, errors = featurize_states(task, [states[0], foreign[0]], FeaturizerConfig())
    assert ok == [0] and len(errors) == 1 and errors[0].startswith("candidate 1:")
    assert arrays["num_graphs"] == 1


def test_featurize_states_batches_what_state_graphs_gives(ansor_matmul):
    from torch_geometric.data import Batch

    from tvm_gnn.featurize.ansor import featurize_states, state_graphs

    task, states = ansor_matmul
    cfg = FeaturizerConfig()
    arrays, ok, errors = featurize_states(task, states[:5], cfg)
    graphs, _ = state_graphs(task, states[:5], cfg)
    batch = Batch.from_data_list(graphs)
    assert ok == list(range(5)) and not errors
    for key in ("x", "node_type", "batch"):
        assert np.array_equal(arrays[key].numpy(), getattr(batch, key).numpy()), key
    # the same edges; the batch groups them by kind across graphs
    got = set(zip(*arrays["edge_index"].tolist(), arrays["edge_type"].tolist()))
    assert got == set(zip(*batch.edge_index.tolist(), batch.edge_type.tolist()))
    assert arrays["edge_index"].shape == batch.edge_index.shape
