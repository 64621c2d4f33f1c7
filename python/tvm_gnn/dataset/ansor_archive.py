# Licensed under the Apache License, Version 2.0.
"""Ansor's records (``collect --tuner ansor``): ``RAW/ansor/`` to ``data/ansor/`` (gzip,
committed) and back, in TenSet's layout.

Under ``ansor/HARDWARE/``: ``measure_records/(WORKLOAD_KEY,TARGET).json`` (auto_scheduler's log of
one task; packed as ``.json.gz``) and ``network_info/`` (each network's tasks, the runs'
provenance; copied as they are). Packing is deterministic (:func:`.archive.gzip_bytes`: a cut
last line is left out), rewrites only what changed, and refuses to replace a packed log with one
of fewer lines, as the MetaSchedule archive does; unpacking writes only logs the raw folder does
not have yet, so ``collect`` resumes from the committed records.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

from .. import atomic
from ..lock import one_writer
from .archive import gzip_bytes
from .layout import count_lines

ANSOR = "ansor"
RECORDS = "measure_records"
INFO = "network_info"


def hardware_folders(root) -> list[Path]:
    """The hardware folders of ``root/ansor/`` that hold Ansor records."""
    base = Path(root) / ANSOR
    return sorted(p for p in base.glob("*") if (p / RECORDS).is_dir()) if base.is_dir() else []


def pack_ansor(raw_root, out_root, force: bool = False) -> list[str]:
    """Gzip every Ansor log of ``raw_root`` into ``out_root`` (same layout); the files written."""
    written = []
    for folder in hardware_folders(raw_root):
        dest = Path(out_root) / ANSOR / folder.name
        logs = sorted((folder / RECORDS).glob("*.json"))
        if not force:
            for log in logs:
                old = dest / RECORDS / (log.name + ".gz")
                if old.exists() and count_lines(log) < count_lines(old):
                    raise ValueError(
                        f"{log} has fewer lines than {old}; run `tvm-gnn unpack` before "
                        "collecting on a new machine, or pass --force"
                    )
        with one_writer(folder, "tvm-gnn pack"), one_writer(dest, "tvm-gnn pack"):
            for log in logs:
                gz = dest / RECORDS / (log.name + ".gz")
                packed = gzip_bytes(log, log.name)
                if not (gz.exists() and gz.read_bytes() == packed):
                    atomic.write_bytes(gz, packed)
                    written.append(str(gz))
            for info in sorted((folder / INFO).glob("*")):
                copy = dest / INFO / info.name
                if info.is_file() and not (
                    copy.exists() and copy.read_bytes() == info.read_bytes()
                ):
                    atomic.write_bytes(copy, info.read_bytes())
    return written


def unpack_ansor(packed_root, raw_root) -> list[str]:
    """Gunzip the Ansor logs of ``packed_root`` that ``raw_root`` lacks; the files written."""
    written = []
    for folder in hardware_folders(packed_root):
        dest = Path(raw_root) / ANSOR / folder.name
        with one_writer(dest, "tvm-gnn unpack"):
            for gz in sorted((folder / RECORDS).glob("*.json.gz")):
                log = dest / RECORDS / gz.name[: -len(".gz")]
                if not log.exists():
                    atomic.write_bytes(log, gzip.decompress(gz.read_bytes()))
                    written.append(str(log))
            for info in sorted((folder / INFO).glob("*")):
                if info.is_file() and not (dest / INFO / info.name).exists():
                    atomic.write_bytes(dest / INFO / info.name, info.read_bytes())
    return written


def counts(root) -> list[dict]:
    """Per hardware folder of ``root/ansor/`` (raw or packed): its networks, tasks (logs),
    records, valid records (run without error, finite cost) and distinct workload keys; read from
    the JSON lines alone (no TVM)."""
    out = []
    for folder in hardware_folders(root):
        logs = sorted((folder / RECORDS).glob("*.json*"))
        total = valid = 0
        keys = set()
        for log in logs:
            data = gzip.decompress(log.read_bytes()) if log.suffix == ".gz" else log.read_bytes()
            for line in data.decode().splitlines():
                try:
                    rec = json.loads(line)
                    costs, error = rec["r"][0], rec["r"][1]
                    keys.add(rec["i"][0][0])
                except (ValueError, KeyError, IndexError, TypeError):
                    continue  # a cut or foreign line: not a record
                total += 1
                valid += error == 0 and bool(costs) and all(math.isfinite(c) for c in costs)
        nets = sorted(
            p.name[: -len(".json")]
            for p in (folder / INFO).glob("*.json")
            if not p.name.endswith(".workloads.json")
        )
        measured, seconds = _runs(folder / INFO / "provenance.jsonl")
        out.append({"hardware": folder.name, "networks": nets, "logs": len(logs),
                    "records": total, "valid": valid, "workloads": len(keys),
                    "run_records": measured, "run_seconds": seconds})  # fmt: skip
    return out


def _runs(path: Path) -> tuple[int, float]:
    """Records the collect runs of a folder added, and the seconds they took (their provenance
    lines; a killed run counts up to its last finished task)."""
    measured, seconds = 0, 0.0
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                run = json.loads(line)
                measured, seconds = measured + int(run["measured"]), seconds + float(run["seconds"])
            except (ValueError, KeyError, TypeError):
                continue
    return measured, seconds
