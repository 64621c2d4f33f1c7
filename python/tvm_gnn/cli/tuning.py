# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn demo`` and ``tvm-gnn tune``: tune with a cost model and report what it found."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..cost_models import COST_MODELS
from ..measure.runner import EPS_GREEDY, SEARCH_POPULATION
from . import ansor, console, signals
from .common import (
    UsageError,
    check_output_folder,
    input_file,
    input_folder,
    int_in,
    output_folder,
    positive_int,
    seed_int,
    share,
    target_args,
    workload_name,
)
from .leftovers import tidy_on_failure

# -- demo: its work folders are temporary; its log stays where it was run -------------------------
DEMO_LOG = "tvm-gnn-demo.log"
#: per model and seed, and the seeds: two seeds of 32 trials, and a small search population, so
#: that `./build.sh demo` answers in minutes on 2 cores (docs/benchmarks.md, "The demo")
DEMO_TRIALS = 32
DEMO_SEEDS = 2
DEMO_POPULATION = 128
#: --diverse's largest width: proposals per place in a round's batch
MAX_WIDEN = 16


def cmd_demo(args) -> int:
    """Tune one workload with GNNModel and with XGBModel on the same budget, over several seeds;
    print each seed's best latencies and the ratio with its spread."""
    from ..measure import workloads
    from ..measure.sampling import target_from
    from ..tune.workload import tune_tir

    target = target_from(args.target, args.num_cores)
    mod = workloads.get(args.workload)
    seeds = list(range(args.seed, args.seed + args.seeds))
    print(
        f"tvm-gnn demo: {args.workload} on {target.kind.name}, {len(seeds)} seeds x "
        f"{args.trials} trials per model"
    )
    warmup = xgb_warmup()
    if "xgb" in args.models and args.trials < warmup:
        print(
            f"  XGBModel scores at random for its first {warmup} measurements (TVM's warm-up): "
            f"at {args.trials} trials this compares the GNN's pretrained prior with a random "
            "search, not with a trained XGBModel (--trials 256 for that)"
        )
    console.route_tvm_logs(args, DEMO_LOG)
    best: dict[tuple[str, int], float] = {}
    seconds: dict[str, float] = dict.fromkeys(args.models, 0.0)
    for seed in seeds:
        for kind in args.models:
            start = time.perf_counter()
            with signals.temporary_folder(prefix=f"tvm_gnn_demo_{kind}_") as work_dir:
                _, progress = tune_tir(
                    mod,
                    target,
                    work_dir,
                    max_trials=args.trials,
                    cost_model=kind,
                    num_trials_per_iter=args.trials_per_iter,
                    seed=seed,
                    desc=f"{kind} seed {seed}",
                    progress=not args.quiet,
                    checkpoint=args.checkpoint if kind.startswith("gnn") else None,
                    population=args.population,
                    eps_greedy=args.eps_greedy,
                    diverse=args.diverse if kind.startswith("gnn") else 0,
                )
            best[kind, seed] = progress.best
            seconds[kind] += time.perf_counter() - start
    print()
    print(demo_table(best, args.models, seeds, seconds))
    return 0


def xgb_warmup() -> int:
    """How many measurements TVM's XGBModel scores at random before it trains (its default)."""
    import inspect

    from tvm.s_tir import meta_schedule as ms

    return inspect.signature(ms.cost_model.XGBModel).parameters["num_warmup_samples"].default


def demo_table(best: dict, models: list[str], seeds: list[int], seconds: dict) -> str:
    """Each seed's best latency per model, and the first model's ratio to each other one: per
    seed, and their geometric mean with the range, which says how far one seed can be trusted."""
    import numpy as np

    lines = ["seed" + "".join(f"{m + ' (ms)':>16}" for m in models)]
    lines += [f"{s:<4}" + "".join(f"{best[m, s] * 1e3:>16.4f}" for m in models) for s in seeds]
    lines.append("time" + "".join(f"{seconds[m]:>14.0f} s" for m in models))
    first = models[0]
    for other in models[1:]:
        both = [s for s in seeds if np.isfinite(best[first, s]) and np.isfinite(best[other, s])]
        for s in sorted(set(seeds) - set(both)):
            failed = [m for m in (first, other) if not np.isfinite(best[m, s])]
            lines.append(f"seed {s}: {' and '.join(failed)} found no working program")
        if not both:
            continue
        ratios = np.array([best[first, s] / best[other, s] for s in both])
        per_seed = ", ".join(f"{r:.3f}" for r in ratios)
        lines.append(
            f"{first}/{other} best latency: geometric mean {np.exp(np.log(ratios).mean()):.3f}x "
            f"over {len(ratios)} seeds (range {ratios.min():.3f}-{ratios.max():.3f}; {per_seed})"
            f"; below 1: {first} found the faster program"
        )
    return "\n".join(lines)


def cmd_tune(args) -> int:
    """Tune a network end to end, check its output against PyTorch, report its latency."""
    from ..lock import one_writer
    from ..measure.networks import NETWORKS
    from ..measure.sampling import target_from

    if args.network not in NETWORKS:
        raise UsageError(f"unknown network {args.network!r}; choose one of {', '.join(NETWORKS)}")
    target = target_from(args.target, args.num_cores, local=True)
    if args.cache_flush and target.kind.name != "llvm":
        raise UsageError(f"--cache-flush flushes the CPU cache; target {target.kind.name} has none")
    bad = [b for b in args.budgets or [] if b > args.trials]
    if bad:
        raise UsageError(f"--budgets {bad} exceed --trials {args.trials}")
    if args.diverse and not args.cost_model.startswith("gnn"):
        raise UsageError(f"--diverse clusters the GNN's embeddings; {args.cost_model} has none")
    if args.cost_model == "xgb-pretrained" and not Path(args.data).is_dir():
        raise UsageError(f"xgb-pretrained trains on the dataset, and {args.data} is not a folder")
    work_dir = args.work_dir or f"tune_runs/{args.network}-{args.cost_model}-{args.trials}"
    check_output_folder(work_dir)  # the default's, as --work-dir's: space, name, type
    # one run a work dir: a second stops at once instead of both writing one database
    with tidy_on_failure(work_dir), one_writer(work_dir, f"tvm-gnn tune {args.network}"):
        return _tune(args, target, work_dir)


def _tune(args, target, work_dir) -> int:
    from ..errors import EvaluationError
    from ..tune.budgets import latency_at_budgets
    from ..tune.compile import OutputMismatchError
    from ..tune.end_to_end import TuneSettings, tune_network

    signals.on_interrupt_say(f"the records measured so far are in {work_dir}")
    console.route_tvm_logs(args, Path(work_dir) / "tvm-gnn.log")
    try:
        res = tune_network(
            args.network,
            args.cost_model,
            args.trials,
            target,
            work_dir,
            TuneSettings(
                seed=args.seed,
                trials_per_iter=args.trials_per_iter,
                population=args.population,
                eps_greedy=args.eps_greedy,
                diverse=args.diverse,
                cache_flush=args.cache_flush,
                repeats=args.repeats,
                progress=not args.quiet,
            ),
            checkpoint=args.checkpoint,
            data=args.data,
        )
        print(
            f"{res.network} ({res.cost_model}, {res.trials} trials): end-to-end "
            f"{res.latency_ms_median:.3f} ms (median of {len(res.latency_ms_runs)}), output "
            f"matches PyTorch; tuning took {res.tuning_seconds:.0f} s; log: {res.log_path}"
        )
        if args.budgets:
            at = latency_at_budgets(
                work_dir, args.budgets, repeats=args.repeats, progress=not args.quiet
            )
            for b, r in sorted(at.items()):
                note = (
                    f" ({r['untuned_functions']} functions not tuned yet)"
                    if r["untuned_functions"]
                    else ""
                )
                print(f"  after {b} trials: {r['latency_ms_median']:.3f} ms{note}")
    except OutputMismatchError as err:
        print(f"tvm-gnn tune: OUTPUT MISMATCH: {err}", file=sys.stderr)
        return 1
    except EvaluationError as err:  # xgb-pretrained: the dataset lacks the GNN's records
        raise UsageError(str(err)) from None
    return 0


def _demo_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="tune a built-in workload with GNNModel and XGBModel",
        description=cmd_demo.__doc__,
    )
    p.add_argument(
        "--workload",
        type=workload_name,
        default="resnet18_conv2d",
        help="built-in workload (default: resnet18_conv2d, ResNet-18's 3x3 conv2d)",
    )
    p.add_argument(
        "--trials",
        type=positive_int,
        default=DEMO_TRIALS,
        help=f"measured trials per cost model and seed (default: {DEMO_TRIALS})",
    )
    p.add_argument(
        "--seeds",
        type=positive_int,
        default=DEMO_SEEDS,
        help="seeds per model, from --seed on: one seed is an anecdote (default: %(default)s)",
    )
    p.add_argument(
        "--trials-per-iter",
        type=positive_int,
        default=16,
        help="candidates measured per search iteration (default: 16)",
    )
    p.add_argument(
        "--models",
        nargs="+",
        choices=COST_MODELS,
        default=["gnn", "xgb"],
        help="cost models to compare (default: gnn xgb)",
    )
    p.add_argument("--checkpoint", type=input_file, default=None, help="GNN weights to start from")
    _population_option(p, DEMO_POPULATION)
    p.add_argument("--seed", type=seed_int, default=0, help="the first seed (default: 0)")
    target_args(p)
    console.log_option(p, DEMO_LOG)
    p.set_defaults(func=ansor.by_tuner(cmd_demo, None))


def _tune_parser(sub) -> None:
    p = sub.add_parser(
        "tune",
        help="tune a whole network, check it against PyTorch, time it",
        description=cmd_tune.__doc__,
    )
    p.add_argument(
        "--network",
        required=True,
        help="network name (resnet18, mobilenet_v2, inception_v3, ... see "
        "tvm_gnn.networks; tiny_cnn for a quick run)",
    )
    p.add_argument(
        "--cost-model",
        choices=COST_MODELS,
        default="gnn",
        help="cost model guiding the search: gnn (shipped weights), xgb (TVM's "
        "default, from scratch), xgb-pretrained (XGBModel first trained on the "
        "GNN's training records), random (default: gnn)",
    )
    p.add_argument(
        "--trials",
        type=positive_int,
        default=200,
        help="measured trials over all tasks (default: 200)",
    )
    p.add_argument(
        "--trials-per-iter",
        type=positive_int,
        default=32,
        help="candidates measured per search iteration (default: 32)",
    )
    _population_option(p)
    p.add_argument("--checkpoint", type=input_file, default=None, help="GNN weights to start from")
    p.add_argument(
        "--data",
        type=input_folder,
        default="data",
        help="dataset that --cost-model xgb-pretrained trains on (default: data)",
    )
    p.add_argument(
        "--budgets",
        nargs="+",
        type=positive_int,
        default=None,
        help="also compile, check and time the network as it stood after each of these "
        "many trials (written to WORK_DIR/budgets.json)",
    )
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=10,
        help="timed runs of the compiled network; the median is reported (default: 10)",
    )
    p.add_argument(
        "--work-dir",
        type=output_folder,
        default=None,
        help="where the database and tune_log.json go (default: "
        "tune_runs/NETWORK-MODEL-TRIALS); an earlier run's files there are "
        "moved to WORK_DIR/previous-TIME/, never mixed into this run",
    )
    p.add_argument(
        "--cache-flush",
        action="store_true",
        help="time every candidate cold, the CPU cache flushed before each of 10 runs, "
        "as kernels run inside a network (default: MetaSchedule's warm timing, "
        "3 runs in a row on cached data); see docs/networks.md",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="search and model seed (default: 0)")
    target_args(p, tuner=True, rpc=True)
    console.log_option(p, "WORK_DIR/tvm-gnn.log")
    p.set_defaults(func=ansor.by_tuner(cmd_tune, "tune"))


def _population_option(p, default: int = SEARCH_POPULATION) -> None:
    ours = "" if default == SEARCH_POPULATION else f"; MetaSchedule's is {SEARCH_POPULATION}"
    p.add_argument(
        "--population",
        type=positive_int,
        default=default,
        help="evolutionary search population; smaller is faster per iteration and "
        f"searches less (default: {default}{ours})",
    )
    p.add_argument(
        "--eps-greedy",
        type=share,
        default=EPS_GREEDY,
        help="share of each round's measured candidates the search draws at random from its "
        f"unmeasured population instead of its best-scored (default: MetaSchedule's {EPS_GREEDY})",
    )
    p.add_argument(
        "--diverse",
        type=int_in(0, MAX_WIDEN, what=f"a width from 0 to {MAX_WIDEN}"),
        default=0,
        metavar="W",
        help="choose each round's batch for diversity: the best-scored program of each k-means "
        "cluster, in the GNN's embedding space, of W x the batch best-scored proposals (GNN "
        "models only; the benchmark's gnn-diverse is W=4; default 0: the search's top)",
    )


def add_parsers(sub) -> None:
    _demo_parser(sub)
    _tune_parser(sub)
