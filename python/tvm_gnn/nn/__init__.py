# Licensed under the Apache License, Version 2.0.
"""The GNN core: vocabulary, graph schema, model, losses, training loop, metrics, checkpoints.

No ``tvm`` and no ``tvm_ffi``: everything here works on ``torch_geometric`` graphs and numbers,
so it trains and tests offline. ``tests/test_layers.py`` and the import-linter contract in
``pyproject.toml`` keep it so.

The names below load on first use (``from tvm_gnn.nn import GNN``), so that reading the schema
or the vocabulary does not import torch.
"""

import importlib

#: Public name -> the module of this package that defines it.
_EXPORTS = {
    "pack_graphs": "batch",
    "unpack_graphs": "batch",
    "History": "training",
    "TrainConfig": "config",
    "check_device": "device",
    "fit": "training",
    "label_graphs": "training",
    "predict": "training",
    "LOSSES": "config",
    "lambda_weights": "losses",
    "pair_targets": "losses",
    "ranking_loss": "losses",
    "mean_top1": "metrics",
    "pairwise_accuracy": "metrics",
    "topk_score": "metrics",
    "GNN": "model",
    "GNNConfig": "config",
    "default_gnn": "model",
    "NUM_BASE_FEATURES": "schema",
    "NUM_FEATURES": "schema",
    "FeaturizerConfig": "schema",
    "NODE_TYPES": "vocab",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'tvm_gnn.nn' has no attribute {name!r}")
