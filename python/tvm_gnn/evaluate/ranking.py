# Licensed under the Apache License, Version 2.0.
"""Offline evaluation: how well cost models rank the measured programs of unseen networks.

Every model is a MetaSchedule cost model and is scored the same way, through
``predict(context, candidates)`` on the held-out networks' measured candidates, one workload at a
time. TVM's ``XGBModel`` and ``MLPModel`` are trained in the same run on exactly the records the
GNN checkpoints were trained on (the training networks of the same hardware folder).

Metrics (``tvm_gnn.metrics``), per held-out network, then averaged over networks:

- pairwise accuracy within each workload, averaged over workloads;
- TenSet's top-1 and top-5 scores with the network's task weights;
- prediction throughput (candidates per second of ``predict``, featurization included).

Each is computed on all of a network's workloads and on those it does not share (same structural
hash) with any training network.

Several runs per model give its spread: several GNN checkpoints (one configuration trained with
different seeds) and several baseline seeds. The tables show the mean over runs; ``runs`` keeps
each, and ``protocol`` the GNN/XGBModel pairwise-error ratio on the unshared workloads with a
bootstrap interval over workloads (:func:`tvm_gnn.nn.metrics.bootstrap_error_ratio`).

The test data is the held-out networks of the dataset, or any folders of MetaSchedule databases
(``test_folders``: for example the databases of tuning runs on another CPU).
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path

import numpy as np

from .. import dataset
from ..cost_models.baselines import train_mlp, train_xgb
from ..cost_models.gnn import GNNModel
from ..cost_models.mlp_fixes import MKL_CBWR, mkl_mode, mlp_compat
from ..dataset.groups import Group, load_folder_groups, load_groups
from ..dataset.splits import HELD_OUT
from ..errors import EvaluationError
from ..nn.metrics import (
    bootstrap_error_ratio,
    bootstrap_pairwise_difference,
)
from .scoring import BOOTSTRAP, MODELS, network_metrics, score_model, workload_pairwise
from .seeds import ensemble_runs, mean_of_runs
from .training_records import checkpoint_infos, paths, training_records

logger = logging.getLogger(__name__)


#: The row ``evaluate`` adds when it scores both the GNN and XGBModel.
ENSEMBLE = "gnn+xgb"

#: What each row of the results table is.
DESCRIPTIONS = {
    "gnn": "tvm_gnn GNNModel (FastText node types, TopK pooling)",
    "gnn-learned-emb": "GNN, learned node-type embedding instead of FastText",
    "gnn-no-topk": "GNN without TopK pooling",
    "xgb": "TVM XGBModel (per-store features), trained through update()",
    "xgb-native": "XGBoost with XGBModel's settings on tvm_gnn's native per-store features "
    "(StoreXGBModel)",
    "mlp": "TVM MLPModel (per-store features, segment-sum MLP), offline train_full()",
    "random": "TVM RandomModel",
    ENSEMBLE: "the GNN's and XGBModel's standardized scores averaged within each workload, "
    "as GNNModel(ensemble=...) does (opt-in)",
}


def evaluate(
    root,
    checkpoints: dict,
    hardware: str | None = None,
    held_out=HELD_OUT,
    models=MODELS,
    seeds=(0,),
    test_folders: dict | None = None,
    progress: bool = False,
) -> dict:
    """Evaluate ``models`` on ``held_out``; GNN variants come from ``checkpoints[name]``.

    ``checkpoints[name]`` is one path or a list of them (one run each); every other model runs
    once per seed of ``seeds``. ``test_folders`` (``{name: folder of MetaSchedule databases}``)
    replaces the held-out networks' folders as test data; the checkpoints must still not have
    seen ``held_out``.

    Returns ``{"models": {name: {"throughput": c/s, "train_seconds": s, "all": {net: metrics},
    "unshared": {net: metrics}, "runs": [...]}}, "protocol": {...}, "shared": [...], ...}``
    with metrics averaged over each model's runs.
    """
    hardware = dataset.resolve_hardware(root, hardware)
    seeds = list(seeds) or [0]
    infos = checkpoint_infos(checkpoints, models, held_out)
    needs_train = any(m in ("xgb", "xgb-native", "mlp") for m in models)
    train_nets, snapshot = training_records(
        root, hardware, infos, checkpoints, held_out, baselines=needs_train
    )
    if test_folders:
        test, nets = load_folder_groups(test_folders, progress), list(test_folders)
    else:
        test, nets = load_groups(root, hardware, held_out, progress), list(held_out)
    train = load_groups(root, hardware, train_nets, progress, snapshot) if needs_train else None
    # A workload with one distinct program offers no choice: every model picks it. Such groups
    # are left out (and MLPModel.predict crashes on a single candidate).
    trivial = sum(len(g.candidates) < 2 for g in test)
    test = [g for g in test if len(g.candidates) > 1]
    if not test:  # nothing to rank is a failed evaluation, never a table of "-" and exit 0
        raise EvaluationError(
            f"no workload of {', '.join(nets)} has two programs to rank ({trivial} with one; "
            "records that could not be read are in the warnings above): nothing was evaluated"
        )
    shared = _shared(root, hardware, train_nets, snapshot, test)
    out = {
        "hardware": hardware,
        "held_out": nets,
        "test_folders": {k: str(v) for k, v in (test_folders or {}).items()},
        "train_networks": train_nets,
        "train_records": snapshot,
        "shared": shared,
        "single_program_workloads": trivial,
        "seeds": seeds,
        "mkl_cbwr": mkl_mode(),
        "models": {},
    }
    if "mlp" in models and out["mkl_cbwr"] != MKL_CBWR:
        logger.warning(
            "MKL runs in mode %s, not %s: MLPModel's rows may differ on another "
            "CPU; set MKL_CBWR=%s before torch's first matrix product",
            out["mkl_cbwr"],
            MKL_CBWR,
            MKL_CBWR,
        )
    unshared = [i for i, g in enumerate(test) if g.shash not in shared]
    accuracy = {}  # name -> runs x unshared workloads: pairwise accuracy, for the interval
    runs = {}
    split = (nets, shared, unshared)
    for name in models:
        runs[name] = _score_runs(name, checkpoints, infos, train, seeds, test, progress)
        out["models"][name], accuracy[name] = _summarize(name, runs[name], test, split)
    if "gnn" in runs and "xgb" in runs:
        name = ENSEMBLE
        runs[name] = ensemble_runs(runs["gnn"], runs["xgb"])
        out["models"][name], accuracy[name] = _summarize(name, runs[name], test, split)
    if unshared:
        out.update(_protocols(accuracy, [test[i].network for i in unshared], seeds[0]))
    return out


def _score_runs(name, checkpoints, infos, train, seeds, test, progress) -> list[dict]:
    """Model ``name``'s runs: per run its label, scores per group, throughput and training time."""
    runs = []
    for label, make in _runs(name, checkpoints, infos, train, seeds, progress):
        start = time.perf_counter()
        model, trained_before = make()
        train_seconds = time.perf_counter() - start + trained_before
        with mlp_compat() if name == "mlp" else contextlib.nullcontext():
            scores, throughput = score_model(model, test, progress, desc=f"predict {name}")
        runs.append(
            dict(run=label, scores=scores, throughput=throughput, train_seconds=train_seconds)
        )
    return runs


def _summarize(name: str, runs: list[dict], test, split):
    """Model ``name``'s results averaged over its runs, and per run the pairwise accuracy of
    each unshared workload (runs x workloads). ``split``: the test networks' names, the shared
    workload hashes and the indices of the unshared groups in ``test``."""
    nets, shared, unshared = split
    results, accs = [], []
    for r in runs:
        scores = r["scores"]
        results.append(
            {
                "run": r["run"],
                "throughput": r["throughput"],
                "train_seconds": r["train_seconds"],
                **_metrics(test, scores, nets, shared),
            }
        )
        accs.append(workload_pairwise([test[i] for i in unshared], [scores[i] for i in unshared]))
        logger.info("%s (%s): %s", name, r["run"], results[-1]["unshared"]["average"])
    return mean_of_runs(results), np.asarray(accs)


def _protocols(accuracy: dict, strata, seed: int) -> dict:
    """``protocol`` (the GNN against XGBModel) and ``protocol_native`` (StoreXGBModel against
    XGBModel, with the pairwise difference), for the models scored."""
    out = {}
    if "gnn" in accuracy and "xgb" in accuracy:
        out["protocol"] = _protocol(accuracy["gnn"], accuracy["xgb"], strata, seed)
    if "xgb-native" in accuracy and "xgb" in accuracy:
        p = _protocol(accuracy["xgb-native"], accuracy["xgb"], strata, seed)
        diff, low, high = bootstrap_pairwise_difference(
            accuracy["xgb-native"], accuracy["xgb"], strata, n_boot=BOOTSTRAP, seed=seed
        )
        out["protocol_native"] = {
            **p,
            "difference": diff,
            "difference_low": low,
            "difference_high": high,
        }
    return out


def _protocol(gnn: np.ndarray, xgb: np.ndarray, strata, seed: int) -> dict:
    """The GNN/XGBModel pairwise-error ratio of their runs, with its bootstrap interval."""
    ratio, low, high = bootstrap_error_ratio(gnn, xgb, strata, n_boot=BOOTSTRAP, seed=seed)
    return {
        "ratio": ratio,
        "low": low,
        "high": high,
        "level": 0.95,
        "bootstrap": BOOTSTRAP,
        "gnn_runs": len(gnn),
        "xgb_runs": len(xgb),
        "workloads": int(np.sum(~np.isnan(gnn[0]))),
    }


def _shared(root, hardware: str, train_nets, snapshot, test: list[Group]) -> list[str]:
    """Workload hashes of ``test`` that a training network has too (in the records trained on)."""
    train_hashes = set()
    for net in train_nets:
        folder = Path(root) / hardware / net
        max_line = dataset.snapshot_line(folder, snapshot)
        train_hashes |= {s.shash for s in dataset.samples(folder, max_line)[0]}
    return sorted({g.shash for g in test} & train_hashes)


#: Bootstrap replicates of the GNN/XGBModel error-ratio interval.


def _runs(name: str, checkpoints: dict, infos: dict, train, seeds, progress: bool):
    """``(label, make)`` per run of model ``name``; ``make()`` returns ``(model, seconds it was
    trained before this run)``: a GNN checkpoint records how long `tvm-gnn train` took."""
    if name.startswith("gnn"):
        for path, info in zip(paths(checkpoints[name]), infos[name]):
            yield (
                Path(path).name,
                lambda path=path, info=info: (
                    GNNModel(checkpoint=path, seed=seeds[0]),
                    float(info.get("train_seconds", 0.0)),
                ),
            )
        return
    for seed in seeds:
        yield f"seed {seed}", lambda seed=seed: (_baseline(name, train, seed, progress), 0.0)


def _baseline(name: str, train: list[Group], seed: int, progress: bool):
    """TVM's cost model ``name``, trained on ``train`` where it learns."""
    if name == "xgb":
        return train_xgb(train, seed, progress)
    if name == "xgb-native":
        from ..cost_models.store_xgb import StoreXGBModel

        return StoreXGBModel(seed=seed).fit_groups(train)
    if name == "mlp":
        return train_mlp(train, seed, progress)
    if name == "random":
        from tvm.s_tir import meta_schedule as ms

        return ms.cost_model.RandomModel(seed=seed)
    raise EvaluationError(f"unknown model {name!r}; choose from {MODELS}")


def _metrics(test: list[Group], scores, held_out, shared) -> dict:
    """``{"all": {net: metrics, "average": ...}, "unshared": {...}}`` of one model's scores."""
    res = {"all": {}, "unshared": {}}
    for net in held_out:
        idx = [i for i, g in enumerate(test) if g.network == net]
        res["all"][net] = network_metrics([test[i] for i in idx], [scores[i] for i in idx])
        idx = [i for i in idx if test[i].shash not in shared]
        res["unshared"][net] = network_metrics([test[i] for i in idx], [scores[i] for i in idx])
    for part in ("all", "unshared"):
        per = list(res[part].values())
        res[part]["average"] = {
            k: float(np.nanmean([m[k] for m in per])) for k in ("pairwise", "top1", "top5")
        }
    return res
