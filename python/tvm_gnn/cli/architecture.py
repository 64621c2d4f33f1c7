# Licensed under the Apache License, Version 2.0.
"""The GNN's shape as ``tvm-gnn train`` options: the ablations and the directions the validation
sweep (``benchmarks/validation_sweep.py``) compares."""

from __future__ import annotations

import argparse

from ..nn.schema import NUM_BASE_FEATURES, NUM_FEATURES
from .common import fraction, positive_int


def add_options(p) -> None:
    p.add_argument(
        "--embedding",
        choices=("fasttext", "learned"),
        default="fasttext",
        help="node-type embedding (default: fasttext, frozen)",
    )
    p.add_argument("--no-topk", action="store_true", help="no TopK pooling (ablation)")
    p.add_argument(
        "--topk-at",
        choices=("every", "last"),
        default="last",
        help="TopK pooling once after the last message-passing layer, or after every "
        "one (default: last)",
    )
    p.add_argument(
        "--pool-ratio",
        type=fraction,
        default=0.8,
        help="share of nodes each TopK pooling keeps, in (0, 1] (default: 0.8)",
    )
    p.add_argument(
        "--no-norm", action="store_true", help="no feature / layer normalization (ablation)"
    )
    p.add_argument(
        "--reuse-features",
        action="store_true",
        help="fill and read the buffer accesses' footprint and reuse columns of the "
        "node features (experimental: the shipped weights do without; the "
        "featurizer takes ~9%% longer; docs/featurizer.md)",
    )
    p.add_argument(
        "--hidden", type=positive_int, default=32, help="message-passing width (default: 32)"
    )
    p.add_argument(
        "--layers", type=positive_int, default=3, help="message-passing layers (default: 3)"
    )
    p.add_argument(
        "--conv",
        choices=("graph", "relational"),
        default="relational",
        help="message passing: relational (a weight per edge type: syntax tree down and "
        "up, def-use and use-def; default, as the shipped weights) or graph (GraphConv, "
        "every edge alike)",
    )
    p.add_argument("--residual", action="store_true", help="add each layer's input to its output")
    p.add_argument(
        "--compare",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the head also sees each candidate's readout minus the mean of its workload's "
        "set (training: the workload's graphs in a batch; predict: the first set of the "
        "workload scored since the last update); on by default, as in the shipped weights",
    )


def gnn_overrides(args) -> dict:
    """The ``GNNConfig`` fields the options set."""
    return {
        "topk": not args.no_topk,
        "topk_at": args.topk_at,
        "pool_ratio": args.pool_ratio,
        "hidden": args.hidden,
        "num_layers": args.layers,
        "conv": args.conv,
        "residual": args.residual,
        "compare": args.compare,
        "norm": not args.no_norm,
        "num_features": NUM_FEATURES if args.reuse_features else NUM_BASE_FEATURES,
    }
