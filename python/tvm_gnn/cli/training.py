# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn train``: train the GNN on the dataset's training networks."""

from __future__ import annotations

import argparse
import difflib
import logging
import math
import os

from ..nn.config import LOSSES, VAL_FRACTION, TrainConfig, defaults
from ..nn.schema import FeaturizerConfig
from . import ansor, architecture
from .common import (
    UsageError,
    dataset_args,
    device,
    input_file,
    non_negative,
    number_in,
    output_file,
    output_folder,
    plot_file,
    positive_int,
    seed_int,
    train_config,
    tuner_option,
)

#: TrainConfig's defaults (the shipped recipe): the options' defaults
SHIPPED = defaults(TrainConfig)

logger = logging.getLogger("tvm_gnn")


# -- train -------------------------------------------------------------------------------------
def featurizer_config(args):
    """The ``FeaturizerConfig`` that ``tvm-gnn train`` builds its graphs with, from its options."""
    return FeaturizerConfig(reuse=args.reuse_features)


def cmd_train(args) -> int:
    """Train the GNN on the dataset's training networks (held-out networks are never read)."""
    from ..lock import one_writer_of
    from ..train import loss_plot, records_of

    if args.init != "shipped" or args.split_seed != 0:
        raise UsageError(
            "--init and --split-seed are --tuner ansor's; MetaSchedule's train starts a new GNN "
            "and draws its validation workloads with --seed"
        )

    config = train_config(args)
    overrides = architecture.gnn_overrides(args)
    snapshot, hardware = None, args.hardware
    if args.records_of:
        try:
            snapshot, hardware = records_of(args.data, args.records_of, hardware)
        except ValueError as err:
            raise UsageError(str(err)) from None
    plot = args.plot or loss_plot(args.out)
    if not args.plot and plot != os.devnull:  # the derived name: checked before the training
        try:
            plot_file(plot)
        except argparse.ArgumentTypeError as err:
            raise UsageError(f"the loss plot beside --out: {err}; give --plot") from None
    _check_held_out(args.held_out, args.data)
    with one_writer_of(args.out, "tvm-gnn train"):  # a second run onto this --out stops at once
        i = _train(args, plot, config, overrides, hardware, snapshot)
    print(
        f"trained on {', '.join(i['train_networks'])} ({i['hardware']}): {i['train_graphs']} "
        f"programs / {i['train_workloads']} workloads; validation {i['val_graphs']} / "
        f"{i['val_workloads']}"
    )
    acc, top1 = (
        i[k][i["best_epoch"]] if i[k] else float("nan") for k in ("val_pairwise_acc", "val_top1")
    )
    print(
        f"best epoch {i['best_epoch'] + 1} of {len(i['train_loss'])}: validation pairwise "
        f"accuracy {acc:.4f}, top-1 {top1:.4f}; training took {i['train_seconds']:.1f} s"
    )
    print(f"wrote {args.out} and {plot}")
    return 0


def _check_held_out(names: list[str], data) -> None:
    """``--held-out`` names that are no network are refused (a typo would hold out nothing); a
    network the dataset has no folder of is a warning (nothing of it would be trained on anyway)."""
    from ..dataset.layout import network_folders
    from ..measure.networks import NETWORKS, SYNTHETIC

    known = [*NETWORKS, *SYNTHETIC]
    for name in names:
        if name not in known:
            near = difflib.get_close_matches(name, known, n=3)
            hint = f"did you mean {' or '.join(near)}?" if near else "see tvm_gnn.measure.networks"
            raise UsageError(f"--held-out: {name} is no network ({hint})")
    try:
        present = {net for _, net, _ in network_folders(data)}
    except (OSError, ValueError):
        return  # the dataset's own check says what is wrong with it
    absent = [n for n in names if n not in present]
    if absent:
        logger.warning("--held-out: %s has no folder in %s", ", ".join(absent), data)


def _train(args, plot, config, overrides, hardware, snapshot) -> dict:
    from ..train import train_to_checkpoint

    return train_to_checkpoint(
        args.out,
        args.data,
        plot=plot,
        hardware=hardware,
        held_out=args.held_out,
        featurizer=featurizer_config(args),
        embedding=args.embedding,
        gnn_overrides=overrides,
        config=config,
        val_fraction=args.val_fraction,
        cache_dir=args.cache_dir,
        progress=not args.quiet,
        snapshot=snapshot,
        jobs=args.jobs,
    )


def _train_parser(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train the GNN on the dataset's training networks",
        description=cmd_train.__doc__,
    )
    dataset_args(
        p,
        hardware_help="hardware folder to train on",
        held_out_help="networks never trained on",
        hardware_default="the only one, or else the one the --records-of checkpoint trained on, or "
        "else this machine's",
    )
    p.add_argument(
        "--out",
        type=output_file,
        default="models/gnn.pt",
        help="checkpoint (default: models/gnn.pt)",
    )
    p.add_argument(
        "--plot",
        type=plot_file,
        default=None,
        help="loss-curve PNG (default: the checkpoint's name + -loss.png)",
    )
    architecture.add_options(p)
    p.add_argument(
        "--epochs",
        type=positive_int,
        default=SHIPPED["epochs"],
        help="at most (default: %(default)s)",
    )
    p.add_argument(
        "--patience",
        type=positive_int,
        default=SHIPPED["patience"],
        help="epochs without validation gain before stopping (default: %(default)s)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=SHIPPED["batch_size"],
        help="graphs per step (default: %(default)s)",
    )
    p.add_argument(
        "--lr",
        type=number_in(0.0, math.inf, high_open=True),
        default=SHIPPED["lr"],
        help="Adam learning rate (default: %(default)s)",
    )
    p.add_argument(
        "--mse-weight",
        type=non_negative,
        default=SHIPPED["mse_weight"],
        help="weight of the regression term beside the pairwise ranking "
        "loss; 0 for ranking alone (default: %(default)s)",
    )
    p.add_argument(
        "--loss",
        choices=LOSSES,
        default=SHIPPED["loss"],
        help="pairwise ranking term: lambdarank weighs each pair of a workload by the NDCG "
        "change of swapping it, so the fast end of the ranking counts most; ranknet "
        "weighs every pair alike (default: %(default)s, chosen on the validation split: "
        "docs/validation.md)",
    )
    p.add_argument(
        "--label-noise",
        metavar="SIGMA",
        default=SHIPPED["label_noise"],
        type=non_negative,
        help="standard deviation of a measured log latency (benchmarks/ranking/noise_ceiling.py "
        "estimates it): each pair's target becomes the probability that its "
        "faster-measured program is truly faster, so pairs measured within the "
        "noise count less (default: 0, every pair certain)",
    )
    p.add_argument(
        "--aux-store-features",
        metavar="WEIGHT",
        default=SHIPPED["aux_weight"],
        type=non_negative,
        help="weight of a second training target: the GNN also predicts each program's "
        "per-store features (what TVM's XGBModel reads, extracted with TVM and cached "
        "beside the graphs) from its readout; inference never runs that head "
        "(default: 0, no second target)",
    )
    p.add_argument(
        "--val-fraction",
        type=number_in(0.0, 1.0, high_open=True),
        default=VAL_FRACTION,
        help="share of training workloads held out for early stopping (default: %(default)s)",
    )
    p.add_argument(
        "--records-of",
        type=input_file,
        metavar="CHECKPOINT",
        default=None,
        help="train only on the records CHECKPOINT was trained on (the first lines of "
        "each training network's record file, as many as it had then): retrains "
        "it after the dataset grew (default: every record)",
    )
    p.add_argument(
        "--cache-dir",
        type=output_folder,
        default=".cache/graphs",
        help="featurized-graph cache (default: .cache/graphs)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="network folders featurized at once where the cache lacks them; the graphs are "
        "the same whatever N (default: every core this process may use)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=SHIPPED["seed"],
        help="split, initialization and shuffling seed (default: %(default)s)",
    )
    p.add_argument(
        "--device",
        default=SHIPPED["device"],
        type=device,
        help="torch device to train on: cpu, whose weights repeat bit for bit under "
        "--seed, or cuda (a GPU), whose runs differ in the last bits from run to "
        "run because CUDA adds in no fixed order (default: cpu)",
    )
    p.add_argument(
        "--init",
        default="shipped",
        metavar="shipped|scratch|CHECKPOINT",
        help="--tuner ansor: start from the shipped MetaSchedule weights (fine-tune), a new GNN, "
        "or a checkpoint (default: shipped)",
    )
    p.add_argument(
        "--split-seed",
        type=seed_int,
        default=0,
        help="--tuner ansor: seed of the validation workloads alone, so that runs of several "
        "--seed and --init validate on the same ones (default: 0)",
    )
    tuner_option(p)
    p.set_defaults(func=ansor.by_tuner(cmd_train, "train"))


def add_parsers(sub) -> None:
    _train_parser(sub)
