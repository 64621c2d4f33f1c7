# Licensed under the Apache License, Version 2.0.
"""ReadoutXGBModel: XGBoost on a frozen GNN's embeddings of each candidate.

The online-learning issue's item 4 as a partner for draft then verify
(``GNNModel(ensemble="readout")``): the GNN the tuning run started from is copied and never
trained again, each measured candidate's embedding (its readout before the head,
:func:`tvm_gnn.nn.training.readouts`) is computed once, and a booster with
:class:`~.store_xgb.StoreXGBModel`'s settings, labels and retraining rule learns the workload on
those rows. What the pretrained layers learned is kept; only the map from embedding to speed is
learned per workload, from its first measurements.
"""

from __future__ import annotations

import copy

import torch
from tvm.ir.utils import derived_object

from ..featurize.graph import featurize_candidates
from ..nn.training import readouts
from .store_xgb import StoreXGBModel


@derived_object  # TVM's rule: a derived cost model inherits the undecorated class
class ReadoutXGBModel(StoreXGBModel._cls):
    """StoreXGBModel whose rows are a frozen GNN's readouts (see the module docstring).

    Parameters
    ----------
    gnn, featurizer : optional
        The GNN to freeze (copied) and the featurizer of its graphs; ``GNNModel`` gives its own
        starting ones through :meth:`bind` when it builds the partner by name.
    **kwargs
        As :class:`~.store_xgb.StoreXGBModel`.
    """

    def __init__(self, gnn=None, featurizer=None, **kwargs):
        super().__init__(**kwargs)
        self.gnn = None
        self.featurizer = featurizer
        if gnn is not None:
            self.bind(gnn, featurizer)

    def bind(self, gnn, featurizer) -> None:
        """Freeze a copy of ``gnn`` (its weights as they are now) and read graphs made by
        ``featurizer``."""
        self.gnn = copy.deepcopy(gnn).eval()
        for p in self.gnn.parameters():
            p.requires_grad_(False)
        self.featurizer = featurizer

    def _rows(self, candidates):
        if self.gnn is None:
            raise RuntimeError("ReadoutXGBModel has no GNN: bind() one first")
        graphs, errors = featurize_candidates(candidates, self.featurizer)
        ok = [i for i, g in enumerate(graphs) if g is not None]
        if not ok:
            return None, ok, errors
        with torch.inference_mode():
            rows = readouts(self.gnn, [graphs[i] for i in ok])
        return rows.double().numpy(), ok, errors
