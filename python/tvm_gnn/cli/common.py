# Licensed under the Apache License, Version 2.0.
"""What every command shares: the usage error, argument types and target options."""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path

from .. import atomic, space


class UsageError(Exception):
    """A mistake in the command line or its inputs; printed without a traceback."""


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose mistakes are one line (argparse prints the whole usage, which
    for ``collect`` is ten lines before the one that says what is wrong), exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


#: The largest count an option takes: TVM keeps many counts (a search's population, its
#: trials) in C ``int`` fields, and a value past int64 ends in a ``TypeError`` in its FFI.
INT_MAX = 2**31 - 1


def int_in(low: int, high: int = INT_MAX, what: str | None = None):
    """An argparse type: an integer from ``low`` to ``high`` (``what`` names the kind)."""
    what = what or f"an integer in [{low}, {high}]"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value

    parse.low, parse.high = low, high  # what the option tests read the bounds from
    return parse


#: a count: trials, epochs, candidates, workers
positive_int = int_in(1, what=f"a positive integer up to {INT_MAX}")
positive_int.__name__ = "positive_int"
#: a duration or a count that may be zero
non_negative_int = int_in(0, what=f"an integer from 0 to {INT_MAX}")
non_negative_int.__name__ = "non_negative_int"
#: a random seed: what numpy, torch and TVM all take
seed_int = int_in(0, INT_MAX, what=f"a seed from 0 to {INT_MAX}")
seed_int.__name__ = "seed_int"


def host_port(text: str) -> str:
    """An argparse type: ``HOST:PORT`` with a port from 1 to 65535 (the runner's own check,
    :func:`tvm_gnn.measure.runner.tracker_address`, made at parse time)."""
    from ..measure.runner import tracker_address

    try:
        tracker_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT with a port in 1-65535, got {text!r}"
        ) from None
    return text


def folder_name(text: str) -> str:
    """An argparse type: a name for one folder (letters, digits, ``.``, ``_``, ``-``; no path)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", text):
        raise argparse.ArgumentTypeError(
            f"expected a folder name of letters, digits, '.', '_' and '-', got {text!r}"
        )
    return text


def device(text: str) -> str:
    """An argparse type: a torch device this machine has (torch loads only when given)."""
    from ..nn.device import check_device

    try:
        check_device(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def number_in(low: float, high: float, *, low_open: bool = True, high_open: bool = False):
    """An argparse type: a finite float in the interval from ``low`` to ``high``."""
    span = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text!r}") from None
        above = low < value if low_open else low <= value
        below = value < high if high_open else value <= high
        if not (above and below and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {text}")
        return value

    parse.low, parse.high, parse.low_open, parse.high_open = low, high, low_open, high_open
    return parse


fraction = number_in(0.0, 1.0)
#: a share that may be none or all
share = number_in(0.0, 1.0, low_open=False)
non_negative = number_in(0.0, math.inf, low_open=False, high_open=True)


def workload_name(text: str) -> str:
    from ..measure.workloads import WORKLOADS

    if text not in WORKLOADS:
        raise argparse.ArgumentTypeError(
            f"unknown workload {text!r}; choose one of {', '.join(sorted(WORKLOADS))}"
        )
    return text


def hardware_args(
    p,
    hardware_help: str = "hardware folder",
    hardware_default: str = "the only one, or else this machine's",
) -> None:
    """``--data`` and ``--hardware``: which folder of a dataset a command (or benchmark) reads;
    :func:`resolved_hardware` turns them into the folder's name."""
    p.add_argument(
        "--data",
        type=input_folder,
        default="data",
        help="dataset root, raw or packed (default: data)",
    )
    p.add_argument(
        "--hardware", default=None, help=f"{hardware_help} (default: {hardware_default})"
    )


def resolved_hardware(parser, args, recorded: str | None = None) -> str:
    """The hardware folder ``args.data`` and ``args.hardware`` name
    (:func:`tvm_gnn.dataset.resolve_hardware`); ``parser.error`` (a usage line, exit 2) where
    there is none."""
    from ..dataset import resolve_hardware

    try:
        return resolve_hardware(args.data, args.hardware, recorded)
    except ValueError as err:
        parser.error(str(err))


def dataset_args(
    p,
    *,
    hardware_help: str,
    held_out_help: str,
    hardware_default: str = "the only one, or else this machine's",
) -> None:
    """``--data``, ``--hardware`` and ``--held-out``, for the commands that read the dataset."""
    from ..dataset.splits import HELD_OUT

    hardware_args(p, hardware_help, hardware_default)
    p.add_argument(
        "--held-out",
        nargs="+",
        default=list(HELD_OUT),
        help=f"{held_out_help} (default: {' '.join(HELD_OUT)})",
    )


def target_args(p, tuner: bool = False, rpc: bool = False) -> None:
    """``--target`` and ``--num-cores``; with ``tuner``, :func:`tuner_option` (and ``rpc``)."""
    if tuner:
        tuner_option(p, rpc)
    p.add_argument(
        "--target",
        default="llvm",
        help="TVM target: 'llvm' (this CPU, generic x86-64 code), 'cuda' (the GPU present, its "
        "limits read from the device), a tag such as nvidia/nvidia-h100, or any JSON target "
        'TVM accepts, such as \'{"kind": "llvm", "mcpu": "native"}\' (this CPU\'s own '
        "instruction set; mcpu names it, or any CPU LLVM knows, such as znver4; an llvm target "
        "without num-cores gets --num-cores; one naming mcpu or mattr has its own dataset "
        "folder) (default: llvm)",
    )
    p.add_argument(
        "--num-cores",
        type=positive_int,
        default=None,
        help="cores for an llvm target (default: all)",
    )


def _writable_folder(folder: Path) -> str | None:
    """Why files cannot be made in ``folder`` (created if missing, so the nearest existing
    ancestor decides), or None if they can: not a folder, read-only, a name the file system
    refuses, too little free space."""
    why = space.name_problem(folder)
    if why:
        return why
    probe = folder
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        return f"{_shown(probe)} is a file, not a folder"
    if atomic.refuses_files(probe):
        return f"{probe} takes no new files (read-only, or a special filesystem such as /proc)"
    return space.room_problem(folder)


def output_file(text: str) -> Path:
    """An argparse type: a file this command can write, checked before any work starts."""
    path = Path(text)
    why = space.name_problem(path)  # first: a name the OS refuses fails every other question
    if why:
        raise argparse.ArgumentTypeError(f"cannot write {_shown(path)}: {why}")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(path)} is a folder, not a file")
    if path.exists() and not (os.access(path, os.W_OK) and path.stat().st_mode & 0o222):
        raise argparse.ArgumentTypeError(f"{_shown(path)} is read-only; chmod it or name another")
    if path.exists() and not path.is_file():  # a device or a pipe: written through, not replaced
        return path
    why = _writable_folder(path.parent)
    if why:
        raise argparse.ArgumentTypeError(f"cannot write {_shown(path)}: {why}")
    return path


def plot_file(text: str) -> Path:
    """An argparse type: :func:`output_file` named for an image format (PNG without a suffix)."""
    path, fmt = output_file(text), Path(text).suffix[1:].lower()
    if fmt and fmt not in atomic.PLOT_FORMATS:
        raise argparse.ArgumentTypeError(f"{text}: plots are {', '.join(atomic.PLOT_FORMATS)}")
    return path


def document_file(text: str) -> Path:
    """An argparse type: a markdown file whose generated sections a command rewrites (it is
    read, then replaced): a regular file or none yet, never a pipe or a device, which reading
    would block on or consume."""
    path = output_file(text)
    if path.exists() and not path.is_file():
        raise argparse.ArgumentTypeError(
            f"{_shown(path)} is not a regular file; its sections are read and rewritten, so give "
            "a markdown file"
        )
    return path


def output_folder(text: str) -> Path:
    """An argparse type: a folder this command can create or write into, checked up front."""
    path = Path(text)
    why = space.name_problem(path)
    if why:
        raise argparse.ArgumentTypeError(f"cannot write into {_shown(path)}: {why}")
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(path)} is a file, not a folder")
    why = _writable_folder(path)
    if why:
        raise argparse.ArgumentTypeError(f"cannot write into {_shown(path)}: {why}")
    return path


def check_output_folder(path) -> None:
    """:class:`UsageError` if ``path`` cannot take a run's files (what :func:`output_folder`
    checks, for a folder a command names itself, such as ``tune``'s default work dir)."""
    try:
        output_folder(str(path))
    except argparse.ArgumentTypeError as err:
        raise UsageError(str(err)) from None


def _shown(path: Path) -> str:
    """``path`` as a message can print it (a name that is not UTF-8 shows its bytes escaped)."""
    shown = os.fsencode(path).decode("utf-8", "backslashreplace")
    return shown if len(shown) <= 80 else f"{shown[:40]}...{shown[-20:]}"


def input_file(text: str) -> str:
    """An argparse type: a file to read (a checkpoint, a JSON file) that exists and is one."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder; give a file in it")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{path} does not exist")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{path} is not a regular file")
    return text


def input_folder(text: str) -> str:
    """An argparse type: a folder to read (a dataset root) that, if it exists, is a folder; the
    command says when it does not exist (a default such as ``data`` may be absent)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is not a folder")
    return text


def require_metaschedule() -> None:
    from ..tvm_compat import LEGACY, VERSION

    if LEGACY:
        raise UsageError(
            f"this environment has TVM {VERSION}, which has Ansor, not tvm_gnn's MetaSchedule "
            "line: tune and collect take --tuner ansor here (docs/ansor.md)"
        )


def train_config(args):
    """The ``TrainConfig`` of ``tvm-gnn train``'s options (both tuners')."""
    from ..nn.config import TrainConfig

    return TrainConfig(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        mse_weight=args.mse_weight,
        loss=args.loss,
        patience=args.patience,
        label_noise=args.label_noise,
        aux_weight=args.aux_store_features,
        seed=args.seed,
        device=args.device,
    )


def tuner_option(p, rpc: bool = False) -> None:
    """``--tuner``; with ``rpc``, ``--rpc-tracker`` and ``--rpc-key`` (Ansor's)."""
    p.add_argument(
        "--tuner",
        choices=("metaschedule", "ansor"),
        default="metaschedule",
        help="metaschedule (TVM 0.26/0.27) or ansor (TVM 0.19's environment, docs/ansor.md)",
    )
    if rpc:
        p.add_argument(
            "--rpc-tracker",
            type=host_port,
            default=None,
            metavar="HOST:PORT",
            help="measure on devices registered with this TVM RPC tracker (--tuner ansor)",
        )
        p.add_argument("--rpc-key", default=None, help="device key at the RPC tracker")
