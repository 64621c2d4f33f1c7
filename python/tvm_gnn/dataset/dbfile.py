# Licensed under the Apache License, Version 2.0.
"""Reading and checking MetaSchedule JSON databases line by line, without TVM.

A database folder holds ``database_workload.json`` (one ``[shash, base64 IR]`` per line; a
record refers to its workload by line number) and ``database_tuning_record.json`` (one
``[workload_index, [trace, run_secs, target, args_info]]`` per line). A job killed mid-write can
leave a torn last line; other damage is possible too. :func:`repair` moves every line that does
not parse into ``<file>.rejected`` (with its line number) and reports it, so that TVM's
``JSONDatabase`` can load the rest. Nothing is dropped silently.

Latencies: ``run_secs`` ``null`` (or MetaSchedule's ``1e10``) is a failed build or run, kept as a
failure. A record's latency is :func:`tvm_gnn.costs.run_cost` of its run times. NaN, infinite,
zero or negative latencies are invalid; :func:`read_records` counts and
skips them.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

from .. import atomic
from ..costs import FAILED_COST, run_cost

logger = logging.getLogger(__name__)

WORKLOAD_FILE = "database_workload.json"
RECORD_FILE = "database_tuning_record.json"


@dataclass
class LineProblem:
    path: str
    line: int  # 1-based
    reason: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class Record:
    """One measured candidate, as stored."""

    workload: int  # line index into database_workload.json
    trace: list  # the trace JSON
    run_secs: list[float] | None  # None for a failed build/run
    line: int  # 1-based line in the record file
    raw: list = field(default_factory=list, repr=False)  # [trace, run_secs, target, args_info]

    @property
    def failed(self) -> bool:
        return self.run_secs is None or any(s >= FAILED_COST for s in self.run_secs)

    @property
    def latency(self) -> float:
        """The cost in seconds (:func:`tvm_gnn.costs.run_cost`: the median run time); ``inf``
        for a failure."""
        cost = None if self.failed else run_cost(self.run_secs)
        return math.inf if cost is None else cost


@dataclass
class RecordScan:
    records: list[Record] = field(default_factory=list)
    workload_hashes: list[str] = field(default_factory=list)  # by workload line, as Record.workload
    problems: list[LineProblem] = field(default_factory=list)  # lines that do not parse
    invalid_latency: list[LineProblem] = field(default_factory=list)  # NaN/inf/<=0 latencies


def _check_workload(obj) -> None:
    if not (isinstance(obj, list) and len(obj) == 2 and all(isinstance(x, str) for x in obj)):
        raise ValueError("not a [shash, IR] pair")


def _parse_record(obj, num_workloads: int | None) -> tuple[int, list, list | None, list]:
    if not (isinstance(obj, list) and len(obj) == 2 and isinstance(obj[0], int)):
        raise ValueError("not a [workload_index, record] pair")
    wl, rec = obj
    if not (isinstance(rec, list) and len(rec) >= 2 and isinstance(rec[0], list)):
        raise ValueError("record is not [trace, run_secs, ...]")
    if num_workloads is not None and not 0 <= wl < num_workloads:
        raise ValueError(f"workload index {wl} out of range (database has {num_workloads})")
    secs = rec[1]
    if secs is not None and not (
        isinstance(secs, list) and secs and all(isinstance(s, (int, float)) for s in secs)
    ):
        raise ValueError("run_secs is neither null nor a list of numbers")
    return wl, rec[0], secs, rec


def _scan_lines(path: Path, check):
    good, bad = [], []
    if not path.exists():
        return good, bad
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                check(json.loads(line))
                good.append(line if line.endswith("\n") else line + "\n")
            except (ValueError, TypeError) as err:
                bad.append((i, line, f"{type(err).__name__}: {err}"[:200]))
    return good, bad


def _atomic_write(path: Path, lines: list[str]) -> None:
    with atomic.atomic_open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def repair(folder) -> list[LineProblem]:
    """Move unparseable lines of a database folder to ``*.rejected`` files; report each.

    Workload lines are never removed unless they do not parse at all, because records refer to
    workloads by line number; a record pointing at a missing workload is rejected instead.
    """
    folder = Path(folder)
    problems: list[LineProblem] = []
    wl_path, rec_path = folder / WORKLOAD_FILE, folder / RECORD_FILE
    wl_good, wl_bad = _scan_lines(wl_path, _check_workload)
    if wl_bad:
        # Removing a workload line would renumber the ones after it; only a torn *last* line can
        # go safely. Anything else is reported and left for a human.
        last = max(i for i, _, _ in wl_bad)
        n_lines = len(wl_good) + len(wl_bad)
        if len(wl_bad) == 1 and last == n_lines:
            _reject(wl_path, wl_bad, problems)
            _atomic_write(wl_path, wl_good)
        else:
            raise ValueError(
                "corrupt workload lines in the middle of "
                + ", ".join(f"{wl_path}:{i}" for i, _, _ in wl_bad)
                + "; records refer to workloads by line, so this cannot be repaired automatically"
            )
    n_wl = len(wl_good)
    rec_good, rec_bad = _scan_lines(rec_path, lambda o: _parse_record(o, n_wl))
    if rec_bad:
        _reject(rec_path, rec_bad, problems)
        _atomic_write(rec_path, rec_good)
    for p in problems:
        logger.warning("skipped corrupt database line %s", p)
    return problems


def _reject(path: Path, bad, problems: list[LineProblem]) -> None:
    with open(path.with_name(path.name + ".rejected"), "a", encoding="utf-8") as f:
        for i, line, reason in bad:
            f.write(json.dumps({"line": i, "reason": reason, "text": line.rstrip("\n")}) + "\n")
            problems.append(LineProblem(str(path), i, reason))


def read_workload_hashes(folder) -> list[str]:
    """The structural hash of each workload, by line index (unparseable lines give '')."""
    out = []
    path = Path(folder) / WORKLOAD_FILE
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
                _check_workload(obj)
                out.append(obj[0])
            except (ValueError, TypeError):
                out.append("")
    return out


def read_records(folder) -> RecordScan:
    """All records of a database folder; corrupt lines and invalid latencies reported, skipped."""
    folder = Path(folder)
    scan = RecordScan(workload_hashes=read_workload_hashes(folder))
    n_wl = len(scan.workload_hashes)
    path = folder / RECORD_FILE
    if not path.exists():
        return scan
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                wl, trace, secs, raw = _parse_record(json.loads(line), n_wl)
            except (ValueError, TypeError) as err:
                scan.problems.append(LineProblem(str(path), i, f"{type(err).__name__}: {err}"))
                continue
            if secs is not None and not all(math.isfinite(s) and s > 0 for s in secs):
                scan.invalid_latency.append(LineProblem(str(path), i, f"invalid run_secs {secs}"))
                continue
            scan.records.append(Record(wl, trace, secs, i, raw))
    for p in scan.problems:
        logger.warning("skipped corrupt database line %s", p)
    return scan
