# Licensed under the Apache License, Version 2.0.
"""How fast ``collect`` measures: seconds a record over the timed runs of ``provenance.jsonl``,
and which CPU generation each run measured on."""

from __future__ import annotations

from .layout import check_root, network_folders, read_provenance
from .provenance import run_cpu


def collection_rate(root, hardware: str) -> float | None:
    """Seconds a record over the timed ``collect`` runs of ``hardware``'s folders (None if none)."""
    rate = no_runs()
    for hw, _, folder in network_folders(check_root(root)):
        if hw == hardware:
            add_timed_runs(rate, folder)
    return seconds_a_record(rate)


def no_runs() -> dict:
    return {"runs": 0, "records": 0, "seconds": 0.0, "runs_by_cpu": {}}


def seconds_a_record(rate: dict) -> float | None:
    """A ``no_runs``-shaped total's seconds a record (None if its runs wrote no record)."""
    return rate["seconds"] / rate["records"] if rate["records"] else None


#: how ``runs_by_cpu`` counts a run whose provenance predates ``cpu_id`` (before 2026-11-30)
UNRECORDED_CPU = "not recorded"


def add_timed_runs(rate: dict, folder) -> None:
    for run in _timed_runs(folder):
        rate["runs"] += 1
        rate["records"] += run["measured"]
        rate["seconds"] += run["seconds"]
        by_cpu = rate["runs_by_cpu"]
        by_cpu[run["cpu"]] = by_cpu.get(run["cpu"], 0) + 1


def _timed_runs(folder) -> list[dict]:
    """The ``collect`` runs of ``provenance.jsonl`` that recorded their time (runs before
    2026-11-28 did not) and wrote records; a line that is not such a record is left out of the
    rate, and so is a run that wrote none (a finished network run again: its task extraction is
    the cost of resuming, not of measuring)."""
    runs = []
    for run in read_provenance(folder):
        try:
            timed = {"measured": int(run["measured"]), "seconds": float(run["seconds"])}
        except (ValueError, KeyError, TypeError):
            continue
        runs.append({**timed, "cpu": run_cpu(run) or UNRECORDED_CPU})
    return [r for r in runs if r["measured"] > 0]


def rate_line(hw: str, rate: dict) -> str:
    if not rate["records"]:
        return f"Collection rate, {hw}: no record measured by a timed run yet"
    hours = rate["seconds"] / 3600
    return (
        f"Collection rate, {hw}: {seconds_a_record(rate):.2f} s a record "
        f"({rate['records'] / hours:,.0f} an hour; {rate['records']} records in {hours:.2f} h "
        f"over {rate['runs']} timed run{'s' if rate['runs'] != 1 else ''}, task extraction "
        f"included){_cpus(rate['runs_by_cpu'])}"
    )


def _cpus(runs_by_cpu: dict) -> str:
    """``"; runs by the CPU LLVM detected: znver3 2, not recorded 77"``, or ``""`` while no run
    recorded its CPU (one model name can cover several CPU generations: ``cpu_identity``)."""
    if set(runs_by_cpu) <= {UNRECORDED_CPU}:
        return ""
    named = sorted((c, n) for c, n in runs_by_cpu.items() if c != UNRECORDED_CPU)
    if UNRECORDED_CPU in runs_by_cpu:
        named.append((UNRECORDED_CPU, runs_by_cpu[UNRECORDED_CPU]))
    return "; runs by the CPU LLVM detected: " + ", ".join(f"{c} {n}" for c, n in named)
