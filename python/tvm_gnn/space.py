# Licensed under the Apache License, Version 2.0.
"""Room on disk for what a run writes: checked before the work starts, watched while it runs,
and what a run made kept somewhere when its own file system fills anyway.

- :func:`room_problem` and :func:`name_problem`: why an output cannot be made (too little free
  space, a name the file system refuses), asked before any work;
- :func:`stop_if_full`: a :class:`~tvm_gnn.errors.DiskFullError` as soon as a file system that
  records are going to has (almost) nothing left, naming where what was measured is kept;
- :func:`rescue`: a file that could not be written where asked (a full disk), written to the
  first place that takes it instead.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .atomic import FULL_BELOW
from .errors import DiskFullError

#: what an output's file system must have free before a run starts writing to it
MIN_FREE = 64 * 2**20
#: below this, a file system that records go to counts as full: the run stops and says so
FLOOR = FULL_BELOW
#: the errors of a file system that takes no more data
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def _existing(path: Path) -> Path:
    path = Path(os.path.abspath(path))
    while not os.path.exists(path):  # False, not an error, for a name too long to ask about
        path = path.parent
    return path


def free_bytes(path) -> int:
    """Bytes free to this user on the file system that holds ``path`` (or would: the nearest
    existing folder above it decides)."""
    st = os.statvfs(_existing(Path(path)))
    return st.f_bavail * st.f_frsize


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n < 10 * 2**20 else f"{n // 2**20:,} MiB"


def room_problem(path, need: int = MIN_FREE) -> str | None:
    """Why ``path`` has too little room to write into (a sentence), or None."""
    try:
        free = free_bytes(path)
    except OSError:
        return None  # a file system that does not say: the write itself will
    if free >= need:
        return None
    return f"its file system has {_mib(free)} free; a run needs at least {_mib(need)}"


def name_problem(path) -> str | None:
    """Why the file system would refuse a name on ``path`` that does not exist yet (not UTF-8,
    longer than the file system allows), or None."""
    path = Path(path)
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return "the name is not valid UTF-8; give a name in UTF-8"
    base = _existing(path)
    try:
        longest = os.pathconf(base, "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    for part in path.parts:
        if len(os.fsencode(part)) > longest:
            return (
                f"a name in it is {len(os.fsencode(part))} bytes long; this file system takes "
                f"names of at most {longest} bytes"
            )
    return None


def is_full(err: BaseException) -> bool:
    """Whether ``err`` says a file system is full (or a quota is used up)."""
    return isinstance(err, OSError) and err.errno in FULL_ERRNOS


def stop_if_full(path, kept: str) -> None:
    """:class:`~tvm_gnn.errors.DiskFullError` if the file system of ``path`` has less than
    :data:`FLOOR` free; ``kept`` says what is kept where (the message's end)."""
    try:
        free = free_bytes(path)
    except OSError:
        return
    if free < FLOOR:
        raise DiskFullError(f"the file system of {path} is full ({_mib(free)} free): {kept}")


def _rescue_folders() -> list[Path]:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [cache / "tvm_gnn" / "rescued", Path.cwd(), Path("/var/tmp")]


def rescue(path, write, what: str) -> None:
    """``write(path)``; where ``path``'s file system is full, ``write`` to the first other place
    that takes it (the user's cache, the working folder, ``/var/tmp``), then
    :class:`~tvm_gnn.errors.DiskFullError` saying where the ``what`` went."""
    path = Path(path)
    try:
        write(path)
        return
    except OSError as err:
        if not is_full(err):
            raise
    for folder in _rescue_folders():
        other = folder / path.name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.stat(folder).st_dev == os.stat(_existing(path.parent)).st_dev:
                continue  # the same full file system
            write(other)
        except OSError:
            continue
        raise DiskFullError(
            f"no space left on the file system of {path}; the {what} was saved to {other} "
            "instead (move it where you want it)"
        )
    raise DiskFullError(
        f"no space left on the file system of {path}, nor anywhere else to keep the {what}"
    )
