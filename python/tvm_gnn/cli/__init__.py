# Licensed under the Apache License, Version 2.0.
"""The ``tvm-gnn`` command line. Each subcommand is a thin layer over an importable function.

One module per command group: :mod:`~.tuning` (demo, tune), :mod:`~.data` (collect, pack,
unpack), :mod:`~.stats` (dataset-stats), :mod:`~.training` (train), :mod:`~.evaluation` (eval),
:mod:`~.featurizer` (featurize, embeddings); :mod:`~.common` holds what they share.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

from ..errors import CheckpointError
from ..nn import scratch
from ..tvm_compat import LEGACY
from . import data, evaluation, featurizer, signals, stats, training, tuning
from .common import OneLineParser, UsageError
from .data import network_names
from .evaluation import RESULTS_SECTION
from .training import featurizer_config

__all__ = [
    "RESULTS_SECTION",
    "UsageError",
    "build_parser",
    "main",
    "network_names",
    "featurizer_config",
]

logger = logging.getLogger("tvm_gnn")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="tvm-gnn",
        description="A graph-neural-network cost model for Apache TVM MetaSchedule.",
    )
    _console_flags(parser, default=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # the order of `tvm-gnn --help`; under TVM 0.19 (Ansor's environment) the commands that
    # work there: tune, train, eval and collect with --tuner ansor (docs/ansor.md)
    groups = (
        (tuning, training, evaluation, data)
        if LEGACY
        else (tuning, training, evaluation, data, stats, featurizer)
    )
    for group in groups:
        group.add_parsers(sub)
    for command in sub.choices.values():  # the same flags on every command, before or after it
        _console_flags(command, default=argparse.SUPPRESS)
    return parser


def _console_flags(parser, default) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default,
        help="show TVM's and MetaSchedule's logs on the console, and log at INFO level",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="no progress bars"
    )


def main(argv=None) -> int:
    if sys.stdout is None:  # started with standard output closed (`>&-`): Python sets it None
        if sys.stderr is not None:
            sys.stderr.write(
                "tvm-gnn: error: standard output is closed; give it a file or /dev/null "
                "(`> out.txt`, `> /dev/null`)\n"
            )
        return 2
    # the run's own temporary folder from the start: building the parser imports torch, which
    # makes its compiler's cache folder in the temp folder
    with signals.run_folder():
        return _main(argv)


def _main(argv) -> int:
    scratch.quiet_torch_notices()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if argv is None:  # the program's own process (not a caller's, e.g. a test's): own the signals
        signals.install(args.command)
    _warn_more_cores(args)
    try:
        code = args.func(args)
        sys.stdout.flush()  # a reader gone away shows here, not in Python's exit
        return code
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush
        return 128 + signal.SIGPIPE
    except (UsageError, CheckpointError, OSError, ValueError) as err:  # OSError names its path
        print(f"tvm-gnn {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tvm-gnn {args.command}: interrupted", file=sys.stderr)
        return 130


def _warn_more_cores(args) -> None:
    """``--num-cores`` above this machine's cores, for this machine, is probably a mistake: its
    threads would share the cores and the latencies would say so. A device behind
    ``--rpc-tracker`` has cores of its own."""
    from ..measure.hardware import usable_cores

    cores = getattr(args, "num_cores", None)
    if cores and not getattr(args, "rpc_tracker", None) and cores > usable_cores():
        logging.getLogger("tvm_gnn").warning(
            "--num-cores %d is more than the %d cores this process may use here; its threads "
            "will share them",
            cores,
            usable_cores(),
        )


if __name__ == "__main__":
    sys.exit(main())
