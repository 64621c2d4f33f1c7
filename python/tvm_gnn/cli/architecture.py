# Licensed under the Apache License, Version 2.0.
"""The GNN's shape as ``tvm-gnn train`` options: the ablations and the directions the validation
sweep (``benchmarks/ranking/validation_sweep.py``) compares."""

from __future__ import annotations

import argparse

from ..nn.config import CONVS, EMBEDDINGS, TOPK_AT, GNNConfig, defaults
from ..nn.schema import NUM_BASE_FEATURES, NUM_FEATURES
from .common import fraction, positive_int

#: GNNConfig's defaults (the shipped weights' shape): the options' defaults
SHIPPED = defaults(GNNConfig)


def add_options(p) -> None:
    p.add_argument(
        "--embedding",
        choices=EMBEDDINGS,
        default=SHIPPED["embedding"],
        help="node-type embedding: fasttext (frozen vectors) or learned (default: %(default)s)",
    )
    p.add_argument(
        "--topk",
        action=argparse.BooleanOptionalAction,
        default=SHIPPED["topk"],
        help="TopK pooling; --no-topk keeps every node (ablation) (default: %(default)s)",
    )
    p.add_argument(
        "--topk-at",
        choices=TOPK_AT,
        default=SHIPPED["topk_at"],
        help="TopK pooling once after the last message-passing layer, or after every "
        "one (default: %(default)s)",
    )
    p.add_argument(
        "--pool-ratio",
        type=fraction,
        default=SHIPPED["pool_ratio"],
        help="share of nodes each TopK pooling keeps, in (0, 1] (default: %(default)s)",
    )
    p.add_argument(
        "--norm",
        action=argparse.BooleanOptionalAction,
        default=SHIPPED["norm"],
        help="feature and layer normalization; --no-norm for the ablation (default: %(default)s)",
    )
    p.add_argument(
        "--reuse-features",
        action="store_true",
        help="fill and read the buffer accesses' footprint and reuse columns of the "
        "node features (experimental: the shipped weights do without; the "
        "featurizer takes ~9%% longer; docs/featurizer.md)",
    )
    p.add_argument(
        "--hidden",
        type=positive_int,
        default=SHIPPED["hidden"],
        help="message-passing width (default: %(default)s)",
    )
    p.add_argument(
        "--layers",
        type=positive_int,
        default=SHIPPED["num_layers"],
        help="message-passing layers (default: %(default)s)",
    )
    p.add_argument(
        "--conv",
        choices=CONVS,
        default=SHIPPED["conv"],
        help="message passing: relational (a weight per edge type: syntax tree down and "
        "up, def-use and use-def) or graph (GraphConv, every edge alike) (default: "
        "%(default)s)",
    )
    p.add_argument(
        "--residual",
        action=argparse.BooleanOptionalAction,
        default=SHIPPED["residual"],
        help="add each layer's input to its output (default: %(default)s)",
    )
    p.add_argument(
        "--compare",
        action=argparse.BooleanOptionalAction,
        default=SHIPPED["compare"],
        help="the head also sees each candidate's readout minus the mean of its workload's "
        "set (training: the workload's graphs in a batch; predict: the first set of the "
        "workload scored since the last update) (default: %(default)s)",
    )


def gnn_overrides(args) -> dict:
    """The ``GNNConfig`` fields the options set."""
    return {
        "topk": args.topk,
        "topk_at": args.topk_at,
        "pool_ratio": args.pool_ratio,
        "hidden": args.hidden,
        "num_layers": args.layers,
        "conv": args.conv,
        "residual": args.residual,
        "compare": args.compare,
        "norm": args.norm,
        "num_features": NUM_FEATURES if args.reuse_features else NUM_BASE_FEATURES,
    }
