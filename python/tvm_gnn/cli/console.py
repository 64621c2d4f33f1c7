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
from pathlib import Path

from .common import output_file


def tvm_logs_to(path) -> Path:
    """Send fd 2 (TVM's native output, inherited by the processes it starts) to ``path``
    (appended); ``sys.stderr`` and the log handlers writing to it stay on the terminal."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    log_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    sys.stderr.flush()
    terminal = os.fdopen(os.dup(2), "w", buffering=1, encoding=sys.stderr.encoding)
    old = sys.stderr
    os.dup2(log_fd, 2)
    os.close(log_fd)
    sys.stderr = terminal
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is old:
            handler.setStream(terminal)
    return path


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
