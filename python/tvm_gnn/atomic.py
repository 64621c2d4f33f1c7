# Licensed under the Apache License, Version 2.0.
"""Files that land whole: every writer of the package writes aside and renames.

A process killed mid-write leaves the previous file (or none), never a cut one. What is written
onto is respected: a link's target is the file replaced, not the link, and a target that exists
and is not a regular file (a device such as ``/dev/null``, a named pipe) is written through, never
replaced by a regular file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import tempfile
from pathlib import Path

#: below this many free bytes a file system counts as full (:mod:`tvm_gnn.space` reads it too)
FULL_BELOW = 2**20
#: temporary files being written now; removed by :func:`discard_in_flight` on a signal
_IN_FLIGHT: set[str] = set()


def make_parents(path) -> None:
    """Create the folders ``path`` goes in; where one of them is a file, an error that says so
    (not "File exists" or "Not a directory")."""
    path = Path(path)
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"cannot write {path}: {folder} is a file, not a folder")
    path.parent.mkdir(parents=True, exist_ok=True)


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = None):
    """Open a temporary file beside ``path``; when the block ends without an error, flush it to
    disk and rename it to ``path``. On an error (Ctrl-C included) the temporary file is removed
    and ``path`` is untouched. Folders are created."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', got {mode!r}")
    path = Path(os.path.realpath(path))  # a link: its target is what gets replaced
    if path.exists() and not path.is_file():
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder, not a file")
        # a device or a pipe: written through, as a plain open() would; there is nothing to swap
        with open(path, mode, encoding=encoding if mode == "w" else None) as f:
            yield f
        return
    make_parents(path)
    # the temporary name stays within the file system's limit where the name itself is near it
    prefix = f".{path.name}." if len(os.fsencode(path.name)) <= 200 else ".tvm-gnn-write."
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    except OSError as err:
        raise OSError(err.errno, err.strerror, str(path)) from None  # the file asked for
    _IN_FLIGHT.add(tmp)
    try:
        with os.fdopen(fd, mode, encoding=encoding if mode == "w" else None) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is not what a saved file should have
        os.replace(tmp, path)
    except BaseException as err:
        full = _nearly_full(path.parent)  # before the temporary file's space is given back
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.errno is not None and err.filename in (tmp, None):
            raise OSError(err.errno, err.strerror, str(path)) from None  # not the temporary name
        if full and isinstance(err, Exception) and not isinstance(err, OSError):
            # a writer that wraps the OSError (torch.save raises RuntimeError): what it was
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path)) from None
        raise
    finally:
        _IN_FLIGHT.discard(tmp)


def _nearly_full(folder: Path) -> bool:
    """Whether ``folder``'s file system has less than :data:`FULL_BELOW` free (a write there
    failed)."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < FULL_BELOW


def refuses_files(folder) -> OSError | None:
    """Why ``folder`` (an existing folder) takes no new file, or None if it does. It asks the
    folder itself by making one: as root, permission bits say yes to ``/proc``, read-only mounts
    and ``chattr +i`` folders."""
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        return err
    return None


def discard_in_flight() -> None:
    """Remove the temporary files of writes still under way (a process stopping on a signal,
    which exits without unwinding): the files they would have replaced stay as they were."""
    for tmp in list(_IN_FLIGHT):
        Path(tmp).unlink(missing_ok=True)


def write_text(path, text: str) -> None:
    """``text`` (UTF-8) at ``path``, atomically."""
    with atomic_open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_bytes(path, data: bytes) -> None:
    """``data`` at ``path``, atomically."""
    with atomic_open(path, "wb") as f:
        f.write(data)


#: the image formats a plot is written in, by the name's suffix (none: PNG)
PLOT_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg")


def save_figure(fig, path, dpi: int) -> None:
    """A matplotlib figure at exactly ``path`` (matplotlib alone would write ``NAME.png`` for a
    name without a suffix, beside a device or pipe given as the name), atomically."""
    fmt = Path(str(path)).suffix[1:].lower() or "png"
    with atomic_open(path, "wb") as f:
        fig.savefig(f, dpi=dpi, format=fmt)


def write_json(path, obj, indent: int = 1) -> None:
    """``obj`` as indented JSON at ``path``, atomically; a NaN or infinite number is written as
    ``null`` (JSON has no such numbers, and most readers refuse Python's ``NaN``)."""
    write_text(path, json.dumps(finite(obj), indent=indent, allow_nan=False) + "\n")


def finite(obj):
    """``obj`` with every float that is not finite replaced by None, through dicts, lists and
    tuples (numpy scalars included)."""
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if isinstance(obj, float) or type(obj).__name__ in ("float32", "float64"):
        return float(obj) if math.isfinite(obj) else None
    return obj
