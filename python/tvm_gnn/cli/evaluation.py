# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn eval``: compare the GNN with TVM's cost models on programs none of them trained on."""

from __future__ import annotations

from pathlib import Path

from . import ansor
from .common import (
    UsageError,
    dataset_args,
    document_file,
    input_file,
    output_file,
    plot_file,
    seed_int,
    tuner_option,
)
from .results import check_out, write_results

#: The section of the results document that ``tvm-gnn eval --out`` rewrites.
RESULTS_SECTION = "tvm-gnn eval"


def cmd_eval(args) -> int:
    """Rank the held-out networks' measured programs with the GNN and TVM's cost models."""
    from ..cost_models.mlp_fixes import reproducible_arithmetic

    reproducible_arithmetic()  # before any matrix product: the GNN rows run first
    from .. import dataset
    from ..errors import EvaluationError
    from ..evaluate import evaluate, markdown, plot
    from ..resources import PRETRAINED

    check_out(args)
    gnn = args.gnn or [str(PRETRAINED)]
    hardware = dataset.resolve_hardware(args.data, args.hardware, _recorded_hardware(gnn[0]))
    test_folders = _test_folders(args.test_db)
    checkpoints = {
        "gnn": gnn,
        "gnn-learned-emb": [args.gnn_learned_emb or f"models/{hardware}/gnn-learned-emb.pt"],
        "gnn-no-topk": [args.gnn_no_topk or f"models/{hardware}/gnn-no-topk.pt"],
    }
    for name in args.models:
        for path in checkpoints.get(name, []):
            if not Path(path).exists():
                raise UsageError(
                    f"no checkpoint {path} for {name}; train one with "
                    f"`tvm-gnn train` or leave {name} out of --models"
                )
    try:
        res = evaluate(
            args.data,
            checkpoints,
            hardware=hardware,
            held_out=args.held_out,
            models=args.models,
            seeds=args.seeds,
            test_folders=test_folders,
            progress=not args.quiet,
        )
    except EvaluationError as err:
        raise UsageError(str(err)) from None
    write_results(args, res, markdown(res), plot)
    return 0


def _test_folders(paths) -> dict[str, Path] | None:
    """``{name: folder}`` of ``--test-db``: ``NAME=FOLDER``, or a folder named after the nearest
    part of its path that is a network (``.../resnet18/random/seed0`` is ``resnet18``)."""
    if not paths:
        return None
    from ..dataset.groups import check_db_folder
    from ..errors import EvaluationError
    from ..measure.networks import NETWORKS

    out: dict[str, Path] = {}
    for spec in paths:
        name, sep, path = spec.partition("=")
        folder = Path(path if sep else spec)
        if not sep:
            parts = [p for p in reversed(folder.resolve().parts) if p in NETWORKS]
            name = parts[0] if parts else folder.name
        try:
            check_db_folder(folder)
        except EvaluationError as err:
            raise UsageError(f"--test-db {spec}: {err}") from None
        if name in out:
            raise UsageError(f"--test-db: two folders are named {name}; name them NAME=FOLDER")
        out[name] = folder
    return out


def _eval_parser(sub) -> None:
    from ..evaluate.scoring import MODELS

    p = sub.add_parser(
        "eval", help="compare cost models on the held-out networks", description=cmd_eval.__doc__
    )
    dataset_args(
        p,
        hardware_help="hardware folder",
        held_out_help="networks evaluated",
        hardware_default="the only one, or else the one the first --gnn checkpoint trained on, or "
        "else this machine's",
    )
    p.add_argument(
        "--models",
        nargs="+",
        choices=MODELS,
        default=list(MODELS),
        help="models to compare (default: all)",
    )
    p.add_argument(
        "--gnn",
        nargs="+",
        type=input_file,
        default=None,
        metavar="CHECKPOINT",
        help="GNN checkpoint(s): several are the seeds of one configuration, each a run "
        "(default: the shipped weights)",
    )
    p.add_argument(
        "--gnn-learned-emb",
        type=input_file,
        default=None,
        help="learned-embedding GNN (default: models/HARDWARE/gnn-learned-emb.pt)",
    )
    p.add_argument(
        "--gnn-no-topk",
        type=input_file,
        default=None,
        help="GNN without TopK pooling (default: models/HARDWARE/gnn-no-topk.pt)",
    )
    p.add_argument(
        "--out",
        type=document_file,
        default=None,
        help="markdown file whose generated block gets the tables (e.g. docs/results.md)",
    )
    p.add_argument("--plot", type=plot_file, default=None, help="bar-plot PNG")
    p.add_argument("--json", type=output_file, default=None, help="all numbers as JSON")
    p.add_argument(
        "--seeds",
        "--seed",
        nargs="+",
        type=seed_int,
        default=[0],
        help="training seeds of XGBModel, MLPModel and RandomModel, a run each; tables show the "
        "mean over runs (default: 0)",
    )
    p.add_argument(
        "--test-db",
        nargs="+",
        default=None,
        metavar="[NAME=]FOLDER",
        help="score on these folders of MetaSchedule databases instead of the held-out networks "
        "(for example tuning runs on another CPU); a folder is named after the network in its "
        "path unless NAME= is given",
    )
    p.add_argument(
        "--section",
        default=RESULTS_SECTION,
        help=f"the generated section of --out to rewrite (default: {RESULTS_SECTION!r})",
    )
    tuner_option(p)
    p.set_defaults(func=ansor.by_tuner(cmd_eval, "eval"))


def add_parsers(sub) -> None:
    _eval_parser(sub)


def _recorded_hardware(path) -> str | None:
    """The hardware the checkpoint at ``path`` trained on, or None if it cannot be read (the
    evaluation then says why, if it needs the checkpoint)."""
    from ..errors import CheckpointError
    from ..nn import checkpoint

    try:
        return checkpoint.read_info(path).get("hardware")
    except (CheckpointError, OSError):
        return None
