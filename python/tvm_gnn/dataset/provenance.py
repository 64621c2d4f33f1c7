# Licensed under the Apache License, Version 2.0.
"""Which ``collect`` run measured which records of a network folder.

``collect`` appends each run's line to ``provenance.jsonl`` when the run starts, and the run's
records to ``database_tuning_record.json`` as it measures them, so the record file is the runs'
records one run after another. Since 2026-11-28 each run's line also counts the records it wrote
(``measured``, updated after every task), which places its records in the file: walking back
from the end, the last run holds the last ``measured`` lines, the run before it the lines before
those, and so on. What is left at the start belongs to the runs before the counts, and to any
count a killed run did not update: a killed run's last task is missing from its count, so the
lines near a boundary may belong to the run on either side of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .layout import read_provenance, record_lines


@dataclass(frozen=True)
class RunSpan:
    """Record lines ``first`` to ``last`` (1-based, inclusive) and the run that wrote them."""

    first: int
    last: int
    date: str  # when the run started (the earliest, for lines of uncounted runs)
    cpu: str | None  # LLVM's name for the run's CPU, where the run recorded it (``cpu_id``)
    counted: bool  # False: lines of runs that did not count their records, told apart by none

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


def run_spans(folder) -> list[RunSpan]:
    """The record lines of each ``collect`` run of ``folder``, in file order.

    Runs with a count get one span each (a run that wrote nothing gets none); the lines before
    the counted runs, if any, one uncounted span dated by the earliest run. Counts that add up
    to more lines than the file holds (a file cut short) are cut at its start.
    """
    runs = read_provenance(folder)
    total = record_lines(folder)
    spans, end = [], total
    for run in reversed(runs):
        measured = _count(run)
        if measured is None or measured <= 0 or end <= 0:
            continue
        first = max(1, end - measured + 1)
        spans.append(RunSpan(first, end, str(run.get("date", "")), run_cpu(run), counted=True))
        end = first - 1
    if end > 0:
        uncounted = [r for r in runs if _count(r) is None] or runs[:1]
        date = min((str(r.get("date", "")) for r in uncounted), default="")
        spans.append(RunSpan(1, end, date, None, counted=False))
    return spans[::-1]


def _count(run: dict) -> int | None:
    try:
        return int(run["measured"])
    except (KeyError, TypeError, ValueError):
        return None


def run_cpu(run: dict) -> str | None:
    """LLVM's name for the CPU a provenance line's run measured on; None where it is not there
    (runs before 2026-11-30 did not record it)."""
    cpu = run.get("cpu_id")
    llvm = cpu.get("llvm") if isinstance(cpu, dict) else None
    return str(llvm) if llvm else None


def recorded_cpus(hardware_folder) -> set[tuple[str, str | None]]:
    """The CPUs the runs of a hardware folder measured on, as its network folders' provenance
    lines record them: ``(model name, LLVM's CPU name)``, the latter None on lines from before
    it was recorded. Runs through an RPC tracker (remote devices) are left out."""
    from pathlib import Path

    found = set()
    for prov in sorted(Path(hardware_folder).glob("*/provenance.jsonl")):
        for run in read_provenance(prov.parent):
            model = str(run.get("cpu_model", ""))
            if model and not model.startswith("remote devices"):
                found.add((model, run_cpu(run)))
    return found
