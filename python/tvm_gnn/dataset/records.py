# Licensed under the Apache License, Version 2.0.
"""The valid records of a network folder as samples, and as MetaSchedule records and candidates."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataError
from . import dbfile
from .layout import open_db_folder, read_tasks
from .workloads import Workloads

logger = logging.getLogger(__name__)


@dataclass
class Sample:
    """One valid measured candidate."""

    network: str
    task: str
    shash: str  # workload structural hash
    weight: int  # how often the network runs the task
    latency: float  # seconds (the median over the records of this program)
    line: int  # line in the record file (the first record of this program)
    program: str = ""  # structural hash of the scheduled program
    repeats: int = 1  # records of this same program that were merged into this sample


def samples(folder, max_line: int | None = None) -> tuple[list[Sample], dbfile.RecordScan]:
    """Valid samples of one network folder, and the scan (failures, invalid latencies).

    ``max_line``: only records on the record file's first ``max_line`` lines (a snapshot, see
    :func:`record_lines`); the scan still covers the whole file.
    """
    folder = Path(folder)
    plain = open_db_folder(folder)
    by_hash = {t["shash"]: t for t in read_tasks(folder)}
    scan = dbfile.read_records(plain)
    hashes = scan.workload_hashes
    out = []
    for r in scan.records:
        if r.failed or (max_line is not None and r.line > max_line):
            continue
        h = hashes[r.workload]
        t = by_hash.get(h, {"name": h, "weight": 1})
        out.append(Sample(folder.name, t["name"], h, int(t["weight"]), r.latency, r.line))
    return out, scan


def tuning_records(folder: Path, max_line: int | None = None, lines=None):
    """``(sample, TuningRecord or exception)`` for every valid record of a network folder (of
    its first ``max_line`` record lines, if given; of the record lines in ``lines`` only, if
    given: the others are not rebuilt).

    Records are rebuilt line by line (``JSONDatabase.get_all_tuning_records`` does not keep file
    order). A record TVM cannot rebuild comes with the exception instead of a TuningRecord, so
    one bad line never stops a whole dataset.
    """
    from tvm.s_tir import meta_schedule as ms

    plain = open_db_folder(Path(folder))
    got, scan = samples(folder, max_line)
    by_line = {r.line: r for r in scan.records}
    workloads = Workloads(folder, (plain / dbfile.WORKLOAD_FILE).read_text().splitlines())
    for s in got:
        if lines is not None and s.line not in lines:
            continue
        rec = by_line[s.line]
        try:
            yield s, ms.database.TuningRecord.from_json(rec.raw, workloads[rec.workload])
        except DataError:
            raise  # a file of the folder, not this record: every line would fail alike
        except Exception as err:  # noqa: BLE001 - TVM raises its own error types
            yield s, err


def program_id(candidate) -> str:
    """The scheduled program's identity within a workload (its structural hash, 16 hex digits):
    :attr:`Sample.program`."""
    import tvm_ffi

    return f"{tvm_ffi.structural_hash(candidate.sch.mod):016x}"


def distinct_programs(folder: Path, max_line: int | None = None):
    """``(sample, TuningRecord, MeasureCandidate)`` per distinct scheduled program of a folder
    (of its first ``max_line`` record lines, if given).

    Records of the same program in the same workload (a tiny design space sampled again and
    again) are merged: their latencies differ only by noise, and as separate samples they would
    make up pairs that no model can order. The sample keeps the median latency and the count.
    Records TVM cannot rebuild are logged and skipped.
    """
    merged: dict[tuple[str, str], tuple[Sample, object, object, list[float]]] = {}
    for s, record in tuning_records(folder, max_line):
        try:
            if isinstance(record, Exception):
                raise record
            cand = record.as_measure_candidate()
            program = program_id(cand)
        except Exception as err:  # noqa: BLE001 - one bad record must not stop the dataset
            logger.warning("%s line %d skipped: %s", folder, s.line, err)
            continue
        key = (s.shash, program)
        if key in merged:
            merged[key][3].append(s.latency)
        else:
            s.program = program
            merged[key] = (s, record, cand, [s.latency])
    for s, record, cand, lats in merged.values():
        s.latency, s.repeats = float(np.median(lats)), len(lats)
        yield s, record, cand
