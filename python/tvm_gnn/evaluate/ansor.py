# Licensed under the Apache License, Version 2.0.
"""Offline ranking on Ansor's records (TVM 0.19): the GNN against Ansor's own XGBModel.

The records are ``collect --tuner ansor``'s (:mod:`tvm_gnn.collect.ansor`, under
``ROOT/ansor/HARDWARE/``). Each held-out network's tasks are groups of measured states
(:class:`~tvm_gnn.dataset.groups.Group`: the task as the context, its distinct valid states as
the candidates, their median latency), scored through each model's ``predict(task, states)``,
and measured with the metrics of the MetaSchedule evaluation (:mod:`.ranking`): pairwise
accuracy within each workload, TenSet's top-1 and top-5, per network, on all workloads and on
those no training network has (``unshared``), and the GNN/XGBModel pairwise-error ratio with
its bootstrap interval over the unshared workloads.

XGBModel is Ansor's (``tvm.auto_scheduler.XGBModel``, per-store features), trained through
``update`` on every valid and failed record of the training networks' tasks, minus the held-out
networks' workloads, once per seed.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..dataset.ansor_archive import hardware_folders
from ..dataset.ansor_records import (
    network_groups,
    networks_of,
    read_network_info,
    training_pairs,
)
from ..dataset.splits import HELD_OUT
from ..errors import EvaluationError
from ..nn.metrics import bootstrap_error_ratio
from .scoring import BOOTSTRAP, network_metrics, score_model, workload_pairwise

logger = logging.getLogger(__name__)

#: the models :func:`evaluate_ansor` knows
ANSOR_MODELS = ("gnn", "xgb", "random")


def _model(name: str, seed: int, checkpoint, train):
    from tvm import auto_scheduler

    if name == "gnn":
        from ..cost_models.ansor import GNNModel

        return GNNModel(checkpoint=checkpoint, seed=seed)
    if name == "xgb":
        model = auto_scheduler.XGBModel(seed=seed, verbose_eval=0, num_warmup_sample=1)
        model.update(*train())
        return model
    if name == "random":
        return auto_scheduler.RandomModel()
    raise ValueError(f"unknown model {name!r}; choose from {', '.join(ANSOR_MODELS)}")


def evaluate_ansor(
    root,
    hardware: str,
    held_out=HELD_OUT,
    models=("gnn", "xgb"),
    seeds=(0,),
    checkpoint=None,
    progress: bool = False,
) -> dict:
    """Rank the held-out networks' Ansor records with ``models`` (the GNN once per seed from
    ``checkpoint``, the shipped weights by default, or from ``checkpoint[i]`` for ``seeds[i]``
    where it is a list of one checkpoint a seed: weights trained with each seed; XGBModel trained
    anew per seed); the results as :func:`.ranking.evaluate` gives them, under ``models`` and
    ``protocol``."""
    per_seed = list(checkpoint) if isinstance(checkpoint, (list, tuple)) else None
    if per_seed is not None and len(per_seed) != len(seeds):
        raise EvaluationError(
            f"{len(per_seed)} GNN checkpoints for {len(seeds)} seeds: give one, or one a seed"
        )
    folder = Path(root) / "ansor" / hardware
    recorded = networks_of(folder)
    missing = [n for n in held_out if n not in recorded]
    if missing:
        raise EvaluationError(f"no Ansor records of {', '.join(missing)} under {folder}")
    test = [g for net in held_out for g in network_groups(folder, net) if len(g.candidates) > 1]
    if not test:
        raise EvaluationError(f"no task of {', '.join(held_out)} has two states to rank")
    # never trained on: the networks evaluated, and the split's held-out ones evaluated or not
    train_nets = [n for n in recorded if n not in held_out and n not in HELD_OUT]
    held_keys = {g.shash for g in test}
    shared = {
        t["workload_key"] for n in train_nets for t in read_network_info(folder, n)
    } & held_keys
    unshared = [i for i, g in enumerate(test) if g.shash not in shared]
    cache = {}

    def train():
        if "pairs" not in cache:
            cache["pairs"] = training_pairs(folder, train_nets, held_keys)
        return cache["pairs"]

    out = {"hardware": hardware, "held_out": list(held_out), "train_networks": train_nets,
           "shared": sorted(shared), "seeds": list(seeds), "models": {},
           "gnn_checkpoints": [str(c) for c in per_seed or [checkpoint or "shipped"]]}  # fmt: skip
    accuracy = {}
    for name in models:
        runs, accs = [], []
        for i, seed in enumerate(seeds):
            start = time.perf_counter()
            model = _model(name, seed, per_seed[i] if per_seed else checkpoint, train)
            seconds = time.perf_counter() - start
            scores, throughput = score_model(model, test, progress, desc=f"{name} seed {seed}")
            runs.append(_run_metrics(test, scores, held_out, unshared, seed, throughput, seconds))
            accs.append(
                workload_pairwise([test[i] for i in unshared], [scores[i] for i in unshared])
            )
        out["models"][name] = {"runs": runs}
        accuracy[name] = np.asarray(accs)
    if "gnn" in accuracy and "xgb" in accuracy and unshared:
        strata = [test[i].network for i in unshared]
        ratio, low, high = bootstrap_error_ratio(
            accuracy["gnn"], accuracy["xgb"], strata, n_boot=BOOTSTRAP, seed=seeds[0]
        )
        out["protocol"] = {"ratio": ratio, "low": low, "high": high, "level": 0.95,
                           "workloads": len(unshared)}  # fmt: skip
    return out


def _run_metrics(test, scores, nets, unshared, seed, throughput, seconds) -> dict:
    per = {}
    for net in nets:
        idx = [i for i, g in enumerate(test) if g.network == net]
        own = [i for i in idx if i in set(unshared)]
        per[net] = {
            "all": network_metrics([test[i] for i in idx], [scores[i] for i in idx]),
            "unshared": network_metrics([test[i] for i in own], [scores[i] for i in own]),
        }
    return {"seed": seed, "throughput": throughput, "train_seconds": seconds, "networks": per}


def hardware_of(root, hardware: str | None) -> str:
    """The hardware folder of ``root/ansor/`` to evaluate: ``hardware``, or the only one."""
    base = Path(root) / "ansor"
    found = [p.name for p in hardware_folders(root)]
    if hardware:
        if hardware not in found:
            raise EvaluationError(f"no Ansor records for {hardware} under {base} (found {found})")
        return hardware
    if len(found) != 1:
        what = f"hardware {found}; choose one with --hardware" if found else "no Ansor records"
        raise EvaluationError(f"{base} holds {what}")
    return found[0]


def markdown(res: dict) -> str:
    """The results as a table: per model and network, pairwise accuracy and top-1 on all and on
    unshared workloads, the mean over seeds (and its spread where several), then the ratio."""
    lines = [
        f"Ansor records of {res['hardware']}; {len(res['seeds'])} seed(s): "
        f"{', '.join(map(str, res['seeds']))}.",
        "",
        "| model | network | workloads (unshared) | pairwise | top-1 | pairwise, unshared | "
        "top-1, unshared |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in res["models"].items():
        for net in res["held_out"]:
            rows = [r["networks"][net] for r in m["runs"]]
            cells = [_mean(rows, part, key) for part in ("all", "unshared")
                     for key in ("pairwise", "top1")]  # fmt: skip
            n = f"{rows[0]['all']['workloads']} ({rows[0]['unshared']['workloads']})"
            lines.append(f"| {name} | {net} | {n} | " + " | ".join(cells) + " |")
    p = res.get("protocol")
    if p:
        lines += [
            "",
            f"GNN/XGBModel pairwise error on the {p['workloads']} unshared workloads: "
            f"**{p['ratio']:.3f}** [{p['low']:.3f}, {p['high']:.3f}] (95% bootstrap interval).",
        ]
    return "\n".join(lines)


def _mean(rows, part: str, key: str) -> str:
    vals = np.array([r[part][key] for r in rows], dtype=float)
    vals = vals[np.isfinite(vals)]
    if not len(vals):
        return "-"
    return f"{vals.mean():.4f}" + (f" ± {vals.std(ddof=1):.4f}" if len(vals) > 1 else "")
