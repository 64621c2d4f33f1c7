# Licensed under the Apache License, Version 2.0.
"""The GNN: node-type embedding + numeric features -> 3 message-passing layers, TopK pooling -> MLP
head. The defaults of :class:`GNNConfig` are the shipped weights' shape.

``conv="relational"`` makes the edge type enter every layer (one weight per edge type, PyG's
``RGCNConv`` with summed messages: GraphConv per edge type), and ``residual`` adds each layer's
input to its output so that deeper stacks train. ``compare`` lets the head see each candidate
beside the other candidates of its workload: the graph's readout and its difference from the mean
readout of its set (one workload's graphs in a training batch; in ``GNNModel.predict``, the first
set of the workload scored since the last ``update``), so what the candidates share cancels and
what their schedules change stands out.

Imports no ``tvm``: it works on ``torch_geometric`` batches, so it trains and tests offline.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn
from torch_geometric.nn import (
    GraphConv,
    RGCNConv,
    TopKPooling,
    global_max_pool,
    global_mean_pool,
)
from torch_geometric.utils import scatter

from .config import GNNConfig
from .schema import NUM_EDGE_TYPES
from .scratch import generated_modules
from .vectors import load_vectors


class GNN(nn.Module):
    """Predicts a score per graph; higher means a faster program.

    Parameters
    ----------
    config : GNNConfig
        The network's shape.
    type_vectors : torch.Tensor, optional
        ``[num_node_types, embed_dim]`` initial node-type vectors (FastText). Frozen when
        ``config.embedding == "fasttext"``; required then, unless weights are loaded afterwards.
    """

    def __init__(self, config: GNNConfig, type_vectors: torch.Tensor | None = None):
        super().__init__()
        self.config = config
        c = config
        self.embed = nn.Embedding(c.num_node_types, c.embed_dim)
        if type_vectors is not None:
            if tuple(type_vectors.shape) != (c.num_node_types, c.embed_dim):
                raise ValueError(
                    f"type_vectors has shape {tuple(type_vectors.shape)}, "
                    f"expected {(c.num_node_types, c.embed_dim)}"
                )
            with torch.no_grad():
                self.embed.weight.copy_(type_vectors)
        self.embed.weight.requires_grad_(c.embedding == "learned")
        self.norm_in = nn.BatchNorm1d(c.num_features) if c.norm else nn.Identity()
        self.inp = nn.Linear(c.embed_dim + c.num_features, c.hidden)
        self.convs = nn.ModuleList(_conv(c) for _ in range(c.num_layers))
        self.norms = nn.ModuleList(
            nn.LayerNorm(c.hidden) if c.norm else nn.Identity() for _ in range(c.num_layers)
        )
        if not c.topk:
            self.pool_after = []
        elif c.topk_at == "last":
            self.pool_after = [c.num_layers - 1]
        else:
            self.pool_after = list(range(c.num_layers))
        # pools[j] follows convs[pool_after[j]]
        self.pools = nn.ModuleList(
            TopKPooling(c.hidden, ratio=c.pool_ratio) for _ in self.pool_after
        )
        # the per-store feature row, projected to the layers' width beside the readout
        self.store_proj = (
            nn.Sequential(nn.Linear(c.store_dim, c.hidden), nn.ReLU()) if c.store_dim else None
        )
        width = (3 if c.store_dim else 2) * c.hidden  # of a readout_batch row
        self.head = nn.Sequential(
            nn.Linear((2 if c.compare else 1) * width, c.head_hidden),
            nn.ReLU(),
            nn.Dropout(c.dropout),
            nn.Linear(c.head_hidden, 1),
        )
        self.aux_head = nn.Linear(width, c.aux_dim) if c.aux_dim else None

    def forward(self, x, node_type, edge_index, batch, num_graphs: int, edge_type=None, group=None):
        """Scores ``[B]``. ``edge_type`` is read by ``conv="relational"``; ``group`` (``[B]``
        long, the graphs' workloads) by ``compare``, where None means one workload."""
        return self.score(
            self.readout(x, node_type, edge_index, batch, num_graphs, edge_type), group
        )

    def readout(self, x, node_type, edge_index, batch, num_graphs: int, edge_type=None):
        """Each graph's embedding ``[B, 2H]``, before the head."""
        # x: [N, >= F] float, node_type: [N] long, edge_index: [2, E] long, batch: [N] long,
        # edge_type: [E] long
        c = self.config
        if c.conv == "relational" and edge_type is None:
            raise ValueError("a relational GNN needs the edges' types (edge_type)")
        x = x[:, : c.num_features]  # the featurizer's first F columns
        h = torch.cat([self.embed(node_type), self.norm_in(x)], dim=-1)  # [N, D + F]
        h = torch.relu(self.inp(h))  # [N, H]
        readout = 0
        for i, conv in enumerate(self.convs):
            out = conv(h, edge_index, edge_type) if c.conv == "relational" else conv(h, edge_index)
            out = torch.relu(self.norms[i](out))  # [N_i, H]
            h = h + out if c.residual else out
            if i in self.pool_after:
                pool = self.pools[self.pool_after.index(i)]
                h, edge_index, edge_type, batch, _, _ = pool(
                    h, edge_index, edge_attr=edge_type, batch=batch
                )
            mean = global_mean_pool(h, batch, size=num_graphs)  # [B, H]
            mx = global_max_pool(h, batch, size=num_graphs)  # [B, H]
            readout = readout + torch.cat([mean, mx], dim=-1)  # [B, 2H]
        return readout

    def score(self, readout, group=None, set_mean=None):
        """The head on readouts ``[B, 2H]`` of graphs from the workloads ``group``.

        ``set_mean`` (``[2H]``, one workload) replaces the readouts' own mean as the set they are
        compared with (``compare``): a search scores one workload in several calls, and a fixed
        reference keeps the calls' scores comparable."""
        if self.config.compare:
            if set_mean is None:
                if group is None:
                    group = torch.zeros(len(readout), dtype=torch.long, device=readout.device)
                set_mean = scatter(readout, group, dim=0, reduce="mean")[group]  # [B, 2H]
            readout = torch.cat([readout, readout - set_mean], dim=-1)  # [B, 4H]
        return self.head(readout).squeeze(-1)  # [B]

    def readout_batch(self, data):
        """:meth:`readout` of a ``torch_geometric.data.Batch``; with ``store_dim``, its graphs'
        per-store feature rows (``store`` ``[B, S]``) projected beside it (``[B, 3H]``)."""
        edge_type = getattr(data, "edge_type", None)
        readout = self.readout(
            data.x, data.node_type, data.edge_index, data.batch, data.num_graphs, edge_type
        )
        if self.store_proj is None:
            return readout
        if getattr(data, "store", None) is None:
            raise ValueError("this GNN's head reads per-store features: the graphs carry none")
        return torch.cat([readout, self.store_proj(data.store)], dim=-1)

    def forward_batch(self, data):
        """Forward on a ``torch_geometric.data.Batch`` (its ``group``, if any, is the sets)."""
        return self.score(self.readout_batch(data), getattr(data, "group", None))


class RelationalConv(RGCNConv):
    """PyG's ``RGCNConv`` with summed messages, computed in one pass over all edge types.

    ``out_i = x_i W_root + b + sum_r sum_{j -> i of type r} x_j W_r``, as ``RGCNConv`` defines
    it, with its parameters (so its checkpoints load unchanged). ``RGCNConv`` propagates once per
    edge type; here one matrix product gives every node's message under every type, each edge
    gathers its own with one ``index_select``, and one scatter sums them. Its sums come in
    another order than ``RGCNConv``'s (equal to about 1e-6), which over a training run grows into
    other weights: while :attr:`exact` is set (:func:`tvm_gnn.nn.training.fit` sets it), the
    layer runs ``RGCNConv``'s own forward, so that a seed repeats the shipped checkpoints, which
    were trained through it, bit for bit.
    """

    exact = False

    def forward(self, x, edge_index, edge_type):  # noqa: D102 - as RGCNConv.forward
        if self.exact:
            return super().forward(x, edge_index, edge_type)
        n, r, out = x.size(0), self.num_relations, self.out_channels
        every = x @ self.weight.permute(1, 0, 2).reshape(self.in_channels, r * out)  # [N, R*O]
        # the row src * R + type of every's [N*R, O] view
        messages = every.view(n * r, out).index_select(0, edge_index[0] * r + edge_type)
        h = torch.zeros(n, out, dtype=x.dtype, device=x.device)
        h = h.index_add(0, edge_index[1], messages) + x @ self.root
        return h + self.bias if self.bias is not None else h


@contextlib.contextmanager
def exact_arithmetic(model: nn.Module):
    """Within it, ``model``'s relational layers compute as PyG's ``RGCNConv`` does."""
    layers = [m for m in model.modules() if isinstance(m, RelationalConv)]
    for m in layers:
        m.exact = True
    try:
        yield model
    finally:
        for m in layers:
            m.exact = False


def _conv(c: GNNConfig) -> nn.Module:
    with generated_modules():  # PyG writes each class's propagate module on its first build
        if c.conv == "relational":
            return RelationalConv(c.hidden, c.hidden, NUM_EDGE_TYPES, aggr="add")
        return GraphConv(c.hidden, c.hidden)


def default_gnn(embedding: str = "fasttext", **overrides) -> GNN:
    """A freshly initialized GNN; FastText vectors from the package for ``embedding="fasttext"``."""
    config = GNNConfig(embedding=embedding, **overrides)
    vectors = None
    if embedding == "fasttext":
        vectors = torch.from_numpy(load_vectors())
        if vectors.shape[1] != config.embed_dim:
            raise ValueError(
                f"shipped FastText vectors have {vectors.shape[1]} dims, config wants "
                f"{config.embed_dim}"
            )
    return GNN(config, vectors)
