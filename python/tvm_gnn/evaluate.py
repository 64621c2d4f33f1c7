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
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import data as data_mod
from .metrics import pairwise_accuracy, topk_score
from .networks import HELD_OUT

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


class EvaluationError(Exception):
    """A setting that makes the evaluation meaningless (leaked networks, missing data)."""


@dataclass
class Group:
    """The measured candidates of one workload in one network."""

    network: str
    shash: str
    task: str
    weight: int
    context: object  # ms.TuneContext of the workload
    candidates: list = field(default_factory=list)  # ms.MeasureCandidate
    latencies: list = field(default_factory=list)  # seconds


def _folder_target(folder: Path):
    import tvm

    prov = folder / "provenance.jsonl"
    if prov.exists():
        lines = [ln for ln in prov.read_text().splitlines() if ln.strip()]
        if lines:
            return tvm.target.Target(json.loads(json.loads(lines[-1])["target"]))
    return tvm.target.Target({"kind": "llvm", "num-cores": os.cpu_count() or 1})


def load_groups(root, hardware: str, networks, progress: bool = False,
                snapshot: dict | None = None) -> list[Group]:
    """Measured candidates of ``networks`` on ``hardware``, grouped by (network, workload).

    ``snapshot`` (``{network: record lines}``, a checkpoint's ``train_records``) reads those
    networks' record files only that far: the records a model was trained on.
    """
    from tvm.s_tir import meta_schedule as ms

    folders = [(net, f) for hw, net, f in data_mod.network_folders(root)
               if hw == hardware and net in set(networks)]  # fmt: skip
    missing = set(networks) - {net for net, _ in folders}
    if missing:
        raise EvaluationError(f"no database for {sorted(missing)} under {root}/{hardware}")
    if progress:
        from tqdm import tqdm

        folders = tqdm(folders, desc="load records", unit="network")
    groups: dict[tuple[str, str], Group] = {}
    for net, folder in folders:
        target = _folder_target(folder)
        try:
            max_line = data_mod.snapshot_line(folder, snapshot)
        except ValueError as err:
            raise EvaluationError(str(err)) from None
        for s, record, cand in data_mod.distinct_programs(folder, max_line):
            key = (net, s.shash)
            if key not in groups:
                ctx = ms.TuneContext(mod=record.workload.mod, target=target,
                                     num_threads=os.cpu_count() or 1)  # fmt: skip
                groups[key] = Group(net, s.shash, s.task, s.weight, ctx)
            groups[key].candidates.append(cand)
            groups[key].latencies.append(s.latency)
    return list(groups.values())


def _results(latencies):
    from tvm.s_tir import meta_schedule as ms

    return [ms.runner.RunnerResult(run_secs=[float(t)], error_msg=None) for t in latencies]


def train_xgb(groups: list[Group], seed: int = 0, progress: bool = False):
    """TVM's XGBModel, fed the training records through ``update``, one workload at a time.

    XGBModel retrains only when its data grew by a fifth; the last update forces a retrain so
    that the model has seen every record.
    """
    from tvm.s_tir.meta_schedule.cost_model.xgb_model import XGBConfig, XGBModel

    model = XGBModel(num_warmup_samples=0, num_tuning_cores=os.cpu_count() or 1,
                     config=XGBConfig(seed=seed))
    model.verbose_eval = None
    it = _bar(groups, "train xgb", progress)
    for i, g in enumerate(it):
        model.adaptive_training = i < len(groups) - 1
        model.update(g.context, g.candidates, _results(g.latencies))
    return model


def pretrained_xgb(root, checkpoint=None, seed: int = 0, progress: bool = False):
    """TVM's XGBModel trained on the records the GNN checkpoint was trained on (a fair baseline).

    The checkpoint (the shipped weights by default) records its hardware and training networks;
    the model sees their distinct programs through ``update`` (:func:`train_xgb`) and then keeps
    TVM's own online behaviour (retrain when its data grew by a fifth) during tuning.
    """
    from . import checkpoint as ckpt
    from .cost_model import PRETRAINED

    path = checkpoint or PRETRAINED
    info = ckpt.load(path)[2]
    if not info.get("train_networks") or not info.get("hardware"):
        raise EvaluationError(f"{path} does not record its hardware and training networks")
    groups = load_groups(root, info["hardware"], info["train_networks"], progress=progress,
                         snapshot=info.get("train_records"))  # fmt: skip
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
    for g in _bar(groups, "features mlp", progress):
        feats, costs = mlp_model.extract_features(g.context, g.candidates, _results(g.latencies),
                                                  state.extractor)  # fmt: skip
        state.add_to_group(feats, costs, g.shash)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # MKL's sums depend on the thread count: see reproducible_arithmetic
    try:
        with mlp_compat():
            model.trainer.train_full()
    finally:
        torch.set_num_threads(threads)
    return model


#: MKL's conditional numerical reproducibility mode that ``tvm-gnn eval`` runs under.
MKL_CBWR = "COMPATIBLE"


def reproducible_arithmetic() -> str:
    """Ask MKL for the same float results on every x86 CPU; call before torch's first product.

    TVM's MLPModel trains for 50 epochs, and the last bits of MKL's matrix products, which
    differ with the CPU's instruction set (AVX-512 or AVX2) and thread count, grow into different
    weights: the same seed gave its rows different numbers on two CPUs. MKL's ``COMPATIBLE`` mode
    takes one code path on every x86 CPU (MKL reads ``MKL_CBWR`` at its first call), and
    MLPModel trains on one thread. GNN inference is as fast either way (featurization
    dominates). A mode the user set is kept; returns the one asked for.
    """
    return os.environ.setdefault("MKL_CBWR", MKL_CBWR)


#: MKL's codes for its reproducibility modes (mkl.h), as ``MKL_CBWR`` names them.
_CBWR_NAMES = {1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 9: "AVX", 10: "AVX2",
               12: "AVX512"}  # fmt: skip


def mkl_mode() -> str | None:
    """The reproducibility mode MKL runs in, read from the MKL inside torch (``None``: unknown)."""
    import ctypes

    import torch

    try:
        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        code = lib.mkl_serv_cbwr_get(1)  # MKL_CBWR_BRANCH
    except (OSError, AttributeError):  # another torch build, or no MKL
        return None
    return _CBWR_NAMES.get(code, str(code))


@contextlib.contextmanager
def mlp_compat():
    """Two fixes that let TVM 0.26's MLPModel run with the pinned torch, for the duration.

    - ``SegmentSumMLPTrainer.train_full`` passes ``verbose=True`` to ``StepLR``, an argument torch
      removed (TypeError): it is dropped.
    - ``SegmentSumMLP.forward`` ends in ``.squeeze()``, so a batch of one candidate gives a 0-d
      tensor and both its loss and ``predict`` crash: the output is kept 1-d.

    Everything else about MLPModel's training and prediction is TVM's own. Patch 0004 of
    ``patches/`` fixes both upstream.
    """
    import torch
    from tvm.s_tir.meta_schedule.cost_model import mlp_model

    original_steplr = torch.optim.lr_scheduler.StepLR
    original_forward = mlp_model.SegmentSumMLP.forward

    class StepLR(original_steplr):
        def __init__(self, *args, verbose=None, **kwargs):
            super().__init__(*args, **kwargs)

    def forward(self, segment_sizes, features):
        return original_forward(self, segment_sizes, features).reshape(-1)

    torch.optim.lr_scheduler.StepLR = StepLR
    mlp_model.SegmentSumMLP.forward = forward
    try:
        yield
    finally:
        torch.optim.lr_scheduler.StepLR = original_steplr
        mlp_model.SegmentSumMLP.forward = original_forward


def _bar(items, desc, progress):
    if not progress:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="workload")


def score_model(model, groups: list[Group], progress: bool = False, desc: str = "predict"):
    """Scores per group from ``model.predict``, and the candidates/s it achieved."""
    scores, seconds, count = [], 0.0, 0
    for g in _bar(groups, desc, progress):
        start = time.perf_counter()
        s = np.asarray(model.predict(g.context, g.candidates), dtype=np.float64)
        seconds += time.perf_counter() - start
        count += len(g.candidates)
        scores.append(s)
    return scores, (count / seconds if seconds > 0 else float("nan"))


def network_metrics(groups: list[Group], scores: list[np.ndarray]) -> dict:
    """Pairwise accuracy and top-1/top-5 of one network's groups."""
    if not groups:
        return {"workloads": 0, "candidates": 0, "pairwise": float("nan"),
                "top1": float("nan"), "top5": float("nan")}  # fmt: skip
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
    from . import checkpoint

    infos = {}
    for name in models:
        if not name.startswith("gnn"):
            continue
        if name not in checkpoints:
            raise EvaluationError(f"no checkpoint given for {name}")
        path = checkpoints[name]
        info = checkpoint.load(path)[2]
        if info.get("train_networks") is None:
            raise EvaluationError(f"{path} does not record its training networks; train it with "
                                  "`tvm-gnn train`")  # fmt: skip
        leaked = sorted(set(info["train_networks"]) & set(held_out))
        if leaked:
            raise EvaluationError(f"{path} was trained on held-out network(s) {leaked}")
        infos[name] = info
    splits = {name: sorted(info["train_networks"]) for name, info in infos.items()}
    if len({tuple(v) for v in splits.values()}) > 1:
        raise EvaluationError(f"the GNN checkpoints were trained on different networks: {splits}")
    snapshots = {name: info.get("train_records") for name, info in infos.items()}
    if len({json.dumps(v, sort_keys=True) for v in snapshots.values()}) > 1:
        raise EvaluationError("the GNN checkpoints were trained on different records (record "
                              f"lines per network): {snapshots}; retrain them on the same data, "
                              "e.g. with `tvm-gnn train --records-of`")  # fmt: skip
    return infos


def _records_reference(path, hardware: str, held_out) -> dict | None:
    """The training record of checkpoint ``path`` if it can stand for the GNN rows' records."""
    from . import checkpoint

    if not path or not Path(path).is_file():
        return None
    info = checkpoint.load(path)[2]
    if (info.get("hardware") != hardware or info.get("train_networks") is None
            or set(info["train_networks"]) & set(held_out)):  # fmt: skip
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
    from .cost_model import GNNModel

    hardware = data_mod.resolve_hardware(root, hardware)
    infos = _checkpoint_infos(checkpoints, models, held_out)
    # The training records: those the GNNs saw. Without a GNN row, those the `gnn` checkpoint saw
    # if it was trained on this hardware without the held-out networks, so that `--models mlp`
    # alone trains MLPModel on exactly what the full table's row saw.
    reference = next(iter(infos.values()), None) or _records_reference(checkpoints.get("gnn"),
                                                                       hardware, held_out)
    snapshot = None
    if reference:
        train_nets = sorted(reference["train_networks"])
        snapshot = reference.get("train_records")
    else:  # no GNN to compare with: everything that is not held out
        train_nets = data_mod.training_networks(root, hardware, set(held_out) | set(HELD_OUT))
    missing = [n for n in train_nets if not (Path(root) / hardware / n).is_dir()]
    if missing:
        raise EvaluationError(f"the GNN was trained on {missing}, which {root}/{hardware} lacks: "
                              "the baselines could not see the same records")  # fmt: skip
    if not train_nets:
        raise EvaluationError(f"no training networks under {root}/{hardware}")
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
        max_line = data_mod.snapshot_line(folder, snapshot)
        train_hashes |= {s.shash for s in data_mod.samples(folder, max_line)[0]}
    shared = sorted({g.shash for g in test} & train_hashes)
    out = {"hardware": hardware, "held_out": list(held_out), "train_networks": train_nets,
           "train_records": snapshot, "shared": shared, "single_program_workloads": trivial,
           "seed": seed, "mkl_cbwr": mkl_mode(), "models": {}}  # fmt: skip
    if "mlp" in models and out["mkl_cbwr"] != MKL_CBWR:
        logger.warning("MKL runs in mode %s, not %s: MLPModel's rows may differ on another "
                       "CPU; set MKL_CBWR=%s before torch's first matrix product",
                       out["mkl_cbwr"], MKL_CBWR, MKL_CBWR)  # fmt: skip
    for name in models:
        start = time.perf_counter()
        if name.startswith("gnn"):
            model = GNNModel(checkpoint=checkpoints[name], seed=seed)
            # trained by `tvm-gnn train`, which recorded how long it took
            start = time.perf_counter() - float(infos[name].get("train_seconds", 0.0))
        elif name == "xgb":
            model = train_xgb(train, seed, progress)
        elif name == "mlp":
            model = train_mlp(train, seed, progress)
        elif name == "random":
            from tvm.s_tir import meta_schedule as ms

            model = ms.cost_model.RandomModel(seed=seed)
        else:
            raise EvaluationError(f"unknown model {name!r}; choose from {MODELS}")
        train_seconds = time.perf_counter() - start
        with mlp_compat() if name == "mlp" else contextlib.nullcontext():
            scores, throughput = score_model(model, test, progress, desc=f"predict {name}")
        res = {"throughput": throughput, "train_seconds": train_seconds, "all": {},
               "unshared": {}}  # fmt: skip
        for net in held_out:
            idx = [i for i, g in enumerate(test) if g.network == net]
            res["all"][net] = network_metrics([test[i] for i in idx], [scores[i] for i in idx])
            idx = [i for i in idx if test[i].shash not in shared]
            res["unshared"][net] = network_metrics([test[i] for i in idx],
                                                   [scores[i] for i in idx])  # fmt: skip
        for part in ("all", "unshared"):
            per = list(res[part].values())
            res[part]["average"] = {k: float(np.nanmean([m[k] for m in per]))
                                    for k in ("pairwise", "top1", "top5")}  # fmt: skip
        out["models"][name] = res
        logger.info("%s: %s", name, res["unshared"]["average"])
    return out


def _num(x: float) -> str:
    return "-" if x != x else f"{x:.3f}"  # NaN: no workload with a choice in this network


def markdown(res: dict) -> str:
    """The results tables (unshared workloads first: the target), as markdown."""
    nets = res["held_out"]
    lines = []
    for part, title in (("unshared", "Held-out workloads not shared with training networks"),
                        ("all", "All workloads of the held-out networks")):  # fmt: skip
        any_model = next(iter(res["models"].values()))
        counts = ", ".join(f"{n} {any_model[part][n]['workloads']} workloads / "
                           f"{any_model[part][n]['candidates']} candidates" for n in nets)  # fmt: skip
        lines += [f"### {title}", "", f"({counts})", ""]
        head = "| model | " + " | ".join(f"{n} pairwise | {n} top-1 | {n} top-5" for n in nets)
        head += " | **avg pairwise** | **avg top-1** | **avg top-5** |"
        lines += [head, "|---" * (1 + 3 * len(nets) + 3) + "|"]
        for name, m in res["models"].items():
            cells = [_num(m[part][n][k]) for n in nets for k in ("pairwise", "top1", "top5")]
            avg = m[part]["average"]
            cells += [f"**{_num(avg[k])}**" for k in ("pairwise", "top1", "top5")]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["### Models", "", "| model | what | training (s) (1) | predict (candidates/s) |",
              "|---|---|---:|---:|"]  # fmt: skip
    for name, m in res["models"].items():
        lines.append(f"| {name} | {DESCRIPTIONS.get(name, name)} | {m['train_seconds']:.1f} | "
                     f"{m['throughput']:,.0f} |")  # fmt: skip
    lines += ["", "(1) GNN rows: the training time `tvm-gnn train` recorded in the checkpoint; "
              "XGBModel and MLPModel: trained in this run, feature extraction included."]
    models = res["models"]
    if "gnn" in models and "xgb" in models:
        g = 1 - models["gnn"]["unshared"]["average"]["pairwise"]
        x = 1 - models["xgb"]["unshared"]["average"]["pairwise"]
        lines += ["", f"GNN pairwise error / XGBModel pairwise error (unshared workloads): "
                  f"{g:.3f} / {x:.3f} = **{g / x:.2f}x** (target: at most 0.67x)."]  # fmt: skip
    lines += ["", f"Workloads with a single distinct program (every model picks it; left out of "
              f"both tables): {res['single_program_workloads']}."]  # fmt: skip
    lines += ["", f"Shared workloads excluded from the first table: {len(res['shared'])}. "
              f"Training networks: {', '.join(res['train_networks'])}."]  # fmt: skip
    if "mlp" in models:
        mode = res.get("mkl_cbwr")
        same = " (the same float arithmetic on every x86 CPU)" if mode == MKL_CBWR else ""
        lines += ["", f"MLPModel trained on one thread, MKL in reproducibility mode {mode}{same}."]
    if res.get("train_records"):
        total = sum(res["train_records"].values())
        lines += ["", f"Training records: the first {total:,} lines of the training networks' "
                  "record files, as many as they had when the GNNs were trained (their "
                  "checkpoints record it); every row saw exactly these."]  # fmt: skip
    return "\n".join(lines) + "\n"


def plot(res: dict, path) -> None:
    """Bar plot of the averaged metrics on unshared workloads, one bar group per metric."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(res["models"])
    metrics = ("pairwise", "top1", "top5")
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        avg = res["models"][name]["unshared"]["average"]
        xs = np.arange(len(metrics)) + i * width
        ax.bar(xs, [avg[m] for m in metrics], width, label=name)
    ax.set_xticks(np.arange(len(metrics)) + 0.4 - width / 2)
    ax.set_xticklabels(["pairwise accuracy", "top-1 score", "top-5 score"])
    ax.set_ylim(0, 1.15)
    ax.set_title(f"Held-out networks ({', '.join(res['held_out'])}), unshared workloads")
    ax.legend(fontsize=8, loc="upper left", ncol=3)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
