# Licensed under the Apache License, Version 2.0.
"""What ``tvm-gnn eval`` does with its results, for either tuner: ``--out``'s section checked
before the work, then the tables printed and written where asked."""

from __future__ import annotations

from .common import UsageError


def check_out(args) -> None:
    """Before the evaluation: a document whose markers are cut is refused untouched."""
    from ..report import check_sections

    if args.out:
        try:
            check_sections(args.out, args.section)
        except ValueError as err:
            raise UsageError(str(err)) from None


def write_results(args, res: dict, table: str, plot=None) -> None:
    """Print the tables; write them into ``--out``'s section, the plot and the JSON asked for."""
    from .. import atomic
    from ..report import write_section

    print(table)
    if args.out:
        write_section(args.out, args.section, table, title="Results")
        print(f"wrote the tables into {args.out}")
    if args.plot and plot is not None:
        plot(res, args.plot)
        print(f"wrote {args.plot}")
    if args.json:
        atomic.write_json(args.json, res)
