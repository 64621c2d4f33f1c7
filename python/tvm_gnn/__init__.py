# Licensed under the Apache License, Version 2.0.
"""tvm_gnn: a graph-neural-network cost model for Apache TVM MetaSchedule.

Importing the package is cheap: torch and PyTorch Geometric load only when a model is used, so
MetaSchedule's build workers (which import :mod:`tvm_gnn.measure.builder`) start fast. It
installs one import hook (:mod:`tvm_gnn.measure.intrinsics`): TVM's tensor intrinsics, which
every ``TuneContext`` imports, then register in about 2 s instead of about 35 s.

Public entry points
-------------------
- :class:`tvm_gnn.GNNModel` (:mod:`tvm_gnn.cost_models.gnn`): the MetaSchedule cost model.
- :func:`tvm_gnn.make_builder` (:mod:`tvm_gnn.measure.builder`): a LocalBuilder that works on
  machines where the default one times out.
- :func:`tvm_gnn.featurize.featurize`: TIR to a ``torch_geometric.data.Data`` graph.

Layers, each importing only from the ones below it (``pyproject.toml``'s import-linter
contract): ``cli``; ``tune`` and ``evaluate``; ``collect`` and ``train``; ``cost_models``;
``dataset``; ``featurize``; ``measure``; ``nn`` (no ``tvm``); and the shared modules
``errors``, ``costs``, ``atomic``, ``progress``, ``report`` and ``resources``.
"""

__version__ = "0.1.0"

from .nn import scratch  # noqa: E402 - no torch import

scratch.point_torch_cache()  # before torch is imported: its compiler cache is not left in /tmp
scratch.keep_triton_out()  # beside TVM 0.19, whose libLLVM crashes triton's (docs/ansor.md)
scratch.quiet_torch_notices()  # torch's jit.script notice, raised by importing PyG: not the user's

from .cost_models import COST_MODELS  # noqa: E402 - cheap: names only
from .measure import intrinsics  # noqa: E402 - no tvm import

intrinsics.install()

__all__ = ["COST_MODELS", "GNNModel", "make_builder"]


def __getattr__(name):
    # Lazy re-exports, so that ``import tvm_gnn`` does not import torch.
    if name == "GNNModel":
        from .cost_models.gnn import GNNModel

        return GNNModel
    if name == "make_builder":
        from .measure.builder import make_builder

        return make_builder
    raise AttributeError(f"module 'tvm_gnn' has no attribute {name!r}")
