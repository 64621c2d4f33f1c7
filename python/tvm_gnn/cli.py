# Licensed under the Apache License, Version 2.0.
"""The ``tvm-gnn`` command line. Each subcommand is a thin layer over an importable function."""

from __future__ import annotations

import argparse
import logging
import math
import sys
import tempfile
import time
from pathlib import Path

from .collect import SEARCH_POPULATION
from .errors import CheckpointError

logger = logging.getLogger("tvm_gnn")


class UsageError(Exception):
    """A mistake in the command line or its inputs; printed without a traceback."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _device(text: str) -> str:
    """An argparse type: a torch device this machine has (torch loads only when given)."""
    from .train import check_device

    try:
        check_device(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _number_in(low: float, high: float, *, low_open: bool = True, high_open: bool = False):
    """An argparse type: a finite float in the interval from ``low`` to ``high``."""
    span = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text!r}") from None
        above = low < value if low_open else low <= value
        below = value < high if high_open else value <= high
        if not (above and below and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text}")
        return value

    return parse


_fraction = _number_in(0.0, 1.0)


def _workload_name(text: str) -> str:
    from .workloads import WORKLOADS

    if text not in WORKLOADS:
        raise argparse.ArgumentTypeError(
            f"unknown workload {text!r}; choose one of {', '.join(sorted(WORKLOADS))}"
        )
    return text


# -- demo ----------------------------------------------------------------------------------------
def cmd_demo(args) -> int:
    """Tune one workload with GNNModel and with XGBModel on the same budget; print both bests."""
    from . import workloads
    from .sampling import target_from
    from .tune import tune_tir

    target = target_from(args.target, args.num_cores)
    mod = workloads.get(args.workload)
    print(f"tvm-gnn demo: {args.workload} on {target.kind.name}, {args.trials} trials per model")
    rows = []
    for kind in args.models:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"tvm_gnn_demo_{kind}_") as work_dir:
            _, progress = tune_tir(
                mod, target, work_dir, max_trials=args.trials, cost_model=kind,
                num_trials_per_iter=args.trials_per_iter, seed=args.seed, desc=kind,
                checkpoint=args.checkpoint if kind == "gnn" else None,
            )  # fmt: skip
        rows.append((kind, progress.best, progress.errors, time.perf_counter() - start))
    print()
    print(f"{'cost model':<12}{'best latency':>16}{'failed trials':>16}{'tuning time':>14}")
    for kind, best, errors, secs in rows:
        print(f"{kind:<12}{best * 1e3:>13.4f} ms{errors:>16}{secs:>12.1f} s")
    return 0


# -- embeddings ----------------------------------------------------------------------------------
def cmd_embeddings(args) -> int:
    """Regenerate the FastText node-type vectors shipped in the package."""
    from . import embeddings

    sentences = embeddings.corpus(args.candidates, seed=args.seed, progress=True)
    vectors = embeddings.train_vectors(sentences, dim=args.dim, epoch=args.epoch)
    embeddings.save_vectors(vectors, args.out)
    tokens = sum(len(s) for s in sentences)
    print(f"wrote {args.out}: {vectors.shape[0]} node types x {vectors.shape[1]} dims, "
          f"from {len(sentences)} programs ({tokens} nodes)")  # fmt: skip
    return 0


# -- featurize -----------------------------------------------------------------------------------
def cmd_featurize(args) -> int:
    """Show the graphs of a few sampled candidates of a workload."""
    from collections import Counter

    from . import graph, workloads
    from .sampling import sample_candidates, target_from
    from .vocab import NODE_TYPES

    target = target_from(args.target, args.num_cores)
    _, cands = sample_candidates(workloads.get(args.workload), target, args.candidates, args.seed)
    cfg = graph.FeaturizerConfig(lowering=args.lowering, max_nodes=args.max_nodes)
    graphs, errors = graph.featurize_candidates(cands, cfg)
    for err in errors:
        print(f"warning: {err}", file=sys.stderr)
    for i, d in enumerate(graphs):
        if d is None:
            continue
        kinds = Counter(NODE_TYPES[t] for t in d.node_type.tolist()).most_common(6)
        print(f"candidate {i}: {d.num_nodes} nodes, {d.edge_index.shape[1]} edges; "
              + ", ".join(f"{k} {n}" for k, n in kinds))  # fmt: skip
    return 0


# -- collect -------------------------------------------------------------------------------------
def _network_names(values: list[str]) -> list[str]:
    from .networks import HELD_OUT, NETWORKS, SYNTHETIC

    real = [n for n in NETWORKS if n != "tiny_cnn"]
    names = []
    for v in values:
        if v == "all":
            names += real + list(SYNTHETIC)
        elif v == "held-out":
            names += list(HELD_OUT)
        elif v == "training":
            names += [n for n in real if n not in HELD_OUT] + list(SYNTHETIC)
        elif v == "synthetic":
            names += list(SYNTHETIC)
        elif v in NETWORKS or v in SYNTHETIC:
            names.append(v)
        else:
            raise UsageError(f"unknown network {v!r}; choose from "
                             f"{', '.join([*NETWORKS, *SYNTHETIC])}, or all, held-out, training, "
                             "synthetic")  # fmt: skip
    return list(dict.fromkeys(names))


def cmd_collect(args) -> int:
    """Measure candidates of real networks' tasks into MetaSchedule JSON databases (resumable)."""
    import json

    from .collect import CollectConfig, MeasureConfig, collect_network, make_runner
    from .sampling import target_from

    networks = _network_names(args.network)
    target = target_from(args.target, args.num_cores)
    cfg = CollectConfig(trials_per_task=args.trials_per_task, uniform_fraction=args.uniform_fraction,
                        batch_size=args.batch_size, seed=args.seed, max_tasks=args.max_tasks,
                        population=args.population)
    measure = MeasureConfig(number=args.number, repeat=args.repeat,
                            min_repeat_ms=args.min_repeat_ms, cache_flush=args.cache_flush)
    runner = make_runner(measure, args.rpc_tracker, args.rpc_key, args.rpc_workers) \
        if args.rpc_tracker else None  # fmt: skip
    failed = []
    for net in networks:
        try:
            summary = collect_network(net, args.out, target, cfg, measure, runner=runner,
                                      rpc_key=args.rpc_key if args.rpc_tracker else None)
        except (UsageError, ValueError):
            raise
        except Exception:  # noqa: BLE001 - one broken network must not stop the others
            logger.exception("collecting %s failed; continuing with the next network", net)
            failed.append(net)
            continue
        print(json.dumps(summary), flush=True)
    if failed:
        print(f"tvm-gnn collect: failed networks: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_pack(args) -> int:
    """Gzip the raw collected databases into the committed dataset folder."""
    from .data import pack

    written = pack(args.raw, args.out, force=args.force)
    print(f"packed {len(written)} changed database files into {args.out}")
    return 0


def cmd_unpack(args) -> int:
    """Gunzip the committed dataset into the raw folder, so collection resumes from it."""
    from .data import unpack

    written = unpack(args.data, args.raw)
    print(f"unpacked {len(written)} database files into {args.raw}")
    return 0


def cmd_dataset_stats(args) -> int:
    """Print per-network counts, latency range and shared workloads of a dataset (markdown)."""
    from .data import stats, stats_markdown

    print(stats_markdown(stats(args.data)))
    return 0


def cmd_tune(args) -> int:
    """Tune a network end to end, check its output against PyTorch, report its latency."""
    from .evaluate import EvaluationError
    from .networks import NETWORKS
    from .sampling import target_from
    from .tune_network import OutputMismatchError, latency_at_budgets, tune_network

    if args.network not in NETWORKS:
        raise UsageError(f"unknown network {args.network!r}; choose one of {', '.join(NETWORKS)}")
    target = target_from(args.target, args.num_cores)
    if args.cache_flush and target.kind.name != "llvm":
        raise UsageError(f"--cache-flush flushes the CPU cache; target {target.kind.name} has none")
    bad = [b for b in args.budgets or [] if b > args.trials]
    if bad:
        raise UsageError(f"--budgets {bad} exceed --trials {args.trials}")
    if args.cost_model == "xgb-pretrained" and not Path(args.data).is_dir():
        raise UsageError(f"xgb-pretrained trains on the dataset, and {args.data} is not a folder")
    work_dir = args.work_dir or f"tune_runs/{args.network}-{args.cost_model}-{args.trials}"
    try:
        res = tune_network(args.network, args.cost_model, args.trials, target, work_dir,
                           seed=args.seed, checkpoint=args.checkpoint, data=args.data,
                           trials_per_iter=args.trials_per_iter, repeats=args.repeats,
                           cache_flush=args.cache_flush, population=args.population)
        print(f"{res.network} ({res.cost_model}, {res.trials} trials): end-to-end "
              f"{res.latency_ms_median:.3f} ms (median of {len(res.latency_ms_runs)}), output "
              f"matches PyTorch; tuning took {res.tuning_seconds:.0f} s; log: {res.log_path}")
        if args.budgets:
            at = latency_at_budgets(work_dir, args.budgets, repeats=args.repeats)
            for b, r in sorted(at.items()):
                note = f" ({r['untuned_functions']} functions not tuned yet)" \
                    if r["untuned_functions"] else ""  # fmt: skip
                print(f"  after {b} trials: {r['latency_ms_median']:.3f} ms{note}")
    except OutputMismatchError as err:
        print(f"tvm-gnn tune: OUTPUT MISMATCH: {err}", file=sys.stderr)
        return 1
    except EvaluationError as err:  # xgb-pretrained: the dataset lacks the GNN's records
        raise UsageError(str(err)) from None
    return 0


# -- train / eval --------------------------------------------------------------------------------
def train_featurizer(args):
    """The ``FeaturizerConfig`` that ``tvm-gnn train`` builds its graphs with, from its options."""
    from .graph import FeaturizerConfig

    return FeaturizerConfig(reuse=args.reuse_features)


def cmd_train(args) -> int:
    """Train the GNN on the dataset's training networks (held-out networks are never read)."""

    from . import checkpoint
    from .train import TrainConfig, plot_history, train_on_dataset

    config = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                         mse_weight=args.mse_weight, loss=args.loss, patience=args.patience,
                         label_noise=args.label_noise, seed=args.seed, device=args.device)
    from .graph import NUM_BASE_FEATURES, NUM_FEATURES

    overrides = {"topk": not args.no_topk, "topk_at": args.topk_at, "pool_ratio": args.pool_ratio,
                 "hidden": args.hidden, "norm": not args.no_norm,
                 "num_features": NUM_FEATURES if args.reuse_features else NUM_BASE_FEATURES}
    snapshot = None
    if args.records_of:
        snapshot = checkpoint.load(args.records_of)[2].get("train_records")
        if not snapshot:
            raise UsageError(f"{args.records_of} does not record how many records it was "
                             "trained on (trained before `train_records` existed)")  # fmt: skip
    run = train_on_dataset(args.data, hardware=args.hardware, held_out=args.held_out,
                           featurizer=train_featurizer(args),
                           embedding=args.embedding, gnn_overrides=overrides, config=config,
                           val_fraction=args.val_fraction, cache_dir=args.cache_dir,
                           progress=not args.quiet, snapshot=snapshot)  # fmt: skip
    checkpoint.save(args.out, run.model, run.featurizer, run.info)
    plot = args.plot or str(args.out).rsplit(".", 1)[0] + "-loss.png"
    plot_history(run.history, plot, title=f"{Path(args.out).name}: {run.info['train_graphs']} "
                 f"training programs, {', '.join(run.info['train_networks'])}")  # fmt: skip
    i = run.info
    print(f"trained on {', '.join(i['train_networks'])} ({i['hardware']}): {i['train_graphs']} "
          f"programs / {i['train_workloads']} workloads; validation {i['val_graphs']} / "
          f"{i['val_workloads']}")  # fmt: skip
    acc, top1 = (i[k][i["best_epoch"]] if i[k] else float("nan")
                 for k in ("val_pairwise_acc", "val_top1"))  # fmt: skip
    print(f"best epoch {i['best_epoch'] + 1} of {len(i['train_loss'])}: validation pairwise "
          f"accuracy {acc:.4f}, top-1 {top1:.4f}; training took {i['train_seconds']:.1f} s")
    print(f"wrote {args.out} and {plot}")
    return 0


#: The section of the results document that ``tvm-gnn eval --out`` rewrites.
RESULTS_SECTION = "tvm-gnn eval"


def cmd_eval(args) -> int:
    """Rank the held-out networks' measured programs with the GNN and TVM's cost models."""
    import json

    from .evaluate import reproducible_arithmetic

    reproducible_arithmetic()  # before any matrix product: the GNN rows run first
    from . import data
    from .cost_model import PRETRAINED
    from .evaluate import EvaluationError, evaluate, markdown, plot

    hardware = data.resolve_hardware(args.data, args.hardware)
    checkpoints = {
        "gnn": args.gnn or str(PRETRAINED),
        "gnn-learned-emb": args.gnn_learned_emb or f"models/{hardware}/gnn-learned-emb.pt",
        "gnn-no-topk": args.gnn_no_topk or f"models/{hardware}/gnn-no-topk.pt",
    }
    for name in args.models:
        if name in checkpoints and not Path(checkpoints[name]).exists():
            raise UsageError(f"no checkpoint {checkpoints[name]} for {name}; train one with "
                             f"`tvm-gnn train` or leave {name} out of --models")  # fmt: skip
    try:
        res = evaluate(args.data, checkpoints, hardware=hardware, held_out=args.held_out,
                       models=args.models, seed=args.seed, progress=not args.quiet)  # fmt: skip
    except EvaluationError as err:
        raise UsageError(str(err)) from None
    table = markdown(res)
    print(table)
    if args.out:
        from .report import write_section

        write_section(args.out, RESULTS_SECTION, table, title="Results")
        print(f"wrote the tables into {args.out}")
    if args.plot:
        plot(res, args.plot)
        print(f"wrote {args.plot}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .embeddings import DEFAULT_DIM, VECTORS_PATH
    from .graph import LOWERINGS
    from . import COST_MODELS

    parser = argparse.ArgumentParser(
        prog="tvm-gnn",
        description="A graph-neural-network cost model for Apache TVM MetaSchedule.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def target_args(p):
        p.add_argument("--target", default="llvm",
                       help="TVM target: 'llvm' (this CPU), 'cuda' (the GPU present, its limits read "
                            "from the device), a tag such as nvidia/nvidia-h100, or any target "
                            "string or JSON TVM accepts (default: llvm)")
        p.add_argument("--num-cores", type=_positive_int, default=None,
                       help="cores for an llvm target (default: all)")  # fmt: skip

    p = sub.add_parser("demo", help="tune a built-in workload with GNNModel and XGBModel",
                       description=cmd_demo.__doc__)  # fmt: skip
    p.add_argument("--workload", type=_workload_name, default="resnet18_conv2d",
                   help="built-in workload (default: resnet18_conv2d, ResNet-18's 3x3 conv2d)")
    p.add_argument("--trials", type=_positive_int, default=128,
                   help="measured trials per cost model (default: 128)")
    p.add_argument("--trials-per-iter", type=_positive_int, default=32,
                   help="candidates measured per search iteration (default: 32)")
    p.add_argument("--models", nargs="+", choices=COST_MODELS, default=["gnn", "xgb"],
                   help="cost models to compare (default: gnn xgb)")
    p.add_argument("--checkpoint", default=None, help="GNN weights to start from")
    p.add_argument("--seed", type=int, default=0, help="search and model seed (default: 0)")
    target_args(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("tune", help="tune a whole network, check it against PyTorch, time it",
                       description=cmd_tune.__doc__)
    p.add_argument("--network", required=True,
                   help="network name (resnet18, mobilenet_v2, inception_v3, ... see "
                        "tvm_gnn.networks; tiny_cnn for a quick run)")
    p.add_argument("--cost-model", choices=COST_MODELS, default="gnn",
                   help="cost model guiding the search: gnn (shipped weights), xgb (TVM's "
                        "default, from scratch), xgb-pretrained (XGBModel first trained on the "
                        "GNN's training records), random (default: gnn)")
    p.add_argument("--trials", type=_positive_int, default=200,
                   help="measured trials over all tasks (default: 200)")
    p.add_argument("--trials-per-iter", type=_positive_int, default=32,
                   help="candidates measured per search iteration (default: 32)")
    p.add_argument("--population", type=_positive_int, default=SEARCH_POPULATION,
                   help="evolutionary search population; smaller is faster per iteration and "
                        f"searches less (default: {SEARCH_POPULATION}, MetaSchedule's)")
    p.add_argument("--checkpoint", default=None, help="GNN weights to start from")
    p.add_argument("--data", default="data",
                   help="dataset that --cost-model xgb-pretrained trains on (default: data)")
    p.add_argument("--budgets", nargs="+", type=_positive_int, default=None,
                   help="also compile, check and time the network as it stood after each of these "
                        "many trials (written to WORK_DIR/budgets.json)")
    p.add_argument("--repeats", type=_positive_int, default=10,
                   help="timed runs of the compiled network; the median is reported (default: 10)")
    p.add_argument("--work-dir", default=None,
                   help="where the database and tune_log.json go (default: "
                        "tune_runs/NETWORK-MODEL-TRIALS); an earlier run's files there are "
                        "moved to WORK_DIR/previous-TIME/, never mixed into this run")
    p.add_argument("--cache-flush", action="store_true",
                   help="time every candidate cold, the CPU cache flushed before each of 10 runs, "
                        "as kernels run inside a network (default: MetaSchedule's warm timing, "
                        "3 runs in a row on cached data); see docs/tuning.md")
    p.add_argument("--seed", type=int, default=0, help="search and model seed (default: 0)")
    target_args(p)
    p.set_defaults(func=cmd_tune)

    from .evaluate import MODELS
    from .networks import HELD_OUT

    p = sub.add_parser("train", help="train the GNN on the dataset's training networks",
                       description=cmd_train.__doc__)
    p.add_argument("--data", default="data", help="dataset root, raw or packed (default: data)")
    p.add_argument("--hardware", default=None,
                   help="hardware folder to train on (default: the only one)")
    p.add_argument("--held-out", nargs="+", default=list(HELD_OUT),
                   help=f"networks never trained on (default: {' '.join(HELD_OUT)})")
    p.add_argument("--out", default="models/gnn.pt", help="checkpoint (default: models/gnn.pt)")
    p.add_argument("--plot", default=None,
                   help="loss-curve PNG (default: the checkpoint's name + -loss.png)")
    p.add_argument("--embedding", choices=("fasttext", "learned"), default="fasttext",
                   help="node-type embedding (default: fasttext, frozen)")
    p.add_argument("--no-topk", action="store_true", help="no TopK pooling (ablation)")
    p.add_argument("--topk-at", choices=("every", "last"), default="last",
                   help="TopK pooling once after the last message-passing layer, or after every "
                        "one (default: last)")
    p.add_argument("--pool-ratio", type=_fraction, default=0.8,
                   help="share of nodes each TopK pooling keeps, in (0, 1] (default: 0.8)")
    p.add_argument("--no-norm", action="store_true",
                   help="no feature / layer normalization (ablation)")
    p.add_argument("--reuse-features", action="store_true",
                   help="fill and read the buffer accesses' footprint and reuse columns of the "
                        "node features (experimental: the shipped weights do without; the "
                        "featurizer takes ~9%% longer; docs/featurizer.md)")
    p.add_argument("--hidden", type=_positive_int, default=32,
                   help="message-passing width (default: 32)")
    p.add_argument("--epochs", type=_positive_int, default=60, help="at most (default: 60)")
    p.add_argument("--patience", type=_positive_int, default=12,
                   help="epochs without validation gain before stopping (default: 12)")
    p.add_argument("--batch-size", type=_positive_int, default=32,
                   help="graphs per step (default: 32)")
    p.add_argument("--lr", type=_number_in(0.0, math.inf, high_open=True), default=3e-3,
                   help="Adam learning rate (default: 3e-3)")
    p.add_argument("--mse-weight", type=_number_in(0.0, math.inf, low_open=False, high_open=True),
                   default=0.5, help="weight of the regression term beside the pairwise ranking "
                                     "loss; 0 for ranking alone (default: 0.5)")
    p.add_argument("--loss", choices=("ranknet", "lambdarank"), default="ranknet",
                   help="pairwise ranking term: ranknet weighs every pair of a workload alike, "
                        "lambdarank weighs each by the NDCG change of swapping it, so the fast end "
                        "of the ranking counts most (default: ranknet; the shipped weights use "
                        "lambdarank, chosen on the validation split: docs/results.md)")
    p.add_argument("--label-noise", metavar="SIGMA", default=0.0,
                   type=_number_in(0.0, math.inf, low_open=False, high_open=True),
                   help="standard deviation of a measured log latency (benchmarks/noise_ceiling.py "
                        "estimates it): each pair's target becomes the probability that its "
                        "faster-measured program is truly faster, so pairs measured within the "
                        "noise count less (default: 0, every pair certain)")
    p.add_argument("--val-fraction", type=_number_in(0.0, 1.0, high_open=True), default=0.15,
                   help="share of training workloads held out for early stopping (default: 0.15)")
    p.add_argument("--records-of", metavar="CHECKPOINT", default=None,
                   help="train only on the records CHECKPOINT was trained on (the first lines of "
                        "each training network's record file, as many as it had then): retrains "
                        "it after the dataset grew (default: every record)")
    p.add_argument("--cache-dir", default=".cache/graphs",
                   help="featurized-graph cache (default: .cache/graphs)")
    p.add_argument("--seed", type=int, default=0,
                   help="split, initialization and shuffling seed (default: 0)")
    p.add_argument("--device", default="cpu", type=_device,
                   help="torch device to train on: cpu, whose weights repeat bit for bit under "
                        "--seed, or cuda (a GPU), whose runs differ in the last bits from run to "
                        "run because CUDA adds in no fixed order (default: cpu)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("eval", help="compare cost models on the held-out networks",
                       description=cmd_eval.__doc__)
    p.add_argument("--data", default="data", help="dataset root, raw or packed (default: data)")
    p.add_argument("--hardware", default=None, help="hardware folder (default: the only one)")
    p.add_argument("--held-out", nargs="+", default=list(HELD_OUT),
                   help=f"networks evaluated (default: {' '.join(HELD_OUT)})")
    p.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS),
                   help="models to compare (default: all)")
    p.add_argument("--gnn", default=None, help="GNN checkpoint (default: the shipped weights)")
    p.add_argument("--gnn-learned-emb", default=None,
                   help="learned-embedding GNN (default: models/HARDWARE/gnn-learned-emb.pt)")
    p.add_argument("--gnn-no-topk", default=None,
                   help="GNN without TopK pooling (default: models/HARDWARE/gnn-no-topk.pt)")
    p.add_argument("--out", default=None,
                   help="markdown file whose generated block gets the tables (e.g. "
                        "docs/results.md)")
    p.add_argument("--plot", default=None, help="bar-plot PNG")
    p.add_argument("--json", default=None, help="all numbers as JSON")
    p.add_argument("--seed", type=int, default=0, help="baseline training seed (default: 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("collect", help="measure real network tasks into JSON databases",
                       description=cmd_collect.__doc__)
    p.add_argument("--network", nargs="+", default=["all"],
                   help="networks and synthetic operator families (tvm_gnn.networks: NETWORKS, "
                        "SYNTHETIC), or all, held-out, training (the networks not held out, and "
                        "the synthetic families), synthetic (default: all)")
    p.add_argument("--out", default="data", help="dataset root (default: data)")
    p.add_argument("--trials-per-task", type=_positive_int, default=48,
                   help="valid measured candidates per task; failed builds and runs are kept as "
                        "failures but do not count (default: 48)")
    p.add_argument("--uniform-fraction", type=float, default=0.5,
                   help="share sampled uniformly from the design space; the rest comes from "
                        "evolutionary search (default: 0.5)")
    p.add_argument("--population", type=_positive_int, default=SEARCH_POPULATION,
                   help="population of that evolutionary search; smaller is faster and less "
                        f"thorough (default: {SEARCH_POPULATION}, MetaSchedule's)")
    p.add_argument("--batch-size", type=_positive_int, default=16,
                   help="candidates per build/run batch, committed together (default: 16)")
    p.add_argument("--max-tasks", type=_positive_int, default=None,
                   help="only the first N tasks of each network")
    p.add_argument("--number", type=_positive_int, default=3,
                   help="runs per measurement (default: 3)")
    p.add_argument("--repeat", type=_positive_int, default=1,
                   help="measurements per candidate (default: 1)")
    p.add_argument("--min-repeat-ms", type=int, default=40,
                   help="minimum time of one measurement in ms (default: 40)")
    p.add_argument("--cache-flush", action="store_true", help="flush the CPU cache between runs")
    p.add_argument("--rpc-tracker", default=None, metavar="HOST:PORT",
                   help="measure on devices registered with this TVM RPC tracker")
    p.add_argument("--rpc-key", default=None, help="device key at the RPC tracker")
    p.add_argument("--rpc-workers", type=_positive_int, default=1,
                   help="devices measured in parallel through RPC (default: 1)")
    p.add_argument("--seed", type=int, default=0, help="sampling and search seed (default: 0)")
    target_args(p)
    p.set_defaults(func=cmd_collect)

    p = sub.add_parser("pack", help="gzip raw collected databases into data/",
                       description=cmd_pack.__doc__)
    p.add_argument("--raw", default="data_raw", help="collect's output (default: data_raw)")
    p.add_argument("--out", default="data", help="compressed dataset root (default: data)")
    p.add_argument("--force", action="store_true",
                   help="replace packed databases even with smaller ones")
    p.set_defaults(func=cmd_pack)

    p = sub.add_parser("unpack", help="gunzip data/ into data_raw/ before resuming collection",
                       description=cmd_unpack.__doc__)
    p.add_argument("--data", default="data", help="compressed dataset root (default: data)")
    p.add_argument("--raw", default="data_raw", help="collect's output folder (default: data_raw)")
    p.set_defaults(func=cmd_unpack)

    p = sub.add_parser("dataset-stats", help="counts and latency ranges of a dataset",
                       description=cmd_dataset_stats.__doc__)
    p.add_argument("--data", default="data", help="dataset root, raw or packed (default: data)")
    p.set_defaults(func=cmd_dataset_stats)

    p = sub.add_parser("embeddings", help="regenerate the FastText node-type vectors",
                       description=cmd_embeddings.__doc__)
    p.add_argument("--candidates", type=_positive_int, default=48,
                   help="sampled candidates per built-in workload (default: 48)")
    p.add_argument("--dim", type=_positive_int, default=DEFAULT_DIM,
                   help=f"vector size (default: {DEFAULT_DIM})")
    p.add_argument("--epoch", type=_positive_int, default=20, help="FastText epochs (default: 20)")
    p.add_argument("--seed", type=int, default=0, help="corpus sampling seed (default: 0)")
    p.add_argument("--out", default=str(VECTORS_PATH),
                   help="output file (default: the package's shipped vectors)")
    p.set_defaults(func=cmd_embeddings)

    p = sub.add_parser("featurize", help="show the graphs of sampled candidates of a workload",
                       description=cmd_featurize.__doc__)
    p.add_argument("--workload", type=_workload_name, default="resnet18_conv2d",
                   help="built-in workload (default: resnet18_conv2d)")
    p.add_argument("--candidates", type=_positive_int, default=4,
                   help="how many candidates (default: 4)")
    p.add_argument("--lowering", choices=LOWERINGS, default="emulated",
                   help="emulated (fast) or tvm (TVM's passes) (default: emulated)")
    p.add_argument("--max-nodes", type=_positive_int, default=8192,
                   help="refuse larger programs (default: 8192)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default: 0)")
    target_args(p)
    p.set_defaults(func=cmd_featurize)
    return parser


def main(argv=None) -> int:
    import warnings

    # torch_geometric triggers torch's own deprecation notice on import; it is not the user's.
    warnings.filterwarnings("ignore", message=".*torch.jit.script.*is deprecated")
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.func(args)
    except (UsageError, CheckpointError, FileNotFoundError, ValueError) as err:
        print(f"tvm-gnn {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tvm-gnn {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
