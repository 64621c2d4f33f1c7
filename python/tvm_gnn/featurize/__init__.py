# Licensed under the Apache License, Version 2.0.
"""The featurizer: the TIR of a scheduled candidate to a ``torch_geometric`` graph.

- :mod:`~tvm_gnn.featurize._walk`: the per-node hot loop (compiled with Cython by ``build.sh``);
- :mod:`~tvm_gnn.featurize.graph`: the API (:func:`featurize`, :func:`featurize_candidates`,
  :func:`featurize_batch`);
- :mod:`~tvm_gnn.featurize.embeddings`: FastText node-type vectors trained on node-type walks.
"""

from .graph import (
    GraphTooLargeError,
    featurize,
    featurize_batch,
    featurize_candidates,
    lower,
    walk_arrays,
    walk_lists,
)

__all__ = [
    "GraphTooLargeError",
    "featurize",
    "featurize_batch",
    "featurize_candidates",
    "lower",
    "walk_arrays",
    "walk_lists",
]
