# Licensed under the Apache License, Version 2.0.
"""Ctrl-C and SIGTERM at any moment: one line, exit 130 (143), nothing left behind.

Letting ``KeyboardInterrupt`` unwind through MetaSchedule's search crashes the process (TVM's
worker threads and pools are torn down mid-call: "Segfault encountered") and prints
``PopenPoolExecutor.__del__`` traces. So a command does not unwind on a signal. It stops at once:

1. kills its child processes (build and run workers) and theirs;
2. removes the run's temporary folder (:func:`run_folder`, where every temporary file of the
   process and its workers lives) and every half-written file of :mod:`tvm_gnn.atomic` (the
   file it replaces stays as it was);
3. prints one line, with what was kept (:func:`on_interrupt_say`), and exits 130 (SIGINT) or
   143 (SIGTERM) without running TVM's destructors.

Python runs a signal handler only when the main thread comes back to Python, which TVM's search
can put off for many seconds; so the signal also wakes a watcher thread
(``signal.set_wakeup_fd``) that acts at once.

What was measured is already on disk: MetaSchedule's JSON database and ``collect`` append each
record as it is measured, and a cut last line is skipped on reading (``tvm-gnn collect``
resumes from it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

from .. import atomic, lock

_FOLDERS: list[Path] = []
_STATE = {"command": "tvm-gnn", "kept": ""}
_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
_ONCE = threading.Lock()


def install(command: str) -> None:
    """Handle SIGINT and SIGTERM for the rest of the process (``tvm-gnn COMMAND``)."""
    _STATE["command"] = f"tvm-gnn {command}"
    for sig in _NAMES:
        signal.signal(sig, _stop)
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read,), name="tvm-gnn-signals", daemon=True).start()


def _watch(read: int) -> None:
    while True:
        for signum in os.read(read, 64):
            if signum in _NAMES:
                _stop(signum, None)


def on_interrupt_say(text: str) -> None:
    """What the interrupt line adds about what was kept, e.g. where the records are."""
    _STATE["kept"] = text


@contextlib.contextmanager
def run_folder():
    """The run's own temporary folder, where everything temporary of the process goes.

    ``tempfile`` and ``TMPDIR`` point into it for the block, so the files of this process and of
    every child it starts (MetaSchedule's build folders, PyG's generated templates, TVM's exported
    modules) land there; the block's end, an exception or a signal (:func:`_stop`) removes it
    whole, so nothing is left in the system's temp folder.
    """
    path = Path(tempfile.mkdtemp(prefix="tvm-gnn-run-"))
    saved = tempfile.tempdir, os.environ.get("TMPDIR")
    _FOLDERS.append(path)
    tempfile.tempdir, os.environ["TMPDIR"] = str(path), str(path)
    try:
        yield path
    finally:
        tempfile.tempdir = saved[0]
        if saved[1] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved[1]
        shutil.rmtree(path, ignore_errors=True)
        _FOLDERS.remove(path)


@contextlib.contextmanager
def temporary_folder(prefix: str):
    """A temporary folder, removed when the block ends and also on Ctrl-C or SIGTERM."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    _FOLDERS.append(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        _FOLDERS.remove(path)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children first); [] if there is none or ``pid`` is gone."""
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _stop(signum, frame) -> None:
    if not _ONCE.acquire(blocking=False):
        threading.Event().wait()  # the other caller (handler or watcher) is stopping the process
    for pid in descendants(os.getpid()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for path in list(_FOLDERS):
        shutil.rmtree(path, ignore_errors=True)
    atomic.discard_in_flight()
    lock.release_all()
    kept = f"; {_STATE['kept']}" if _STATE["kept"] else ""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.write(f"\n{_STATE['command']}: interrupted ({_NAMES[signum]}){kept}\n")
        sys.stderr.flush()
    with contextlib.suppress(Exception):
        logging.shutdown()  # flush the log files
    os._exit(128 + signum)
