# Licensed under the Apache License, Version 2.0.
"""The ``tvm-gnn`` command line. Each subcommand is a thin layer over an importable function.

One module per command group: :mod:`~.tuning` (demo, tune), :mod:`~.data` (collect, pack,
unpack, dataset-stats), :mod:`~.models` (train, eval), :mod:`~.graphs` (featurize, embeddings);
:mod:`~.common` holds what they share.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import CheckpointError
from . import data, graphs, models, tuning
from .common import UsageError
from .data import network_names
from .models import RESULTS_SECTION, train_featurizer

__all__ = [
    "RESULTS_SECTION",
    "UsageError",
    "build_parser",
    "main",
    "network_names",
    "train_featurizer",
]

logger = logging.getLogger("tvm_gnn")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tvm-gnn",
        description="A graph-neural-network cost model for Apache TVM MetaSchedule.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (tuning, models, data, graphs):  # the order of `tvm-gnn --help`
        group.add_parsers(sub)
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
