# Licensed under the Apache License, Version 2.0.
"""The cost model of each ``tune_tasks.py`` run, by the benchmark's model name: the package's cost
models, the benchmark's GNN variants, and ``xgb-pretrained`` trained once per weights and seed.
:func:`logged_model` wraps it in :class:`tvm_gnn.cost_models.score_log.ScoreLog`, so that each
run records the scale of the scores MetaSchedule breeds from (``search_table.py`` reads it)."""

from __future__ import annotations

from pathlib import Path

from tune_tasks_summary import (
    DIVERSE_VARIANTS,
    EPS_VARIANTS,
    EXPLORE_VARIANTS,
    GNN_MODELS,
    ONLINE_VARIANTS,
    SEARCH_VARIANTS,
)

ROOT = Path(__file__).resolve().parents[2]


def logged_model(model: str, seed: int, checkpoint=None, data=None, digest: str = ""):
    """:func:`cost_model_for`'s cost model, built, inside a ``ScoreLog``."""
    from tvm_gnn.cost_models.factory import make_cost_model
    from tvm_gnn.cost_models.score_log import ScoreLog

    kind = cost_model_for(model, seed, checkpoint, data, digest)
    weights = checkpoint if model in GNN_MODELS else None
    return ScoreLog(make_cost_model(kind, seed=seed, checkpoint=weights))


def cost_model_for(model: str, seed: int, checkpoint=None, data=None, digest: str = ""):
    """What ``tune_tir`` tunes with: a cost model's name (``gnn-head`` is one), a GNN variant of
    :data:`ONLINE_VARIANTS`, :data:`EXPLORE_VARIANTS` or :data:`SEARCH_VARIANTS`, the shipped
    GNN for :data:`EPS_VARIANTS` (whose search differs: :func:`eps_greedy_of`), or
    ``xgb-pretrained`` (:func:`pretrained_xgb_cached`)."""
    if model == "xgb-pretrained":
        return pretrained_xgb_cached(seed, checkpoint, data, digest)
    if model in EPS_VARIANTS or model in DIVERSE_VARIANTS:
        return "gnn"  # the search differs: eps_greedy_of, diverse_of
    if model in SEARCH_VARIANTS:
        from tvm_gnn.cost_models.gnn import GNNModel

        return GNNModel(checkpoint=checkpoint, seed=seed, **SEARCH_VARIANTS[model])
    if model not in ONLINE_VARIANTS and model not in EXPLORE_VARIANTS:
        return model
    import dataclasses

    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN, GNNModel

    if model in EXPLORE_VARIANTS:
        return GNNModel(checkpoint=checkpoint, seed=seed, explore=EXPLORE_VARIANTS[model])
    config = dataclasses.replace(ONLINE_TRAIN, **ONLINE_VARIANTS[model])
    return GNNModel(checkpoint=checkpoint, seed=seed, train_config=config)


def eps_greedy_of(model: str) -> float:
    """The search's ``eps_greedy`` in ``model``'s runs (:data:`EPS_VARIANTS`; MetaSchedule's
    otherwise)."""
    from tvm_gnn.measure.runner import EPS_GREEDY

    return EPS_VARIANTS.get(model, EPS_GREEDY)


def diverse_of(model: str) -> int:
    """The width of ``model``'s diverse batch (:data:`DIVERSE_VARIANTS`; 0: the search's top)."""
    return DIVERSE_VARIANTS.get(model, 0)


def pretrained_xgb_cached(seed: int, checkpoint, data, digest: str, cache=None):
    """XGBModel trained on the GNN weights' training records (``pretrained_xgb``), trained once
    per weights and seed and kept under ``.cache/xgb-pretrained/`` (loading the records and
    training take about 20 minutes on 2 cores); every run starts from the saved model."""
    from tvm.s_tir.meta_schedule.cost_model.xgb_model import XGBConfig, XGBModel

    from tvm_gnn.cost_models.baselines import pretrained_xgb
    from tvm_gnn.measure.hardware import usable_cores

    cache = Path(cache or ROOT / ".cache" / "xgb-pretrained")
    path = cache / f"{digest[:16]}-seed{seed}.tar"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        model = pretrained_xgb(data or ROOT / "data", checkpoint=checkpoint, seed=seed)
        tmp = path.with_suffix(".part")
        model.save(str(tmp))
        tmp.replace(path)
    model = XGBModel(
        num_warmup_samples=0, num_tuning_cores=usable_cores(), config=XGBConfig(seed=seed)
    )
    model.load(str(path))
    model.last_train_size = model.data_size  # as trained: retrain once a fifth more is measured
    model.adaptive_training = True
    return model
