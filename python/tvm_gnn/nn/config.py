# Licensed under the Apache License, Version 2.0.
"""The shipped recipe: the GNN's shape (:class:`GNNConfig`) and its training (:class:`TrainConfig`),
whose defaults are what ``GNNModel()``'s weights were trained with, and the choices each field
takes. Pure Python: no ``torch``, so the command line reads its defaults and choices from here.

``tvm-gnn train``, :func:`tvm_gnn.train.train_on_dataset` and
``benchmarks/ranking/validation_sweep.py``
all start from these defaults; the online update's settings are their own, each named
(``tvm_gnn.cost_models.gnn.ONLINE_TRAIN``). A checkpoint records its config, and loading it
rebuilds that one (:meth:`GNNConfig.from_dict`), whatever the defaults say today.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Literal

from .schema import NUM_BASE_FEATURES, NUM_FEATURES
from .vocab import NODE_TYPES

EMBEDDINGS = ("fasttext", "learned")
TOPK_AT = ("every", "last")
CONVS = ("graph", "relational")
LOSSES = ("ranknet", "lambdarank")  # the pairwise terms of losses.ranking_loss
#: share of the training networks' workloads that early stopping validates on (the shipped
#: weights' split: train.train_on_dataset draws it with TrainConfig.seed)
VAL_FRACTION = 0.15

#: What a checkpoint written before a field existed meant by it: TopK after every layer,
#: GraphConv, no residual, no comparing, no auxiliary head.
BEFORE_FIELD = {
    "topk_at": "every",
    "conv": "graph",
    "residual": False,
    "compare": False,
    "aux_dim": 0,
    "store_dim": 0,
}


def check_loss(loss: str) -> None:
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")


def _check_choice(what: str, value, choices: tuple) -> None:
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose one of {choices}")


@dataclass(frozen=True)
class GNNConfig:
    """Shape of the network; the defaults are the shipped weights'. Stored in every checkpoint."""

    num_node_types: int = len(NODE_TYPES)  # size of the node-type vocabulary (nn.vocab)
    # numeric features per node: the featurizer's first num_features columns (NUM_BASE_FEATURES,
    # or NUM_FEATURES with the footprint and reuse columns)
    num_features: int = NUM_BASE_FEATURES
    # "fasttext": frozen vectors trained on node-type walks; "learned": a trainable nn.Embedding.
    embedding: Literal["fasttext", "learned"] = "fasttext"
    embed_dim: int = 32  # node-type embedding width (the FastText vector size)
    hidden: int = 32  # width of the message-passing layers (64 halves inference speed)
    num_layers: int = 3  # message-passing layers
    topk: bool = True  # TopKPooling; False keeps every node (ablation)
    # "last": one TopKPooling, after the last message passing, so every layer sees the whole
    # program; "every": one after each layer (hierarchical pooling, checkpoints before topk_at
    # existed). Chosen on the validation split: docs/validation.md.
    topk_at: Literal["every", "last"] = "last"
    pool_ratio: float = 0.8  # fraction of nodes each TopKPooling keeps
    head_hidden: int = 64  # width of the MLP head
    dropout: float = 0.1  # dropout in the head, training only
    # BatchNorm on the numeric node features and LayerNorm after each message passing: the raw
    # features sit at very different scales (0/1 flags next to log2 trip counts near 20).
    norm: bool = True
    # "graph": GraphConv, every edge alike; "relational": a weight per edge type (RGCNConv, sum),
    # chosen on the validation split (docs/validation.md)
    conv: Literal["graph", "relational"] = "relational"
    residual: bool = False  # h + layer(h): deeper stacks
    # the head also sees readout - the mean readout of the workload's set (chosen on validation)
    compare: bool = True
    # > 0: an auxiliary head predicts this many per-program targets from the readout (TVM's
    # per-store features, tvm_gnn.dataset.store_features), in training only; never run to score
    aux_dim: int = 0
    # > 0: the head also reads a row of this many of TVM's per-store feature summaries per
    # program (what XGBModel ranks with; TVM lowers each program for them, ~100/s): the upper
    # bound of docs/validation.md, offline only (GNNModel does not score with it)
    store_dim: int = 0

    def __post_init__(self):
        _check_choice("embedding", self.embedding, EMBEDDINGS)
        _check_choice("conv", self.conv, CONVS)
        _check_choice("topk_at", self.topk_at, TOPK_AT)
        if not 0.0 < self.pool_ratio <= 1.0:
            raise ValueError(f"pool_ratio must be in (0, 1], got {self.pool_ratio}")
        if self.aux_dim < 0 or self.store_dim < 0:
            raise ValueError(
                f"aux_dim and store_dim must be at least 0, got {self.aux_dim}, {self.store_dim}"
            )
        if self.num_layers < 1:
            raise ValueError(f"num_layers must be at least 1, got {self.num_layers}")
        if not 0 < self.num_features <= NUM_FEATURES:
            raise ValueError(
                f"num_features must be in 1..{NUM_FEATURES}, the featurizer's "
                f"columns; got {self.num_features} (more: a newer tvm_gnn's model)"
            )

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> GNNConfig:
        """The config a checkpoint recorded; a field it lacks takes the value the model had
        before the field existed (:data:`BEFORE_FIELD`), not today's default."""
        d = {**BEFORE_FIELD, **d}
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown GNNConfig fields {sorted(unknown)}")
        return cls(**d)


@dataclass(frozen=True)
class TrainConfig:
    """Optimization settings; the defaults are the shipped weights' recipe (``tvm-gnn train``'s,
    chosen on the validation split: docs/validation.md)."""

    epochs: int = 60  # passes over the training graphs, at most
    batch_size: int = 32  # graphs per step (small: a few thousand graphs need many steps)
    lr: float = 3e-3  # Adam learning rate
    weight_decay: float = 1e-5  # Adam weight decay
    mse_weight: float = 0.5  # weight of the regression term next to the ranking term
    # pairwise term (LOSSES): "lambdarank" (each pair weighed by the NDCG change of swapping it:
    # the fast end counts most) or "ranknet" (every pair alike)
    loss: str = "lambdarank"
    label_noise: float = 0.0  # sd of a measured log latency; > 0 softens the pairs' targets
    # weight of the auxiliary regression (the model's aux_head on the graphs' ``aux`` rows, mean
    # squared error over their finite entries); 0: no auxiliary target
    aux_weight: float = 0.0
    # feed each program's TVM per-store feature row to the head (GNNConfig.store_dim, set from
    # the data): the offline upper bound of what those features add
    store_inputs: bool = False
    # relational layers in PyG RGCNConv's own arithmetic, as the shipped weights were trained
    # (a seed repeats them bit for bit); False: RelationalConv's faster summation order
    exact: bool = True
    patience: int = 12  # epochs without validation improvement before stopping
    max_seconds: float | None = None  # wall-clock budget (online retraining keeps it small)
    seed: int = 0  # shuffling and initialization seed
    # "cpu" (bit-for-bit repeatable under a seed) or "cuda" (docs/benchmarks.md times both; at
    # this model's size a GPU is no faster than 16 CPU threads). CUDA's scatter kernels add in no
    # fixed order, so two runs differ in the last bits and then in which epoch early stopping keeps
    device: str = "cpu"

    def __post_init__(self):
        from .device import check_device  # torch: only where a config is made, not read

        check_loss(self.loss)
        check_device(self.device)
        if not (math.isfinite(self.label_noise) and self.label_noise >= 0):
            raise ValueError(f"label_noise must be a finite number >= 0, got {self.label_noise}")
        if not (math.isfinite(self.aux_weight) and self.aux_weight >= 0):
            raise ValueError(f"aux_weight must be a finite number >= 0, got {self.aux_weight}")


def defaults(config_class) -> dict:
    """``{field: default}`` of a config dataclass: the shipped recipe's values."""
    return {f.name: f.default for f in fields(config_class)}
