"""Packing graph batches into flat arrays and back."""

import torch

from tvm_gnn.featurize import graph
from tvm_gnn.nn import batch

from ..conftest import add_one


def test_pack_unpack_round_trip(conv_candidates):
    graphs = [graph.featurize(c.sch.mod) for c in conv_candidates[1][:5]] + [
        graph.featurize(add_one)
    ]
    back = batch.unpack_graphs(batch.pack_graphs(graphs))
    assert len(back) == len(graphs)
    for a, b in zip(graphs, back):
        for key in ("x", "node_type", "edge_index", "edge_type"):
            assert torch.equal(a[key], b[key])
    assert batch.unpack_graphs(batch.pack_graphs([])) == []
