# Licensed under the Apache License, Version 2.0.
"""A MetaSchedule cost model by name: what ``tvm-gnn demo`` and ``tvm-gnn tune`` search with."""

from __future__ import annotations

from tvm.s_tir import meta_schedule as ms

from ..measure.hardware import usable_cores
from . import COST_MODELS

#: the names that build GNNModel, with what each sets beyond the weights and the seed
GNN_KINDS = {
    "gnn": {},
    "gnn-head": {"online": "head"},
    "gnn-refit": {"online": "refit"},
    "gnn+xgb": {"ensemble": "xgb"},
    "gnn+native": {"ensemble": "native", "ensemble_top": 64},
    "gnn+native-all": {"ensemble": "native"},
    # issue 85's search options, opt-in until its development screens choose (docs/tuning.md)
    "gnn-calibrated": {"calibrated": True},
    "gnn-novelty": {"calibrated": True, "novelty": 1.0},
    "gnn-adaptive": {"calibrated": True, "novelty": 1.0, "adaptive": True},
    "gnn-gp": {"calibrated": True, "gp": 1.0},
}


def make_cost_model(
    kind, *, seed: int = 0, checkpoint=None, num_tuning_cores: int | None = None, data="data"
):
    """A cost model by name, or ``kind`` itself if it is one.

    ``gnn``: GNNModel (shipped weights unless ``checkpoint``); ``xgb``: TVM's XGBModel from
    scratch (TVM's default); ``xgb-pretrained``: XGBModel first trained on the records under
    ``data`` that the GNN checkpoint was trained on; ``random``: TVM's RandomModel;
    ``gnn-head``: GNNModel whose online update trains its MLP head alone (``online="head"``);
    ``gnn-refit``: GNNModel whose online update trains anew from the starting weights on every
    measurement, early-stopping on a held-back part (``online="refit"``);
    ``gnn+xgb``: GNNModel blended with an XGBModel that learns during the search
    (:mod:`.ensemble`); ``gnn+native``: GNNModel whose 64 best candidates of each call are
    reordered with a StoreXGBModel that learns during the search (draft then verify);
    ``gnn+native-all``: GNNModel blended over every candidate with that StoreXGBModel, as
    ``gnn+xgb`` is with XGBModel; ``gnn-calibrated``: GNNModel scoring predicted normalized
    throughput (``calibrated=True``); ``gnn-novelty``: that, with a bonus for candidates far in
    the GNN's embedding space from what the run measured (``novelty=1``, :mod:`.novelty`);
    ``gnn-adaptive``: that, its weight set each round by how well the model ranked the last
    batch (``adaptive=True``); ``gnn-gp``: the calibrated GNN as the prior mean of a Gaussian
    process on its embeddings fitted on the run's measurements, scoring the upper confidence
    bound one standard deviation up (``gp=1``, :mod:`.gp`).
    """
    if not isinstance(kind, str):
        return kind
    if kind == "xgb-pretrained":
        from .baselines import pretrained_xgb

        return pretrained_xgb(data, checkpoint=checkpoint, seed=seed)
    if kind in GNN_KINDS:
        from .gnn import GNNModel

        return GNNModel(checkpoint=checkpoint, seed=seed, **GNN_KINDS[kind])
    if kind == "xgb":
        return ms.cost_model.XGBModel(num_tuning_cores=num_tuning_cores or usable_cores())
    if kind == "random":
        return ms.cost_model.RandomModel(seed=seed)
    raise ValueError(f"unknown cost model {kind!r}; choose one of {COST_MODELS}")
