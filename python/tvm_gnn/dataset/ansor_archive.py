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
#: the dataset card of a hardware folder, written by :func:`write_card`
CARD = "README.md"


def hardware_folders(root) -> list[Path]:
    """The hardware folders of ``root/ansor/`` that hold Ansor records."""
    base = Path(root) / ANSOR
    return sorted(p for p in base.glob("*") if (p / RECORDS).is_dir()) if base.is_dir() else []


def network_names(folder: Path) -> list[str]:
    """The networks a hardware folder has tasks of (``network_info/NET.json``)."""
    return sorted(
        p.name[: -len(".json")]
        for p in (Path(folder) / INFO).glob("*.json")
        if not p.name.endswith(".workloads.json")
    )


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


def _log_counts(log: Path) -> tuple[int, int, set]:
    """``(records, valid, workload keys)`` of one log, raw or gzipped."""
    data = gzip.decompress(log.read_bytes()) if log.suffix == ".gz" else log.read_bytes()
    total = valid = 0
    keys = set()
    for line in data.decode().splitlines():
        try:
            rec = json.loads(line)
            costs, error = rec["r"][0], rec["r"][1]
            keys.add(rec["i"][0][0])
        except (ValueError, KeyError, IndexError, TypeError):
            continue  # a cut or foreign line: not a record
        total += 1
        valid += error == 0 and bool(costs) and all(math.isfinite(c) for c in costs)
    return total, valid, keys


def _task_log(folder: Path, task: dict) -> Path | None:
    log = folder / task["log"]
    packed = log.with_name(log.name + ".gz")
    return log if log.is_file() else packed if packed.is_file() else None


def network_counts(folder: Path) -> list[dict]:
    """Per network of a hardware folder: its tasks, those measured, their records and valid
    records (a task two networks share counts under both)."""
    out = []
    for net in network_names(folder):
        tasks = json.loads((folder / INFO / f"{net}.json").read_text())["tasks"]
        measured = total = valid = 0
        for t in tasks:
            log = _task_log(folder, t)
            if log is None:
                continue
            n, v, _ = _log_counts(log)
            measured += n > 0
            total, valid = total + n, valid + v
        out.append({"network": net, "tasks": len(tasks), "measured": measured,
                    "records": total, "valid": valid})  # fmt: skip
    return out


def card_markdown(folder: Path, held_out=()) -> str:
    """The dataset card of one hardware folder: what was measured, how, and per network."""
    (c,) = [c for c in counts(folder.parent.parent) if c["hardware"] == folder.name]
    runs = [json.loads(ln) for ln in (folder / INFO / "provenance.jsonl").read_text().splitlines()
            if ln.strip()] if (folder / INFO / "provenance.jsonl").is_file() else []  # fmt: skip
    last = runs[-1] if runs else {}
    rate = c["run_seconds"] / c["run_records"] if c["run_records"] else math.nan
    lines = [
        f"# Ansor dataset: {folder.name}",
        "",
        f"**{c['valid']:,} valid of {c['records']:,} records over {c['workloads']} distinct "
        f"workloads, from {len(c['networks'])} networks.** Written by `tvm-gnn pack` from the "
        "logs themselves; `tvm-gnn unpack` restores them for `collect --tuner ansor` to resume.",
        "",
        f"- Measured on: {last.get('cpu_model', '?')} (LLVM `{last.get('cpu_id', {}).get('llvm')}`"
        f"), {last.get('cores', '?')} cores; target `{last.get('target', '?')}`; TVM "
        f"{last.get('tvm_version', '?')} (`xtc-tvm-python-bindings`), auto_scheduler's "
        "`LocalBuilder` and `LocalRunner`.",
        f"- How: `{json.dumps(last.get('measure', {}))}`; "
        f"`{json.dumps(last.get('collect', {}))}` (the last run's settings; every run's are in "
        "`network_info/provenance.jsonl`).",
        f"- Collection: {len(runs)} runs added {c['run_records']:,} records in "
        f"{c['run_seconds'] / 3600:.2f} h ({rate:.2f} s a record, task extraction included).",
        "- Layout: `measure_records/(WORKLOAD_KEY,TARGET).json.gz`, one auto_scheduler log a task "
        "(`auto_scheduler.load_records` reads it gunzipped); `network_info/NET.json` (the tasks, "
        "their weights and logs), `NET.workloads.json` (the compute DAGs, registered before a log "
        "is read: `tvm_gnn.dataset.ansor_records`).",
        "- Records are valid when they ran without error; a failed one keeps its error code. A "
        "task two networks share is measured once and counted under both below.",
        "",
        "| network | role | tasks | tasks measured | records | valid |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for n in network_counts(folder):
        role = "held out (test)" if n["network"] in held_out else "training"
        lines.append(
            f"| {n['network']} | {role} | {n['tasks']} | {n['measured']} | {n['records']:,} "
            f"| {n['valid']:,} |"
        )
    return "\n".join(lines) + "\n"


def write_card(root, held_out=()) -> list[str]:
    """Write each hardware folder's card (:data:`CARD`) under ``root/ansor/``; the files."""
    written = []
    for folder in hardware_folders(root):
        atomic.write_text(folder / CARD, card_markdown(folder, held_out))
        written.append(str(folder / CARD))
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
            n, v, k = _log_counts(log)
            total, valid = total + n, valid + v
            keys |= k
        nets = network_names(folder)
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
