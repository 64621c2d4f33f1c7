# Licensed under the Apache License, Version 2.0.
"""Where the measured dataset lives and how a folder of it is read.

Layout (``docs/dataset.md``)::

    <root>/<hardware>/<network>/database_workload.json[.gz]
                               /database_tuning_record.json[.gz]
                               /tasks.json          # task name, workload shash, weight
                               /provenance.jsonl    # one line per collect run
                               /exhausted.json      # workloads whose design space is measured
                               /shared.json         # tasks left to another network's folder
                               /workload_scripts.json.gz  # the workloads as TVMScript

``data_raw/`` (uncompressed, where ``tvm-gnn collect`` writes) and ``data/`` (gzip, committed) have
the same layout.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

from .. import atomic
from ..errors import DataError
from ..jsonfile import read_json
from ..lock import check_whole
from . import dbfile
from .workloads import SCRIPT_FILE

logger = logging.getLogger(__name__)


DB_FILES = (dbfile.WORKLOAD_FILE, dbfile.RECORD_FILE)


#: what a network folder keeps beside its databases, copied as they are by ``pack`` and
#: ``unpack`` (the workloads' scripts too, which TVM 0.27 needs to read 0.26's workloads)
META_FILES = ("tasks.json", "provenance.jsonl", "exhausted.json", "shared.json", SCRIPT_FILE)


def is_db_folder(folder: Path) -> bool:
    return folder.is_dir() and any(
        (folder / f).exists() or (folder / (f + ".gz")).exists() for f in DB_FILES
    )


def network_folders(root) -> Iterator[tuple[str, str, Path]]:
    """``(hardware, network, folder)`` for every database folder under ``root``."""
    for folder in sorted(Path(root).glob("*/*")):
        if is_db_folder(folder):
            yield folder.parent.name, folder.name, folder


def check_root(root, what: str = "dataset root") -> Path:
    """``root`` if it is a dataset root (``HARDWARE/NETWORK/database_*.json[.gz]`` below it).

    Raises :class:`~tvm_gnn.errors.DataError` saying what layout was expected: for a path that
    does not exist or is not a folder, one without any database, and one a level or two too deep
    (a hardware or a network folder, with the root to pass instead).
    """
    root = Path(root)
    layout = f"expected {root}/HARDWARE/NETWORK/database_*.json[.gz], as `tvm-gnn collect` writes"
    if not root.exists():
        raise DataError(f"{what} {root} does not exist ({layout})")
    if not root.is_dir():
        raise DataError(f"{what} {root} is not a folder ({layout})")
    if any(network_folders(root)):
        return root
    if is_db_folder(root):
        raise DataError(
            f"{root} is one network's folder; pass the dataset root, {root.parent.parent}"
        )
    if any(is_db_folder(f) for f in root.iterdir()):
        raise DataError(f"{root} is a hardware folder; pass the dataset root, {root.parent}")
    raise DataError(f"no dataset under {what} {root} ({layout})")


def contents_digest(folder: Path) -> str:
    """sha1 over a network folder's database files, plain or gzipped, by name and contents: what
    the gunzipped copy and the graph cache are keyed by, so a copied or re-cloned dataset keeps
    them and other contents never reuse them."""
    stamp = hashlib.sha1()
    for f in DB_FILES:
        p = folder / f if (folder / f).exists() else folder / (f + ".gz")
        stamp.update(f"{p.name}:".encode() + hashlib.sha1(p.read_bytes()).digest())
    return stamp.hexdigest()


def open_db_folder(folder: Path) -> Path:
    """A folder with plain JSON files: ``folder`` itself, or a cache of its gunzipped files.

    The cache is keyed by the packed files' contents, and each file lands whole (written aside,
    then renamed), so a run killed while gunzipping or a checkout with other contents never
    reads a cut or stale copy. It lives in :func:`user_cache`, not the temp folder: a command's
    temp folder is its own and goes when it ends (:func:`tvm_gnn.cli.signals.run_folder`)."""
    check_whole(folder)
    if all((folder / f).exists() for f in DB_FILES):
        return folder
    out = user_cache("db") / contents_digest(folder)[:16]
    out.mkdir(parents=True, exist_ok=True)
    for f in DB_FILES:
        if not (out / f).exists():
            atomic.write_bytes(out / f, gunzip(folder / (f + ".gz")))
    return out


def user_cache(*parts: str) -> Path:
    """``$XDG_CACHE_HOME/tvm_gnn/PARTS`` (``~/.cache`` without it): what is kept between runs to
    save time and may be deleted at any moment."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base, "tvm_gnn", *parts)


def gunzip(path: Path) -> bytes:
    """The whole contents of ``path``; :class:`~tvm_gnn.errors.DataError` naming it if it is cut
    or corrupt (gzip checks the length and CRC of every member at its end)."""
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (EOFError, OSError, zlib.error) as err:  # BadGzipFile is an OSError
        raise DataError(
            f"{path} is cut or corrupt, not a whole gzip file ({err}); restore it from git "
            f"(`git checkout -- {path}`)"
        ) from None


def count_lines(path: Path) -> int:
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
            return count_lines(folder / name)
    return 0


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
        raise ValueError(
            f"{folder} has {have} record lines, fewer than the {lines} this was "
            "trained on: a different dataset"
        )
    return None if have == lines else int(lines)


def folder_caches(
    root,
    cache_dir,
    kind: str,
    suffix: str,
    *,
    hardware: str | None = None,
    networks=None,
    snapshot: dict | None = None,
    progress: str | None = None,
) -> Iterator[tuple[str, Path, int | None, Path]]:
    """``(network, folder, max_line, cache file)`` for each database folder under ``root`` that
    ``hardware`` and ``networks`` select (default: all), read as ``snapshot`` saw it
    (:func:`snapshot_line`).

    The cache file, ``cache_dir/kind/HARDWARE/NETWORK-<contents digest>[-uptoN]SUFFIX``, changes
    with the database files' contents and the snapshot's line. ``progress``: a progress bar with
    that label.
    """
    folders = [
        (hw, net, f)
        for hw, net, f in network_folders(root)
        if (hardware is None or hw == hardware) and (networks is None or net in networks)
    ]
    if progress:
        from tqdm import tqdm

        folders = tqdm(folders, desc=progress, unit="network")
    for hw, net, folder in folders:
        max_line = snapshot_line(folder, snapshot)
        upto = "" if max_line is None else f"-upto{max_line}"
        name = f"{net}-{contents_digest(folder)[:12]}{upto}{suffix}"
        yield net, folder, max_line, Path(cache_dir) / kind / hw / name


def hardware_names(root) -> list[str]:
    """Hardware folders under ``root``."""
    return sorted({hw for hw, _, _ in network_folders(root)})


def resolve_hardware(root, hardware: str | None = None, recorded: str | None = None) -> str:
    """``hardware`` checked against ``root``, or the only hardware folder there, or else
    ``recorded`` (the hardware a checkpoint trained on) where ``root`` has it, or else this
    machine's own folder (``llvm-<cpu>-<cores>c``, as ``collect`` names it) where ``root`` has it.

    Raises ``ValueError`` naming what is there when there is no dataset, several hardware folders
    and none of them chosen, recorded or this machine's, or the chosen one is missing.
    """
    names = hardware_names(check_root(root))
    if hardware is None:
        if len(names) == 1:
            return names[0]
        if recorded in names:
            return recorded
        here = this_machine()
        if here in names:
            return here
        raise ValueError(f"{root} holds hardware {names}; choose one with --hardware")
    if hardware not in names:
        raise ValueError(f"no hardware folder {hardware!r} under {root} (found {names})")
    return hardware


def this_machine() -> str:
    """The folder ``collect`` writes this machine's plain ``llvm`` records into by default."""
    from ..measure.hardware import cpu_folder, usable_cores

    return cpu_folder(usable_cores())


def training_networks(root, hardware: str, held_out) -> list[str]:
    """Networks of ``root/hardware`` that are not in ``held_out``, sorted."""
    return sorted(
        {net for hw, net, _ in network_folders(root) if hw == hardware and net not in set(held_out)}
    )


#: Workloads (structural hashes) whose design space was measured completely, so reruns skip them.
EXHAUSTED_FILE = "exhausted.json"


def read_tasks(folder: Path) -> list[dict]:
    """A folder's ``tasks.json`` (name, shash and weight of each task ``collect`` extracted);
    empty if the folder has none."""
    path = Path(folder) / "tasks.json"
    return read_json(path) if path.exists() else []


def grown_manifest(old: list[dict], new: list[dict]) -> list[dict]:
    """``tasks.json`` after an extraction: every task ``old`` had, in its order, with its name
    and weight as ``new`` has them, then the tasks new to ``new``. It never loses a task: a run
    limited by ``--max-tasks``, or an extraction by another TVM, leaves the record of what the
    network has whole."""
    fresh = {t["shash"]: t for t in new}
    kept = [fresh.get(t["shash"], t) for t in old]
    known = {t["shash"] for t in old}
    return kept + [t for t in new if t["shash"] not in known]


#: Workloads ``collect --skip-shared`` left to another network's folder: shash -> that network.
SHARED_FILE = "shared.json"


def read_shared(folder: Path) -> dict[str, str]:
    """The workloads a folder's ``shared.json`` leaves to other networks (shash -> network);
    empty if none."""
    path = Path(folder) / SHARED_FILE
    return read_json(path) if path.exists() else {}


def read_provenance(folder: Path) -> list[dict]:
    """The runs a folder's ``provenance.jsonl`` records, one dict a readable line, in order; a
    line that is not a JSON object (a run killed while writing it) is left out."""
    path = Path(folder) / "provenance.jsonl"
    runs = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            run = json.loads(line)
        except ValueError:
            continue
        if isinstance(run, dict):
            runs.append(run)
    return runs


def read_exhausted(folder: Path) -> set:
    """The workloads (structural hashes) a folder's ``exhausted.json`` lists; empty if none."""
    path = folder / EXHAUSTED_FILE
    try:
        return set(json.loads(path.read_text())) if path.exists() else set()
    except ValueError:
        logger.warning("%s is corrupt; searching every task again", path)
        return set()
