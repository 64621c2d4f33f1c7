# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn collect``, ``pack`` and ``unpack``: measure the dataset, keep it (its counts:
:mod:`.stats`)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from ..measure.runner import SEARCH_POPULATION
from . import ansor, console, signals
from .common import (
    UsageError,
    folder_name,
    host_port,
    input_folder,
    non_negative_int,
    number_in,
    output_folder,
    positive_int,
    seed_int,
    share,
    target_args,
)
from .networks import network_names

logger = logging.getLogger("tvm_gnn")


# -- collect -------------------------------------------------------------------------------------
def cmd_collect(args) -> int:
    """Measure candidates of real networks' tasks into MetaSchedule JSON databases, or with
    --tuner ansor Ansor's states into auto_scheduler logs (resumable)."""
    import json

    from ..collect import CollectConfig, check_same_cpu, collect_network
    from ..errors import DiskFullError, MeasureServiceError
    from ..measure.builder import make_builder
    from ..measure.runner import MeasureConfig, make_runner
    from ..measure.sampling import target_from
    from .leftovers import tidy_on_failure

    networks = network_names(args.network)
    if not args.rpc_tracker and (args.rpc_key or args.rpc_workers != 1):
        raise UsageError("--rpc-key and --rpc-workers are for measuring through --rpc-tracker")
    check_raw_root(args.out)  # before minutes of task extraction
    target = target_from(args.target, args.num_cores, local=not args.rpc_tracker)
    if not (args.rpc_tracker or args.other_cpu):
        check_same_cpu(args.out, args.hardware, target)  # before the work: one line
    cfg = CollectConfig(
        trials_per_task=args.trials_per_task,
        uniform_fraction=args.uniform_fraction,
        batch_size=args.batch_size,
        seed=args.seed,
        max_tasks=args.max_tasks,
        population=args.population,
        wide_spread=args.wide_spread,
        wide_spread_trials=args.wide_spread_trials,
        skip_shared=args.skip_shared,
    )
    measure = MeasureConfig(
        number=args.number,
        repeat=args.repeat,
        min_repeat_ms=args.min_repeat_ms,
        cache_flush=args.cache_flush,
    )
    runner = (
        make_runner(measure, args.rpc_tracker, args.rpc_key, args.rpc_workers)
        if args.rpc_tracker
        else None
    )
    signals.on_interrupt_say(
        f"every record measured so far is kept in {args.out}; the same command resumes"
    )
    with tidy_on_failure(args.out):  # a refused run leaves no empty folder or log
        console.route_tvm_logs(args, Path(args.out) / "collect.log")
        failed = []
        builder = None  # one for all the networks: its build workers take seconds to start
        try:
            for net in networks:
                builder = builder or make_builder(timeout_sec=measure.build_timeout_sec)
                try:
                    summary = collect_network(
                        net,
                        args.out,
                        target,
                        cfg,
                        measure,
                        runner=runner,
                        rpc_key=args.rpc_key if args.rpc_tracker else None,
                        hardware=args.hardware,
                        progress=not args.quiet,
                        builder=builder,
                    )
                except (UsageError, ValueError, MeasureServiceError, DiskFullError):
                    raise  # what the user fixes, for every network alike: one line, not a traceback
                except Exception:  # noqa: BLE001 - one broken network must not stop the others
                    logger.exception("collecting %s failed; continuing with the next network", net)
                    failed.append(net)
                    builder.close()  # the next network starts with fresh build workers
                    builder = None
                    continue
                print(json.dumps(summary), flush=True)
        finally:
            if builder is not None:
                builder.close()
    if failed:
        print(f"tvm-gnn collect: failed networks: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def check_raw_root(root) -> None:
    """:class:`UsageError` if ``root`` holds a packed folder: ``collect`` writes raw files only,
    and beside ``.gz`` files they would hide what is packed (:func:`collect.refuse_packed`; the
    folders it collects into get the whole :func:`collect.check_raw`)."""
    from ..collect import refuse_packed
    from ..dataset import network_folders
    from ..errors import DataError

    for _, _, folder in network_folders(root) if Path(root).is_dir() else []:
        try:
            refuse_packed(folder)
        except DataError as err:
            raise UsageError(str(err)) from None


def cmd_pack(args) -> int:
    """Gzip the raw collected databases into the committed dataset folder."""
    from ..dataset import pack
    from ..dataset.ansor_archive import counts, hardware_folders, pack_ansor, write_card
    from ..dataset.layout import network_folders
    from ..dataset.splits import HELD_OUT

    ansor = hardware_folders(args.raw)
    written = (
        []
        if ansor and not any(network_folders(args.raw))
        else pack(args.raw, args.out, force=args.force)
    )
    print(f"packed {len(written)} changed database files into {args.out}")
    if ansor:
        logs = pack_ansor(args.raw, args.out, force=args.force)
        print(f"packed {len(logs)} changed Ansor logs into {args.out}/ansor")
        for c in counts(args.out):
            print(
                f"{args.out}/ansor/{c['hardware']}: {c['valid']} valid of {c['records']} records, "
                f"{c['workloads']} workloads ({c['logs']} logs); networks: "
                f"{', '.join(c['networks'])}; the collect runs added {c['run_records']} records "
                f"in {c['run_seconds'] / 3600:.2f} h"
            )
        for card in write_card(args.out, HELD_OUT):
            print(f"wrote the dataset card {card}")
    return 0


def cmd_unpack(args) -> int:
    """Gunzip the committed dataset into the raw folder, so collection resumes from it."""
    from ..dataset import unpack
    from ..dataset.ansor_archive import hardware_folders, unpack_ansor
    from ..dataset.layout import network_folders

    ansor = hardware_folders(args.data)
    if not ansor or any(network_folders(args.data)):
        written = unpack(args.data, args.raw)
        print(f"unpacked {len(written)} database files into {args.raw}")
    if ansor:
        logs = unpack_ansor(args.data, args.raw)
        print(f"unpacked {len(logs)} Ansor logs into {args.raw}/ansor")
    return 0


def _collect_parser(sub) -> None:
    p = sub.add_parser(
        "collect",
        help="measure real network tasks into JSON databases",
        description=cmd_collect.__doc__,
    )
    p.add_argument(
        "--network",
        nargs="+",
        default=["all"],
        help="networks and synthetic operator families (tvm_gnn.networks: NETWORKS, "
        "SYNTHETIC), or all, held-out, training (the networks not held out, and "
        "the synthetic families), synthetic (default: all)",
    )
    p.add_argument(
        "--out",
        type=output_folder,
        default="data_raw",
        help="raw dataset root, where `tvm-gnn unpack` puts the committed dataset and `tvm-gnn "
        "pack` reads from; a packed folder (data/) is refused (default: data_raw)",
    )
    p.add_argument(
        "--hardware",
        type=folder_name,
        default=None,
        metavar="NAME",
        help="hardware folder to write into (default: named after the target and this machine, "
        "e.g. llvm-amd-epyc-2c); for machines one CPU model name does not tell apart, such as "
        "AMD EPYC generations, e.g. llvm-amd-epyc-znver3-2c",
    )
    p.add_argument(
        "--other-cpu",
        action="store_true",
        help="write into a hardware folder whose records another CPU measured (refused "
        "without it: the two CPUs' latencies would mix in one folder)",
    )
    p.add_argument(
        "--trials-per-task",
        type=positive_int,
        default=48,
        help="valid measured candidates per task; failed builds and runs are kept as "
        "failures but do not count (default: 48)",
    )
    wide_spread_args(
        p,
        "measure more of a task whose first --trials-per-task valid latencies spread by at least "
        "RATIO (90th percentile over 10th), up to --wide-spread-trials (default: off)",
    )
    p.add_argument(
        "--skip-shared",
        action="store_true",
        help="do not measure a task whose workload another network's folder of this hardware "
        "already has --trials-per-task valid records of, or every program of (breadth for the "
        "time: each workload is measured once); a task this network has begun is finished, "
        "and the tasks left are listed in its folder's shared.json. Held-out networks neither "
        "skip nor count as having a workload: their records are the test set",
    )
    p.add_argument(
        "--uniform-fraction",
        type=share,
        default=0.5,
        help="share sampled uniformly from the design space; the rest comes from "
        "evolutionary search, whose new XGBModel is still in its warm-up: alike in latency, at "
        "a higher cost (docs/collection.md, 'What the search half adds'); 1: "
        "uniform draws only, no search (default: 0.5)",
    )
    p.add_argument(
        "--population",
        type=positive_int,
        default=SEARCH_POPULATION,
        help="population of that evolutionary search; smaller is faster and less "
        f"thorough (default: {SEARCH_POPULATION}, MetaSchedule's)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=16,
        help="candidates per build/run batch, committed together (default: 16)",
    )
    p.add_argument(
        "--max-tasks",
        type=positive_int,
        default=None,
        help="only the first N tasks of each network",
    )
    p.add_argument(
        "--number", type=positive_int, default=3, help="runs per measurement (default: 3)"
    )
    p.add_argument(
        "--repeat", type=positive_int, default=1, help="measurements per candidate (default: 1)"
    )
    p.add_argument(
        "--min-repeat-ms",
        type=non_negative_int,
        default=40,
        help="minimum time of one measurement in ms (default: 40)",
    )
    p.add_argument("--cache-flush", action="store_true", help="flush the CPU cache between runs")
    p.add_argument(
        "--rpc-tracker",
        type=host_port,
        default=None,
        metavar="HOST:PORT",
        help="measure on devices registered with this TVM RPC tracker",
    )
    p.add_argument("--rpc-key", default=None, help="device key at the RPC tracker")
    p.add_argument(
        "--rpc-workers",
        type=positive_int,
        default=1,
        help="devices measured in parallel through RPC (default: 1)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="sampling and search seed (default: 0)")
    target_args(p, tuner=True)
    console.log_option(p, "OUT/collect.log")
    p.set_defaults(func=ansor.by_tuner(cmd_collect, "collect"))


def _pack_parser(sub) -> None:
    p = sub.add_parser(
        "pack", help="gzip raw collected databases into data/", description=cmd_pack.__doc__
    )
    p.add_argument(
        "--raw", type=input_folder, default="data_raw", help="collect's output (default: data_raw)"
    )
    p.add_argument(
        "--out", type=output_folder, default="data", help="compressed dataset root (default: data)"
    )
    p.add_argument(
        "--force", action="store_true", help="replace packed databases even with smaller ones"
    )
    p.set_defaults(func=cmd_pack)


def _unpack_parser(sub) -> None:
    p = sub.add_parser(
        "unpack",
        help="gunzip data/ into data_raw/ before resuming collection",
        description=cmd_unpack.__doc__,
    )
    p.add_argument(
        "--data", type=input_folder, default="data", help="compressed dataset root (default: data)"
    )
    p.add_argument(
        "--raw",
        type=output_folder,
        default="data_raw",
        help="collect's output folder (default: data_raw)",
    )
    p.set_defaults(func=cmd_unpack)


def wide_spread_args(p, what: str) -> None:
    p.add_argument(
        "--wide-spread",
        type=number_in(1.0, float("inf"), high_open=True),
        default=None,
        metavar="RATIO",
        help=what,
    )
    p.add_argument(
        "--wide-spread-trials",
        type=positive_int,
        default=None,
        metavar="N",
        help="valid candidates of a widely spread task, at least --trials-per-task "
        "(default: twice --trials-per-task)",
    )


def add_parsers(sub) -> None:
    _collect_parser(sub)
    _pack_parser(sub)
    _unpack_parser(sub)
