# Licensed under the Apache License, Version 2.0.
"""``data_raw/`` (what ``collect`` writes) to ``data/`` (gzip, committed) and back."""

from __future__ import annotations

import gzip
import io
import shutil
from pathlib import Path

from .. import atomic
from ..errors import DataError
from .layout import DB_FILES, META_FILES, check_root, count_lines, gunzip, network_folders


def unpack(packed_root, raw_root) -> list[str]:
    """Gunzip ``packed_root`` into ``raw_root`` where ``raw_root`` has no database yet.

    Run it before ``tvm-gnn collect`` on a machine without ``data_raw/``, so that collection
    resumes from the committed dataset instead of starting over.
    """
    written = []
    for hw, net, folder in network_folders(check_root(packed_root, "packed dataset root")):
        dest = Path(raw_root) / hw / net
        if any((dest / f).exists() for f in DB_FILES):
            continue
        # every archive of the folder checked whole before any file lands: a cut .gz must not
        # leave a half-unpacked folder that a second unpack would skip and collect resume from
        try:
            plain = {
                f: gunzip(folder / (f + ".gz")) for f in DB_FILES if (folder / (f + ".gz")).exists()
            }
        except DataError as err:
            raise DataError(
                f"{err}; nothing of its folder was unpacked: run unpack again"
            ) from None
        for f in META_FILES:  # meta files first: the database files mark the folder as unpacked
            if (folder / f).exists():
                atomic.write_bytes(dest / f, (folder / f).read_bytes())
        for f, data in plain.items():
            atomic.write_bytes(dest / f, data)
            written.append(str(dest / f))
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
    for hw, net, folder in network_folders(check_root(raw_root, "raw dataset root")):
        dest = Path(out_root) / hw / net
        for f in DB_FILES:
            old = dest / (f + ".gz")
            if not force and (folder / f).exists() and old.exists():
                if count_lines(folder / f) < count_lines(old):
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
            gz = dest / (f + ".gz")
            packed = gzip_bytes(src, f)
            if gz.exists() and gz.stat().st_size == len(packed) and gz.read_bytes() == packed:
                continue
            atomic.write_bytes(gz, packed)
            written.append(str(gz))
        for f in META_FILES:
            if (folder / f).exists() and not _same_bytes(folder / f, dest / f):
                atomic.write_bytes(dest / f, (folder / f).read_bytes())
    return written


def gzip_bytes(src: Path, name: str) -> bytes:
    """``src`` gzipped, deterministically: level 9, no timestamp, and the header's file name that
    the committed files carry (they were written as ``NAME.gz.tmp`` and renamed)."""
    buf = io.BytesIO()
    with open(src, "rb") as s:
        with gzip.GzipFile(
            filename=f"{name}.gz.tmp", fileobj=buf, mode="wb", compresslevel=9, mtime=0
        ) as z:
            shutil.copyfileobj(s, z)
    return buf.getvalue()


def _same_bytes(a: Path, b: Path) -> bool:
    return b.exists() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
