# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn featurize`` and ``tvm-gnn embeddings``: look at graphs, and regenerate the node-type
vectors.
"""

from __future__ import annotations

import sys

from ..nn.schema import LOWERINGS
from ..nn.vectors import DEFAULT_DIM, VECTORS_PATH
from .common import output_file, positive_int, seed_int, target_args, workload_name


# -- featurize -----------------------------------------------------------------------------------
def cmd_featurize(args) -> int:
    """Show the graphs of a few sampled candidates of a workload."""
    from collections import Counter

    from ..featurize import graph
    from ..measure import workloads
    from ..measure.sampling import sample_candidates, target_from
    from ..nn.vocab import NODE_TYPES

    target = target_from(args.target, args.num_cores)
    _, cands = sample_candidates(workloads.get(args.workload), target, args.candidates, args.seed)
    cfg = graph.FeaturizerConfig(lowering=args.lowering, max_nodes=args.max_nodes)
    graphs, errors = graph.featurize_candidates(cands, cfg)
    if not any(d is not None for d in graphs):
        first = f"; the first: {errors[0]}" if errors else ""
        print(
            f"tvm-gnn featurize: error: none of the {len(graphs)} candidates could be "
            f"featurized{first}",
            file=sys.stderr,
        )
        return 1
    for err in errors:
        print(f"warning: {err}", file=sys.stderr)
    for i, d in enumerate(graphs):
        if d is None:
            continue
        kinds = Counter(NODE_TYPES[t] for t in d.node_type.tolist()).most_common(6)
        print(
            f"candidate {i}: {d.num_nodes} nodes, {d.edge_index.shape[1]} edges; "
            + ", ".join(f"{k} {n}" for k, n in kinds)
        )
    return 0


# -- embeddings ----------------------------------------------------------------------------------
def cmd_embeddings(args) -> int:
    """Regenerate the FastText node-type vectors shipped in the package."""
    from ..featurize import embeddings

    sentences = embeddings.corpus(args.candidates, seed=args.seed, progress=not args.quiet)
    vectors = embeddings.train_vectors(sentences, dim=args.dim, epoch=args.epoch)
    embeddings.save_vectors(vectors, args.out)
    tokens = sum(len(s) for s in sentences)
    print(
        f"wrote {args.out}: {vectors.shape[0]} node types x {vectors.shape[1]} dims, "
        f"from {len(sentences)} programs ({tokens} nodes)"
    )
    return 0


def _featurize_parser(sub) -> None:
    p = sub.add_parser(
        "featurize",
        help="show the graphs of sampled candidates of a workload",
        description=cmd_featurize.__doc__,
    )
    p.add_argument(
        "--workload",
        type=workload_name,
        default="resnet18_conv2d",
        help="built-in workload (default: resnet18_conv2d)",
    )
    p.add_argument(
        "--candidates", type=positive_int, default=4, help="how many candidates (default: 4)"
    )
    p.add_argument(
        "--lowering",
        choices=LOWERINGS,
        default="emulated",
        help="emulated (fast) or tvm (TVM's passes) (default: emulated)",
    )
    p.add_argument(
        "--max-nodes",
        type=positive_int,
        default=8192,
        help="refuse larger programs (default: 8192)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="sampling seed (default: 0)")
    target_args(p)
    p.set_defaults(func=cmd_featurize)


def _embeddings_parser(sub) -> None:
    p = sub.add_parser(
        "embeddings",
        help="regenerate the FastText node-type vectors",
        description=cmd_embeddings.__doc__,
    )
    p.add_argument(
        "--candidates",
        type=positive_int,
        default=48,
        help="sampled candidates per built-in workload (default: 48)",
    )
    p.add_argument(
        "--dim",
        type=positive_int,
        default=DEFAULT_DIM,
        help=f"vector size (default: {DEFAULT_DIM})",
    )
    p.add_argument("--epoch", type=positive_int, default=20, help="FastText epochs (default: 20)")
    p.add_argument("--seed", type=seed_int, default=0, help="corpus sampling seed (default: 0)")
    p.add_argument(
        "--out",
        type=output_file,
        default=str(VECTORS_PATH),
        help="output file (default: the package's shipped vectors)",
    )
    p.set_defaults(func=cmd_embeddings)


def add_parsers(sub) -> None:
    _featurize_parser(sub)
    _embeddings_parser(sub)
