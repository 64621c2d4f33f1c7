# Licensed under the Apache License, Version 2.0.
"""TVM's own cost models as baselines, trained on the same records as the GNN.

XGBModel learns through ``update`` (its own online path); MLPModel through ``train_full`` (its
offline trainer), under :func:`tvm_gnn.cost_models.mlp_fixes.mlp_compat`.
"""

from __future__ import annotations

import sys

from ..dataset.groups import Group, load_groups, runner_results
from ..errors import EvaluationError
from ..measure.hardware import usable_cores
from ..nn.checkpoint import read_info
from ..progress import bar
from ..resources import PRETRAINED
from .mlp_fixes import mlp_compat


def train_xgb(groups: list[Group], seed: int = 0, progress: bool = False):
    """TVM's XGBModel, fed the training records through ``update``, one workload at a time.

    Each retrain starts a booster from scratch on all the data, so only the last one counts: the
    updates before it keep the data growing under XGBModel's own "retrain once the data grew by
    a fifth" rule with a threshold no update reaches, and the last update retrains on every
    record (the booster that retraining at every fifth would end with, without the thirty-odd
    boosters before it).
    """
    from tvm.s_tir.meta_schedule.cost_model.xgb_model import XGBConfig, XGBModel

    model = XGBModel(
        num_warmup_samples=0, num_tuning_cores=usable_cores(), config=XGBConfig(seed=seed)
    )
    model.verbose_eval = None
    it = bar(groups, "train xgb", progress)
    for i, g in enumerate(it):
        model.adaptive_training = i < len(groups) - 1
        if model.adaptive_training:
            model.last_train_size = sys.maxsize  # no retrain yet: the data never grows by a fifth
        model.update(g.context, g.candidates, runner_results(g.latencies))
    return model


def pretrained_xgb(root, checkpoint=None, seed: int = 0, progress: bool = False):
    """TVM's XGBModel trained on the records the GNN checkpoint was trained on (a fair baseline).

    The checkpoint (the shipped weights by default) records its hardware and training networks;
    the model sees their distinct programs through ``update`` (:func:`train_xgb`) and then keeps
    TVM's own online behaviour (retrain when its data grew by a fifth) during tuning.
    """
    path = checkpoint or PRETRAINED
    info = read_info(path)
    if not info.get("train_networks") or not info.get("hardware"):
        raise EvaluationError(f"{path} does not record its hardware and training networks")
    groups = load_groups(
        root,
        info["hardware"],
        info["train_networks"],
        progress=progress,
        snapshot=info.get("train_records"),
    )
    model = train_xgb(groups, seed=seed, progress=progress)
    model.adaptive_training = True
    return model


def train_mlp(groups: list[Group], seed: int = 0, progress: bool = False):
    """TVM's MLPModel, trained offline the way its trainer does it (``train_full``).

    Its ``update`` runs a full 50-epoch training whenever a fifth of the data is new, which with
    one workload per call would retrain from scratch many times; loading every group into its
    state and calling ``train_full`` once is MLPModel's own offline path.
    """
    import random

    import torch
    from tvm.s_tir.meta_schedule.cost_model import mlp_model

    random.seed(seed)  # train_full draws its test split with `random`
    torch.manual_seed(seed)
    model = mlp_model.MLPModel()
    state = model.trainer.state
    for g in bar(groups, "features mlp", progress):
        feats, costs = mlp_model.extract_features(
            g.context, g.candidates, runner_results(g.latencies), state.extractor
        )
        state.add_to_group(feats, costs, g.shash)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # MKL's sums depend on the thread count: see reproducible_arithmetic
    try:
        with mlp_compat():
            model.trainer.train_full()
    finally:
        torch.set_num_threads(threads)
    return model
