# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn train --tuner ansor``: the GNN trained on Ansor's records (TVM 0.19).

The records are ``collect --tuner ansor``'s (``ROOT/ansor/HARDWARE/``, raw or packed). Each task
of a training network is a group: its distinct valid states, lowered as Ansor's own features
see them (:mod:`tvm_gnn.featurize.ansor`), labelled with their normalized throughput within the
task. What evaluation holds out is never read: the held-out networks, and every workload they
have, whichever network it was recorded under (:func:`tvm_gnn.evaluate.ansor.evaluate_ansor`
trains XGBModel on the same records).

Two starts (``init``): ``"shipped"`` fine-tunes the MetaSchedule weights that ship in the
package (their featurizer and shape), ``"scratch"`` trains a new GNN of the default shape; a path
starts from that checkpoint. Validation (early stopping, and the choice between runs) is a random
share of the training tasks' workloads, drawn with ``split_seed`` alone, so that runs of several
seeds and starts validate on the same workloads.

Graphs are cached per task log and featurizer version (``cache_dir/ansor/HARDWARE/``): a log
only grows, and its cache is keyed by its line count.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from ..atomic import atomic_open
from ..dataset.ansor_records import (
    networks_of,
    read_network_info,
    register_workloads,
    task_group,
)
from ..dataset.layout import count_lines
from ..dataset.splits import HELD_OUT
from ..nn.batch import pack_graphs, unpack_graphs
from ..nn.config import VAL_FRACTION, TrainConfig
from ..nn.model import default_gnn
from ..nn.schema import FeaturizerConfig
from ..nn.training import fit, label_graphs
from . import DatasetRun, calibration_info, history_info

logger = logging.getLogger(__name__)

#: where a run starts, besides a checkpoint's path
INITS = ("shipped", "scratch")


@dataclass(frozen=True)
class TaskGraphs:
    """One task's distinct valid states as graphs (``latency`` set on each, seconds)."""

    network: str
    key: str  # the workload key
    graphs: list


def _log_of(folder: Path, task: dict) -> Path:
    log = folder / task["log"]
    return log if log.is_file() else log.with_name(log.name + ".gz")


def _cache_file(cache_dir, folder: Path, task: dict, lines: int, featurizer) -> Path:
    stem = hashlib.sha256(task["log"].encode()).hexdigest()[:20]
    return Path(cache_dir) / "ansor" / folder.name / f"{stem}.{lines}.{featurizer.version()}.pt"


def task_graphs(folder: Path, network: str, task: dict, featurizer, cache_dir) -> TaskGraphs:
    """The graphs of one task's distinct valid states, from the cache or lowered and featurized
    now (states that do not featurize are left out, logged)."""
    from ..featurize.ansor import state_graphs

    log = _log_of(folder, task)
    lines = count_lines(log) if log.is_file() else 0
    cache = _cache_file(cache_dir, folder, task, lines, featurizer) if cache_dir else None
    if cache is not None and cache.is_file():
        try:
            payload = torch.load(cache, weights_only=False)
            graphs = unpack_graphs(payload["graphs"])
            for g, lat in zip(graphs, payload["latencies"], strict=True):
                g.latency = torch.tensor(lat, dtype=torch.float64)
            return TaskGraphs(network, task["workload_key"], graphs)
        except Exception as err:  # noqa: BLE001 - a bad cache is rebuilt
            logger.warning("graph cache %s is unreadable (%s); featurizing again", cache, err)
    group = task_group(folder, network, task)
    graphs, lats = [], []
    if group is not None:
        made, errors = state_graphs(group.context, group.candidates, featurizer)
        if errors:
            logger.warning("%s: %d state(s) not featurized: %s", log.name, len(errors), errors[0])
        for g, lat in zip(made, group.latencies):
            if g is not None:
                g.latency = torch.tensor(lat, dtype=torch.float64)
                graphs.append(g)
                lats.append(lat)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(cache, "wb") as f:
            torch.save({"graphs": pack_graphs(graphs), "latencies": lats}, f)
    return TaskGraphs(network, task["workload_key"], graphs)


def held_out_keys(folder: Path, held_out) -> set[str]:
    """The workload keys of the held-out networks recorded under ``folder``."""
    recorded = set(networks_of(folder))
    return {t["workload_key"] for n in held_out if n in recorded
            for t in read_network_info(folder, n)}  # fmt: skip


def training_tasks(folder: Path, held_out) -> list[tuple[str, dict]]:
    """``(network, task)`` of every training task: each log once, none of a held-out
    workload."""
    held_out = set(held_out)
    leave_out = held_out_keys(folder, held_out)
    out, seen = [], set()
    for net in networks_of(folder):
        if net in held_out:
            continue
        for t in read_network_info(folder, net):
            if t["workload_key"] in leave_out or t["log"] in seen:
                continue
            seen.add(t["log"])
            out.append((net, t))
    return out


def validation_keys(keys: list[str], fraction: float, seed: int) -> set[str]:
    """A random ``fraction`` of the distinct ``keys`` (at least one where two exist)."""
    distinct = sorted(set(keys))
    if len(distinct) < 2 or fraction <= 0:
        return set()
    rng = np.random.default_rng(seed)
    n = min(len(distinct) - 1, max(1, round(len(distinct) * fraction)))
    return set(rng.choice(distinct, size=n, replace=False).tolist())


def start_model(init: str | Path, embedding: str = "fasttext"):
    """``(model, featurizer, source)`` a run starts from: the shipped weights, a new GNN, or a
    checkpoint (:class:`~tvm_gnn.errors.CheckpointError` if it does not load)."""
    from ..nn import checkpoint
    from ..resources import PRETRAINED

    if init == "scratch":
        return default_gnn(embedding), FeaturizerConfig(), "scratch"
    path = PRETRAINED if init == "shipped" else Path(init)
    model, featurizer, _ = checkpoint.load(path)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return model, featurizer, f"{Path(path).name} (sha256 {digest[:16]})"


def train_on_ansor(
    root,
    hardware: str,
    *,
    held_out=HELD_OUT,
    init: str | Path = "shipped",
    config: TrainConfig | None = None,
    val_fraction: float = VAL_FRACTION,
    split_seed: int = 0,
    cache_dir=".cache/graphs",
    progress: bool = False,
) -> DatasetRun:
    """Train a GNN on the Ansor records of ``root/ansor/hardware`` (see the module docstring)."""
    config = config or TrainConfig()
    folder = Path(root) / "ansor" / hardware
    tasks = training_tasks(folder, held_out)
    if not tasks:
        raise ValueError(f"{folder} has no training tasks (held out: {', '.join(held_out)})")
    torch.manual_seed(config.seed)  # a new GNN's weights
    model, featurizer, source = start_model(init)
    for net in sorted({n for n, _ in tasks}):
        register_workloads(folder, net)
    if progress:
        from tqdm import tqdm

        tasks_iter = tqdm(tasks, desc="featurize", unit="task")
    else:
        tasks_iter = tasks
    per_task = [task_graphs(folder, n, t, featurizer, cache_dir) for n, t in tasks_iter]
    per_task = [t for t in per_task if len(t.graphs) > 1]  # one state ranks nothing
    if not per_task:
        raise ValueError(f"no training task of {folder} has two valid states")
    val_keys = validation_keys([t.key for t in per_task], val_fraction, split_seed)
    graphs = [g for t in per_task for g in t.graphs]
    keys = [t.key for t in per_task for _ in t.graphs]
    labelled = label_graphs(graphs, keys)
    train = [g for g, k in zip(labelled, keys) if k not in val_keys]
    val = [g for g, k in zip(labelled, keys) if k in val_keys]
    hist = fit(model, train, val, config, progress=progress)
    lines = {t["log"]: count_lines(_log_of(folder, t)) for _, t in tasks}
    info = {
        "calibration": calibration_info(model, val or train),
        "trained": True,
        "tuner": "ansor",
        "hardware": hardware,
        "init": source,
        "train_networks": sorted({n for n, _ in tasks}),
        "train_logs": lines,  # each task log's lines: a log only grows
        "held_out": sorted(held_out),
        "train_graphs": len(train),
        "val_graphs": len(val),
        "train_workloads": len({t.key for t in per_task} - val_keys),
        "val_workloads": len(val_keys),
        "split_seed": split_seed,
        "train_config": asdict(config),
        **history_info(hist),
    }
    return DatasetRun(model, featurizer, hist, info)


def train_ansor_to_checkpoint(out, root, hardware: str, *, plot=None, **kwargs) -> dict:
    """:func:`train_on_ansor`, its checkpoint written to ``out`` and its loss curve to ``plot``
    (default: beside ``out``); returns what the checkpoint records."""
    from .. import space
    from ..nn import checkpoint
    from . import loss_plot, plot_history

    run = train_on_ansor(root, hardware, **kwargs)
    space.rescue(out, lambda p: checkpoint.save(p, run.model, run.featurizer, run.info), "model")
    i = run.info
    title = f"{Path(out).name} (Ansor, from {i['init']}): {i['train_graphs']} training states"
    plot_history(run.history, plot or loss_plot(out), title)
    return run.info
