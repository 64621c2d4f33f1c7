# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn dataset-stats``: what a dataset holds, and what collecting more would add."""

from __future__ import annotations

import logging
import sys
from contextlib import nullcontext
from pathlib import Path

from . import console
from .common import (
    UsageError,
    document_file,
    folder_name,
    input_folder,
    output_file,
    plot_file,
    positive_int,
    target_args,
)
from .data import network_names, wide_spread_args

logger = logging.getLogger(__name__)

#: where --would-add's TVM output goes by default, in the temporary folder: a read-only command
#: should not leave a file in the working directory
WOULD_ADD_LOG = "tvm-gnn-would-add.log"


def cmd_dataset_stats(args) -> int:
    """Print per-network counts, latency range and shared workloads of a dataset (markdown).

    With --would-add, print instead how many new workloads each named network would bring: a way
    to choose what to collect next for breadth, before spending hours measuring it. With
    --wide-spread, print how widely the measured tasks' latencies spread and what
    `collect --wide-spread` would add to them."""
    from ..dataset import stats, stats_markdown, stats_plot, summary_markdown

    if args.would_add and args.wide_spread:
        raise UsageError("--would-add and --wide-spread print different things; use one")
    for flag, value in (("--card", args.card), ("--plot", args.plot)):
        if value and (args.would_add or args.wide_spread):
            other = "--would-add" if args.would_add else "--wide-spread"
            raise UsageError(f"{flag} shows the dataset's counts; leave it out with {other}")
    if args.log_file and not args.would_add:
        raise UsageError("--log-file takes TVM's output while --would-add extracts tasks; use both")
    if args.hardware and not (args.would_add or args.wide_spread):
        raise UsageError("--hardware names the folder --would-add or --wide-spread plans for")
    if args.would_add:
        return _would_add(args)
    if args.wide_spread:
        return _wide_spread(args)
    if args.card:  # before the counting: a card whose markers are cut is refused untouched
        from ..report import check_sections

        try:
            check_sections(args.card, "dataset-summary", "dataset-stats")
        except ValueError as err:
            raise UsageError(str(err)) from None
    st = stats(args.data)
    summary, text = summary_markdown(st), stats_markdown(st)
    print(f"{summary}\n\n{text}")
    if args.plot:
        stats_plot(st, args.plot)
        print(f"wrote {args.plot}")
    if args.card:
        import datetime

        from ..report import write_section

        plot = f" --plot {args.plot}" if args.plot else ""
        command = f"`.venv/bin/tvm-gnn dataset-stats --data {args.data} --card {args.card}{plot}`"
        head = f"Printed by {command} on {datetime.date.today().isoformat()}."
        write_section(args.card, "dataset-summary", f"{summary}\n\n({head})")
        write_section(args.card, "dataset-stats", f"{head}\n\n{text}")
        print(f"wrote the dataset-summary and dataset-stats sections of {args.card}")
    return 0


def _wide_spread(args) -> int:
    from ..collect import CollectConfig
    from ..collect.plan import wide_spread_markdown, wide_spread_plan
    from ..dataset import collection_rate
    from ..measure.hardware import hardware_name
    from ..measure.sampling import target_from

    cfg = CollectConfig(
        trials_per_task=args.trials_per_task,
        wide_spread=args.wide_spread,
        wide_spread_trials=args.wide_spread_trials,
    )
    hardware = args.hardware or hardware_name(target_from(args.target, args.num_cores))
    plan = wide_spread_plan(args.data, hardware, cfg)
    print(wide_spread_markdown(plan, hardware, cfg, collection_rate(args.data, hardware)))
    return 0


def _would_add(args) -> int:
    from ..collect import network_tasks, task_manifest
    from ..dataset import collection_rate, would_add, would_add_markdown
    from ..dataset.layout import check_root, user_cache
    from ..measure.hardware import hardware_name
    from ..measure.sampling import target_from
    from ..progress import bar

    networks = network_names(args.would_add)
    check_root(args.data)  # before minutes of task extraction
    target = target_from(args.target, args.num_cores)
    hardware = args.hardware or hardware_name(target)
    manifests, failed = {}, []
    log = Path(args.log_file or user_cache(WOULD_ADD_LOG))
    size = log.stat().st_size if log.exists() else 0
    with nullcontext() if args.verbose else console.tvm_logs_during(log):  # frontend warnings
        for net in bar(networks, "extracting tasks", not args.quiet, unit="network"):
            try:
                manifests[net] = task_manifest(network_tasks(net, target))
            except Exception as err:  # noqa: BLE001 - one network that does not import must not
                # cost the others' minutes of extraction
                logger.info("extracting %s's tasks failed", net, exc_info=True)  # shown with -v
                last_line = str(err).strip().splitlines()[-1:]  # none for an empty message
                failed.append(f"{net} ({': '.join([type(err).__name__, *last_line])})")
    if not args.verbose and log.exists() and log.stat().st_size > size:
        print(f"TVM's warnings while extracting tasks: {log}", file=sys.stderr)
    if manifests:
        rows = would_add(args.data, hardware, manifests)
        print(would_add_markdown(rows, hardware, collection_rate(args.data, hardware)))
    if failed:
        print(
            "tvm-gnn dataset-stats: tasks not extracted, left out (-v for the traceback): "
            + "; ".join(failed),
            file=sys.stderr,
        )
        return 1
    return 0


def _dataset_stats_parser(sub) -> None:
    p = sub.add_parser(
        "dataset-stats",
        help="counts and latency ranges of a dataset",
        description=cmd_dataset_stats.__doc__,
    )
    p.add_argument(
        "--data",
        type=input_folder,
        default="data",
        help="dataset root, raw or packed (default: data)",
    )
    p.add_argument(
        "--card",
        type=document_file,
        default=None,
        metavar="MARKDOWN",
        help="also write the output into the generated dataset-stats section of this markdown "
        "file (e.g. docs/dataset.md), keeping the rest of it",
    )
    p.add_argument(
        "--plot",
        type=plot_file,
        default=None,
        metavar="PNG",
        help="also draw per network its workloads (those no other network has apart) and its "
        "latency range (e.g. docs/dataset.png)",
    )
    p.add_argument(
        "--would-add",
        nargs="+",
        default=None,
        metavar="NETWORK",
        help="instead of the counts, extract these networks' tasks (names as collect's "
        "--network takes them) and print how many workloads each would add to the dataset's "
        "part for --target, and what collecting each would cost at the measured rate",
    )
    p.add_argument(
        "--log-file",
        type=output_file,
        default=None,
        help="with --would-add: where TVM's own output while extracting tasks goes unless -v "
        f"(appended; default: ~/.cache/tvm_gnn/{WOULD_ADD_LOG})",
    )
    wide_spread_args(
        p,
        "instead of the counts, print how widely the latencies of --target's measured tasks "
        "spread, and what `collect --wide-spread RATIO` would add",
    )
    p.add_argument(
        "--trials-per-task",
        type=positive_int,
        default=32,
        help="with --wide-spread: the collection's --trials-per-task (default: 32)",
    )
    p.add_argument(
        "--hardware",
        type=folder_name,
        default=None,
        metavar="NAME",
        help="with --would-add or --wide-spread: the hardware folder planned for, as collect's "
        "--hardware (default: named after --target and this machine)",
    )
    target_args(p)
    p.set_defaults(func=cmd_dataset_stats)


def add_parsers(sub) -> None:
    _dataset_stats_parser(sub)
