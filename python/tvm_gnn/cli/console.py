# Licensed under the Apache License, Version 2.0.
"""A readable console: progress bars and results on the terminal, TVM's logs in a file.

Without ``-v``, a command that tunes or measures sends what TVM prints on its own (C++ warnings,
its worker processes' output) to a log file, by pointing file descriptor 2 at it: Python's own
``sys.stderr`` (progress bars, warnings of tvm_gnn, errors) keeps the terminal. MetaSchedule's
task-scheduler tables go to ``WORK_DIR/logs/`` as always, and no longer to the console
(:func:`tvm_gnn.tune.workload.metaschedule_console_level`). With ``-v`` nothing is redirected.
"""

from __future__ import annotations

import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from .common import output_file


def tvm_logs_to(path) -> Path:
    """Send fd 2 (TVM's native output, inherited by the processes it starts) to ``path``
    (appended); ``sys.stderr`` and the log handlers writing to it stay on the terminal."""
    path = Path(path)
    _point_fd2_at(path)
    return path


@contextmanager
def tvm_logs_during(path):
    """:func:`tvm_logs_to` for the block only: fd 2, ``sys.stderr`` and the log handlers are as
    before after it. For a command that runs TVM in-process for a while and then prints
    (``dataset-stats --would-add``), and so for tests that call :func:`tvm_gnn.cli.main`."""
    path = Path(path)
    saved_fd2, old = os.dup(2), sys.stderr
    try:
        swapped = _point_fd2_at(path)
    except BaseException:
        os.close(saved_fd2)
        raise
    try:
        yield path
    finally:
        sys.stderr.flush()
        os.dup2(saved_fd2, 2)
        os.close(saved_fd2)
        if swapped is not None:
            for handler in logging.getLogger().handlers:
                if isinstance(handler, logging.StreamHandler) and handler.stream is swapped:
                    handler.setStream(old)
            sys.stderr = old
            swapped.close()


def _point_fd2_at(path: Path):
    """fd 2 to ``path`` (appended). Where ``sys.stderr`` wrote to fd 2, it (and the log handlers
    on it) now writes to a copy of the old fd 2, returned; else (a test's capture) it is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    log_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    old = sys.stderr
    old.flush()
    try:
        on_fd2 = old.fileno() == 2
    except (AttributeError, OSError, ValueError):  # pytest's capsys, a StringIO
        on_fd2 = False
    terminal = None
    if on_fd2:
        terminal = os.fdopen(os.dup(2), "w", buffering=1, encoding=old.encoding)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    if terminal is not None:
        sys.stderr = terminal
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is old:
                handler.setStream(terminal)
    return terminal


def log_option(p, default: str) -> None:
    """``--log-file`` for a command that tunes or measures."""
    p.add_argument(
        "--log-file",
        type=output_file,
        default=None,
        help=f"where TVM's own output goes unless -v (appended; default: {default})",
    )


def route_tvm_logs(args, default) -> None:
    """Unless ``-v``, send TVM's output to ``--log-file`` (or ``default``) and say where."""
    if args.verbose:
        return
    path = tvm_logs_to(args.log_file or default)
    print(f"TVM's logs: {path}", flush=True)
