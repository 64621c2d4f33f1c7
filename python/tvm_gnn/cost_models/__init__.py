# Licensed under the Apache License, Version 2.0.
"""MetaSchedule cost models: :class:`GNNModel` (the TVM adapter of :mod:`tvm_gnn.nn`), TVM's
baselines trained on the same records, and :func:`~tvm_gnn.cost_models.factory.make_cost_model`.

Importing this package is cheap (the command line reads :data:`COST_MODELS` without TVM);
``GNNModel`` loads torch and TVM on first use.
"""

#: Cost models that ``tvm-gnn demo`` and ``tvm-gnn tune`` can search with.
COST_MODELS = (
    "gnn",
    "gnn-head",
    "gnn-refit",
    "xgb",
    "xgb-pretrained",
    "random",
    "gnn+xgb",
    "gnn+native",
    "gnn+native-all",
    "gnn-calibrated",
    "gnn-novelty",
    "gnn-adaptive",
    "gnn-gp",
)


def __getattr__(name):
    if name == "GNNModel":
        from .gnn import GNNModel

        return GNNModel
    raise AttributeError(f"module 'tvm_gnn.cost_models' has no attribute {name!r}")
