# Licensed under the Apache License, Version 2.0.
"""``data_raw/`` (what ``collect`` writes) to ``data/`` (gzip, committed) and back."""

from __future__ import annotations

import gzip
import io
import logging
from pathlib import Path

from .. import atomic
from ..errors import DataError
from ..lock import check_whole, one_writer, unfinished, was_cut
from .layout import (
    DB_FILES,
    META_FILES,
    check_root,
    count_lines,
    grown_manifest,
    gunzip,
    network_folders,
    read_tasks,
)

logger = logging.getLogger(__name__)


def unpack(packed_root, raw_root) -> list[str]:
    """Gunzip ``packed_root`` into ``raw_root`` where ``raw_root`` has no database yet.

    Run it before ``tvm-gnn collect`` on a machine without ``data_raw/``, so that collection
    resumes from the committed dataset instead of starting over. A folder whose last unpack was
    cut (:func:`tvm_gnn.lock.unfinished`) is unpacked again whole, never skipped; a folder
    another run is writing stops it (:class:`tvm_gnn.lock.FolderBusyError`).
    """
    packed, raw = Path(packed_root).resolve(), Path(raw_root).resolve()
    if packed == raw or packed in raw.parents or raw in packed.parents:
        raise ValueError(
            f"unpack into {raw_root} would write inside the packed dataset {packed_root} (or "
            "around it); give a raw folder of its own, e.g. data_raw"
        )
    folders = list(network_folders(check_root(packed_root, "packed dataset root")))
    behind = [
        str(Path(raw_root) / hw / net)
        for hw, net, folder in folders
        if _fewer_lines(Path(raw_root) / hw / net, folder)
    ]
    if behind:
        raise ValueError(
            f"{', '.join(behind)} hold fewer records than the packed copy; unpack would keep them "
            "as they are and pack would refuse them later: move them away, then unpack again"
        )
    written = []
    for hw, net, folder in folders:
        dest = Path(raw_root) / hw / net
        if was_cut(dest) is None and any((dest / f).exists() for f in DB_FILES):
            continue
        # every archive of the folder checked whole before any file lands
        try:
            plain = {
                f: gunzip(folder / (f + ".gz")) for f in DB_FILES if (folder / (f + ".gz")).exists()
            }
        except DataError as err:
            raise DataError(
                f"{err}; nothing of its folder was unpacked: run unpack again"
            ) from None
        with one_writer(dest, "tvm-gnn unpack"), unfinished(dest, "unpack"):
            for f in META_FILES:
                if (folder / f).exists():
                    atomic.write_bytes(dest / f, (folder / f).read_bytes())
            for f, data in plain.items():
                atomic.write_bytes(dest / f, data)
                written.append(str(dest / f))
    return written


def _fewer_lines(raw: Path, packed: Path) -> bool:
    """Whether a raw folder (not being unpacked again) holds fewer lines of a database than the
    packed folder's copy."""
    if was_cut(raw) is not None:
        return False
    return any(
        (raw / f).exists()
        and (packed / (f + ".gz")).exists()
        and count_lines(raw / f) < count_lines(packed / (f + ".gz"))
        for f in DB_FILES
    )


def pack(raw_root, out_root, force: bool = False) -> list[str]:
    """Gzip every database of ``raw_root`` into ``out_root`` (same layout), deterministically.

    Refuses (``ValueError``) to replace a packed file with one of fewer lines unless ``force``:
    a raw folder that started over must not overwrite what was measured before (``unpack``).
    A file whose packed bytes would not change is left untouched, mtime included, so the
    gunzipped copy that :func:`samples` reads (keyed by size and mtime) stays valid and
    git sees no change. A folder is marked while it is written (:func:`tvm_gnn.lock.unfinished`),
    so a cut pack is named by the readers and finished by the next pack; a raw folder that
    ``collect`` is writing stops it (:class:`tvm_gnn.lock.FolderBusyError`). Returns the files
    written.
    """
    for hw, net, folder in network_folders(check_root(raw_root, "raw dataset root")):
        check_whole(folder)
        dest = Path(out_root) / hw / net
        for f in DB_FILES:
            old = dest / (f + ".gz")
            if not force and (folder / f).exists() and old.exists():
                if count_lines(folder / f) < count_lines(old):
                    raise ValueError(
                        f"{folder / f} has fewer lines than {old}; run `tvm-gnn unpack` before "
                        "collecting on a new machine, or pass --force"
                    )
    written = []
    for hw, net, folder in network_folders(raw_root):
        dest = Path(out_root) / hw / net
        if was_cut(dest) is not None:
            logger.warning("%s: finishing the pack that was cut there", dest)
        with one_writer(folder, "tvm-gnn pack"), one_writer(dest, "tvm-gnn pack"):
            with unfinished(dest, "pack"):
                written += _pack_folder(folder, dest)
    return written


def _pack_folder(folder: Path, dest: Path) -> list[str]:
    written = []
    for f in DB_FILES:
        src = folder / f
        if not src.exists():
            continue
        gz = dest / (f + ".gz")
        packed = gzip_bytes(src, f)
        if gz.exists() and gz.stat().st_size == len(packed) and gz.read_bytes() == packed:
            continue
        atomic.write_bytes(gz, packed)
        written.append(str(gz))
    for f in META_FILES:
        if (folder / f).exists() and not _same_bytes(folder / f, dest / f):
            if f == "tasks.json" and (dest / f).exists():  # a record of the network's tasks
                raw = read_tasks(folder)
                tasks = grown_manifest(read_tasks(dest), raw)
                if tasks != raw:  # the raw one lost some: keep them
                    atomic.write_json(dest / f, tasks)
                    continue
            atomic.write_bytes(dest / f, (folder / f).read_bytes())
    return written


def gzip_bytes(src: Path, name: str) -> bytes:
    """``src`` gzipped, deterministically: level 9, no timestamp, and the header's file name that
    the committed files carry (they were written as ``NAME.gz.tmp`` and renamed)."""
    buf = io.BytesIO()
    data = src.read_bytes()
    if data and not data.endswith(b"\n"):  # a killed writer's cut last line: no record
        data = data[: data.rfind(b"\n") + 1]
        logger.warning("%s: its cut last line is left out of the packed copy", src)
    with gzip.GzipFile(
        filename=f"{name}.gz.tmp", fileobj=buf, mode="wb", compresslevel=9, mtime=0
    ) as z:
        z.write(data)
    return buf.getvalue()


def _same_bytes(a: Path, b: Path) -> bool:
    return b.exists() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
