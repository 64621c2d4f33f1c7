# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn train``: a GNN trained on a dataset's training networks, and its loss curve.

The held-out networks are never read. Validation (early stopping, model choice) is a random share
of the training networks' workloads.
"""

from __future__ import annotations

import logging
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .. import atomic, dataset, space
from ..dataset.splits import HELD_OUT
from ..nn.config import VAL_FRACTION
from ..nn.model import GNN, default_gnn
from ..nn.schema import FeaturizerConfig
from ..nn.training import History, TrainConfig, fit, label_graphs, predict

logger = logging.getLogger(__name__)


@dataclass
class DatasetRun:
    """A model trained on a dataset's training networks, and how."""

    model: GNN
    featurizer: FeaturizerConfig
    history: History
    info: dict  # what a checkpoint records: hardware, networks, split sizes, settings


def train_on_dataset(
    root,
    *,
    hardware: str | None = None,
    held_out=None,
    embedding: str = "fasttext",
    gnn_overrides: dict | None = None,
    config: TrainConfig | None = None,
    val_fraction: float = VAL_FRACTION,
    featurizer=None,
    cache_dir=".cache/graphs",
    progress: bool = False,
    snapshot: dict | None = None,
    jobs: int | None = None,
) -> DatasetRun:
    """Train a GNN on every network of ``root/hardware`` except ``held_out``.

    The checkpoint info's ``train_records`` keeps how many record lines each training network
    had (``dataset.record_lines``), so that evaluation feeds the baselines exactly these records
    after the dataset grows; ``snapshot`` (such a dict) trains on those lines only. ``jobs``:
    worker processes that featurize folders not yet cached (:func:`~tvm_gnn.dataset.load_graphs`).

    Validation (early stopping, model choice) is a random ``val_fraction`` of the training
    networks' workloads, drawn with ``config.seed``: held-out networks are never looked at.
    """
    config = config or TrainConfig()
    featurizer = featurizer or FeaturizerConfig()
    held_out = set(HELD_OUT if held_out is None else held_out)
    hardware = dataset.resolve_hardware(root, hardware)
    nets = dataset.training_networks(root, hardware, held_out)
    if not nets:
        raise ValueError(
            f"{root}/{hardware} has no training networks (held out: {sorted(held_out)})"
        )
    snapshot = _snapshot(root, hardware, nets, snapshot, held_out)
    nets = sorted(snapshot)
    graphs, samples = dataset.load_graphs(
        root, featurizer, cache_dir, progress, hardware, nets, snapshot, jobs
    )
    if not graphs:
        raise ValueError(f"no valid records in the training networks {nets}")
    graphs, samples = _merge_programs(graphs, samples)
    train_idx, val_idx = dataset.split(samples, "workload", None, config.seed, val_fraction)
    labelled = label_graphs(graphs, [s.shash for s in samples])
    gnn_overrides = dict(gnn_overrides or {})
    if config.aux_weight > 0 or config.store_inputs:
        aux = dataset.load_store_features(root, cache_dir, progress, hardware, nets, snapshot)
        rows = _aux_rows(aux, samples, train_idx)
        if config.aux_weight > 0:
            gnn_overrides["aux_dim"] = _attach_aux(labelled, rows)
        if config.store_inputs:  # a program without a row reads the training mean: zeros
            gnn_overrides["store_dim"] = _attach_aux(labelled, np.nan_to_num(rows), "store")
    train = [labelled[i] for i in train_idx]
    val = [labelled[i] for i in val_idx]
    torch.manual_seed(config.seed)
    model = default_gnn(embedding, **gnn_overrides)
    hist = fit(model, train, val, config, progress=progress)
    info = {
        "calibration": calibration_info(model, val or train),
        "trained": True,
        "hardware": hardware,
        "train_networks": nets,
        "train_records": {net: int(n) for net, n in snapshot.items()},
        "held_out": sorted(held_out),
        "train_graphs": len(train),
        "val_graphs": len(val),
        "train_workloads": len({samples[i].shash for i in train_idx}),
        "val_workloads": len({samples[i].shash for i in val_idx}),
        "train_config": {k: v for k, v in config.__dict__.items()},
        **history_info(hist),
    }
    return DatasetRun(model, featurizer, hist, info)


def history_info(hist: History) -> dict:
    """What a checkpoint records of its training's history."""
    return {
        "best_epoch": hist.best_epoch,
        "train_loss": list(hist.train_loss),
        "val_pairwise_acc": list(hist.val_pairwise_acc),
        "val_top1": list(hist.val_top1),
        "train_seconds": hist.seconds,
    }


def calibration_info(model: GNN, graphs) -> dict:
    """The slope that ``GNNModel(calibrated=True)`` maps raw scores to normalized throughput
    with (:mod:`tvm_gnn.cost_models.calibration`), fitted on ``graphs``: the validation
    workloads, out of sample as a tuning run's candidates are."""
    from ..cost_models.calibration import within_slope

    scores = predict(model, graphs)
    groups = [int(g.group) for g in graphs]
    try:
        slope, programs = within_slope(scores, [float(g.latency) for g in graphs], groups)
    except ValueError:  # no workload with two programs told apart: nothing to fit
        return {}
    if not slope > 0:  # the scores run against the measurements there: no prior to keep
        logger.warning(
            "calibration: the validation programs' slope is %.3g, not positive; none written "
            "(calibrated scores start from slope 1)",
            slope,
        )
        return {}
    return {"slope": slope, "programs": programs, "workloads": len(set(groups))}


def train_to_checkpoint(out, root, *, plot=None, threads: int | None = None, **kwargs) -> dict:
    """:func:`train_on_dataset` ``(root, **kwargs)``, its checkpoint written to ``out`` and its
    loss curve to ``plot`` (default: ``out``'s name + ``-loss.png``); returns what the checkpoint
    records. ``threads``: torch threads for the training (a worker of several runs at once)."""
    from ..nn import checkpoint

    if threads is not None:
        torch.set_num_threads(threads)
    run = train_on_dataset(root, **kwargs)
    # a full disk after the training: the model goes to the first place that takes it, and the
    # error says where (space.rescue), instead of being lost with the process
    space.rescue(out, lambda p: checkpoint.save(p, run.model, run.featurizer, run.info), "model")
    i = run.info
    title = f"{Path(out).name}: {i['train_graphs']} training programs, "
    plot_history(run.history, plot or loss_plot(out), title + ", ".join(i["train_networks"]))
    return run.info


def records_of(root, path, hardware: str | None = None) -> tuple[dict[str, int], str]:
    """``(snapshot, hardware)`` to retrain checkpoint ``path`` on exactly its records: how many
    record lines of each network it saw, and its hardware folder of ``root`` (``hardware`` if
    given). ``ValueError`` if it does not record them."""
    from ..nn import checkpoint

    info = checkpoint.read_info(path)
    snapshot = info.get("train_records")
    if not snapshot:
        raise ValueError(
            f"{path} does not record how many records it was trained on (trained before "
            "`train_records` existed)"
        )
    return snapshot, dataset.resolve_hardware(root, hardware, info.get("hardware"))


def loss_plot(out) -> str:
    """Where a checkpoint's loss curve goes by default: beside it, ``NAME-loss.png``; where the
    checkpoint goes to a device or a pipe (``--out /dev/null``), nowhere (``os.devnull``)."""
    if Path(out).exists() and not Path(out).is_file():
        return os.devnull
    return str(out).rsplit(".", 1)[0] + "-loss.png"


def _snapshot(root, hardware: str, nets: list[str], snapshot, held_out) -> dict[str, int]:
    """``{network: record lines}`` to train on: ``snapshot``, exactly the records a checkpoint
    saw (networks added since are left out), or the record files as they are now (`collect`
    only appends to them)."""
    if snapshot is None:
        return {net: dataset.record_lines(Path(root) / hardware / net) for net in nets}
    missing = sorted(set(snapshot) - set(nets))
    if missing:
        raise ValueError(
            f"the snapshot covers {missing}, which {root}/{hardware} has no training "
            f"records of (held out: {sorted(held_out)})"
        )
    if set(nets) - set(snapshot):
        logger.info("not in the snapshot, left out: %s", sorted(set(nets) - set(snapshot)))
    return snapshot


def _attach_aux(graphs, rows: np.ndarray, name: str = "aux") -> int:
    """Give each graph its row of ``rows`` as ``name`` ``[1, A]`` (``aux``: the auxiliary
    target; ``store``: the head's per-store feature input); return ``A``."""
    for g, row in zip(graphs, rows):
        setattr(g, name, torch.from_numpy(np.ascontiguousarray(row)).view(1, -1))
    return rows.shape[1]


def _aux_rows(aux: dict, samples, train_idx) -> np.ndarray:
    """The auxiliary targets ``[programs, A]`` of ``samples``: their per-store feature rows,
    standardized with the training split's mean and spread, columns constant there dropped, NaN
    where a program has none."""
    width = len(next(iter(aux.values()))) if aux else 0
    rows = np.full((len(samples), width), np.nan, dtype=np.float32)
    for i, s in enumerate(samples):
        row = aux.get((s.network, s.line))
        if row is not None:
            rows[i] = row
    known = rows[train_idx]
    known = known[np.isfinite(known).all(1)]
    if not len(known):
        raise ValueError("no training program has per-store features (--aux-store-features)")
    mean, std = known.mean(0), known.std(0)
    keep = std > 1e-6
    logger.info("auxiliary target: %d per-store feature columns of %d vary", keep.sum(), width)
    return ((rows[:, keep] - mean[keep]) / std[keep]).astype(np.float32)


def _merge_programs(graphs, samples):
    """One graph per (workload, program) across networks, median latency; drop workloads with a
    single program (they hold no ranking information)."""
    by_key: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(samples):
        by_key.setdefault((s.shash, s.program), []).append(i)
    programs: dict[str, int] = {}
    for shash, _ in by_key:
        programs[shash] = programs.get(shash, 0) + 1
    out_g, out_s = [], []
    for (shash, _), idx in by_key.items():
        if programs[shash] < 2:
            continue
        g = graphs[idx[0]]
        if len(idx) > 1:
            g = g.clone()
            g.latency = torch.tensor(
                float(np.median([samples[i].latency for i in idx])), dtype=torch.float64
            )
        out_g.append(g)
        out_s.append(samples[idx[0]])
    return out_g, out_s


def plot_history(hist: History, path, title: str = "") -> None:
    """Training loss and validation pairwise accuracy by epoch, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    epochs = np.arange(1, len(hist.train_loss) + 1)
    ax.plot(epochs, hist.train_loss, color="tab:blue", label="training loss")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss", color="tab:blue")
    if hist.val_pairwise_acc:
        ax2 = ax.twinx()
        ax2.plot(epochs[: len(hist.val_pairwise_acc)], hist.val_pairwise_acc, color="tab:orange")
        ax2.set_ylabel("validation pairwise accuracy", color="tab:orange")
        if hist.best_epoch >= 0:
            ax2.axvline(hist.best_epoch + 1, color="gray", ls="--", lw=1)
    ax.set_title(textwrap.fill(title or "training", 90), fontsize=8)  # long network lists wrap
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=120)
    plt.close(fig)
