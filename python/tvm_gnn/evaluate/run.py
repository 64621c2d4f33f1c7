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
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from pathlib import Path

import numpy as np

from .. import dataset
from ..cost_models.baselines import train_mlp, train_xgb
from ..cost_models.gnn import GNNModel
from ..cost_models.mlp_fixes import MKL_CBWR, mkl_mode, mlp_compat
from ..dataset.groups import Group, load_groups
from ..errors import EvaluationError
from ..measure.networks import HELD_OUT
from ..nn.checkpoint import read_info
from ..nn.metrics import pairwise_accuracy, topk_score
from ..progress import bar

logger = logging.getLogger(__name__)


#: Models ``evaluate`` knows, in table order.
MODELS = ("gnn", "gnn-learned-emb", "gnn-no-topk", "xgb", "mlp", "random")


#: What each row of the results table is.
DESCRIPTIONS = {
    "gnn": "tvm_gnn GNNModel (FastText node types, TopK pooling)",
    "gnn-learned-emb": "GNN, learned node-type embedding instead of FastText",
    "gnn-no-topk": "GNN without TopK pooling",
    "xgb": "TVM XGBModel (per-store features), trained through update()",
    "mlp": "TVM MLPModel (per-store features, segment-sum MLP), offline train_full()",
    "random": "TVM RandomModel",
}


def score_model(model, groups: list[Group], progress: bool = False, desc: str = "predict"):
    """Scores per group from ``model.predict``, and the candidates/s it achieved."""
    scores, seconds, count = [], 0.0, 0
    for g in bar(groups, desc, progress):
        start = time.perf_counter()
        s = np.asarray(model.predict(g.context, g.candidates), dtype=np.float64)
        seconds += time.perf_counter() - start
        count += len(g.candidates)
        scores.append(s)
    return scores, (count / seconds if seconds > 0 else float("nan"))


def network_metrics(groups: list[Group], scores: list[np.ndarray]) -> dict:
    """Pairwise accuracy and top-1/top-5 of one network's groups."""
    if not groups:
        return {
            "workloads": 0,
            "candidates": 0,
            "pairwise": float("nan"),
            "top1": float("nan"),
            "top5": float("nan"),
        }
    s = np.concatenate(scores)
    lat = np.concatenate([np.asarray(g.latencies) for g in groups])
    gid = np.concatenate([np.full(len(g.latencies), i) for i, g in enumerate(groups)])
    weights = {i: g.weight for i, g in enumerate(groups)}
    return {
        "workloads": len(groups),
        "candidates": len(lat),
        # labels: throughput (1/latency), so higher is better like the scores
        "pairwise": pairwise_accuracy(s, 1.0 / lat, gid),
        "top1": topk_score(s, lat, gid, weights, k=1),
        "top5": topk_score(s, lat, gid, weights, k=5),
    }


def _checkpoint_infos(checkpoints: dict, models, held_out) -> dict[str, dict]:
    """What each GNN checkpoint among ``models`` recorded when it was trained, read once.

    Refuses a checkpoint that does not record its training networks, one that saw a network it is
    evaluated on, and checkpoints trained on different networks: the baselines are trained on
    exactly the GNNs' networks, so that every row sees the same records.
    """
    infos = {}
    for name in models:
        if not name.startswith("gnn"):
            continue
        if name not in checkpoints:
            raise EvaluationError(f"no checkpoint given for {name}")
        path = checkpoints[name]
        info = read_info(path)
        if info.get("train_networks") is None:
            raise EvaluationError(
                f"{path} does not record its training networks; train it with `tvm-gnn train`"
            )
        leaked = sorted(set(info["train_networks"]) & set(held_out))
        if leaked:
            raise EvaluationError(f"{path} was trained on held-out network(s) {leaked}")
        infos[name] = info
    splits = {name: sorted(info["train_networks"]) for name, info in infos.items()}
    if len({tuple(v) for v in splits.values()}) > 1:
        raise EvaluationError(f"the GNN checkpoints were trained on different networks: {splits}")
    snapshots = {name: info.get("train_records") for name, info in infos.items()}
    if len({json.dumps(v, sort_keys=True) for v in snapshots.values()}) > 1:
        raise EvaluationError(
            "the GNN checkpoints were trained on different records (record "
            f"lines per network): {snapshots}; retrain them on the same data, "
            "e.g. with `tvm-gnn train --records-of`"
        )
    return infos


def _records_reference(path, hardware: str, held_out) -> dict | None:
    """The training record of checkpoint ``path`` if it can stand for the GNN rows' records."""
    if not path or not Path(path).is_file():
        return None
    info = read_info(path)
    if (
        info.get("hardware") != hardware
        or info.get("train_networks") is None
        or set(info["train_networks"]) & set(held_out)
    ):
        return None
    logger.info("baselines train on the records %s was trained on", path)
    return info


def evaluate(
    root,
    checkpoints: dict[str, str],
    hardware: str | None = None,
    held_out=HELD_OUT,
    models=MODELS,
    seed: int = 0,
    progress: bool = False,
) -> dict:
    """Evaluate ``models`` on ``held_out``; GNN variants come from ``checkpoints[name]``.

    Returns ``{"models": {name: {"throughput": c/s, "train_seconds": s, "all": {net: metrics},
    "unshared": {net: metrics}}}, "shared": [...], ...}``.
    """
    hardware = dataset.resolve_hardware(root, hardware)
    infos = _checkpoint_infos(checkpoints, models, held_out)
    train_nets, snapshot = _training_records(root, hardware, infos, checkpoints, held_out)
    test = load_groups(root, hardware, held_out, progress)
    needs_train = any(m in ("xgb", "mlp") for m in models)
    train = load_groups(root, hardware, train_nets, progress, snapshot) if needs_train else None
    # A workload with one distinct program offers no choice: every model picks it. Such groups
    # are left out (and MLPModel.predict crashes on a single candidate).
    trivial = sum(len(g.candidates) < 2 for g in test)
    test = [g for g in test if len(g.candidates) > 1]
    train_hashes = set()
    for net in train_nets:
        folder = Path(root) / hardware / net
        max_line = dataset.snapshot_line(folder, snapshot)
        train_hashes |= {s.shash for s in dataset.samples(folder, max_line)[0]}
    shared = sorted({g.shash for g in test} & train_hashes)
    out = {
        "hardware": hardware,
        "held_out": list(held_out),
        "train_networks": train_nets,
        "train_records": snapshot,
        "shared": shared,
        "single_program_workloads": trivial,
        "seed": seed,
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
    for name in models:
        start = time.perf_counter()
        if name.startswith("gnn"):
            model = GNNModel(checkpoint=checkpoints[name], seed=seed)
            # trained by `tvm-gnn train`, which recorded how long it took
            start = time.perf_counter() - float(infos[name].get("train_seconds", 0.0))
        else:
            model = _baseline(name, train, seed, progress)
        train_seconds = time.perf_counter() - start
        with mlp_compat() if name == "mlp" else contextlib.nullcontext():
            scores, throughput = score_model(model, test, progress, desc=f"predict {name}")
        res = {
            "throughput": throughput,
            "train_seconds": train_seconds,
            **_metrics(test, scores, held_out, shared),
        }
        out["models"][name] = res
        logger.info("%s: %s", name, res["unshared"]["average"])
    return out


def _training_records(root, hardware: str, infos: dict, checkpoints: dict, held_out):
    """``(training networks, snapshot)``: the records every row trains on.

    Those the GNNs saw. Without a GNN row, those the ``gnn`` checkpoint saw if it was trained on
    this hardware without the held-out networks, so that ``--models mlp`` alone trains MLPModel
    on exactly what the full table's row saw; without either, every network not held out.
    """
    reference = next(iter(infos.values()), None) or _records_reference(
        checkpoints.get("gnn"), hardware, held_out
    )
    snapshot = None
    if reference:
        train_nets = sorted(reference["train_networks"])
        snapshot = reference.get("train_records")
    else:  # no GNN to compare with: everything that is not held out
        train_nets = dataset.training_networks(root, hardware, set(held_out) | set(HELD_OUT))
    missing = [n for n in train_nets if not (Path(root) / hardware / n).is_dir()]
    if missing:
        raise EvaluationError(
            f"the GNN was trained on {missing}, which {root}/{hardware} lacks: "
            "the baselines could not see the same records"
        )
    if not train_nets:
        raise EvaluationError(f"no training networks under {root}/{hardware}")
    return train_nets, snapshot


def _baseline(name: str, train: list[Group], seed: int, progress: bool):
    """TVM's cost model ``name``, trained on ``train`` where it learns."""
    if name == "xgb":
        return train_xgb(train, seed, progress)
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
