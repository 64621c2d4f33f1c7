# Licensed under the Apache License, Version 2.0.
"""Many graphs as a few flat tensors, and back: how checkpoints and on-disk caches hold them."""

from __future__ import annotations

import torch
from torch_geometric.data import Data

from .schema import NUM_FEATURES


def pack_graphs(graphs: list[Data]) -> dict[str, torch.Tensor]:
    """Concatenate graphs into a few flat tensors (for checkpoints and on-disk caches)."""
    num_nodes = torch.tensor([g.num_nodes for g in graphs], dtype=torch.int64)
    num_edges = torch.tensor([g.edge_index.shape[1] for g in graphs], dtype=torch.int64)
    empty = torch.zeros(0, dtype=torch.int64)
    return {
        "x": torch.cat([g.x for g in graphs]) if graphs else torch.zeros(0, NUM_FEATURES),
        "node_type": torch.cat([g.node_type for g in graphs]) if graphs else empty,
        "edge_index": torch.cat([g.edge_index for g in graphs], 1) if graphs else empty.view(2, 0),
        "edge_type": torch.cat([g.edge_type for g in graphs]) if graphs else empty,
        "num_nodes": num_nodes,
        "num_edges": num_edges,
    }


def unpack_graphs(packed: dict[str, torch.Tensor]) -> list[Data]:
    """Inverse of :func:`pack_graphs`."""
    node_ptr = torch.cat([torch.zeros(1, dtype=torch.int64), packed["num_nodes"].cumsum(0)])
    edge_ptr = torch.cat([torch.zeros(1, dtype=torch.int64), packed["num_edges"].cumsum(0)])
    graphs = []
    for i in range(len(packed["num_nodes"])):
        n0, n1, e0, e1 = (
            int(node_ptr[i]),
            int(node_ptr[i + 1]),
            int(edge_ptr[i]),
            int(edge_ptr[i + 1]),
        )
        graphs.append(
            Data(
                x=packed["x"][n0:n1],
                node_type=packed["node_type"][n0:n1],
                edge_index=packed["edge_index"][:, e0:e1],
                edge_type=packed["edge_type"][e0:e1],
            )
        )
    return graphs
