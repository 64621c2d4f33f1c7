# Licensed under the Apache License, Version 2.0.
"""Training and batched inference for :class:`tvm_gnn.nn.model.GNN`. Imports no ``tvm``.

:func:`fit` minimizes :func:`tvm_gnn.nn.losses.ranking_loss` with Adam on mini-batches that keep
each workload's graphs together, early-stopping on validation pairwise accuracy.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch_geometric.data import Batch, Data

from .config import TrainConfig
from .device import check_device
from .losses import ranking_loss
from .metrics import mean_top1, pairwise_accuracy
from .model import GNN, exact_arithmetic


@dataclass
class History:
    """What :func:`fit` did, epoch by epoch."""

    train_loss: list[float] = field(default_factory=list)
    val_pairwise_acc: list[float] = field(default_factory=list)
    val_top1: list[float] = field(default_factory=list)  # metrics.mean_top1 on the validation split
    best_epoch: int = -1
    seconds: float = 0.0


def _batches(n: int, batch_size: int, rng: np.random.Generator, groups: np.ndarray):
    """Shuffled mini-batches that keep each group's graphs together where possible.

    Groups are shuffled, then each group's graphs; consecutive runs of batch_size form batches,
    so most pairs in a batch share a workload (the ranking loss only uses those).
    """
    order = []
    for g in rng.permutation(np.unique(groups)):
        idx = np.nonzero(groups == g)[0]
        order.extend(rng.permutation(idx).tolist())
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def fit(
    model: GNN,
    train: list[Data],
    val: list[Data] | None = None,
    config: TrainConfig | None = None,
    progress: bool = False,
) -> History:
    """Train ``model`` in place on ``train``, early-stopping on pairwise accuracy on ``val``.

    Deterministic for a given ``config.seed`` and data order on the CPU (relational layers in
    ``RGCNConv``'s own arithmetic unless ``config.exact`` is False:
    :func:`~tvm_gnn.nn.model.exact_arithmetic`). Without ``val``,
    runs all epochs (or until ``max_seconds``) and keeps the last weights. Trains on
    ``config.device``; the model comes back on the CPU.
    """
    config = config or TrainConfig()
    with exact_arithmetic(model) if config.exact else contextlib.nullcontext():
        return _fit(model, train, val, config, progress)


def _fit(model: GNN, train, val, config: TrainConfig, progress: bool) -> History:
    if not train:
        raise ValueError("no training graphs")
    device = check_device(config.device)
    torch.manual_seed(config.seed)
    model.to(device)
    rng = np.random.default_rng(config.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=config.lr, weight_decay=config.weight_decay)
    groups = np.array([int(d.group) for d in train])
    val_y = [float(d.y) for d in val or []]
    val_groups = [int(d.group) for d in val or []]
    hist = History()
    best_acc, best_state, bad = -math.inf, None, 0
    start = time.perf_counter()
    epochs = range(config.epochs)
    if progress:
        from tqdm import tqdm

        epochs = tqdm(epochs, desc="train", unit="epoch")
    for epoch in epochs:
        hist.train_loss.append(_epoch(model, train, groups, rng, opt, config, device, epoch))
        if val:
            val_scores = predict(model, val)
            acc = pairwise_accuracy(val_scores, val_y, val_groups)
            hist.val_pairwise_acc.append(acc)
            hist.val_top1.append(mean_top1(val_scores, val_y, val_groups))
            if acc > best_acc:
                best_acc, best_state, bad = acc, copy.deepcopy(model.state_dict()), 0
                hist.best_epoch = epoch
            else:
                bad += 1
            if progress:
                epochs.set_postfix(
                    loss=f"{hist.train_loss[-1]:.4f}",
                    val_acc=f"{acc:.4f}",
                    val_top1=f"{hist.val_top1[-1]:.4f}",
                )
            if bad >= config.patience:
                break
        if config.max_seconds is not None and time.perf_counter() - start > config.max_seconds:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    else:
        hist.best_epoch = len(hist.train_loss) - 1
    hist.seconds = time.perf_counter() - start
    model.to("cpu")
    model.eval()
    return hist


def _epoch(
    model: GNN, train: list[Data], groups, rng, opt, config: TrainConfig, device, epoch: int
) -> float:
    """One pass over ``train`` in mini-batches; the mean training loss."""
    model.train()
    total, count = 0.0, 0
    for idx in _batches(len(train), config.batch_size, rng, groups):
        batch = Batch.from_data_list([train[i] for i in idx]).to(device)
        readout = model.readout_batch(batch)
        scores = model.score(readout, getattr(batch, "group", None))
        loss = ranking_loss(
            scores, batch.y, batch.group, config.mse_weight, config.loss, config.label_noise
        )
        if config.aux_weight > 0:
            loss = loss + config.aux_weight * aux_loss(model, readout, batch.aux)
        value = float(loss.detach())
        if not math.isfinite(value):  # NaN weights would be kept as if they were a model
            raise ValueError(
                f"training loss is {value} at epoch {epoch + 1}: a non-finite "
                "feature or label in the batch, or a learning rate too high"
            )
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += value * len(idx)
        count += len(idx)
    return total / count


def fit_head(
    model: GNN,
    readout: torch.Tensor,
    y: torch.Tensor,
    group: torch.Tensor,
    steps: int,
    config: TrainConfig,
) -> float:
    """Train only ``model.head`` for ``steps`` full-batch Adam steps on fixed ``readout`` rows
    (their labels ``y`` and workloads ``group``), with :func:`ranking_loss`; the rest of the
    model stays as it is. Cheap: the graphs' layers never run. Returns the last loss."""
    torch.manual_seed(config.seed)
    readout = readout.detach().clone()  # an inference tensor cannot enter autograd
    head = model.head
    opt = torch.optim.Adam(head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    head.train()
    value = math.nan
    try:
        for _ in range(steps):
            scores = model.score(readout, group)
            loss = ranking_loss(scores, y, group, config.mse_weight, config.loss)
            value = float(loss.detach())
            if not math.isfinite(value):
                raise ValueError(f"head training loss is {value}: a non-finite label or readout")
            opt.zero_grad()
            loss.backward()
            opt.step()
    finally:
        model.eval()
    return value


def aux_loss(model: GNN, readout: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error of ``model.aux_head`` on ``readout`` against ``target`` ``[B, A]``,
    over its finite entries (a program without per-store features has a NaN row)."""
    if model.aux_head is None:
        raise ValueError("aux_weight > 0 needs a model with an auxiliary head (aux_dim > 0)")
    known = torch.isfinite(target)
    if not bool(known.any()):
        return readout.sum() * 0.0
    err = model.aux_head(readout) - torch.nan_to_num(target)
    return (err[known] ** 2).mean()


@torch.inference_mode()
def predict(model: GNN, graphs: list[Data], batch_size: int = 1024) -> np.ndarray:
    """Scores for ``graphs`` (higher is better), batched, on the device the model is on.

    The head runs once on all readouts, with the graphs' ``group`` (workload) where they have
    one, so a model that compares candidates sees each workload's whole set.
    """
    if not graphs:
        return np.zeros(0, np.float64)
    readout = readouts(model, graphs, batch_size)
    group = None
    if all(getattr(g, "group", None) is not None for g in graphs):
        group = torch.stack([g.group for g in graphs]).reshape(-1).to(readout.device)
    return model.score(readout, group).cpu().numpy().astype(np.float64)


@torch.inference_mode()
def readouts(model: GNN, graphs: list[Data], batch_size: int = 256) -> torch.Tensor:
    """The graphs' embeddings before the head, ``[len(graphs), 2H]`` (:meth:`GNN.readout`),
    batched, on the device the model is on."""
    model.eval()
    device = next(model.parameters()).device
    out = [
        model.readout_batch(Batch.from_data_list(graphs[i : i + batch_size]).to(device))
        for i in range(0, len(graphs), batch_size)
    ]
    return torch.cat(out)


def label_graphs(graphs: list[Data], keys: list[str]) -> list[Data]:
    """Copies of ``graphs`` labelled for :func:`fit`.

    ``y`` is the normalized throughput within the graph's group (``best latency / latency``) and
    ``group`` an integer id per distinct key (a workload hash). Each graph needs ``latency``.
    """
    ids: dict[str, int] = {}
    best: dict[str, float] = {}
    for g, k in zip(graphs, keys):
        ids.setdefault(k, len(ids))
        best[k] = min(best.get(k, math.inf), float(g.latency))
    out = []
    for g, k in zip(graphs, keys):
        g = g.clone()
        g.y = torch.tensor(best[k] / float(g.latency), dtype=torch.float32)
        g.group = torch.tensor(ids[k])
        out.append(g)
    return out
