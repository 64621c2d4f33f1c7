# Licensed under the Apache License, Version 2.0.
"""The measured dataset: layout, packing, statistics, loading and graph caching.

Layout (``docs/dataset.md``)::

    <root>/<hardware>/<network>/database_workload.json[.gz]
                               /database_tuning_record.json[.gz]
                               /tasks.json          # task name, workload shash, weight
                               /provenance.jsonl    # one line per collect run

``data_raw/`` (uncompressed, where ``tvm-gnn collect`` writes) and ``data/`` (gzip, committed) have
the same layout. :func:`load_graphs` yields one graph per valid record, labelled, cached on disk
per featurizer version.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import dbfile

logger = logging.getLogger(__name__)

DB_FILES = (dbfile.WORKLOAD_FILE, dbfile.RECORD_FILE)
META_FILES = ("tasks.json", "provenance.jsonl", "exhausted.json")


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


def network_folders(root) -> Iterator[tuple[str, str, Path]]:
    """``(hardware, network, folder)`` for every database folder under ``root``."""
    for folder in sorted(Path(root).glob("*/*")):
        if folder.is_dir() and any((folder / f).exists() or (folder / (f + ".gz")).exists()
                                   for f in DB_FILES):  # fmt: skip
            yield folder.parent.name, folder.name, folder


def _contents_digest(folder: Path) -> str:
    """sha1 over a network folder's database files, plain or gzipped, by name and contents: what
    the gunzipped copy and the graph cache are keyed by, so a copied or re-cloned dataset keeps
    them and other contents never reuse them."""
    stamp = hashlib.sha1()
    for f in DB_FILES:
        p = folder / f if (folder / f).exists() else folder / (f + ".gz")
        stamp.update(f"{p.name}:".encode() + hashlib.sha1(p.read_bytes()).digest())
    return stamp.hexdigest()


def _open_db_folder(folder: Path) -> Path:
    """A folder with plain JSON files: ``folder`` itself, or a cache of its gunzipped files.

    The cache is keyed by the packed files' contents, and each file lands whole (written aside,
    then renamed), so a run killed while gunzipping or a checkout with other contents never
    reads a cut or stale copy."""
    if all((folder / f).exists() for f in DB_FILES):
        return folder
    out = Path(tempfile.gettempdir()) / "tvm_gnn_db" / _contents_digest(folder)[:16]
    out.mkdir(parents=True, exist_ok=True)
    for f in DB_FILES:
        if (out / f).exists():
            continue
        tmp = out / f"{f}.{os.getpid()}.tmp"
        try:
            with gzip.open(folder / (f + ".gz"), "rb") as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (EOFError, gzip.BadGzipFile) as err:
            tmp.unlink(missing_ok=True)
            raise ValueError(f"{folder / (f + '.gz')} is not a whole gzip file ({err}); "
                             "restore it from git") from None  # fmt: skip
        os.replace(tmp, out / f)
    return out


def _count_lines(path: Path) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return sum(1 for _ in f)


def record_lines(folder) -> int:
    """Lines of a network folder's record file (plain or gzipped; 0 without one).

    ``collect`` only ever appends to that file, so its first N lines are a snapshot of the
    network's records: a model records N per network and is later compared on exactly those.
    """
    folder = Path(folder)
    for name in (dbfile.RECORD_FILE, dbfile.RECORD_FILE + ".gz"):
        if (folder / name).exists():
            return _count_lines(folder / name)
    return 0


def unpack(packed_root, raw_root) -> list[str]:
    """Gunzip ``packed_root`` into ``raw_root`` where ``raw_root`` has no database yet.

    Run it before ``tvm-gnn collect`` on a machine without ``data_raw/``, so that collection
    resumes from the committed dataset instead of starting over.
    """
    written = []
    for hw, net, folder in network_folders(packed_root):
        dest = Path(raw_root) / hw / net
        if any((dest / f).exists() for f in DB_FILES):
            continue
        dest.mkdir(parents=True, exist_ok=True)
        for f in DB_FILES:
            if (folder / (f + ".gz")).exists():
                with gzip.open(folder / (f + ".gz"), "rb") as s, open(dest / f, "wb") as d:
                    shutil.copyfileobj(s, d)
                written.append(str(dest / f))
        for f in META_FILES:
            if (folder / f).exists():
                shutil.copyfile(folder / f, dest / f)
    return written


def pack(raw_root, out_root, force: bool = False) -> list[str]:
    """Gzip every database of ``raw_root`` into ``out_root`` (same layout), deterministically.

    Refuses (``ValueError``) to replace a packed file with one of fewer lines unless ``force``:
    a raw folder that started over must not overwrite what was measured before (``unpack``).
    A file whose packed bytes would not change is left untouched, mtime included, so the
    gunzipped copy that :func:`samples` reads (keyed by size and mtime) stays valid and
    git sees no change. Returns the files written.
    """
    written = []
    for hw, net, folder in network_folders(raw_root):
        dest = Path(out_root) / hw / net
        for f in DB_FILES:
            old = dest / (f + ".gz")
            if not force and (folder / f).exists() and old.exists():
                if _count_lines(folder / f) < _count_lines(old):
                    raise ValueError(
                        f"{folder / f} has fewer lines than {old}; run `tvm-gnn unpack` before "
                        "collecting on a new machine, or pass --force"
                    )
    for hw, net, folder in network_folders(raw_root):
        dest = Path(out_root) / hw / net
        dest.mkdir(parents=True, exist_ok=True)
        for f in DB_FILES:
            src = folder / f
            if not src.exists():
                continue
            tmp, gz = dest / (f + ".gz.tmp"), dest / (f + ".gz")
            with open(src, "rb") as s, open(tmp, "wb") as raw:
                with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as z:
                    shutil.copyfileobj(s, z)
            if _same_bytes(tmp, gz):
                tmp.unlink()
                continue
            os.replace(tmp, gz)
            written.append(str(gz))
        for f in META_FILES:
            if (folder / f).exists() and not _same_bytes(folder / f, dest / f):
                shutil.copyfile(folder / f, dest / f)
    return written


def _same_bytes(a: Path, b: Path) -> bool:
    return b.exists() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def samples(folder, max_line: int | None = None) -> tuple[list[Sample], dbfile.RecordScan]:
    """Valid samples of one network folder, and the scan (failures, invalid latencies).

    ``max_line``: only records on the record file's first ``max_line`` lines (a snapshot, see
    :func:`record_lines`); the scan still covers the whole file.
    """
    folder = Path(folder)
    plain = _open_db_folder(folder)
    hashes = dbfile.read_workload_hashes(plain)
    tasks = json.loads((folder / "tasks.json").read_text()) if (folder / "tasks.json").exists() \
        else []  # fmt: skip
    by_hash = {t["shash"]: t for t in tasks}
    scan = dbfile.read_records(plain)
    out = []
    for r in scan.records:
        if r.failed or (max_line is not None and r.line > max_line):
            continue
        h = hashes[r.workload]
        t = by_hash.get(h, {"name": h, "weight": 1})
        out.append(Sample(folder.name, t["name"], h, int(t["weight"]), r.latency, r.line))
    return out, scan


def hardware_names(root) -> list[str]:
    """Hardware folders under ``root``."""
    return sorted({hw for hw, _, _ in network_folders(root)})


def resolve_hardware(root, hardware: str | None = None) -> str:
    """``hardware`` checked against ``root``, or the only hardware folder there.

    Raises ``ValueError`` naming what is there when there is no dataset, several hardware folders
    and none chosen, or the chosen one is missing.
    """
    names = hardware_names(root)
    if not names:
        raise ValueError(f"no dataset under {root} (expected HARDWARE/NETWORK/database_*.json "
                         "folders, as `tvm-gnn collect` writes)")  # fmt: skip
    if hardware is None:
        if len(names) != 1:
            raise ValueError(f"{root} holds hardware {names}; choose one with --hardware")
        return names[0]
    if hardware not in names:
        raise ValueError(f"no hardware folder {hardware!r} under {root} (found {names})")
    return hardware


def training_networks(root, hardware: str, held_out) -> list[str]:
    """Networks of ``root/hardware`` that are not in ``held_out``, sorted."""
    return sorted({net for hw, net, _ in network_folders(root)
                   if hw == hardware and net not in set(held_out)})  # fmt: skip


def stats(root, held_out=None) -> dict:
    """Per-network counts, latency range and workloads shared with the held-out networks.

    A workload under 32 valid records is either short (collection stopped in it, or it predates
    ``exhausted.json``) or complete with fewer programs than that: ``under_32_exhausted`` counts
    the latter, the workloads whose design space ``collect`` found no new program in.
    """
    from .collect import read_exhausted
    from .networks import HELD_OUT

    held_out = set(held_out or HELD_OUT)
    nets, by_wl = {}, {}
    for hw, net, folder in network_folders(root):
        got, scan = samples(folder)
        per_wl = {}
        traces = {r.line: json.dumps(r.trace, separators=(",", ":")) for r in scan.records}
        distinct = set()
        for s in got:
            per_wl[s.shash] = per_wl.get(s.shash, 0) + 1
            by_wl.setdefault(s.shash, set()).add(net)
            distinct.add((s.shash, traces[s.line]))
        lat = np.array([s.latency for s in got]) if got else np.zeros(0)
        short = {h for h, c in per_wl.items() if c < 32}
        nets[net] = {
            "hardware": hw,
            "tasks": len(json.loads((folder / "tasks.json").read_text()))
            if (folder / "tasks.json").exists() else 0,
            "workloads_measured": len(per_wl),
            "valid": len(got),
            "distinct": len(distinct),
            "failed": sum(r.failed for r in scan.records),
            "invalid_latency": len(scan.invalid_latency),
            "corrupt_lines": len(scan.problems),
            "workloads_under_32": len(short),
            "under_32_exhausted": len(short & read_exhausted(folder)),
            "min_ms": float(lat.min() * 1e3) if len(lat) else None,
            "max_ms": float(lat.max() * 1e3) if len(lat) else None,
        }  # fmt: skip
    shared = sorted(
        h for h, ns in by_wl.items() if ns & held_out and ns - held_out
    )
    return {"networks": nets, "distinct_workloads": len(by_wl), "shared_with_held_out": {
        h: sorted(by_wl[h]) for h in shared}}  # fmt: skip


def stats_markdown(st: dict) -> str:
    rows = ["| network | hardware | tasks | workloads measured | valid | distinct traces | failed | "
            "invalid | workloads < 32 valid (exhausted) | latency range (ms) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    tot = {"valid": 0, "distinct": 0, "failed": 0, "invalid_latency": 0}
    for net, n in st["networks"].items():
        rng = f"{n['min_ms']:.4f} - {n['max_ms']:.2f}" if n["min_ms"] is not None else "-"
        rows.append(f"| {net} | {n['hardware']} | {n['tasks']} | {n['workloads_measured']} | "
                    f"{n['valid']} | {n['distinct']} | {n['failed']} | {n['invalid_latency']} | "
                    f"{n['workloads_under_32']} ({n['under_32_exhausted']}) | {rng} |")  # fmt: skip
        for k in tot:
            tot[k] += n[k]
    rows.append(f"| **total** | | | {st['distinct_workloads']} distinct | {tot['valid']} | "
                f"{tot['distinct']} | {tot['failed']} | {tot['invalid_latency']} | | |")  # fmt: skip
    shared = st["shared_with_held_out"]
    rows += ["", f"Workloads shared between held-out and training networks: {len(shared)}"]
    rows += [f"- `{h}`: {', '.join(ns)}" for h, ns in shared.items()]
    return "\n".join(rows)


SPLITS = ("network", "workload", "random")


def tuning_records(folder: Path, max_line: int | None = None):
    """``(sample, TuningRecord or exception)`` for every valid record of a network folder (of
    its first ``max_line`` record lines, if given).

    Records are rebuilt line by line (``JSONDatabase.get_all_tuning_records`` does not keep file
    order). A record TVM cannot rebuild comes with the exception instead of a TuningRecord, so
    one bad line never stops a whole dataset.
    """
    from tvm.s_tir import meta_schedule as ms

    plain = _open_db_folder(Path(folder))
    got, scan = samples(folder, max_line)
    by_line = {r.line: r for r in scan.records}
    wl_lines = (plain / dbfile.WORKLOAD_FILE).read_text().splitlines()
    workloads: dict[int, object] = {}
    for s in got:
        rec = by_line[s.line]
        try:
            if rec.workload not in workloads:
                workloads[rec.workload] = ms.database.Workload.from_json(
                    json.loads(wl_lines[rec.workload]))
            yield s, ms.database.TuningRecord.from_json(rec.raw, workloads[rec.workload])
        except Exception as err:  # noqa: BLE001 - TVM raises its own error types
            yield s, err


def distinct_programs(folder: Path, max_line: int | None = None):
    """``(sample, TuningRecord, MeasureCandidate)`` per distinct scheduled program of a folder
    (of its first ``max_line`` record lines, if given).

    Records of the same program in the same workload (a tiny design space sampled again and
    again) are merged: their latencies differ only by noise, and as separate samples they would
    make up pairs that no model can order. The sample keeps the median latency and the count.
    Records TVM cannot rebuild are logged and skipped.
    """
    import tvm_ffi

    merged: dict[tuple[str, str], tuple[Sample, object, object, list[float]]] = {}
    for s, record in tuning_records(folder, max_line):
        try:
            if isinstance(record, Exception):
                raise record
            cand = record.as_measure_candidate()
            program = f"{tvm_ffi.structural_hash(cand.sch.mod):016x}"
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


def _featurize_folder(folder: Path, config, max_line: int | None = None):
    """Graphs (labelled with ``latency``) of one network folder's distinct programs."""
    import torch

    from .graph import featurize

    graphs, kept, skipped = [], [], 0
    for s, _, cand in distinct_programs(folder, max_line):
        try:
            g = featurize(cand.sch.mod, config)
        except Exception as err:  # noqa: BLE001 - one bad record must not stop the dataset
            logger.warning("%s line %d not featurized: %s", folder, s.line, err)
            skipped += 1
            continue
        g.latency = torch.tensor(s.latency, dtype=torch.float64)
        graphs.append(g)
        kept.append(s)
    return graphs, kept, skipped


#: Bumped when what load_graphs caches changes (2: one sample per distinct program).
CACHE_FORMAT = 2


def snapshot_line(folder, snapshot: dict | None) -> int | None:
    """``max_line`` that reads a network folder as ``snapshot`` (``{network: lines}``) saw it.

    None (the whole file) when the snapshot is None, does not name the folder's network, or the
    file has not grown since; ValueError when the file is shorter: it is not the data the snapshot
    was taken of.
    """
    lines = (snapshot or {}).get(Path(folder).name)
    if lines is None:
        return None
    have = record_lines(folder)
    if have < lines:
        raise ValueError(f"{folder} has {have} record lines, fewer than the {lines} this was "
                         "trained on: a different dataset")  # fmt: skip
    return None if have == lines else int(lines)


def load_graphs(root, config=None, cache_dir=".cache/graphs", progress: bool = False,
                hardware: str | None = None, networks=None, snapshot: dict | None = None):
    """Graphs of every distinct measured program under ``root``, with :class:`Sample` metadata.

    ``hardware`` and ``networks`` restrict the folders read (default: all; never mix hardware
    in one training set). ``snapshot`` (``{network: record lines}``, see :func:`record_lines`)
    reads those networks' record files only up to that line.

    Cached per network folder under ``cache_dir/<featurizer version>/``; a cache is rebuilt when
    the featurizer version or the database files' contents change.
    """
    import torch

    from .graph import FeaturizerConfig, pack_graphs, unpack_graphs

    config = config or FeaturizerConfig()
    folders = [(hw, net, f) for hw, net, f in network_folders(root)
               if (hardware is None or hw == hardware) and (networks is None or net in networks)]
    if progress:
        from tqdm import tqdm

        folders = tqdm(folders, desc="featurize", unit="network")
    all_graphs, all_samples = [], []
    for hw, net, folder in folders:
        max_line = snapshot_line(folder, snapshot)
        upto = "" if max_line is None else f"-upto{max_line}"
        cache = (Path(cache_dir) / f"{config.version()}-d{CACHE_FORMAT}" / hw
                 / f"{net}-{_contents_digest(folder)[:12]}{upto}.pt")  # fmt: skip
        if cache.exists():
            payload = torch.load(cache, weights_only=False)
            graphs, kept = unpack_graphs(payload["graphs"]), [Sample(**s) for s in payload["samples"]]
            for g, s in zip(graphs, kept):
                g.latency = torch.tensor(s.latency, dtype=torch.float64)
        else:
            graphs, kept, _ = _featurize_folder(folder, config, max_line)
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            torch.save({"graphs": pack_graphs(graphs), "samples": [s.__dict__ for s in kept]}, tmp)
            os.replace(tmp, cache)
        all_graphs += graphs
        all_samples += kept
    return all_graphs, all_samples


def split(samples_: list[Sample], by: str, test, seed: int = 0, test_fraction: float = 0.2):
    """Indices ``(train, test)``.

    ``by="network"``: ``test`` is a collection of network names. ``by="workload"``: a random
    ``test_fraction`` of workloads (``test`` ignored). ``by="random"``: a random ``test_fraction``
    of each workload's samples.
    """
    if by not in SPLITS:
        raise ValueError(f"unknown split {by!r}; choose one of {SPLITS}")
    rng = np.random.default_rng(seed)
    idx = np.arange(len(samples_))
    if by == "network":
        is_test = np.array([s.network in set(test) for s in samples_], dtype=bool)
    elif by == "workload":
        wls = sorted({s.shash for s in samples_})
        chosen = set(rng.choice(wls, size=max(1, round(len(wls) * test_fraction)), replace=False))
        is_test = np.array([s.shash in chosen for s in samples_], dtype=bool)
    else:
        is_test = np.zeros(len(samples_), dtype=bool)
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(samples_):
            groups.setdefault(s.shash, []).append(i)
        for members in groups.values():
            k = max(1, round(len(members) * test_fraction)) if len(members) > 1 else 0
            is_test[rng.choice(members, size=k, replace=False)] = True
    return idx[~is_test], idx[is_test]
