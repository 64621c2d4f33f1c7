# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn collect``, ``tune``, ``train`` and ``eval`` with ``--tuner ansor`` (TVM 0.19)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from . import console, signals
from .common import UsageError, require_metaschedule, train_config
from .networks import network_names

logger = logging.getLogger("tvm_gnn")

#: the cost models ``tune --tuner ansor`` searches with
ANSOR_MODELS = ("gnn", "xgb", "random")


def _require_ansor() -> None:
    from ..tvm_compat import LEGACY, VERSION

    if not LEGACY:
        raise UsageError(
            f"--tuner ansor needs TVM 0.19 (Ansor), and this environment has TVM {VERSION}: "
            "run it from the 0.19 environment (`VENV=.venv-tvm019 CONSTRAINTS="
            "constraints-tvm0.19.txt ./build.sh setup`, then .venv-tvm019/bin/tvm-gnn; "
            "docs/ansor.md)"
        )


def _target(args):
    import tvm

    from ..measure.hardware import usable_cores

    if args.target == "llvm":
        return tvm.target.Target(f"llvm -num-cores={args.num_cores or usable_cores()}")
    try:
        target = tvm.target.Target(args.target)
    except Exception as err:  # noqa: BLE001 - TVM's error, in one line
        raise UsageError(f"--target {args.target!r}: TVM does not know it ({err})") from None
    if target.kind.name != "llvm":
        raise UsageError(
            f"--target {args.target}: this TVM 0.19 wheel generates code for CPUs (llvm) only"
        )
    return target


def _measure(args):
    from ..collect.ansor import AnsorMeasure

    if not args.rpc_tracker and (args.rpc_key or getattr(args, "rpc_workers", 1) != 1):
        raise UsageError("--rpc-key and --rpc-workers are for measuring through --rpc-tracker")
    if args.rpc_tracker and not args.rpc_key:
        raise UsageError("--rpc-tracker needs --rpc-key, the devices' key at the tracker")
    defaults = AnsorMeasure()
    return AnsorMeasure(
        number=getattr(args, "number", defaults.number),
        repeat=getattr(args, "repeat", defaults.repeat),
        min_repeat_ms=getattr(args, "min_repeat_ms", defaults.min_repeat_ms),
        cache_flush=args.cache_flush,
        rpc_tracker=args.rpc_tracker,
        rpc_key=args.rpc_key,
        rpc_workers=getattr(args, "rpc_workers", 1),
    )


def by_tuner(metaschedule, command: str | None):
    """What a parser runs: with ``--tuner ansor`` this module's ``command`` (None: a command of
    MetaSchedule's only), else ``metaschedule``; each refused in one line where the installed
    TVM lacks its tuner. ``tune``'s RPC options are Ansor's."""

    def run(args) -> int:
        if getattr(args, "tuner", "metaschedule") == "ansor":
            if command is None:
                raise UsageError(
                    "this command is MetaSchedule's; --tuner ansor has tune, collect, train, eval"
                )
            commands = {"tune": cmd_tune, "collect": cmd_collect, "train": cmd_train,
                        "eval": cmd_eval}  # fmt: skip
            return commands[command](args)
        if command == "tune" and (args.rpc_tracker or args.rpc_key):
            raise UsageError(
                "--rpc-tracker/--rpc-key measure through TVM's RPC tracker with --tuner ansor; "
                "MetaSchedule's tune measures on this machine (collect takes them: docs/cli.md)"
            )
        require_metaschedule()
        return metaschedule(args)

    run.__doc__ = metaschedule.__doc__
    return run


def cmd_collect(args) -> int:
    """Measure Ansor states of real networks' tasks into auto_scheduler logs (resumable)."""
    _require_ansor()
    networks = network_names(args.network)
    from ..collect import check_same_cpu
    from ..collect.ansor import AnsorCollectConfig, collect_network
    from ..measure.hardware import hardware_name
    from ..measure.relay import RelayImportError
    from .leftovers import tidy_on_failure

    target = _target(args)
    measure = _measure(args)
    hardware = args.hardware or hardware_name(target, args.rpc_key if args.rpc_tracker else None)
    cfg = AnsorCollectConfig(
        trials_per_task=args.trials_per_task,
        uniform_fraction=args.uniform_fraction,
        batch_size=args.batch_size,
        seed=args.seed,
        max_tasks=args.max_tasks,
    )
    root = Path(args.out) / "ansor"
    if not (args.rpc_tracker or args.other_cpu):
        check_same_cpu(root, hardware, target)  # before the work: one line
    signals.on_interrupt_say(
        f"every record measured so far is kept in {root / hardware}; the same command resumes"
    )
    with tidy_on_failure(args.out):  # a refused run leaves no empty folder or log
        console.route_tvm_logs(args, root / hardware / "collect.log")
        _quiet_ansor()
        failed = []
        for net in networks:
            try:
                summary = collect_network(net, root, hardware, target, cfg, measure, not args.quiet)
            except RelayImportError as err:
                logger.error("%s; continuing with the next network", err)
                failed.append(net)
                continue
            except Exception:  # noqa: BLE001 - one broken network must not stop the others
                logger.exception("collecting %s failed; continuing with the next network", net)
                failed.append(net)
                continue
            print(json.dumps(summary), flush=True)
    if failed:
        print(f"tvm-gnn collect: failed networks: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_tune(args) -> int:
    """Tune a network with Ansor's task scheduler, check it, time it."""
    _require_ansor()
    from ..lock import one_writer
    from ..measure.networks import NETWORKS
    from ..measure.relay import RelayImportError
    from ..tune.ansor import tune_network
    from ..tune.compile import OutputMismatchError
    from .leftovers import tidy_on_failure

    if args.network not in NETWORKS:
        raise UsageError(f"unknown network {args.network!r}; choose one of {', '.join(NETWORKS)}")
    if args.cost_model not in ANSOR_MODELS:
        raise UsageError(
            f"--tuner ansor searches with {', '.join(ANSOR_MODELS)}; not {args.cost_model}"
        )
    target = _target(args)
    measure = _measure(args)
    work_dir = Path(
        args.work_dir or f"tune_runs/ansor-{args.network}-{args.cost_model}-{args.trials}"
    )
    if (work_dir / "records.json").exists():
        raise UsageError(
            f"{work_dir} holds an earlier Ansor run's records.json; give a new --work-dir (Ansor "
            "would learn from them and the run would not be what it says)"
        )
    command = f"tvm-gnn tune --tuner ansor {args.network}"
    with tidy_on_failure(work_dir), one_writer(work_dir, command):
        signals.on_interrupt_say(f"the records measured so far are in {work_dir}")
        console.route_tvm_logs(args, work_dir / "tvm-gnn.log")
        _quiet_ansor()
        try:
            res = tune_network(
                args.network,
                args.cost_model,
                args.trials,
                target,
                work_dir,
                seed=args.seed,
                trials_per_round=args.trials_per_iter,
                repeats=args.repeats,
                measure=measure,
                checkpoint=args.checkpoint,
                progress=not args.quiet,
            )
        except RelayImportError as err:
            raise UsageError(str(err)) from None
        except OutputMismatchError as err:
            print(f"tvm-gnn tune: OUTPUT MISMATCH: {err}", file=sys.stderr)
            return 1
    print(
        f"{res.network} (Ansor, {res.cost_model}, {res.trials} trials, {res.tasks} tasks): "
        f"{res.latency_ms_median:.3f} ms (untuned {res.latency_ms_untuned:.3f} ms), output "
        f"matches the untuned build; tuning took {res.tuning_seconds:.0f} s, "
        f"{100 * res.cost_model_share:.1f}% of it in the cost model; log: {res.log_path}"
    )
    return 0


def _quiet_ansor() -> None:
    """Ansor's Python logger warns on the console about every operator left untuned when a
    network compiles (which the records show); only its errors are shown."""
    logging.getLogger("auto_scheduler").setLevel(logging.ERROR)


def cmd_eval(args) -> int:
    """Rank the held-out networks' Ansor records with the GNN and Ansor's XGBModel."""
    _require_ansor()
    from ..errors import EvaluationError
    from ..evaluate.ansor import ANSOR_MODELS, evaluate_ansor, hardware_of, markdown
    from ..evaluate.scoring import MODELS
    from .results import check_out, write_results

    models = [m for m in args.models if m in ANSOR_MODELS]
    others = [m for m in args.models if m not in ANSOR_MODELS]
    if others and args.models != list(MODELS):  # the default: MetaSchedule's, narrowed
        raise UsageError(f"--tuner ansor evaluates {', '.join(ANSOR_MODELS)}; not {others[0]}")
    if args.test_db or args.plot:
        raise UsageError("--tuner ansor takes no --test-db or --plot")
    if args.gnn and len(args.gnn) not in (1, len(args.seeds)):
        raise UsageError(
            f"--tuner ansor takes one --gnn checkpoint, or one for each of the {len(args.seeds)} "
            "--seeds (weights trained with that seed)"
        )
    check_out(args)
    try:
        hardware = hardware_of(args.data, args.hardware)
        res = evaluate_ansor(
            args.data,
            hardware,
            held_out=args.held_out,
            models=models or ["gnn", "xgb"],
            seeds=args.seeds,
            checkpoint=(args.gnn[0] if len(args.gnn) == 1 else args.gnn) if args.gnn else None,
            progress=not args.quiet,
        )
    except EvaluationError as err:
        raise UsageError(str(err)) from None
    write_results(args, res, markdown(res))
    return 0


#: ``train``'s options that --tuner ansor has no use for, and what they default to
_NOT_ANSOR_TRAIN = {"records_of": None, "aux_store_features": 0.0, "jobs": None}


def cmd_train(args) -> int:
    """Train the GNN on the Ansor records of the training networks (``--init``: fine-tune the
    shipped weights, or train a new GNN); the held-out networks' workloads are never read."""
    _require_ansor()
    from ..errors import CheckpointError, EvaluationError
    from ..evaluate.ansor import hardware_of
    from ..lock import one_writer_of
    from ..train import loss_plot
    from ..train.ansor import INITS, train_ansor_to_checkpoint

    given = [k for k, v in _NOT_ANSOR_TRAIN.items() if getattr(args, k, v) != v]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise UsageError(f"{flag} is MetaSchedule's train option; --tuner ansor has no use for it")
    if args.init not in INITS and not Path(args.init).is_file():
        raise UsageError(f"--init: {args.init} is neither shipped, scratch nor a checkpoint file")
    config = train_config(args)
    try:
        hardware = hardware_of(args.data, args.hardware)
    except EvaluationError as err:
        raise UsageError(str(err)) from None
    plot = args.plot or loss_plot(args.out)
    with one_writer_of(args.out, "tvm-gnn train"):
        try:
            i = train_ansor_to_checkpoint(
                args.out,
                args.data,
                hardware,
                plot=plot,
                held_out=args.held_out,
                init=args.init,
                config=config,
                val_fraction=args.val_fraction,
                split_seed=args.split_seed,
                cache_dir=args.cache_dir,
                progress=not args.quiet,
            )
        except (CheckpointError, ValueError) as err:
            raise UsageError(str(err)) from None
    best = i["best_epoch"]
    acc = i["val_pairwise_acc"][best] if i["val_pairwise_acc"] else float("nan")
    top1 = i["val_top1"][best] if i["val_top1"] else float("nan")
    print(
        f"trained on Ansor records of {len(i['train_networks'])} networks ({hardware}), from "
        f"{i['init']}: {i['train_graphs']} states / {i['train_workloads']} workloads; "
        f"validation {i['val_graphs']} / {i['val_workloads']}"
    )
    print(
        f"best epoch {best + 1} of {len(i['train_loss'])}: validation pairwise accuracy "
        f"{acc:.4f}, top-1 {top1:.4f}; training took {i['train_seconds']:.1f} s"
    )
    print(f"wrote {args.out} and {plot}")
    return 0
