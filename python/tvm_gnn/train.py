# Licensed under the Apache License, Version 2.0.
"""Training and batched inference for :class:`tvm_gnn.model.GNN`. Imports no ``tvm``.

Each training graph carries ``y``, its normalized throughput within its workload
(``min_cost / cost``, in (0, 1]; 0 for a failed run), and ``group``, its workload id.
The loss is a pairwise ranking loss over pairs in the same workload plus ``mse_weight`` times
the squared error against ``y``. The pairwise term is RankNet's (logistic loss on score
differences, every pair alike) or LambdaRank's (the same, each pair weighted by how much swapping
it would change the workload's NDCG, so the pairs at the fast end of the current ranking count
most; gains are ``y`` itself, which is what a top-1 pick scores). With ``label_noise`` (the
standard deviation of a measurement's log latency, which ``benchmarks/noise_ceiling.py``
estimates), a pair's target is no longer "i is faster" for certain but the probability that i is
faster given two noisy measurements: RankNet's probabilistic target, so a pair measured a few
percent apart pulls its scores apart only a little.
"""

from __future__ import annotations

import copy
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch_geometric.data import Batch, Data

from .metrics import mean_top1, pairwise_accuracy
from .model import GNN, default_gnn

logger = logging.getLogger(__name__)


LOSSES = ("ranknet", "lambdarank")  # the pairwise terms of ranking_loss; `tvm-gnn train --loss`


def _check_loss(loss: str) -> None:
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")


def check_device(device: str) -> torch.device:
    """``device`` as a torch device; ValueError when it is unknown or not on this machine."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {device!r} (e.g. cpu, cuda, cuda:1)") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: this PyTorch sees no CUDA GPU "
                         f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'})")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(f"device {device!r}: this machine has {torch.cuda.device_count()} "
                         "CUDA device(s)")  # fmt: skip
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device {device!r}: training runs on cpu or cuda")
    return dev


@dataclass(frozen=True)
class TrainConfig:
    """Optimization settings."""

    epochs: int = 60  # passes over the training graphs, at most
    batch_size: int = 32  # graphs per step (small: a few thousand graphs need many steps)
    lr: float = 3e-3  # Adam learning rate
    weight_decay: float = 1e-5  # Adam weight decay
    mse_weight: float = 0.5  # weight of the regression term next to the ranking term
    loss: str = "ranknet"  # pairwise term: "ranknet" (pairs alike) or "lambdarank" (NDCG-weighted)
    label_noise: float = 0.0  # sd of a measured log latency; > 0 softens the pairs' targets
    patience: int = 12  # epochs without validation improvement before stopping
    max_seconds: float | None = None  # wall-clock budget (online retraining keeps it small)
    seed: int = 0  # shuffling and initialization seed
    # "cpu" (bit-for-bit repeatable under a seed) or "cuda" (docs/benchmarks.md times both; at
    # this model's size a GPU is no faster than 16 CPU threads). CUDA's scatter kernels add in no
    # fixed order, so two runs differ in the last bits and then in which epoch early stopping keeps
    device: str = "cpu"

    def __post_init__(self):
        _check_loss(self.loss)
        check_device(self.device)
        if not (math.isfinite(self.label_noise) and self.label_noise >= 0):
            raise ValueError(f"label_noise must be a finite number >= 0, got {self.label_noise}")


@dataclass
class History:
    """What :func:`fit` did, epoch by epoch."""

    train_loss: list[float] = field(default_factory=list)
    val_pairwise_acc: list[float] = field(default_factory=list)
    val_top1: list[float] = field(default_factory=list)  # metrics.mean_top1 on the validation split
    best_epoch: int = -1
    seconds: float = 0.0


def ranking_loss(scores: torch.Tensor, y: torch.Tensor, group: torch.Tensor, mse_weight: float,
                 loss: str = "ranknet", label_noise: float = 0.0):  # fmt: skip
    """Pairwise loss over pairs of the same group with different labels, plus weighted MSE.

    ``loss="ranknet"`` averages the pairs' logistic losses; ``"lambdarank"`` weights each pair
    by :func:`lambda_weights` (a weighted mean, so both terms keep the same scale). Each pair's
    logistic loss has target 1 ("the better one is better"), or with ``label_noise`` > 0 the
    probability :func:`pair_targets` gives it.
    """
    _check_loss(loss)
    same = group[:, None] == group[None, :]
    better = (y[:, None] - y[None, :]) > 1e-6
    mask = same & better
    diff = scores[:, None] - scores[None, :]
    if not mask.any():
        return scores.sum() * 0 + mse_weight * torch.mean((scores - y) ** 2)
    if label_noise > 0:
        target = pair_targets(y, label_noise)[mask]
        pair = torch.nn.functional.binary_cross_entropy_with_logits(
            diff[mask], target, reduction="none")
    else:
        pair = torch.nn.functional.softplus(-diff[mask])
    if loss == "ranknet":
        rank = pair.mean()
    else:
        w = lambda_weights(scores.detach(), y, group)[mask]
        rank = (pair * w).sum() / w.sum().clamp_min(1e-12)
    return rank + mse_weight * torch.mean((scores - y) ** 2)


def pair_targets(y: torch.Tensor, label_noise: float) -> torch.Tensor:
    """``P[i, j]``: the probability that i is truly faster than j, given labels ``y``
    (throughputs) measured with log-normal noise of standard deviation ``label_noise``.

    The difference of two such log measurements has standard deviation ``label_noise * sqrt(2)``,
    so ``P = Phi(log(y_i / y_j) / (label_noise * sqrt(2)))``: 0.5 for equal labels, near 1 for
    a gap of several times the noise.
    """
    logy = torch.log(y.clamp_min(1e-12))
    gap = logy[:, None] - logy[None, :]
    return 0.5 * (1.0 + torch.erf(gap / (2.0 * label_noise)))


def lambda_weights(scores: torch.Tensor, y: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    """``|delta NDCG|`` of swapping each pair (i, j) of the same group in the ranking by ``scores``.

    Gains are the labels ``y`` (normalized throughput), discounts ``1 / log2(1 + rank)``, and each
    group's NDCG is normalized by its ideal DCG. Pairs of different groups get 0.
    """
    same = group[:, None] == group[None, :]
    discount = 1.0 / torch.log2(1.0 + _ranks(scores, same).to(scores.dtype))
    ideal = 1.0 / torch.log2(1.0 + _ranks(y, same).to(scores.dtype))
    idcg = (same * (y * ideal)[None, :]).sum(dim=1)  # per row: the row's group's ideal DCG
    delta = (y[:, None] - y[None, :]).abs() * (discount[:, None] - discount[None, :]).abs()
    return torch.where(same, delta / idcg.clamp_min(1e-12)[:, None], torch.zeros_like(delta))


def _ranks(values: torch.Tensor, same: torch.Tensor) -> torch.Tensor:
    """1-based rank of each element among its group (``same``), highest value first; ties go to
    the earlier position."""
    idx = torch.arange(len(values), device=values.device)
    ahead = (values[None, :] > values[:, None]) | (
        (values[None, :] == values[:, None]) & (idx[None, :] < idx[:, None])
    )  # ahead[i, j]: j ranks before i
    return 1 + (ahead & same).sum(dim=1)


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

    Deterministic for a given ``config.seed`` and data order on the CPU. Without ``val``, runs
    all epochs (or until ``max_seconds``) and keeps the last weights. Trains on
    ``config.device``; the model comes back on the CPU.
    """
    config = config or TrainConfig()
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
        model.train()
        total, count = 0.0, 0
        for idx in _batches(len(train), config.batch_size, rng, groups):
            batch = Batch.from_data_list([train[i] for i in idx]).to(device)
            scores = model.forward_batch(batch)
            loss = ranking_loss(scores, batch.y, batch.group, config.mse_weight, config.loss,
                                config.label_noise)  # fmt: skip
            value = float(loss.detach())
            if not math.isfinite(value):  # NaN weights would be kept as if they were a model
                raise ValueError(f"training loss is {value} at epoch {epoch + 1}: a non-finite "
                                 "feature or label in the batch, or a learning rate too high")
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += value * len(idx)
            count += len(idx)
        hist.train_loss.append(total / count)
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
                epochs.set_postfix(loss=f"{hist.train_loss[-1]:.4f}", val_acc=f"{acc:.4f}",
                                   val_top1=f"{hist.val_top1[-1]:.4f}")
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


@torch.inference_mode()
def predict(model: GNN, graphs: list[Data], batch_size: int = 1024) -> np.ndarray:
    """Scores for ``graphs`` (higher is better), batched, on the device the model is on."""
    model.eval()
    device = next(model.parameters()).device
    out = []
    for i in range(0, len(graphs), batch_size):
        batch = Batch.from_data_list(graphs[i : i + batch_size]).to(device)
        out.append(model.forward_batch(batch).cpu().numpy())
    return np.concatenate(out).astype(np.float64) if out else np.zeros(0, np.float64)


@torch.inference_mode()
def predict_candidates(model: GNN, candidates, featurizer, chunk: int = 256):
    """Scores of MetaSchedule candidates, featurizing one chunk while the GNN runs on the last.

    torch releases the GIL inside its kernels, so on two or more cores the Python featurizer and
    the forward pass overlap. Returns ``(scores, errors)``; failed candidates score NaN.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .graph import featurize_batch

    model.eval()
    scores = np.full(len(candidates), np.nan, dtype=np.float64)
    errors: list[str] = []

    def forward(arrays, idx):
        if arrays is None:
            return
        with torch.inference_mode():  # grad mode is per thread
            out = model(arrays["x"], arrays["node_type"], arrays["edge_index"], arrays["batch"],
                        arrays["num_graphs"])  # fmt: skip
        scores[idx] = out.numpy()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = None
        for start in range(0, len(candidates), chunk):
            arrays, ok, errs = featurize_batch(candidates[start : start + chunk], featurizer)
            errors += [f"{e} (chunk from {start})" for e in errs]
            if pending is not None:
                pending.result()
            idx = np.asarray(ok, dtype=np.int64) + start
            pending = pool.submit(forward, arrays, idx)
        if pending is not None:
            pending.result()
    return scores, errors


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


@dataclass
class DatasetRun:
    """A model trained on a dataset's training networks, and how."""

    model: GNN
    featurizer: object  # tvm_gnn.graph.FeaturizerConfig
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
    val_fraction: float = 0.15,
    featurizer=None,
    cache_dir=".cache/graphs",
    progress: bool = False,
    snapshot: dict | None = None,
) -> DatasetRun:
    """Train a GNN on every network of ``root/hardware`` except ``held_out``.

    The checkpoint info's ``train_records`` keeps how many record lines each training network
    had (``data.record_lines``), so that evaluation feeds the baselines exactly these records
    after the dataset grows; ``snapshot`` (such a dict) trains on those lines only.

    Validation (early stopping, model choice) is a random ``val_fraction`` of the training
    networks' workloads, drawn with ``config.seed``: held-out networks are never looked at.
    """
    from . import data
    from .graph import FeaturizerConfig
    from .networks import HELD_OUT

    config = config or TrainConfig()
    featurizer = featurizer or FeaturizerConfig()
    held_out = set(HELD_OUT if held_out is None else held_out)
    hardware = data.resolve_hardware(root, hardware)
    nets = data.training_networks(root, hardware, held_out)
    if not nets:
        raise ValueError(f"{root}/{hardware} has no training networks (held out: {sorted(held_out)})")
    if snapshot is None:  # the record files as they are now (`collect` only appends to them)
        snapshot = {net: data.record_lines(Path(root) / hardware / net) for net in nets}
    elif set(snapshot) != set(nets):
        raise ValueError(f"the snapshot covers {sorted(snapshot)}, but the training networks "
                         f"of {root}/{hardware} are {nets}")  # fmt: skip
    graphs, samples = data.load_graphs(root, featurizer, cache_dir, progress, hardware, nets,
                                       snapshot)  # fmt: skip
    if not graphs:
        raise ValueError(f"no valid records in the training networks {nets}")
    graphs, samples = _merge_programs(graphs, samples)
    train_idx, val_idx = data.split(samples, "workload", None, config.seed, val_fraction)
    labelled = label_graphs(graphs, [s.shash for s in samples])
    train = [labelled[i] for i in train_idx]
    val = [labelled[i] for i in val_idx]
    torch.manual_seed(config.seed)
    model = default_gnn(embedding, **(gnn_overrides or {}))
    hist = fit(model, train, val, config, progress=progress)
    info = {
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
        "best_epoch": hist.best_epoch,
        "train_loss": list(hist.train_loss),
        "val_pairwise_acc": list(hist.val_pairwise_acc),
        "val_top1": list(hist.val_top1),
        "train_seconds": hist.seconds,
    }
    return DatasetRun(model, featurizer, hist, info)


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
            g.latency = torch.tensor(float(np.median([samples[i].latency for i in idx])),
                                     dtype=torch.float64)  # fmt: skip
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
    ax.set_title(title or "training")
    fig.tight_layout()
    from pathlib import Path

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
