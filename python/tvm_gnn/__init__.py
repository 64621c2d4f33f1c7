# Licensed under the Apache License, Version 2.0.
"""tvm_gnn: a graph-neural-network cost model for Apache TVM MetaSchedule.

Importing the package is cheap: torch and PyTorch Geometric load only when a model is used, so
MetaSchedule's build workers (which import :mod:`tvm_gnn.builder`) start fast.

Public entry points
-------------------
- :class:`tvm_gnn.cost_model.GNNModel`: the MetaSchedule cost model.
- :func:`tvm_gnn.builder.make_builder`: a LocalBuilder that works on machines where the default
  one times out.
- :func:`tvm_gnn.graph.featurize`: lowered TIR to a ``torch_geometric.data.Data`` graph.
"""

__version__ = "0.1.0"

#: Cost models that ``tvm-gnn tune`` and ``tvm-gnn tune-network`` can search with (here, not in
#: :mod:`tvm_gnn.tune`, so that the command line parses without loading TVM).
COST_MODELS = ("gnn", "xgb", "xgb-pretrained", "random")


def __getattr__(name):
    # Lazy re-exports, so that ``import tvm_gnn`` does not import torch.
    if name == "GNNModel":
        from .cost_model import GNNModel

        return GNNModel
    if name == "make_builder":
        from .builder import make_builder

        return make_builder
    raise AttributeError(f"module 'tvm_gnn' has no attribute {name!r}")
